//! Compile-time errors of `#[derive(Shaped)]`, `#[shapes::check]` and `expr!`: each file in
//! `cases/` is one failure class, with the exact message in its `.stderr`. Regenerate with
//! `TRYBUILD=overwrite cargo test -p shapes-ui-tests` and review the diff.
//!
//! The cases are built against `shapes` with the derive and the safetensors types (this package's only
//! dependency), so the lists rustc prints ("the following other types implement trait
//! `HasShape`") are the same whatever features the workspace is tested with.

#[test]
fn macro_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("cases/*.rs");
}
