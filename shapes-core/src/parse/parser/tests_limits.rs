//! The parser's limits: nesting is capped (an error, never a stack overflow), and the work
//! of a parse, counted in tokens consumed (rewinds included), stays linear in the input
//! however its backtracking points nest.

use super::*;

/// Runs `f` on a thread with a small stack: deep inputs must fail cleanly, not overflow.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn nesting_is_capped() {
    on_small_stack(|| {
        let deep = |open: &str, mid: &str, close: &str, n: usize| {
            format!("{}{mid}{}", open.repeat(n), close.repeat(n))
        };
        let limit = "less deeply nested input";
        for input in [
            deep("(", "a", ")", 10_000),
            deep("(a → ", "a", ")", 10_000),
            deep("(D ", "a", ",)", 10_000),
            format!(
                "{{ a | {}a = 1{} }}",
                "(".repeat(10_000),
                ")".repeat(10_000)
            ),
            deep("{ ", "a", " | a = 1 }", 10_000),
            deep("", "a", "", 0) + &" → a".repeat(10_000),
            format!("({},)", ["a"; 10_000].join(" + ")),
            "/¹".repeat(10_000) + "a",
            "T^(0) ".repeat(10_000) + "a",
            "a".to_owned() + &"[0]".repeat(10_000),
            format!("{{ a | {} }}", ["a = 1"; 10_000].join(" ∧ ")),
            deep("{ a | (D (", "a", ",) = 1) }", 10_000),
        ] {
            let e = parse_expr(&input).unwrap_err();
            assert_eq!(
                e.expected(),
                limit,
                "{}",
                input.chars().take(40).collect::<String>()
            );
        }
        // Just under the limit still parses, and prints and compares without trouble.
        for input in [
            deep("(", "a", ")", 60),
            deep("(D ", "a", ",)", 30),
            deep("{ ", "a", " | a = 1 }", 30),
            format!("{{ a | {}a = 1{} }}", "(".repeat(30), ")".repeat(30)),
        ] {
            let e = parse_expr(&input).unwrap();
            assert_eq!(parse_expr(&e.to_string()).unwrap(), e);
        }
    });
}

/// The tokens a parse of `input` consumes, rewinds included, and whether it parsed.
fn work(input: &str) -> (usize, bool) {
    let mut p = Parser::new(input).unwrap();
    let ok = p.expr().and_then(|_| p.end()).is_ok();
    (p.consumed, ok)
}

/// `{ a | (D … ) = 1 }` nested `levels` times around a pattern of `width` names: each level's
/// `(` is first tried as a parenthesised predicate, which fails at `)`, then as a size, so a
/// parser that parsed the inner level again at each would do 2^levels times the work.
fn nested_constraints(levels: usize, width: usize) -> String {
    let pattern = format!("({})", vec!["a"; width].join(", "));
    let mut s = pattern;
    for _ in 0..levels {
        s = format!("{{ a | (D {s}) = 1 }}");
    }
    s
}

#[test]
fn nested_backtracking_points_do_linear_work() {
    for width in [1, 100] {
        let tokens = |s: &str| crate::parse::lexer::lex(s).unwrap().len();
        let mut last = None;
        for levels in 0..=13 {
            let input = nested_constraints(levels, width);
            let (consumed, ok) = work(&input);
            assert!(ok, "{levels} levels");
            // Each token is read at most a few times, whatever the nesting.
            assert!(
                consumed <= 4 * tokens(&input),
                "{levels} levels of width {width}: {consumed} tokens consumed for {}",
                tokens(&input)
            );
            // A level adds its own few tokens, not another copy of everything inside it.
            if let Some(last) = last {
                assert!(
                    consumed - last <= 20,
                    "{levels} levels: {last} then {consumed}"
                );
            }
            last = Some(consumed);
        }
    }
}

#[test]
fn every_kind_of_backtracking_does_polynomial_work() {
    // Each `(` here is first tried as one alternative, then as the other. A first alternative
    // may read up to the end of the nesting before it fails, so the work is at most quadratic
    // in the nesting depth (capped at MAX_DEPTH), never exponential: twice the nesting is at
    // most four times the work.
    let families: [fn(usize) -> String; 4] = [
        |n| format!("{}a → b{}", "(".repeat(n), ")".repeat(n)),
        |n| format!("{}a → b{}", "(D ".repeat(n), ")".repeat(n)),
        |n| format!("{{ a | {}a{} = b }}", "(".repeat(n), ")".repeat(n)),
        |n| format!("{}a → b", "(D {a | (D ".repeat(n)),
    ];
    for family in families {
        for n in [2, 4, 8] {
            let (small, big) = (work(&family(n)).0, work(&family(2 * n)).0);
            assert!(big <= 4 * small + 8, "{}: {small} then {big}", family(n));
        }
    }
}

#[test]
fn a_memoised_atom_is_reused_only_where_its_depth_fits_under_the_cap() {
    let input = "{ a | a = 1 }";
    let memoised = |depth: usize| {
        let mut p = Parser::new(input).unwrap();
        // What a first alternative recorded: the atom parsed, 3 levels below its own.
        let end = p.toks.len() - 1;
        let entry = MemoEntry {
            result: Ok((Expr::shape(&[7]), end)),
            below: 3,
        };
        p.memo.insert(0, entry);
        // `expr` enters two levels (itself and `prefix`) before the atom.
        p.depth = depth - 2;
        (p.expr(), p.pos)
    };
    // Shallow enough: the entry is taken as it is (a tree the input does not spell, so it
    // can only come from the memo), and the parse moves past the atom.
    let (e, pos) = memoised(MAX_DEPTH - 3);
    assert_eq!((e.unwrap(), pos), (Expr::shape(&[7]), 7));
    // Too deep for the levels below it: parsed again, to the cap's error.
    let (e, _) = memoised(MAX_DEPTH - 2);
    let f = e.unwrap_err();
    assert!(f.fatal && f.expected == "less deeply nested input", "{f:?}");
    // Past PRINT_CHECK_DEPTH, a reused atom marks the parse as deep, at the atom.
    let mut p = Parser::new(input).unwrap();
    let end = p.toks.len() - 1;
    let entry = MemoEntry {
        result: Ok((Expr::shape(&[7]), end)),
        below: 3,
    };
    p.memo.insert(0, entry);
    p.depth = PRINT_CHECK_DEPTH - 2;
    assert!(p.expr().is_ok());
    assert_eq!(p.deepest, Some(0));
}
