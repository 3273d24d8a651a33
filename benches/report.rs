//! The cost of a report per tensor, from 1,000 to 100,000 tensors: `Spec::check` of a
//! checkpoint against a spec plus the report's text (folding, did-you-mean, the bounded
//! listing), for three ways a checkpoint goes wrong at scale:
//! - `unexpected`: N tensors of distinct names that the spec does not describe;
//! - `mismatched`: N layers whose one tensor has a wrong dim;
//! - `renamed`: N layers whose tensor is saved under another name (N missing, each with a
//!   did-you-mean among N unexpected names).
//!
//! `cargo bench -p shapes-benches --bench report`
//!
//! Criterion reports each size's time and its throughput in tensors per second: flat
//! throughput across the sizes is a cost per tensor that does not grow with the count. The
//! checkpoints (headers only, data sparse) are written into the temp dir in the setup.
//!
//! Figures, 2026-11-27, 2 cores shared with other builds (load average 6–7, so criterion's
//! times wander by 2× between runs): the middle estimate per tensor.
//!
//! | case       |   1,000 |  10,000 | 100,000 |
//! |------------|--------:|--------:|--------:|
//! | unexpected | 0.98 µs | 1.03 µs | 2.19 µs |
//! | mismatched |   22 µs |   29 µs | 29.5 µs |
//! | renamed    |   25 µs | 10.4 µs |  9.5 µs |
//!
//! A second run of `unexpected` gave 0.66, 0.52 and 0.84 µs. What a busy machine does not
//! move is the instruction count: `bash benches/report_instructions.sh` runs the same three
//! cases through `shapes check` (whole process) under callgrind. Instructions per tensor,
//! after the scale work of the same day:
//!
//! | case       |  1,000 | 10,000 | 100,000 |
//! |------------|-------:|-------:|--------:|
//! | unexpected |  8,281 |  7,851 |   8,001 |
//! | mismatched | 31,540 | 32,562 |  33,779 |
//! | renamed    | 25,502 | 19,002 |  19,105 |
//!
//! Flat from 1,000 to 100,000 in every case (`renamed` falls as its fixed cost is shared).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use shapes::{Checkpoint, Spec};

#[path = "../tests/common/ckpt_files.rs"]
mod ckpt_files;

use ckpt_files::{TempDir, Tensor, safetensors};

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

/// A name of no pattern: a hash-like tag, so that nothing folds.
fn tag(i: usize) -> String {
    format!(
        "{:08x}",
        (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32
    )
}

struct Case {
    name: &'static str,
    spec: Spec,
    tensors: fn(usize) -> Vec<Tensor>,
    config: fn(usize) -> String,
}

fn cases() -> Vec<Case> {
    let spec = |text: &str| Spec::from_toml("bench.toml", text).expect("the spec compiles");
    vec![
        Case {
            name: "unexpected",
            spec: spec("[tensors]\n\"w\" = \"(d,)\"\n"),
            tensors: |n| {
                let mut t: Vec<Tensor> = vec![("w".into(), vec![4])];
                t.extend((0..n).map(|i| (format!("extra_{}.weight", tag(i)), vec![4])));
                t
            },
            config: |_| "{}".into(),
        },
        Case {
            name: "mismatched",
            spec: spec(
                "[config]\nn = \"n_layers\"\n[repeat]\n\"layers\" = \"n\"\n[tensors]\n\"layers.{i}.w\" = \"(d, d)\"\n",
            ),
            tensors: |n| {
                (0..n)
                    .map(|i| (format!("layers.{i}.w"), vec![4, 5]))
                    .collect()
            },
            config: |n| format!("{{\"n_layers\": {n}}}"),
        },
        Case {
            name: "renamed",
            spec: spec(
                "[config]\nn = \"n_layers\"\n[repeat]\n\"layers\" = \"n\"\n[tensors]\n\"layers.{i}.attn.q_proj\" = \"(d, d)\"\n",
            ),
            tensors: |n| {
                (0..n)
                    .map(|i| (format!("layers.{i}.attn.qproj"), vec![4, 4]))
                    .collect()
            },
            config: |n| format!("{{\"n_layers\": {n}}}"),
        },
    ]
}

fn report(c: &mut Criterion) {
    let dir = TempDir::new("bench-report");
    for case in cases() {
        let mut group = c.benchmark_group(format!("report/{}", case.name));
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(5))
            .warm_up_time(Duration::from_secs(1));
        for n in SIZES {
            let at = dir.join(&format!("{}-{n}", case.name));
            std::fs::create_dir_all(&at).expect("dir");
            safetensors(&at.join("model.safetensors"), &(case.tensors)(n), &[]);
            std::fs::write(at.join("config.json"), (case.config)(n)).expect("config");
            let ckpt = Checkpoint::open(&at).expect("opens");
            let first = case.spec.check(&ckpt);
            assert!(!first.ok(), "{} at {n} must fail", case.name);
            assert!(first.to_string().lines().count() < 200, "bounded text");
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::from_parameter(n), &ckpt, |b, ckpt| {
                b.iter(|| {
                    let report = case.spec.check(black_box(ckpt));
                    black_box(report.to_string().len())
                });
            });
        }
        group.finish();
    }
}

criterion_group!(benches, report);
criterion_main!(benches);
