//! Derived `verify()` on a BERT-base parameter struct (199 tensors) against hand-written
//! comparisons of the same facts, measured in the same run; then the same model as a struct
//! of `candle_nn` layers (candle_bert.rs), derived against hand-written.
//!
//! `cargo bench -p shapes-benches --bench verify`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use shapes::Shaped;

#[path = "../tests/common/bert.rs"]
#[allow(dead_code)]
mod bert;
mod candle_bert;

fn verify(c: &mut Criterion) {
    let model = bert::bert_base();
    assert!(bert::hand_written(&model).is_some());
    assert!(model.verify().is_ok());
    let mut g = c.benchmark_group("bert_base_199_tensors");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500));
    g.bench_function("hand_written", |b| {
        b.iter(|| bert::hand_written(black_box(&model)))
    });
    g.bench_function("derived_verify", |b| b.iter(|| black_box(&model).verify()));
    g.bench_function("derived_verify_all", |b| {
        b.iter(|| black_box(&model).verify_all())
    });
    g.finish();
}

fn verify_candle_layers(c: &mut Criterion) {
    let model = candle_bert::bert_base();
    assert_eq!(candle_bert::hand_written(&model), Some((30522, 768, 3072)));
    let b = model.verify().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(b.get("d_ff"), Some(3072));
    let mut g = c.benchmark_group("bert_base_candle_nn_layers");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500));
    g.bench_function("hand_written", |b| {
        b.iter(|| candle_bert::hand_written(black_box(&model)))
    });
    g.bench_function("derived_verify", |b| b.iter(|| black_box(&model).verify()));
    g.finish();
}

criterion_group!(benches, verify, verify_candle_layers);
criterion_main!(benches);
