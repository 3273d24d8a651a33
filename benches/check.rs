//! `#[shapes::check]` overhead: a 3-argument call checked against its patterns versus the same
//! function unchecked, measured in the same run. Target: under 50 ns of overhead per call
//! (jaxtyping's `@jaxtyped` takes about 30 µs per checked call on this machine).
//!
//! `cargo bench -p shapes-benches --bench check`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use shapes::{Shape, check};

/// What every variant computes: the output shape of `x @ w + bias`.
#[inline(always)]
fn body(x: &Shape, w: &Shape, bias: &Shape) -> Shape {
    let d = x.dims();
    Shape::from([d[0], d[1], w.dims()[1].max(bias.dims()[0])])
}

#[inline(never)]
fn unchecked(x: &Shape, w: &Shape, bias: &Shape) -> Shape {
    body(x, w, bias)
}

#[check]
#[inline(never)]
fn checked(
    #[shape("(batch, n, k)")] x: &Shape,
    #[shape("(k, m)")] w: &Shape,
    #[shape("(m,)")] bias: &Shape,
) -> Shape {
    body(x, w, bias)
}

#[check(ret = "(batch, n, m)")]
#[inline(never)]
fn checked_ret(
    #[shape("(batch, n, k)")] x: &Shape,
    #[shape("(k, m)")] w: &Shape,
    #[shape("(m,)")] bias: &Shape,
) -> Shape {
    body(x, w, bias)
}

#[check(ret = "(*b, n, m)")]
#[inline(never)]
fn checked_variadic(
    #[shape("(*b, n, k)")] x: &Shape,
    #[shape("(k, m)")] w: &Shape,
    #[shape("(m,)")] bias: &Shape,
) -> Shape {
    body(x, w, bias)
}

fn overhead(c: &mut Criterion) {
    let (x, w, bias) = (
        Shape::from([8, 128, 768]),
        Shape::from([768, 3072]),
        Shape::from([3072]),
    );
    let want = Shape::from([8, 128, 3072]);
    assert_eq!(unchecked(&x, &w, &bias), want);
    assert_eq!(checked(&x, &w, &bias), want);
    assert_eq!(checked_ret(&x, &w, &bias), want);
    assert_eq!(checked_variadic(&x, &w, &bias), want);

    let mut g = c.benchmark_group("call_3_args");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500));
    g.bench_function("unchecked", |b| {
        b.iter(|| unchecked(black_box(&x), black_box(&w), black_box(&bias)))
    });
    g.bench_function("checked_args", |b| {
        b.iter(|| checked(black_box(&x), black_box(&w), black_box(&bias)))
    });
    g.bench_function("checked_args_and_return", |b| {
        b.iter(|| checked_ret(black_box(&x), black_box(&w), black_box(&bias)))
    });
    g.bench_function("checked_variadic_and_return", |b| {
        b.iter(|| checked_variadic(black_box(&x), black_box(&w), black_box(&bias)))
    });
    g.finish();
}

criterion_group!(benches, overhead);
criterion_main!(benches);
