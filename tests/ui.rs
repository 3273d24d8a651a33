//! Compile-time errors of `#[derive(Shaped)]`: each file in tests/ui is one failure class, with
//! the exact message in its `.stderr`. Regenerate with `TRYBUILD=overwrite cargo test --test ui`
//! and review the diff.

#[test]
fn derive_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
