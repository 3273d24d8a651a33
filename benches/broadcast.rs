//! Broadcasting two and three shapes: ours against the baselines a user would otherwise reach
//! for, measured in the same run.
//!
//! - `hand_loop`: the textbook right-aligned loop over N shapes into a fixed `[usize; 8]`, with
//!   no error detail (the fastest thing one would write by hand);
//! - `candle`: candle-core's `Shape::broadcast_shape_binary_op`, which every binary op in candle
//!   runs;
//! - `ours`: `broadcast_shapes` (owned, inline `Shape`) and `broadcast_shapes_into` (caller's
//!   buffer).
//!
//! `cargo bench -p shapes-benches --bench broadcast`

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use shapes::{
    broadcast::{are_broadcastable, broadcast_shapes_into},
    broadcast_shapes,
};

/// The textbook loop: what one writes without a library, into a fixed array.
fn hand_loop(shapes: &[&[usize]], out: &mut [usize; 8]) -> Option<usize> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    if rank > out.len() {
        return None;
    }
    for i in 0..rank {
        let mut acc = 1;
        for s in shapes {
            if i < s.len() {
                let d = s[s.len() - 1 - i];
                if d != acc {
                    if acc == 1 {
                        acc = d;
                    } else if d != 1 {
                        return None;
                    }
                }
            }
        }
        out[rank - 1 - i] = acc;
    }
    Some(rank)
}

const CASES: &[(&str, &[&[usize]])] = &[
    ("2x_rank4_numpy_doc", &[&[8, 1, 6, 1], &[7, 1, 5]]),
    (
        "2x_rank4_attention_mask",
        &[&[32, 12, 128, 128], &[32, 1, 1, 128]],
    ),
    ("2x_rank3_bias_add", &[&[64, 512, 768], &[768]]),
    (
        "4x_rank4",
        &[&[8, 1, 6, 1], &[1, 7, 1, 5], &[8, 7, 1, 1], &[1, 1, 6, 5]],
    ),
];

fn broadcast(c: &mut Criterion) {
    let mut g = c.benchmark_group("broadcast");
    g.measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(300));
    for &(name, shapes) in CASES {
        let mut buf = [0usize; 8];
        let rank = hand_loop(shapes, &mut buf).expect("bench cases broadcast");
        let expected = &buf[..rank];
        assert_eq!(broadcast_shapes(shapes).unwrap(), expected);

        g.bench_with_input(BenchmarkId::new("hand_loop", name), shapes, |bch, s| {
            let mut out = [0usize; 8];
            bch.iter(|| hand_loop(black_box(s), &mut out))
        });
        g.bench_with_input(BenchmarkId::new("ours_into", name), shapes, |bch, s| {
            let mut out = [0usize; 8];
            bch.iter(|| broadcast_shapes_into(black_box(s), &mut out))
        });
        g.bench_with_input(BenchmarkId::new("ours", name), shapes, |bch, s| {
            // The result is observed in place (as a caller would use it), not copied out:
            // criterion's by-value `black_box` of a 72-byte `Result` costs more than the work.
            bch.iter(|| black_box(&broadcast_shapes(black_box(s))).is_ok())
        });
        // candle broadcasts two shapes at a time: N shapes are a fold.
        let cs: Vec<candle_core::Shape> = shapes
            .iter()
            .map(|s| candle_core::Shape::from(s.to_vec()))
            .collect();
        let fold = |cs: &[candle_core::Shape]| {
            let mut acc = cs[0].clone();
            for s in &cs[1..] {
                acc = acc.broadcast_shape_binary_op(s, "add")?;
            }
            Ok::<_, candle_core::Error>(acc)
        };
        assert_eq!(fold(&cs).unwrap().dims(), expected);
        g.bench_with_input(BenchmarkId::new("candle", name), &cs, |bch, cs| {
            bch.iter(|| fold(black_box(cs)))
        });
        if let [a, b] = shapes {
            g.bench_with_input(
                BenchmarkId::new("ours_are_broadcastable", name),
                &(a, b),
                |bch, (a, b)| bch.iter(|| are_broadcastable(black_box(a), black_box(b))),
            );
        }
    }
    g.finish();
}

criterion_group!(benches, broadcast);
criterion_main!(benches);
