//! Compile-time errors of `#[derive(Shaped)]`: each file in tests/ui is one failure class, with
//! the exact message in its `.stderr`. Regenerate with `TRYBUILD=overwrite cargo test --test ui`
//! and review the diff.

#[test]
fn derive_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    // rustc lists "other types that implement HasShape" (or `Shaped`) in these errors, and that list depends
    // on the enabled integrations: their .stderr files are written for CI's `--all-features`.
    if cfg!(all(
        feature = "ndarray",
        feature = "candle",
        feature = "burn",
        feature = "nalgebra",
        feature = "safetensors",
        feature = "gguf",
    )) {
        t.compile_fail("tests/ui/all_features/*.rs");
    }
}
