use super::*;
use crate::expr::{ArithOp, Axis, CmpOp, Item, Operand, Pred, SliceSpec};

fn v(n: &str) -> Expr {
    Expr::Var(Name::new(n))
}
fn dv(n: &str) -> DimExpr {
    DimExpr::Var(Name::new(n))
}
fn lit(n: usize) -> DimExpr {
    DimExpr::Lit(n)
}
fn bin(op: ArithOp, a: DimExpr, b: DimExpr) -> DimExpr {
    DimExpr::Bin(op, Box::new(a), Box::new(b))
}
fn pat(items: Vec<Item>) -> Expr {
    Expr::Pattern(Pattern::new(items))
}
fn dims(ds: Vec<DimExpr>) -> Expr {
    pat(ds.into_iter().map(Item::Dim).collect())
}
fn arrow(a: Expr, b: Expr) -> Expr {
    Expr::arrow(a, b)
}
fn ok(input: &str) -> Expr {
    parse_expr(input).unwrap_or_else(|e| panic!("{input:?} should parse:\n{e}"))
}
fn ok_pattern(input: &str) -> Pattern {
    super::parse_pattern(input).unwrap_or_else(|e| panic!("{input:?} should parse:\n{e}"))
}
/// (offset, found, expected)
fn err(input: &str) -> (usize, String, String) {
    let e = parse_expr(input).expect_err(input);
    (e.offset(), e.found().to_owned(), e.expected().to_owned())
}
fn err_at(input: &str) -> usize {
    err(input).0
}

#[test]
fn patterns() {
    assert_eq!(ok("()"), pat(vec![]));
    assert_eq!(ok("(1,)"), Expr::shape(&[1]));
    assert_eq!(ok("(a, 2)"), dims(vec![dv("a"), lit(2)]));
    assert_eq!(ok("(a,b,)"), dims(vec![dv("a"), dv("b")]));
    assert_eq!(
        ok("(_, ..., #n, #1)"),
        pat(vec![
            Item::Any,
            Item::Ellipsis,
            Item::Broadcast(dv("n")),
            Item::Broadcast(lit(1))
        ])
    );
    assert_eq!(ok("(…, d)").to_string(), "(…, d)");
    assert_eq!(
        ok("(*batch, d)"),
        pat(vec![Item::Variadic(Name::new("batch")), Item::Dim(dv("d"))])
    );
    assert_eq!(
        ok("(# n, * rest)"),
        pat(vec![
            Item::Broadcast(dv("n")),
            Item::Variadic(Name::new("rest"))
        ])
    );
}

#[test]
fn a_parenthesised_single_item_is_a_rank_1_pattern() {
    assert_eq!(ok("(5)"), Expr::shape(&[5]));
    assert_eq!(ok("(a)"), dims(vec![dv("a")]));
    assert_eq!(
        ok("(a + 1)"),
        dims(vec![bin(ArithOp::Add, dv("a"), lit(1))])
    );
    assert_eq!(ok("((a))"), dims(vec![dv("a")]));
    // A bare integer in a shape position is the rank-1 shape too.
    assert_eq!(ok("5"), Expr::shape(&[5]));
}

#[test]
fn nested_patterns_splice_and_single_dims_group() {
    assert_eq!(ok("((a, b), c)"), dims(vec![dv("a"), dv("b"), dv("c")]));
    assert_eq!(ok("((), a)"), dims(vec![dv("a")]));
    assert_eq!(ok("((1), (2))"), Expr::shape(&[1, 2]));
    assert_eq!(
        ok("((*a,), b)"),
        pat(vec![Item::Variadic(Name::new("a")), Item::Dim(dv("b"))])
    );
    assert_eq!(
        ok("((h + 2*p - k) // s + 1,)"),
        dims(vec![bin(
            ArithOp::Add,
            bin(
                ArithOp::FloorDiv,
                bin(
                    ArithOp::Sub,
                    bin(ArithOp::Add, dv("h"), bin(ArithOp::Mul, lit(2), dv("p"))),
                    dv("k")
                ),
                dv("s")
            ),
            lit(1)
        )])
    );
    // A pattern followed by an index is a size: axis 1 of (2, 3).
    assert_eq!(
        ok("((2, 3)[1] * 2,)"),
        dims(vec![bin(
            ArithOp::Mul,
            DimExpr::Index(Box::new(Expr::shape(&[2, 3])), 1),
            lit(2)
        )])
    );
}

#[test]
fn arithmetic_precedence_and_associativity() {
    let e = ok("(a - b - c, a / b * c, a + b * c, a ÷ b % c)");
    assert_eq!(
        e,
        dims(vec![
            bin(ArithOp::Sub, bin(ArithOp::Sub, dv("a"), dv("b")), dv("c")),
            bin(ArithOp::Mul, bin(ArithOp::Div, dv("a"), dv("b")), dv("c")),
            bin(ArithOp::Add, dv("a"), bin(ArithOp::Mul, dv("b"), dv("c"))),
            bin(
                ArithOp::Rem,
                bin(ArithOp::FloorDiv, dv("a"), dv("b")),
                dv("c")
            ),
        ])
    );
    assert_eq!(ok("(a × b, a * b)"), ok("(a*b, a*b)"));
    assert_eq!(ok("(a // b)"), ok("(a ÷ b)"));
}

#[test]
fn arrows_are_right_associative() {
    assert_eq!(ok("a → b → c"), arrow(v("a"), arrow(v("b"), v("c"))));
    assert_eq!(ok("(a → b) → c"), arrow(arrow(v("a"), v("b")), v("c")));
    assert_eq!(ok("a -> (b -> c)"), ok("a → b → c"));
    let ab = dims(vec![dv("a"), dv("b")]);
    let bc = dims(vec![dv("b"), dv("c")]);
    let ac = dims(vec![dv("a"), dv("c")]);
    assert_eq!(ok("(a, b) → (b, c) → (a, c)"), arrow(ab, arrow(bc, ac)));
}

#[test]
fn parenthesised_expressions_and_broadcast() {
    assert_eq!(ok("(a)"), dims(vec![dv("a")]));
    assert_eq!(ok("((a → b))"), arrow(v("a"), v("b")));
    assert_eq!(
        ok("(a||b)"),
        Expr::Broadcast(Box::new(v("a")), Box::new(v("b")))
    );
    assert_eq!(
        ok("((2, 3) || a)"),
        Expr::Broadcast(Box::new(Expr::shape(&[2, 3])), Box::new(v("a")))
    );
    assert_eq!(
        ok("(a → b || c)"),
        Expr::Broadcast(Box::new(arrow(v("a"), v("b"))), Box::new(v("c")))
    );
}

#[test]
fn shape_operations() {
    assert_eq!(ok("X[0 1 3 2]"), Expr::Axes(vec![0, 1, 3, 2]));
    assert_eq!(ok("X[]"), Expr::Axes(vec![]));
    assert_eq!(ok("Sz[0 0 1 0]"), Expr::Sizes(vec![0, 0, 1, 0]));
    let t = Expr::Transpose(vec![1, 0], Box::new(v("a")));
    assert_eq!(ok("T X[1 0] a"), t);
    assert_eq!(ok("T^(1 0) a"), t);
    assert_eq!(ok("T⁽¹ ⁰⁾ a"), t);
    assert_eq!(ok("/¹a"), Expr::Reduce(Axis::One(1), Box::new(v("a"))));
    assert_eq!(ok("/^= a"), Expr::Reduce(Axis::All, Box::new(v("a"))));
    assert_eq!(
        ok("/⁰/¹a"),
        Expr::Reduce(
            Axis::One(0),
            Box::new(Expr::Reduce(Axis::One(1), Box::new(v("a"))))
        )
    );
    assert_eq!(
        ok("Repeat⁰{[3]} a"),
        Expr::Repeat(Axis::One(0), vec![3], Box::new(v("a")))
    );
    assert_eq!(
        ok("Repeat^={[1 2]} a"),
        Expr::Repeat(Axis::All, vec![1, 2], Box::new(v("a")))
    );
    assert_eq!(
        ok("a :{1}: b :{0}: c"),
        Expr::Concat(
            0,
            Box::new(Expr::Concat(1, Box::new(v("a")), Box::new(v("b")))),
            Box::new(v("c"))
        )
    );
    // Prefix operators bind tighter than concatenation, concatenation than arrows.
    assert_eq!(
        ok("T^(1 0) a :{0}: b -> c"),
        arrow(
            Expr::Concat(0, Box::new(t.clone()), Box::new(v("b"))),
            v("c")
        )
    );
}

#[test]
fn slices_and_indexing() {
    let r = |start, end, step| SliceSpec::Range { start, end, step };
    assert_eq!(ok("[0:2]"), Expr::Slices(vec![r(Some(0), Some(2), None)]));
    assert_eq!(ok("[0]"), Expr::Slices(vec![SliceSpec::Index(0)]));
    assert_eq!(
        ok("a[::2, -1, 1:, :3, :, 0:4:2,]"),
        Expr::Slice(
            Box::new(v("a")),
            Box::new(Expr::Slices(vec![
                r(None, None, Some(2)),
                SliceSpec::Index(-1),
                r(Some(1), None, None),
                r(None, Some(3), None),
                r(None, None, None),
                r(Some(0), Some(4), Some(2)),
            ]))
        )
    );
    assert_eq!(ok("a[b]"), Expr::Slice(Box::new(v("a")), Box::new(v("b"))));
    // In a shape position `e[i]` indexes; in a size position it is the size of an axis.
    assert_eq!(
        ok("(a, b)[0]"),
        Expr::Slice(
            Box::new(dims(vec![dv("a"), dv("b")])),
            Box::new(Expr::Slices(vec![SliceSpec::Index(0)]))
        )
    );
    assert_eq!(
        ok("(a[-1],)"),
        dims(vec![DimExpr::Index(Box::new(v("a")), -1)])
    );
    assert_eq!(
        ok(&format!("a[{}]", isize::MIN)),
        Expr::Slice(
            Box::new(v("a")),
            Box::new(Expr::Slices(vec![SliceSpec::Index(isize::MIN)]))
        )
    );
}

#[test]
fn size_functions() {
    let rank = |e| DimExpr::Rank(Box::new(e));
    let prod = |e| DimExpr::Prod(Box::new(e));
    let sum = |e| DimExpr::Sum(Box::new(e));
    assert_eq!(
        ok("(D a, Π a, P a, prod a, Σ a, S a, sum a)"),
        dims(vec![
            rank(v("a")),
            prod(v("a")),
            prod(v("a")),
            prod(v("a")),
            sum(v("a")),
            sum(v("a")),
            sum(v("a"))
        ])
    );
    // In a shape position a size is the rank-1 shape holding it.
    assert_eq!(ok("a → Π a"), arrow(v("a"), dims(vec![prod(v("a"))])));
    assert_eq!(ok("a → (Π a)"), ok("a → Π a"));
    assert_eq!(
        ok("(Π (a, b) + 1,)"),
        dims(vec![bin(
            ArithOp::Add,
            prod(dims(vec![dv("a"), dv("b")])),
            lit(1)
        )])
    );
    // The operand is a prefix expression: `D a[0]` is the rank of a sliced shape.
    assert_eq!(
        ok("(D a[0],)"),
        dims(vec![rank(Expr::Slice(
            Box::new(v("a")),
            Box::new(Expr::Slices(vec![SliceSpec::Index(0)]))
        ))])
    );
}

#[test]
fn lone_names_and_numbers_take_the_fast_path_to_the_same_items() {
    // `pattern`'s fast path (a name or number before `,` or `)`) against the general rule,
    // reached through grouping parentheses.
    for (fast, general) in [
        ("(a, 3, _, b)", "((a), (3), _, (b))"),
        ("(D, P, prod, sum,)", "((D), (P), (prod), (sum),)"),
        ("(n)", "((n))"),
        ("(7)", "((7))"),
    ] {
        assert_eq!(ok_pattern(fast), ok_pattern(general), "{fast}");
        assert_eq!(ok(fast), ok(general), "{fast}");
    }
    assert_eq!(
        ok_pattern("(d_model,)").items,
        vec![Item::Dim(dv("d_model"))]
    );
    assert_eq!(ok_pattern("(12)").items, vec![Item::Dim(lit(12))]);
    assert_eq!(ok_pattern("(_,)").items, vec![Item::Any]);
}

#[test]
fn keywords_are_names_elsewhere() {
    assert_eq!(
        ok("(D, P, S, K, T, X, Sz, all, prod, sum, Repeat)"),
        dims(
            [
                "D", "P", "S", "K", "T", "X", "Sz", "all", "prod", "sum", "Repeat"
            ]
            .map(dv)
            .to_vec()
        )
    );
    assert_eq!(ok("D"), v("D"));
    assert_eq!(ok("T → X"), arrow(v("T"), v("X")));
    assert_eq!(
        ok("(D - 1, D[0], P * 2)"),
        dims(vec![
            bin(ArithOp::Sub, dv("D"), lit(1)),
            DimExpr::Index(Box::new(v("D")), 0),
            bin(ArithOp::Mul, dv("P"), lit(2)),
        ])
    );
    assert_eq!(ok("(D D,)"), dims(vec![DimExpr::Rank(Box::new(v("D")))]));
    assert_eq!(ok("{ a | K = 2 }").to_string(), "{ a | (K = 2) }");
}

#[test]
fn constraints() {
    let rank = |n| Operand::Size(DimExpr::Rank(Box::new(v(n))));
    let cmp = |op, a, b| Pred::Cmp(op, a, b);
    let c = |e: Expr, p: Pred| Expr::Compound(Box::new(e), Box::new(p));
    let same_rank = cmp(CmpOp::Eq, rank("a"), rank("b"));
    assert_eq!(
        ok("{a -> b | (D a = D b)}"),
        c(arrow(v("a"), v("b")), same_rank.clone())
    );
    assert_eq!(ok("{a -> b | D a == D b}"), ok("{a -> b | (D a = D b)}"));
    let forall = |n| Operand::ForAll(v(n));
    let both = Pred::And(
        Box::new(same_rank.clone()),
        Box::new(cmp(CmpOp::Lt, forall("b"), forall("a"))),
    );
    assert_eq!(
        ok("{ a → b | ((D a = D b) ∧ (∀ b < ∀ a)) }"),
        c(arrow(v("a"), v("b")), both.clone())
    );
    assert_eq!(
        ok("{ a → b | D a = D b && all b < all a }"),
        c(arrow(v("a"), v("b")), both)
    );
    // ∧ binds tighter than ∨; both are left-associative.
    let p = |n: usize| cmp(CmpOp::Eq, Operand::Size(dv("a")), Operand::Size(lit(n)));
    assert_eq!(
        ok("{ a | a = 1 ∨ a = 2 ∧ a = 3 ∨ a = 4 }"),
        c(
            v("a"),
            Pred::Or(
                Box::new(Pred::Or(
                    Box::new(p(1)),
                    Box::new(Pred::And(Box::new(p(2)), Box::new(p(3))))
                )),
                Box::new(p(4))
            )
        )
    );
    assert_eq!(ok("{ a | a = 1 || a = 2 }"), ok("{ a | a = 1 ∨ a = 2 }"));
    assert_eq!(
        ok("{ a → b → (a||b) | (K a ⚟ K b) }"),
        c(
            arrow(
                v("a"),
                arrow(v("b"), Expr::Broadcast(Box::new(v("a")), Box::new(v("b"))))
            ),
            Pred::Broadcastable(v("a"), v("b"))
        )
    );
    assert_eq!(ok("{ a | K a ~ K b }"), ok("{ a | (K a ⚟ K b) }"));
    for (s, op) in [
        ("≠", CmpOp::Ne),
        ("!=", CmpOp::Ne),
        ("<=", CmpOp::Le),
        ("≤", CmpOp::Le),
        (">=", CmpOp::Ge),
        ("≥", CmpOp::Ge),
        (">", CmpOp::Gt),
        ("<", CmpOp::Lt),
    ] {
        assert_eq!(
            ok(&format!("{{ a | a[0] {s} 2 }}")),
            c(
                v("a"),
                cmp(
                    op,
                    Operand::Size(DimExpr::Index(Box::new(v("a")), 0)),
                    Operand::Size(lit(2))
                )
            )
        );
    }
    // A size that starts with a parenthesis, with and without the outer parentheses.
    let sized = c(
        v("a"),
        cmp(
            CmpOp::Eq,
            Operand::Size(bin(
                ArithOp::Mul,
                bin(ArithOp::Add, dv("a"), dv("b")),
                lit(2),
            )),
            Operand::Size(dv("c")),
        ),
    );
    assert_eq!(ok("{ a | (a + b) * 2 = c }"), sized);
    assert_eq!(ok("{ a | ((a + b) * 2 = c) }"), sized);
    assert_eq!(ok("{ a | ((((a + b) * 2 = c))) }"), sized);
}

#[test]
fn parse_pattern_accepts_only_a_pattern() {
    assert_eq!(
        ok_pattern(" ( a , b ) "),
        Pattern::new(vec![Item::Dim(dv("a")), Item::Dim(dv("b"))])
    );
    assert_eq!(ok_pattern("(5)"), Pattern::from(&[5usize][..]));
    assert_eq!(
        ok_pattern("((a, b))"),
        Pattern::new(vec![Item::Dim(dv("a")), Item::Dim(dv("b"))])
    );
    for bad in [
        "a",
        "5",
        "a -> a",
        "(a) -> a",
        "(a, b)[0]",
        "",
        "{ (a,) | a = 1 }",
    ] {
        assert!(super::parse_pattern(bad).is_err(), "{bad:?}");
    }
    let e = super::parse_pattern("a").unwrap_err();
    assert_eq!((e.offset(), e.expected()), (0, "a pattern '( … )'"));
    assert_eq!(super::parse_pattern("(a) b").unwrap_err().offset(), 4);
}

// ----- every error class, with its offset ---------------------------------------------

#[test]
fn trailing_input() {
    assert_eq!(err("(a, b) x"), (7, "'x'".into(), "end of input".into()));
    assert_eq!(err("(),(0)"), (2, "','".into(), "end of input".into()));
    assert_eq!(err_at("a b"), 2);
    assert_eq!(err_at("(a b)"), 3);
    assert_eq!(err_at("a → b c"), 8);
    assert_eq!(err_at("K a"), 2);
}

#[test]
fn unknown_characters() {
    assert_eq!(
        err("(a @ b)"),
        (
            3,
            "'@'".into(),
            "a name, a number, a bracket or an operator".into()
        )
    );
    assert_eq!(err_at("a ⊕ b"), 2);
}

#[test]
fn empty_dims() {
    assert_eq!(
        err("(a,,b)"),
        (3, "','".into(), "a pattern item or ')'".into())
    );
    assert_eq!(err_at("(,a)"), 1);
    assert_eq!(err_at("(,)"), 1);
    assert_eq!(err_at(","), 0);
}

#[test]
fn two_variadics_report_the_second() {
    let expected = "at most one '...' or '*name' per pattern".to_owned();
    assert_eq!(err("(*a, ...)"), (5, "'...'".into(), expected.clone()));
    assert_eq!(err("(*a, *b)"), (5, "'*b'".into(), expected.clone()));
    assert_eq!(err("(…, x, …)"), (9, "'…'".into(), expected));
    assert_eq!(err_at("((*a,), *b)"), 8);
    assert_eq!(err_at("(..., (b, *c))"), 10);
    // In a pattern that is indexed rather than spliced, the variadic is its own.
    assert!(parse_expr("(*a, (*b, c)[0])").is_ok());
}

#[test]
fn unbalanced_brackets() {
    assert_eq!(
        err("(a, b"),
        (5, "end of input".into(), "',' or ')'".into())
    );
    assert_eq!(err("a, b)"), (1, "','".into(), "end of input".into()));
    assert_eq!(
        err("((a, b)"),
        (7, "end of input".into(), "',' or ')'".into())
    );
    assert_eq!(err_at("(a, b))"), 6);
    assert_eq!(err_at("(a → b"), 8);
    assert_eq!(err_at("{ a | a = 1"), 11);
    assert_eq!(err_at("a[0"), 3);
    assert_eq!(err_at("X[0 1"), 5);
    assert_eq!(err_at("]"), 0);
}

#[test]
fn numbers_that_overflow() {
    let input = format!("(a, {}0)", usize::MAX);
    let (offset, found, expected) = err(&input);
    assert_eq!(offset, 4);
    assert_eq!(found, format!("'{}0'", usize::MAX));
    assert!(expected.starts_with("a number that fits in usize"));
    // An index must fit in isize.
    assert_eq!(err(&format!("a[{}]", isize::MAX as usize + 1)).0, 2);
    assert_eq!(err(&format!("a[-{}]", isize::MAX as usize + 2)).0, 2);
}

#[test]
fn division_by_a_literal_zero() {
    assert_eq!(
        err("(a / 0)"),
        (5, "'0'".into(), "a non-zero divisor".into())
    );
    assert_eq!(err_at("(a // 0)"), 6);
    assert_eq!(err_at("(a ÷ 0)"), 6);
    assert_eq!(err_at("(a % 0)"), 5);
    assert_eq!(err_at("{ a | D a / 0 = 1 }"), 12);
    assert!(parse_expr("(a * 0, a - 0, 0 / a, a / 00 + 1)").is_err());
    assert!(parse_expr("(a * 0, a - 0, 0 / a)").is_ok());
}

#[test]
fn hash_and_star_need_a_name() {
    assert_eq!(
        err("(#)"),
        (2, "')'".into(), "a name or an integer after '#'".into())
    );
    assert_eq!(err_at("(#, a)"), 2);
    assert_eq!(err_at("(# -1)"), 3);
    assert_eq!(err_at("(#_)"), 2);
    assert_eq!(err("(*)"), (2, "')'".into(), "a name after '*'".into()));
    assert_eq!(err_at("(a, *3)"), 5);
    assert_eq!(err_at("(*_)"), 2);
    assert_eq!(err_at("(*(a))"), 2);
}

#[test]
fn empty_input() {
    assert_eq!(err(""), (0, "end of input".into(), "an expression".into()));
    assert_eq!(
        err("  \n "),
        (4, "end of input".into(), "an expression".into())
    );
    assert_eq!(super::parse_pattern("").unwrap_err().offset(), 0);
}

#[test]
fn other_errors() {
    assert_eq!(err_at("a[]"), 2);
    assert_eq!(err_at("a[::0]"), 4);
    assert_eq!(err_at("[b]"), 1);
    assert_eq!(err_at("_"), 0);
    assert_eq!(err_at("(_ + 1)"), 3);
    assert_eq!(err_at("∀ a"), 0);
    assert_eq!(err_at("a + b"), 2);
    assert_eq!(err_at("(2, -1)"), 4);
    assert_eq!(err_at("(a * (b, c))"), 5);
    assert_eq!(err_at("{ a | }"), 6);
    assert_eq!(err_at("{ a }"), 4);
    assert_eq!(err_at("{ a | K a = K b }"), 10);
    assert_eq!(err_at("T^(1, 0) a"), 4);
    assert_eq!(err_at("/^x a"), 2);
    assert_eq!(err_at("Repeat^0[3] a"), 8);
    assert_eq!(err_at("a :{b}: c"), 4);
    assert_eq!(err_at("a :{1} c"), 7);
    assert_eq!(err_at("a →"), 5);
    assert_eq!(err_at("→ a"), 0);
}

#[test]
fn the_furthest_alternative_reports() {
    // `(` tries a pattern, then an expression: the error is the one that got further.
    assert_eq!(err("(a → b c)"), (9, "'c'".into(), "'||' or ')'".into()));
    assert_eq!(err("(a b)"), (3, "'b'".into(), "',' or ')'".into()));
    assert_eq!(err("{ a | (D a = 2 }"), (15, "'}'".into(), "')'".into()));
}

#[test]
fn display_points_at_the_error() {
    let e = parse_expr("(a, b) x").unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected end of input, found 'x' at byte 7\n  (a, b) x\n         ^"
    );
    let e = parse_expr("(α, β γ)").unwrap_err();
    assert_eq!(e.offset(), 8);
    assert_eq!(
        e.to_string(),
        "expected ',' or ')', found 'γ' at byte 8\n  (α, β γ)\n        ^"
    );
    assert_eq!(e.input(), "(α, β γ)");
}

// ----- the derive's entry points ------------------------------------------------------------

#[test]
fn equations_return_both_sides_the_operator_and_its_offset() {
    let (lhs, op, rhs, at) = parse_equation("heads * head_dim = d_model").unwrap();
    assert_eq!(lhs, bin(ArithOp::Mul, dv("heads"), dv("head_dim")));
    assert_eq!((op, rhs, at), (CmpOp::Eq, dv("d_model"), 17));
    // Every spelling of every operator, with its byte offset.
    for (s, op) in [
        ("=", CmpOp::Eq),
        ("==", CmpOp::Eq),
        ("!=", CmpOp::Ne),
        ("≠", CmpOp::Ne),
        ("<", CmpOp::Lt),
        ("<=", CmpOp::Le),
        ("≤", CmpOp::Le),
        (">", CmpOp::Gt),
        (">=", CmpOp::Ge),
        ("≥", CmpOp::Ge),
    ] {
        let eq = parse_equation(&format!("a + 1 {s} b")).unwrap();
        assert_eq!(
            eq,
            (bin(ArithOp::Add, dv("a"), lit(1)), op, dv("b"), 6),
            "{s}"
        );
        // Without white space, too.
        assert_eq!(parse_equation(&format!("a{s}b")).unwrap().3, 1, "{s}");
    }
}

#[test]
fn equation_offsets_count_bytes_of_multibyte_text() {
    // `α` and `×` are two bytes each: the `=` is at byte 9.
    assert_eq!(parse_equation("α × β = γ").unwrap().3, 9);
    assert_eq!(parse_equation("Π x ≥ 2").unwrap().3, 5);
    assert_eq!(parse_equation("  αβ\t≠ 1").unwrap().3, 7);
}

#[test]
fn equation_sides_have_the_size_grammar_of_pattern_items() {
    for side in [
        "heads * head_dim",
        "(h + 2*p - k) // s + 1",
        "n % 2",
        "D x",
        "prod x + 1",
        "a[0]",
        "a[-1] * 2",
        "(a, b)[1]",
        "((a))",
    ] {
        let item = ok_pattern(&format!("({side},)")).items;
        let (lhs, _, rhs, _) = parse_equation(&format!("{side} = {side}")).unwrap();
        assert_eq!(vec![Item::Dim(lhs)], item, "{side}");
        assert_eq!(vec![Item::Dim(rhs)], item, "{side}");
    }
}

#[test]
fn equation_errors_point_into_the_original_input() {
    let err = |input: &str| {
        let e = parse_equation(input).expect_err(input);
        assert_eq!(e.input(), input);
        (e.offset(), e.found().to_owned(), e.expected().to_owned())
    };
    let comparison = "a comparison ('=', '≠', '<', '≤', '>' or '≥')".to_owned();
    assert_eq!(err("α = β γ"), (8, "'γ'".into(), "end of input".into()));
    assert_eq!(err("a = b = c"), (6, "'='".into(), "end of input".into()));
    assert_eq!(err("αβ + = 1"), (7, "'='".into(), "a size".into()));
    assert_eq!(err("α"), (2, "end of input".into(), comparison.clone()));
    assert_eq!(err("α β = 1"), (3, "'β'".into(), comparison.clone()));
    assert_eq!(err("a ~ b"), (2, "'~'".into(), comparison));
    assert_eq!(err(""), (0, "end of input".into(), "a size".into()));
    assert_eq!(err("a = "), (4, "end of input".into(), "a size".into()));
    assert_eq!(
        err("α / 0 = b"),
        (5, "'0'".into(), "a non-zero divisor".into())
    );
    assert_eq!(err("(a, b) = c"), (0, "'(a, b)'".into(), "a size".into()));
    assert_eq!(err("_ = 1"), (0, "'_'".into(), "a size".into()));
    // A lexer error, also at its offset in the input.
    assert_eq!(err("α = β @").0, 8);
    assert_eq!(
        parse_equation("α = β γ").unwrap_err().to_string(),
        "expected end of input, found 'γ' at byte 8\n  α = β γ\n        ^"
    );
}

#[test]
fn identifiers_are_exactly_one_name() {
    for yes in [
        "n_layers", "a", "α", "x1", "_x", "D", "T", "X", "prod", "all", "K",
    ] {
        assert!(is_identifier(yes), "{yes:?}");
    }
    for no in [
        "", "_", "3", "1x", "a*b", "a-b", "n layers", " n", "n ", "n\n", "Π", "a,", "(a)", "a[0]",
    ] {
        assert!(!is_identifier(no), "{no:?}");
    }
}
