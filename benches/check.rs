//! `#[shapes::check]` overhead: a 3-argument call checked against its patterns versus the same
//! function unchecked, measured in the same run. Target: under 50 ns of overhead per call
//! (jaxtyping's `@jaxtyped` takes about 30 µs per checked call on this machine).
//!
//! `method_3_args`: a 3-argument method with `#[check(self)]` on a model of 201 tensors,
//! sharing two of its variables (read from one dim each), versus the same method unchecked and
//! versus verifying the model on every call before checking. Target: under 60 ns of overhead.
//!
//! `cargo bench -p shapes-benches --bench check`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use shapes::{Shape, Shaped, check};

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

/// One transformer layer: 10 tensors.
#[derive(Shaped, Clone)]
struct Layer {
    #[shape("(d_model, d_model)")]
    q: Shape,
    #[shape("(d_model, d_model)")]
    k: Shape,
    #[shape("(d_model, d_model)")]
    v: Shape,
    #[shape("(d_model, d_model)")]
    o: Shape,
    #[shape("(d_ff, d_model)")]
    up: Shape,
    #[shape("(d_ff,)")]
    up_bias: Shape,
    #[shape("(d_model, d_ff)")]
    down: Shape,
    #[shape("(d_model,)")]
    down_bias: Shape,
    #[shape("(d_model,)")]
    norm1: Shape,
    #[shape("(d_model,)")]
    norm2: Shape,
}

/// 201 tensors: the embedding, a first layer, and 19 more in a list.
#[derive(Shaped)]
struct Model {
    #[shape("(vocab, d_model)")]
    embed: Shape,
    #[shape(nested)]
    first: Layer,
    #[shape(nested, count = "n_more")]
    layers: Vec<Layer>,
}

/// What every variant of the method computes.
#[inline(always)]
fn method_body(ids: &Shape, x: &Shape, h: &Shape) -> usize {
    ids.dims()[0] + x.dims()[2] + h.dims()[2]
}

impl Model {
    #[inline(never)]
    fn forward_unchecked(&self, ids: &Shape, x: &Shape, h: &Shape) -> usize {
        method_body(ids, x, h)
    }

    /// `d_model` and `d_ff` are the model's: read from `embed` and `first.up`.
    #[check(self)]
    #[inline(never)]
    fn forward(
        &self,
        #[shape("(batch, seq)")] ids: &Shape,
        #[shape("(batch, seq, d_model)")] x: &Shape,
        #[shape("(batch, seq, d_ff)")] h: &Shape,
    ) -> usize {
        method_body(ids, x, h)
    }

    /// The same patterns, the variables the method's own (bound by the arguments): what
    /// sharing them with the model adds.
    #[check]
    #[inline(never)]
    fn forward_own(
        &self,
        #[shape("(batch, seq)")] ids: &Shape,
        #[shape("(batch, seq, d_model)")] x: &Shape,
        #[shape("(batch, seq, d_ff)")] h: &Shape,
    ) -> usize {
        method_body(ids, x, h)
    }

    /// The same without sharing: the model verified on every call, its values compared with
    /// the arguments' by a checked function.
    #[inline(never)]
    fn forward_verified(&self, ids: &Shape, x: &Shape, h: &Shape) -> usize {
        let b = self.verify().unwrap();
        let (d_model, d_ff) = args_check(ids, x, h);
        assert_eq!(
            (b.get("d_model"), b.get("d_ff")),
            (Some(d_model), Some(d_ff))
        );
        method_body(ids, x, h)
    }
}

#[check]
#[inline(always)]
fn args_check(
    #[shape("(batch, seq)")] _ids: &Shape,
    #[shape("(batch, seq, d_model)")] x: &Shape,
    #[shape("(batch, seq, d_ff)")] h: &Shape,
) -> (usize, usize) {
    (x.dims()[2], h.dims()[2])
}

fn model() -> Model {
    let (d, f) = (768, 3072);
    let layer = Layer {
        q: Shape::from([d, d]),
        k: Shape::from([d, d]),
        v: Shape::from([d, d]),
        o: Shape::from([d, d]),
        up: Shape::from([f, d]),
        up_bias: Shape::from([f]),
        down: Shape::from([d, f]),
        down_bias: Shape::from([d]),
        norm1: Shape::from([d]),
        norm2: Shape::from([d]),
    };
    Model {
        embed: Shape::from([30522, d]),
        first: layer.clone(),
        layers: vec![layer; 19],
    }
}

fn method(c: &mut Criterion) {
    let m = model();
    let (ids, x, h) = (
        Shape::from([8, 128]),
        Shape::from([8, 128, 768]),
        Shape::from([8, 128, 3072]),
    );
    let want = 8 + 768 + 3072;
    assert_eq!(m.forward_unchecked(&ids, &x, &h), want);
    assert_eq!(m.forward(&ids, &x, &h), want);
    assert_eq!(m.forward_own(&ids, &x, &h), want);
    assert_eq!(m.forward_verified(&ids, &x, &h), want);
    let before = shapes::__testing::call_reports();

    let mut g = c.benchmark_group("method_3_args");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500));
    g.bench_function("unchecked", |b| {
        b.iter(|| black_box(&m).forward_unchecked(black_box(&ids), black_box(&x), black_box(&h)))
    });
    g.bench_function("checked_own_vars", |b| {
        b.iter(|| black_box(&m).forward_own(black_box(&ids), black_box(&x), black_box(&h)))
    });
    g.bench_function("checked_self", |b| {
        b.iter(|| black_box(&m).forward(black_box(&ids), black_box(&x), black_box(&h)))
    });
    g.bench_function("verify_then_check", |b| {
        b.iter(|| black_box(&m).forward_verified(black_box(&ids), black_box(&x), black_box(&h)))
    });
    g.finish();
    // Every measured call passed on the fast path.
    assert_eq!(shapes::__testing::call_reports(), before);
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

criterion_group!(benches, overhead, method);
criterion_main!(benches);
