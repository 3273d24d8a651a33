//! Pattern semantics a user expects, in every front end alike (the derive, `#[check]`, a
//! run-time `Plan`, the solver): integer intermediates, powers, names used once or introduced
//! by a `where` equation, comparisons in `where`, an honest `unify`, and the messages.

use std::collections::HashMap;

use proptest::prelude::*;
use shapes::{
    Bindings, Plan, Shape, Shaped, check,
    expr::{Expr, parse},
    solve::{InferErrorKind, unify, unify_partial},
    verify::PlanNode,
};

fn s<const N: usize>(dims: [usize; N]) -> Shape {
    Shape::from(dims)
}

// ----- 1. intermediates below zero ---------------------------------------------------------

/// The convolution output formula as people write it: `h - k` may be below zero.
#[derive(Shaped)]
#[shapes(given = "p, st")]
struct Conv {
    #[shape("(c_out, c_in, k, k)")]
    weight: Shape,
    #[shape("(n, c_in, h, w)")]
    input: Shape,
    #[shape("(n, c_out, (h - k + 2 * p) // st + 1, (w - k + 2 * p) // st + 1)")]
    output: Shape,
}

#[check(ret = "(n, (h - k + 2 * p) // st + 1)")]
fn conv1d(
    #[shape("(n, h)")] x: &Shape,
    #[shape("(k,)")] _w: &Shape,
    #[shape("(p, st)")] _cfg: &Shape,
) -> Shape {
    let (n, h, k) = (x.dims()[0], x.dims()[1], _w.dims()[0]);
    let (p, st) = (_cfg.dims()[0], _cfg.dims()[1]);
    s([n, (h + 2 * p - k) / st + 1])
}

#[test]
fn intermediates_may_go_below_zero_in_every_front_end() {
    let conv = Conv {
        weight: s([8, 3, 3, 3]),
        input: s([1, 3, 2, 2]),
        output: s([1, 8, 2, 2]),
    };
    let b = conv
        .verify_with(Bindings::new().bind("p", 1).bind("st", 1))
        .expect("h = 2, k = 3, p = 1: (2 - 3 + 2) // 1 + 1 = 2");
    assert_eq!(b.get("h"), Some(2));
    assert_eq!(
        conv1d(&s([1, 2]), &s([3]), &s([1, 1])).dims(),
        &[1, 2],
        "#[check] agrees"
    );
    let plan = Plan::build(
        "Conv",
        &[
            PlanNode::tensor("w", "(k,)"),
            PlanNode::tensor("x", "(h, (h - k + 2 * p) // st + 1, p, st)"),
        ],
        &[],
    )
    .unwrap();
    let src = HashMap::from([
        ("w".to_string(), s([3])),
        ("x".to_string(), s([2, 2, 1, 1])),
    ]);
    assert_eq!(plan.verify_source(&src).unwrap().get("h"), Some(2));
    let f = parse("(h, k, p, st) -> (((h - k + 2 * p) // st + 1),)").unwrap();
    let out = shapes::solve::infer_app(&f, &[parse("(2, 3, 1, 1)").unwrap()]).unwrap();
    assert_eq!(out.to_string(), parse("(2,)").unwrap().to_string());

    // Only a dim's final value must be a size; the message quotes the last step.
    let bad = Conv {
        weight: s([8, 3, 5, 5]),
        input: s([1, 3, 2, 2]),
        output: s([1, 8, 0, 0]),
    };
    let err = bad
        .verify_with(Bindings::new().bind("p", 0).bind("st", 1))
        .unwrap_err()
        .to_string();
    assert!(err.contains("is below zero"), "{err}");
}

// ----- 2. powers ---------------------------------------------------------------------------

#[derive(Shaped)]
struct Cube {
    #[shape("(z * z * z, c)")]
    x: Shape,
    #[shape("(c * z * z,)")]
    y: Shape,
}

#[check]
fn cube(#[shape("(z * z * z,)")] x: &Shape) -> usize {
    x.dims()[0]
}

#[test]
fn a_power_of_one_unknown_is_solved_by_its_root() {
    let ok = Cube {
        x: s([125, 2]),
        y: s([50]),
    };
    assert_eq!(ok.verify().unwrap().get("z"), Some(5));
    assert_eq!(cube(&s([27])), 27);
    // Order independent: whichever field determines `z` first, the other is checked with it.
    let bad = Cube {
        x: s([124, 2]),
        y: s([50]),
    };
    let err = bad.verify().unwrap_err().to_string();
    assert!(
        err.contains("expected z * z * z = 5 * 5 * 5 = 125, found 124"),
        "{err}"
    );
    #[cfg(not(shapes_no_checks))]
    {
        let err = check_err(|| cube(&s([124])));
        assert!(err.contains("124 is not the cube of a whole size"), "{err}");
    }
    let s1 = unify(&parse("(a * a * a,)").unwrap(), &parse("(125,)").unwrap()).unwrap();
    assert_eq!(s1.get("a").map(ToString::to_string).as_deref(), Some("5"));
}

// ----- 3, 4. names used once, names a `where` introduces -----------------------------------

#[derive(Shaped)]
#[shapes(given = "window")]
struct Windows {
    #[shape("(batch, h_wins * window, w_wins * window, c)")]
    x: Shape,
}

#[check]
fn windows(
    #[shape("(batch, h_wins * window, w_wins * window, c)")] x: &Shape,
    #[shape("(window,)")] _w: &Shape,
) -> usize {
    x.dims()[0]
}

#[derive(Shaped)]
#[shapes(given = "window", where = "height = rows * window")]
struct Rows {
    #[shape("(height, c)")]
    x: Shape,
}

#[test]
fn names_read_back_from_the_bindings_are_correct_code() {
    let b = Windows {
        x: s([2, 56, 28, 96]),
    }
    .verify_with(Bindings::new().bind("window", 7))
    .unwrap();
    assert_eq!((b.get("h_wins"), b.get("w_wins")), (Some(8), Some(4)));
    assert_eq!(windows(&s([2, 56, 28, 96]), &s([7])), 2);
    let b = Rows { x: s([56, 3]) }
        .verify_with(Bindings::new().bind("window", 7))
        .unwrap();
    assert_eq!(b.get("rows"), Some(8));
    let err = Rows { x: s([55, 3]) }
        .verify_with(Bindings::new().bind("window", 7))
        .unwrap_err()
        .to_string();
    assert!(err.contains("55 / 7 is not exact"), "{err}");
}

// ----- 5. comparisons and divisibility -----------------------------------------------------

#[derive(Shaped)]
#[shapes(where = "heads % kv_heads = 0, head_dim <= 256 && d_model != 0")]
#[shapes(where = "vocab >= 32000")]
struct Limits {
    #[shape("(vocab, d_model)")]
    embed: Shape,
    #[shape("(d_model, heads * head_dim)")]
    q: Shape,
    #[shape("(d_model, kv_heads * head_dim)")]
    k: Shape,
    #[shape("(heads,)")]
    scale: Shape,
}

fn limits(vocab: usize, heads: usize, kv: usize, head_dim: usize) -> Limits {
    let d = heads * head_dim;
    Limits {
        embed: s([vocab, d]),
        q: s([d, d]),
        k: s([d, kv * head_dim]),
        scale: s([heads]),
    }
}

#[test]
fn where_accepts_comparisons_and_divisibility() {
    limits(32000, 32, 8, 128).verify().unwrap();
    let err = limits(32000, 32, 6, 128).verify().unwrap_err().to_string();
    assert!(err.contains("heads % kv_heads"), "{err}");
    let err = limits(32000, 4, 2, 512).verify().unwrap_err().to_string();
    assert!(
        err.contains("head_dim <= 256 does not hold: head_dim = 512"),
        "{err}"
    );
    assert!(err.contains("head_dim = 512"), "where it was bound: {err}");
    let err = limits(1000, 4, 2, 64).verify().unwrap_err().to_string();
    assert!(
        err.contains("vocab >= 32000 does not hold: vocab = 1000"),
        "{err}"
    );
    assert!(
        err.contains("embed"),
        "names the field that bound vocab: {err}"
    );

    let plan = Plan::build(
        "M",
        &[PlanNode::tensor("w", "(heads, kv_heads)")],
        &["heads % kv_heads = 0, heads <= 64"],
    )
    .unwrap();
    let ok = HashMap::from([("w".to_string(), s([32, 8]))]);
    plan.verify_source(&ok).unwrap();
    let bad = HashMap::from([("w".to_string(), s([96, 8]))]);
    let err = plan.verify_source(&bad).unwrap_err().to_string();
    assert!(
        err.contains("heads <= 64 does not hold: heads = 96"),
        "{err}"
    );
    // A comparison whose variable nothing binds says which comparison it could not check.
    let plan = Plan::build("M", &[PlanNode::tensor("w", "(heads, _)")], &["kv >= 2"]).unwrap();
    let err = plan.verify_source(&ok).unwrap_err().to_string();
    assert!(
        err.contains("M: cannot check kv >= 2: kv is never bound by any field"),
        "{err}"
    );
}

// ----- 7. honest unify ---------------------------------------------------------------------

#[test]
fn unify_never_accepts_an_undecided_equation() {
    let e = |t: &str| parse(t).unwrap();
    let err = unify(&e("(h // 2,)"), &e("(5,)")).unwrap_err();
    assert!(
        matches!(err.kind(), InferErrorKind::Undecided { .. }),
        "{err}"
    );
    assert!(unify(&e("(a * b,)"), &e("(6,)")).is_err());
    let (s, open) = unify_partial(&e("(a, a * b, c // 2)"), &e("(2, 6, 5)")).unwrap();
    assert_eq!(s.get("b").map(ToString::to_string).as_deref(), Some("3"));
    assert_eq!(open.len(), 1, "{open:?}");
    assert_eq!(open[0].to_string(), "(c ÷ 2 = 5)");
}

// ----- 8. messages -------------------------------------------------------------------------

#[derive(Shaped)]
struct ZeroTimes {
    #[shape("(a, a * b)")]
    x: Shape,
}

#[check]
#[cfg_attr(shapes_no_checks, allow(dead_code))]
fn zero_times(#[shape("(a, a * b)")] x: &Shape) -> usize {
    x.dims()[0]
}

/// The message a failing `#[check]` call panics with.
#[cfg(not(shapes_no_checks))]
fn check_err(f: impl FnOnce() -> usize) -> String {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    let payload = r.expect_err("the check fails");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default()
}

#[test]
fn no_whole_solution_says_so_and_where_the_known_value_came_from() {
    let err = ZeroTimes { x: s([0, 5]) }.verify().unwrap_err().to_string();
    assert!(err.contains("a * b = 5 has no whole solution"), "{err}");
    assert!(err.contains("a = 0"), "where a was bound: {err}");
    assert!(!err.contains("never bound"), "{err}");
    #[cfg(not(shapes_no_checks))]
    {
        let err = check_err(|| zero_times(&s([0, 5])));
        assert!(err.contains("a * b = 5 has no whole solution"), "{err}");
    }
}

// ----- the property: solving, then re-evaluating, gives the shapes back ---------------------

/// Patterns with arithmetic whose every variable the checker determines from the dims.
const PATTERNS: [(&str, &[&str]); 6] = [
    (
        "(k, p, st, h, (h - k + 2 * p) // st + 1)",
        &["k", "p", "st", "h"],
    ),
    ("(k, h - k + 5)", &["k", "h"]),
    ("(c, z * z * c)", &["c", "z"]),
    ("(w, h_wins * w, w_wins * w)", &["w", "h_wins", "w_wins"]),
    ("(a, a * b + 1, b * b * b)", &["a", "b"]),
    ("(n, 2 * n - m, m)", &["n", "m"]),
];

/// `pattern` with `values` written in and evaluated; `None` when a dim is not a size.
fn shape_of(pattern: &Expr, vars: &[&str], values: &[usize]) -> Option<Shape> {
    let names = format!("({})", vars.join(", "));
    let vals = format!(
        "({})",
        values
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let s = unify(&parse(&names).ok()?, &parse(&vals).ok()?).ok()?;
    match s.apply(pattern).eval().ok()? {
        Expr::Pattern(p) => p.as_concrete(),
        _ => None,
    }
}

fn bindings_values(vars: &[&str], get: impl Fn(&str) -> Option<usize>) -> Vec<usize> {
    vars.iter()
        .map(|v| get(v).expect("every variable is bound"))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn solving_then_evaluating_reproduces_the_shapes(
        which in 0..PATTERNS.len(),
        values in proptest::collection::vec(1usize..40, 4),
    ) {
        let (text, vars) = PATTERNS[which];
        let pattern = parse(text).unwrap();
        let values = &values[..vars.len()];
        let Some(shape) = shape_of(&pattern, vars, values) else {
            return Ok(());
        };
        // The solver.
        let concrete = parse(&shape.to_string()).unwrap();
        let sub = unify(&pattern, &concrete).unwrap();
        let solved = bindings_values(vars, |v| sub.get(v).and_then(|t| t.to_string().parse().ok()));
        prop_assert_eq!(shape_of(&pattern, vars, &solved), Some(shape.clone()));
        // The run-time checker.
        let plan = Plan::build("P", &[PlanNode::tensor("x", text)], &[]).unwrap();
        let src = HashMap::from([("x".to_string(), shape.clone())]);
        let b = plan.verify_source(&src).unwrap();
        let found = bindings_values(vars, |v| b.get(v));
        prop_assert_eq!(shape_of(&pattern, vars, &found), Some(shape));
    }
}
