//! The cost of a derived `verify()` as a ratio to the hand-written checks of the same facts,
//! measured in pairs: each round times a batch of one, then a batch of the other (in turn
//! first), so that a machine whose speed drifts during the run moves both sides of each ratio
//! alike. Prints the median ratio of the rounds and its quartiles, for BERT-base as a struct
//! of `candle_nn` layers and as a struct of 199 raw tensors.
//!
//! `cargo bench -p shapes-benches --bench verify_ratio`

use std::hint::black_box;
use std::time::Instant;

use shapes::Shaped;

#[path = "../tests/common/bert.rs"]
#[allow(dead_code)]
mod bert;
mod candle_bert;

/// Rounds per model, and calls per batch (a batch takes tens of microseconds).
const ROUNDS: usize = 301;
const BATCH: usize = 200;

/// Nanoseconds per call of `f` over one batch.
fn batch<R>(f: &mut impl FnMut() -> R) -> f64 {
    let start = Instant::now();
    for _ in 0..BATCH {
        black_box(f());
    }
    start.elapsed().as_secs_f64() * 1e9 / BATCH as f64
}

/// The quartiles of `v` (sorted in place).
fn quartiles(v: &mut [f64]) -> [f64; 3] {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    [at(0.25), at(0.5), at(0.75)]
}

fn pair<A, B>(name: &str, mut hand: impl FnMut() -> A, mut derived: impl FnMut() -> B) {
    // Warm up both.
    for _ in 0..20 {
        batch(&mut hand);
        batch(&mut derived);
    }
    let mut ratios = Vec::with_capacity(ROUNDS);
    let (mut hand_ns, mut derived_ns) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let (h, d) = if round % 2 == 0 {
            let h = batch(&mut hand);
            (h, batch(&mut derived))
        } else {
            let d = batch(&mut derived);
            (batch(&mut hand), d)
        };
        ratios.push(d / h);
        hand_ns.push(h);
        derived_ns.push(d);
    }
    let [r1, r, r3] = quartiles(&mut ratios);
    let h = quartiles(&mut hand_ns)[1];
    let d = quartiles(&mut derived_ns)[1];
    println!(
        "{name}: derived/hand-written median {r:.3}x (quartiles {r1:.3}-{r3:.3}) over {ROUNDS} \
         paired rounds; medians {d:.1} ns derived, {h:.1} ns hand-written"
    );
}

fn main() {
    let layers = candle_bert::bert_base();
    assert_eq!(candle_bert::hand_written(&layers), Some((30522, 768, 3072)));
    assert!(layers.verify().is_ok());
    pair(
        "bert_base_candle_nn_layers",
        || candle_bert::hand_written(black_box(&layers)),
        || black_box(&layers).verify(),
    );

    let raw = bert::bert_base();
    assert!(bert::hand_written(&raw).is_some());
    assert!(raw.verify().is_ok());
    pair(
        "bert_base_199_tensors",
        || bert::hand_written(black_box(&raw)),
        || black_box(&raw).verify(),
    );
}
