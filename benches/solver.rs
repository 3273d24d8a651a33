//! The solver against gorgonia's figures on this machine (measured there: ≈7.7 µs to parse
//! the matmul signature, ≈10.7 µs and 90 allocations to infer matmul applied to two shapes).
//! Target: at least 20× faster on both (≤ 385 ns parse, ≤ 535 ns inference).
//!
//! - `parse/matmul_signature`: `shapes::expr::parse("(a, b) -> (b, c) -> (a, c)")`;
//! - `infer_app/matmul_2_args`: matmul applied to `(2, 3)` and `(3, 4)`;
//! - `infer_app/matmul_symbolic`: matmul applied to `(x, y)` and `(y, 4)` (gorgonia errors);
//! - `chain/100_ops`: a 100-layer block: matmul, bias broadcast-add and an activation, in
//!   turn, each applied to the previous result (100 `infer_app` calls).
//!
//! `cargo bench -p shapes-benches --bench solver`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use shapes::{
    expr::{Expr, parse},
    solve::infer_app,
};

const MATMUL: &str = "(a, b) -> (b, c) -> (a, c)";

// The parser's hot path (shapes-core/src/parse/parser/). A rule's `Result` returned through
// memory and read back in wider loads stalls store-to-load forwarding, so the rules a
// signature runs through (`concat`, `prefix`, `postfix`, `atom`, `atom_uncached`, `paren`,
// and the nesting guard's `enter_nesting`) are `#[inline(always)]` in optimised builds, which
// keeps their results in registers; recursion goes through the out-of-line `prefix_nested`,
// `expr` and `pattern`. With the arrow chain read in a loop and a fast path for a lone name or
// number in a pattern, this took the matmul signature from ≈720 ns to ≈358 ns. Re-measured
// when the parser was split into files: without any of the attributes the parse took about
// 25% longer (≈335 → ≈420 ns); the pattern rules (`item`, `dim`, `dim_rest`, `term_rest`,
// `factor`) and `leave_nesting` made no difference here and are no longer forced. Debug
// builds do not inline: unoptimised, the inlined frames are so large that `MAX_DEPTH` levels
// of nesting would need more than a 2 MiB thread stack.
fn bench_parse(c: &mut Criterion) {
    c.bench_function("parse/matmul_signature", |b| {
        b.iter(|| parse(black_box(MATMUL)).unwrap())
    });
}

/// `{ a | (D … ) = 1 }` nested `levels` times around a pattern of 10,000 names (30 KB): each
/// level's `(` is a backtracking point (a parenthesised predicate, then a size).
fn nested_constraints(levels: usize) -> String {
    let mut s = format!("({})", vec!["a"; 10_000].join(", "));
    for _ in 0..levels {
        s = format!("{{ a | (D {s}) = 1 }}");
    }
    s
}

// Nested backtracking points: the second alternative of each level takes the inner level from
// the memo. When the memo was keyed by nesting depth as well, the second alternative reached
// the inner atom at another depth, missed, and parsed it again, doubling the work per level
// (see the module docs for the figures).
fn bench_nested_constraints(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse/nested_constraints_30kb");
    group.sample_size(10);
    for levels in [1, 5, 9, 13] {
        let input = nested_constraints(levels);
        assert!(parse(&input).is_ok());
        group.bench_function(format!("{levels}_levels"), |b| {
            b.iter(|| parse(black_box(&input)).unwrap())
        });
    }
    group.finish();
}

fn bench_infer(c: &mut Criterion) {
    let matmul = parse(MATMUL).unwrap();
    let args = [Expr::shape(&[2, 3]), Expr::shape(&[3, 4])];
    assert_eq!(infer_app(&matmul, &args).unwrap(), Expr::shape(&[2, 4]));
    c.bench_function("infer_app/matmul_2_args", |b| {
        b.iter(|| infer_app(black_box(&matmul), black_box(&args)).unwrap())
    });
    let sym = [parse("(x, y)").unwrap(), parse("(y, 4)").unwrap()];
    c.bench_function("infer_app/matmul_symbolic", |b| {
        b.iter(|| infer_app(black_box(&matmul), black_box(&sym)).unwrap())
    });
}

fn bench_chain(c: &mut Criterion) {
    let matmul = parse(MATMUL).unwrap();
    let bias_add = parse("{ a -> b -> (a||b) | (K a ~ K b) }").unwrap();
    let act = parse("a -> a").unwrap();
    let w = Expr::shape(&[768, 768]);
    let bias = Expr::shape(&[768]);
    let input = Expr::shape(&[32, 768]);
    let run = |x: &Expr| {
        let mut x = x.clone();
        for i in 0..100 {
            x = match i % 3 {
                0 => infer_app(&matmul, &[x, w.clone()]),
                1 => infer_app(&bias_add, &[x, bias.clone()]),
                _ => infer_app(&act, &[x]),
            }
            .unwrap();
        }
        x
    };
    assert_eq!(run(&input), input);
    c.bench_function("chain/100_ops", |b| b.iter(|| run(black_box(&input))));
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = bench_parse, bench_nested_constraints, bench_infer, bench_chain
}
criterion_main!(benches);
