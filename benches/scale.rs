//! The cost per tensor of checking a DeepSeek-V3-shaped sharded checkpoint, from ~1,000 to
//! ~100,000 tensors: the layout of tests/common/deepseek.rs (shards of ~565 tensors named by
//! `model.safetensors.index.json`, MLA attention, the first three layers dense, routed
//! experts plus a shared one, FP8 weights with their block scales, the MTP layer) with fewer
//! layers and experts for the smaller sizes. Two groups:
//! - `scale/open_check`: `Checkpoint::open` of the directory (index, every shard's header,
//!   config.json), then `Spec::for_checkpoint` and `Spec::check` (it passes);
//! - `scale/wrong_spec`: the opened checkpoint checked as a Llama (`head_dim` given, as
//!   `--set head_dim=128` would): hundreds of missing tensors, each with a did-you-mean
//!   among ~90,000 unexpected ones, and the report's text (bounded).
//!
//! `cargo bench -p shapes-benches --bench scale`
//!
//! Criterion reports each size's time and its throughput in tensors per second: flat
//! throughput is a cost per tensor that does not grow with the count. The shards (headers
//! only, data sparse) are written into the temp dir in the setup.
//!
//! Figures, 2026-11-27, on 2 cores shared with other builds (load average ~3–4): criterion's
//! middle estimate, and the time per tensor.
//!
//! | tensors | open_check         | wrong_spec         |
//! |--------:|-------------------:|-------------------:|
//! |     985 |   4.41 ms (4.5 µs) |   1.19 ms (1.2 µs) |
//! |  10,087 |   31.8 ms (3.2 µs) |   16.9 ms (1.7 µs) |
//! |  96,665 |    316 ms (3.3 µs) |    193 ms (2.0 µs) |
//!
//! Opening and checking costs the same per tensor at every size; the wrong spec's report
//! grows a little faster (its missing tensors are each compared with a bounded run of the
//! sorted unexpected names, found by binary search). The whole command on the published
//! size (163 shards, 91,991 tensors) is measured with
//! `/usr/bin/time -v target/release/shapes check DIR` (CHANGELOG.md, Unreleased).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use shapes::{CheckOptions, Checkpoint, Spec, spec::Naming};

#[path = "../tests/common/ckpt_files.rs"]
mod ckpt_files;
#[path = "../tests/common/deepseek.rs"]
mod deepseek;

use ckpt_files::TempDir;
use deepseek::Layout;

/// Layouts of ~1,000, ~10,000 and ~100,000 tensors.
const LAYOUTS: [Layout; 3] = [
    Layout {
        layers: 4,
        experts: 150,
        mtp: 0,
    },
    Layout {
        layers: 10,
        experts: 235,
        mtp: 0,
    },
    Layout {
        layers: 64,
        experts: 256,
        mtp: 1,
    },
];

/// Tensors per shard, as the published checkpoint has them (91,991 in 163 shards).
const PER_SHARD: usize = 565;

fn scale(c: &mut Criterion) {
    let dir = TempDir::new("bench-scale");
    let llama = Spec::builtin("llama", Naming::HuggingFace).expect("built in");
    let as_llama = CheckOptions::new().set("head_dim", 128);
    let mut open_check = c.benchmark_group("scale/open_check");
    let mut dirs = Vec::new();
    for layout in LAYOUTS {
        let n = layout.count();
        let at = dir.join(&format!("deepseek-{n}"));
        std::fs::create_dir_all(&at).expect("dir");
        layout.write(&at, &layout.tensors(), n.div_ceil(PER_SHARD));
        let ckpt = Checkpoint::open(&at).expect("opens");
        assert_eq!(ckpt.tensors().len(), n);
        let spec = Spec::for_checkpoint(&ckpt).expect("deepseek_v3");
        assert!(spec.check(&ckpt).ok(), "{n} tensors pass");
        let wrong = llama.check_with(&ckpt, &as_llama).expect("checks");
        assert!(!wrong.ok() && wrong.to_string().lines().count() < 200);
        open_check
            .sample_size(10)
            .measurement_time(Duration::from_secs(5))
            .warm_up_time(Duration::from_secs(1))
            .throughput(Throughput::Elements(n as u64));
        open_check.bench_with_input(BenchmarkId::from_parameter(n), &at, |b, at| {
            b.iter(|| {
                let ckpt = Checkpoint::open(black_box(at)).expect("opens");
                let spec = Spec::for_checkpoint(&ckpt).expect("deepseek_v3");
                black_box(spec.check(&ckpt).ok())
            });
        });
        dirs.push((n, ckpt));
    }
    open_check.finish();
    let mut wrong_spec = c.benchmark_group("scale/wrong_spec");
    for (n, ckpt) in &dirs {
        wrong_spec
            .sample_size(10)
            .measurement_time(Duration::from_secs(5))
            .warm_up_time(Duration::from_secs(1))
            .throughput(Throughput::Elements(*n as u64));
        wrong_spec.bench_with_input(BenchmarkId::from_parameter(n), ckpt, |b, ckpt| {
            b.iter(|| {
                let report = llama
                    .check_with(black_box(ckpt), &as_llama)
                    .expect("checks");
                black_box(report.to_string().len())
            });
        });
    }
    wrong_spec.finish();
}

criterion_group!(benches, scale);
criterion_main!(benches);
