//! Dim expressions known at compile time: one operator between two leaves is decided by an
//! inlined shortcut (`ItemChecks::bin`, and `where_holds` for a `where`), falling back to the
//! general checker's expression tree for anything but a clean pass; deeper expressions go to
//! the tree. Over a grid of shapes, a derived struct and a `#[check]` function must agree
//! exactly with a run-time `Plan` (which only walks the tree): the same bindings, with the
//! same origins, and the same error texts; and a passing call never leaves the fast path.

use std::collections::BTreeMap;

use shapes::{Bindings, Plan, Shape, Shaped, check, verify::PlanNode};

/// Every case of the shortcut and the tree: solved from the left or the right of each operator,
/// below zero in between, a floor division only known once its operand is, a power (left to
/// the tree), a variable waiting for a later dim, a variadic before an expression, and
/// `where` relations (an equation, comparisons, one side below zero, and equations that solve
/// a variable no field has: `area` always, `half` only when `cols * pad + cols` is even).
#[derive(Shaped)]
#[shapes(
    where = "rows + cols = pad + y, q % 3 != 1, h - k <= 2 * s, area = rows * cols, 2 * half = cols * pad + cols"
)]
#[allow(dead_code)]
struct Exprs {
    #[shape("(rows * 7, 3 * cols, cols + pad)")]
    windows: Shape,
    #[shape("((h - k + 2 * p) // s + 1, h, k, p, s)")]
    conv: Shape,
    #[shape("(10 - m, m / 2, q % 4)")]
    right: Shape,
    #[shape("(z * z * z, q)")]
    cube: Shape,
    #[shape("(*b, y * 2 - 1, y)")]
    tail: Shape,
}

const PATTERNS: [(&str, &str); 5] = [
    ("windows", "(rows * 7, 3 * cols, cols + pad)"),
    ("conv", "((h - k + 2 * p) // s + 1, h, k, p, s)"),
    ("right", "(10 - m, m / 2, q % 4)"),
    ("cube", "(z * z * z, q)"),
    ("tail", "(*b, y * 2 - 1, y)"),
];

fn plan() -> Plan {
    let nodes: Vec<PlanNode> = PATTERNS
        .iter()
        .map(|(name, pattern)| PlanNode::tensor(*name, *pattern))
        .collect();
    Plan::build(
        "Exprs",
        &nodes,
        &["rows + cols = pad + y, q % 3 != 1, h - k <= 2 * s, area = rows * cols, 2 * half = cols * pad + cols"],
    )
    .unwrap()
}

/// Bindings as a user reads them: every variable's value and where it was bound.
fn readable(b: &Bindings) -> Vec<String> {
    let mut out: Vec<String> = b
        .iter()
        .map(|x| format!("{} = {} from {}", x.name, x.value, x.origin))
        .collect();
    out.sort();
    out
}

/// Shapes that satisfy the patterns, with one dim off by one half of the time: a small
/// deterministic walk through values near the interesting ones (0, exact and inexact
/// divisions, negative intermediates).
fn sample(seed: u64) -> Exprs {
    let mut state = seed;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) % n) as usize
    };
    let (rows, cols, pad) = (next(4), next(4), next(3));
    let (h, k, p, s) = (next(6), 1 + next(4), next(3), 1 + next(2));
    let conv = ((h as i64 - k as i64 + 2 * p as i64).div_euclid(s as i64) + 1).max(0) as usize;
    let (m, q, z, y) = (next(11), next(9), next(5), 1 + next(5));
    let mut dims: Vec<Vec<usize>> = vec![
        vec![rows * 7, 3 * cols, cols + pad],
        vec![conv, h, k, p, s],
        vec![10 - m, m / 2, q % 4],
        vec![z * z * z, q],
        [&[2, 3][..next(3)], &[y * 2 - 1, y]].concat(),
    ];
    if next(2) == 0 {
        let t = next(5);
        let a = next(dims[t].len() as u64);
        dims[t][a] = if next(2) == 0 {
            dims[t][a] + 1
        } else {
            dims[t][a].saturating_sub(1)
        };
    }
    let s = |i: usize| Shape::new(&dims[i]);
    Exprs {
        windows: s(0),
        conv: s(1),
        right: s(2),
        cube: s(3),
        tail: s(4),
    }
}

#[test]
fn derived_checks_agree_with_the_expression_tree() {
    let plan = plan();
    let (mut passed, mut failed) = (0, 0);
    for seed in 0..4000 {
        let value = sample(seed);
        let src: BTreeMap<String, Shape> = [
            ("windows", &value.windows),
            ("conv", &value.conv),
            ("right", &value.right),
            ("cube", &value.cube),
            ("tail", &value.tail),
        ]
        .into_iter()
        .map(|(n, s)| (n.to_string(), s.clone()))
        .collect();
        let by_tree = plan.verify_source(&src);
        let by_name = Exprs::verify_source(&src);
        match (&by_tree, &by_name) {
            (Ok(a), Ok(b)) => {
                assert_eq!(readable(a), readable(b), "{src:?}");
                passed += 1;
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.to_string(), b.to_string(), "{src:?}");
                failed += 1;
            }
            _ => panic!("{src:?}: the tree says {by_tree:?}, the derive {by_name:?}"),
        }
        // In memory: the same verdict and the same bindings.
        match (value.verify(), by_tree) {
            (Ok(a), Ok(b)) => assert_eq!(readable(&a), readable(&b), "{src:?}"),
            (Err(_), Err(_)) => {}
            (a, b) => panic!("{src:?}: in memory {a:?}, the tree {b:?}"),
        }
    }
    // The walk reaches both verdicts often.
    assert!(
        passed > 30 && failed > 30,
        "{passed} passed, {failed} failed"
    );
}

#[check]
fn windows(#[shape("(batch, h_wins * 7, w_wins * 7, c)")] x: &Shape) -> usize {
    x.dims()[0]
}

#[check]
fn conv(
    #[shape("((h - k + 2 * p) // s + 1,)")] out: &Shape,
    #[shape("(h, k, p, s)")] params: &Shape,
) -> usize {
    out.dims()[0]
}

/// `where` equations that solve variables no argument has, one through an exact division.
#[check(where = "2 * half = w, area = h * half")]
fn halves(#[shape("(h, w)")] x: &Shape) -> usize {
    x.dims()[0]
}

#[test]
fn checked_calls_agree_and_pass_on_the_fast_path() {
    let before = shapes::__testing::call_reports();
    assert_eq!(windows(&Shape::from([2, 56, 28, 96])), 2);
    assert_eq!(halves(&Shape::from([3, 8])), 3);
    // 2 - 3 is below zero in between: fine.
    assert_eq!(conv(&Shape::from([2]), &Shape::from([2, 3, 1, 1])), 2);
    assert_eq!(shapes::__testing::call_reports(), before);
    #[cfg(not(shapes_no_checks))]
    {
        let e = std::panic::catch_unwind(|| windows(&Shape::from([2, 55, 28, 96])))
            .expect_err("55 is no multiple of 7");
        let text = e.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(text.contains("windows.x: axis 1"), "{text}");
        assert_eq!(shapes::__testing::call_reports(), before + 1);
        let e = std::panic::catch_unwind(|| halves(&Shape::from([3, 7]))).expect_err("7 is odd");
        let text = e.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(
            text.contains("2 * half = 7 has no whole solution"),
            "{text}"
        );
    }
}
