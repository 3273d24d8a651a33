//! The fuzz targets' seed corpus (`fuzz/seeds/<target>/`), replayed through the same checks the
//! fuzzers run (`tests/common/fuzz_checks.rs`), so the normal test suite keeps covering every
//! input that once found new behaviour, and every crash that became a seed.

use std::path::{Path, PathBuf};

use crate::common::fuzz_checks;

fn seeds(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.expect("a readable directory entry").path();
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path, bytes)
        })
        .collect();
    files.sort();
    files
}

/// Runs `check` on every seed of `target`, naming the file that fails.
fn replay(target: &str, min_seeds: usize, check: fn(&[u8])) {
    let files = seeds(target);
    assert!(
        files.len() >= min_seeds,
        "{target}: only {} seeds in fuzz/seeds/{target}",
        files.len()
    );
    for (path, bytes) in &files {
        if std::panic::catch_unwind(|| check(bytes)).is_err() {
            panic!("fuzz seed {} fails its check", path.display());
        }
    }
}

#[test]
fn parse_seeds() {
    replay("parse", 50, fuzz_checks::check_parse);
}

#[test]
fn broadcast_seeds() {
    replay("broadcast", 50, fuzz_checks::check_broadcast);
}

#[test]
fn safetensors_header_seeds() {
    replay("safetensors_header", 50, fuzz_checks::check_safetensors);
}

#[test]
fn gguf_header_seeds() {
    replay("gguf_header", 5, fuzz_checks::check_gguf);
}

#[test]
fn solver_seeds() {
    replay("solver", 5, fuzz_checks::check_solver);
}

#[test]
fn solver_free_seeds() {
    replay("solver_free", 1, fuzz_checks::check_solver_free);
}

#[test]
fn checkpoint_seeds() {
    replay("checkpoint", 5, fuzz_checks::check_checkpoint);
}

#[test]
fn pickle_seeds() {
    replay("pickle", 5, fuzz_checks::check_pickle);
}

#[test]
fn npy_seeds() {
    replay("npy", 5, fuzz_checks::check_npy);
}

#[test]
fn spec_seeds() {
    replay("spec", 20, fuzz_checks::check_spec);
}
