//! The integration tests, as one test binary: each module is one kind of assurance, and the
//! binary links the dependency graph once rather than once per file. The compile-fail tests
//! are the package `shapes-ui-tests` in `tests/ui/`.
//!
//! `cargo test --test it <module>::` runs one module, e.g. `cargo test --test it derive::`.

#[path = "../common/mod.rs"]
mod common;

mod adversarial;
mod broadcast_alloc;
mod broadcast_conformance;
mod broadcast_properties;
mod check;
mod check_self;
mod checkpoint_data;
mod checkpoint_dir;
mod checkpoint_open;
mod checkpoint_pickle;
mod compiled_vs_interpreted;
mod declared_at;
mod derive;
mod derive_alloc;
mod every_key;
mod expr_macro;
// Forward bodies on real candle tensors: needs the `candle` feature.
#[cfg(feature = "candle")]
mod flow;
// Models of candle_nn layers with checked forwards: needs the `candle` feature.
#[cfg(feature = "candle")]
mod flow_model;
// Needs the `candle` feature, as the struct it verifies holds candle tensors.
#[cfg(feature = "candle")]
mod fracast_weights;
// A model of candle_nn layers: needs the `candle` feature.
#[cfg(feature = "candle")]
mod frameworks;
mod fuzz_replay;
mod header_bad_files;
mod hygiene;
mod layout;
mod long_text;
mod model_zoo;
mod npy_verdicts;
mod parse_conformance;
mod plan_parity;
mod print_roundtrip;
mod reports;
mod scale;
mod semantics;
mod silence;
mod solve_conformance;
mod spec;
mod spec_infer;
mod verify_source;
