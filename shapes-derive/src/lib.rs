//! Procedural macros for the [`shapes`](https://docs.rs/shapes) crate.
//!
//! Use them through the facade crate `shapes`, which re-exports them; this crate is an
//! implementation detail with no stable API of its own yet.
#![forbid(unsafe_code)]
