//! Unification on hostile input: terms that grow without bound must end in a clean error.

use crate::expr::{Expr, parse};
use crate::solve::{InferErrorKind, Substitution, Term, infer_app, unify};

fn e(s: &str) -> Expr {
    parse(s).unwrap()
}

/// `(x0, …, x{n-1})` and the pattern of `item(i)` for `i` in `0..n`.
fn patterns(n: usize, item: impl Fn(usize) -> String) -> (Expr, Expr) {
    let xs: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    let ys: Vec<String> = (0..n).map(item).collect();
    (
        e(&format!("({})", xs.join(", "))),
        e(&format!("({})", ys.join(", "))),
    )
}

/// Issue reproducer: `(x0, …, x29)` against `(x1 + x1, …, x30 + x30)`, 465 bytes, doubled
/// `x0`'s value at every binding: 6 GB in 29 s. The doubling stops at the limit.
#[test]
fn exponential_growth_stops_at_the_node_limit() {
    let (a, b) = patterns(30, |i| format!("x{0} + x{0}", i + 1));
    let start = std::time::Instant::now();
    let err = unify(&a, &b).unwrap_err();
    assert_eq!(
        err.kind(),
        &InferErrorKind::TermTooLarge {
            limit: Substitution::MAX_TERM_NODES
        }
    );
    assert_eq!(err.to_string(), "the solution's terms grow past 4096 nodes");
    // The same through an application, both arguments' variables in one substitution.
    let err = infer_app(&e("a -> a -> a"), &[a, b]).unwrap_err();
    assert_eq!(err.argument(), Some(1));
    assert!(
        err.to_string()
            .ends_with("`: the solution's terms grow past 4096 nodes"),
        "{err}"
    );
    assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
}

/// Below the limit the same equations solve: `x0` is the sum of 2¹⁰ copies of `x10`
/// (2,047 nodes), and binding `x10` folds every value (3 × 2¹⁰).
#[test]
fn growth_below_the_limit_solves() {
    let (a, b) = patterns(10, |i| format!("x{0} + x{0}", i + 1));
    let s = unify(&a, &b).unwrap();
    let Some(Term::Dim(x0)) = s.get("x0") else {
        panic!("{s}")
    };
    assert_eq!(x0.to_string().matches("x10").count(), 1024);
    let (a, b) = patterns(11, |i| {
        if i < 10 {
            format!("x{0} + x{0}", i + 1)
        } else {
            "3".to_string()
        }
    });
    let s = unify(&a, &b).unwrap();
    assert_eq!(s.get("x0").unwrap().to_string(), "3072");
}

/// An error message shows the parameter with the values written in, unless that would be
/// past the limit: then as written.
#[test]
fn messages_never_write_in_past_the_limit() {
    let (a, b) = patterns(10, |i| format!("x{0} + x{0}", i + 1));
    // x0 is bound to 2,047 nodes: three times is past the limit, so as written.
    let err = unify(
        &e(&format!("{a} -> (x10, x10)")),
        &e(&format!("{b} -> (() -> ())")),
    )
    .unwrap_err();
    assert!(matches!(err.kind(), InferErrorKind::KindMismatch { .. }));
    let err = unify(
        &e(&format!("{a} -> (x0, x0, x0)")),
        &e(&format!("{b} -> (() -> ())")),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "(x0, x0, x0) and () → () are different kinds of expression and never unify"
    );
    // x1 is 1,023 nodes: three times is within the limit, written in.
    let err = unify(
        &e(&format!("{a} -> (x1, x1, x1)")),
        &e(&format!("{b} -> (() -> ())")),
    )
    .unwrap_err();
    assert_eq!(err.to_string().matches("x10").count(), 3 * 512, "{err}");
}

/// What is already large as written may stay large: only growth is limited.
#[test]
fn large_input_is_not_growth() {
    let n = 5000;
    let (a, b) = patterns(n, |i| format!("y{i}"));
    let s = unify(&a, &b).unwrap();
    assert_eq!(s.len(), n);
    // Every x{i} ↦ y{i}, then each y{i} ↦ z{i}: values are rewritten, none grows.
    let f = e(&format!("{a} -> {a} -> {a}"));
    let zs = patterns(n, |i| format!("z{i}")).1;
    let out = infer_app(&f, &[b, zs.clone()]).unwrap();
    assert_eq!(out, zs);
}

/// Runs `f` on a thread with a 2 MiB stack, what `std::thread::spawn` gives: an unbounded
/// recursion would overflow it and abort the test binary.
fn on_a_2_mib_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .expect("no stack overflow")
}

/// Issue reproducer: `(x0, …, x49)` against `(x1 + 1 + … + 1, …)` (100 `+ 1` each, 20 KB)
/// nested `x0`'s value 100 levels deeper at each binding, and overflowed a 2 MiB stack.
#[test]
fn deep_chains_stop_at_the_depth_limit() {
    let (a, b) = patterns(50, |i| format!("x{}{}", i + 1, " + 1".repeat(100)));
    let out = on_a_2_mib_stack(move || {
        let start = std::time::Instant::now();
        let err = unify(&a, &b).unwrap_err();
        let app = infer_app(&e("a -> a -> a"), &[a, b]).unwrap_err();
        (err, app, start.elapsed())
    });
    let (err, app, elapsed) = out;
    assert_eq!(
        err.kind(),
        &InferErrorKind::TermTooDeep {
            limit: Substitution::MAX_TERM_DEPTH
        }
    );
    assert_eq!(
        err.to_string(),
        "the solution's terms nest deeper than 256 levels"
    );
    assert_eq!(app.kind(), err.kind());
    assert!(elapsed.as_secs() < 10, "{elapsed:?}");
}

/// Chains of each kind of nesting, built by substitution up to the depth limit and past it:
/// up to the limit the value is used (evaluated again, unified, printed, dropped) on a
/// 2 MiB stack; past it, an error. Each step nests `per_step` levels.
#[test]
fn every_kind_of_nesting_stops_at_the_depth_limit() {
    // (item for x{i} in terms of x{i+1}, levels per step)
    let kinds: [(&str, usize); 8] = [
        ("x{} + 1", 1),
        ("2 * (x{} // 2)", 2),
        ("Π (x{}, *r)", 2),
        ("Σ (x{}, *r)", 2),
        ("(x{}, 3, *r)[1]", 2),
        ("D (T⁽¹ ⁰⁾ (x{}, *r))", 3),
        ("D (/⁰ (x{}, 3, *r))", 3),
        ("D ((x{}, *r) :{0}: (2, *r))", 3),
    ];
    for (item, per_step) in kinds {
        // x0's value nests steps × per_step levels over the last variable's (1 level); used
        // in `(y, y)` it is one level deeper again.
        let limit = Substitution::MAX_TERM_DEPTH;
        let fits = (limit - 2) / per_step;
        let past = (limit - 1) / per_step + 1;
        for (steps, ok) in [(fits, true), (past, false)] {
            // Last variable first, so that each value is built by evaluating the next one's
            // (binding x0 first would rewrite every earlier value at each binding, the path
            // `deep_chains_stop_at_the_depth_limit` takes: cubic, slow in a debug build).
            let xs: Vec<String> = (0..steps).rev().map(|i| format!("x{i}")).collect();
            let ys: Vec<String> = (0..steps)
                .rev()
                .map(|i| item.replace("{}", &(i + 1).to_string()))
                .collect();
            let a = e(&format!("({})", xs.join(", ")));
            let b = e(&format!("({})", ys.join(", ")));
            let name = item.to_string();
            let result = on_a_2_mib_stack(move || {
                let s = unify(&a, &b)?;
                let x0 = s.get("x0").unwrap().to_expr();
                // Use the deep value: as an argument, printed, compared, evaluated.
                let f = e("(y,) -> (y, y)");
                let out = infer_app(&f, std::slice::from_ref(&x0))?;
                let text = out.to_string();
                assert_eq!(out, out.clone());
                assert_eq!(x0.eval()?, x0, "{name}");
                Ok::<_, crate::solve::InferError>(text.len())
            });
            match result {
                Ok(_) => assert!(ok, "{item}: {steps} steps should be too deep"),
                Err(err) => {
                    assert!(!ok, "{item}: {steps} steps: {err}");
                    assert_eq!(
                        err.kind(),
                        &InferErrorKind::TermTooDeep {
                            limit: Substitution::MAX_TERM_DEPTH
                        },
                        "{item}"
                    );
                }
            }
        }
    }
}
