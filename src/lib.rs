//! # shapes
//!
//! Tensor shape checking for Rust: numpy-exact broadcasting, a shape-expression language with a
//! symbolic solver, and (feature `derive`, on by default) `#[derive(Shaped)]` for model
//! parameter structs.
//!
//! This crate is a facade: everything lives in `shapes-core` (the algebra and the runtime) and
//! `shapes-derive` (the macros), and is re-exported here so that users depend on one crate.
//!
//! ```
//! use shapes::{broadcast_shapes, Shape};
//!
//! let out: Shape = broadcast_shapes(&[[2, 1, 4].as_slice(), &[3, 1]]).unwrap();
//! assert_eq!(out.to_string(), "(2, 3, 4)");
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use shapes_core::*;

/// `#[derive(Shaped)]`: see [`Shaped`].
#[cfg(feature = "derive")]
pub use shapes_derive::Shaped;
