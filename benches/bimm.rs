//! The Swin-style window pattern `(batch, h_wins * window, w_wins * window, c)` with `window`
//! known, side by side in one run: bimm-contracts 0.20.1 (the Rust peer with compile-time
//! patterns and arithmetic), the derive (`verify_with` + four `get`s), `#[shapes::check]`, and
//! a hand-written check. Every variant checks the shape and returns the four values.
//!
//! `cargo bench -p shapes-benches --bench bimm`

use std::hint::black_box;
use std::time::Duration;

use bimm_contracts::unpack_shape_contract;
use criterion::{Criterion, criterion_group, criterion_main};
use shapes::{Bindings, Shape, Shaped, check};

const WINDOW: usize = 7;

#[derive(Shaped)]
#[shapes(given = "window")]
struct Windows<'a> {
    #[shape("(batch, h_wins * window, w_wins * window, c)")]
    x: &'a Shape,
}

#[inline(never)]
fn derived(x: &Shape) -> Option<[usize; 4]> {
    let b = Windows { x }
        .verify_with(Bindings::new().bind("window", WINDOW))
        .ok()?;
    Some([
        b.get("batch")?,
        b.get("h_wins")?,
        b.get("w_wins")?,
        b.get("c")?,
    ])
}

/// `window` is known at compile time here: a literal in the pattern.
#[check]
#[inline(never)]
fn checked(#[shape("(batch, h_wins * 7, w_wins * 7, c)")] x: &Shape) -> [usize; 4] {
    let d = x.dims();
    [d[0], d[1] / WINDOW, d[2] / WINDOW, d[3]]
}

#[inline(never)]
fn by_hand(x: &Shape) -> Option<[usize; 4]> {
    match *x.dims() {
        [b, h, w, c] if h % WINDOW == 0 && w % WINDOW == 0 => Some([b, h / WINDOW, w / WINDOW, c]),
        _ => None,
    }
}

#[inline(never)]
fn bimm(x: &Shape) -> [usize; 4] {
    unpack_shape_contract!(
        [
            "batch",
            "height" = "h_wins" * "window",
            "width" = "w_wins" * "window",
            "channels"
        ],
        x.dims(),
        &["batch", "h_wins", "w_wins", "channels"],
        &[("window", WINDOW)],
    )
}

fn windows(c: &mut Criterion) {
    let x = Shape::from([2, 8 * WINDOW, 4 * WINDOW, 96]);
    let want = [2, 8, 4, 96];
    assert_eq!(derived(&x), Some(want));
    assert_eq!(checked(&x), want);
    assert_eq!(by_hand(&x), Some(want));
    assert_eq!(bimm(&x), want);

    let mut g = c.benchmark_group("windows");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500));
    g.bench_function("hand_written", |b| b.iter(|| by_hand(black_box(&x))));
    g.bench_function("bimm_contracts", |b| b.iter(|| bimm(black_box(&x))));
    g.bench_function("check", |b| b.iter(|| checked(black_box(&x))));
    g.bench_function("derive_verify_with_4_gets", |b| {
        b.iter(|| derived(black_box(&x)))
    });
    g.finish();
}

criterion_group!(benches, windows);
criterion_main!(benches);
