//! The shape algebra behind the [`shapes`](https://docs.rs/shapes) crate.
//!
//! Use it through the facade crate `shapes`, which re-exports everything here together with
//! the derive macros. This crate holds:
//!
//! - [`Shape`], an owned shape with inline storage;
//! - the broadcasting family: [`broadcast_shapes`] (numpy's rules, any number of shapes),
//!   [`broadcast_shapes_into`] (no allocation), [`predict_broadcast_shape`] (`i64` shapes),
//!   [`are_broadcastable`], [`broadcast_to`], [`refine_shapes_for_broadcast`] (TBE's kernel
//!   helper) and named broadcasting ([`NamedShape`], [`broadcast_missing_dimensions`],
//!   [`broadcast_named`]).
//!
//! ```
//! use shapes::{broadcast_shapes, Shape};
//!
//! let out = broadcast_shapes(&[[8, 1, 6, 1].as_slice(), &[7, 1, 5]]).unwrap();
//! assert_eq!(out, Shape::from([8, 7, 6, 5]));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "spec")]
pub mod adapter;
mod broadcast;
#[cfg(feature = "checkpoint")]
pub mod diff;
mod expr;
#[cfg(any(feature = "candle", feature = "burn"))]
pub mod frameworks;
mod parse;
#[doc(hidden)]
pub mod private;
#[cfg(feature = "spec")]
pub mod report;
mod shape;
mod solve;
mod source;
#[cfg(feature = "spec")]
mod spec;
pub mod text;
#[cfg(feature = "spec")]
#[doc = include_str!("../SPEC.md")]
pub mod spec_format {}
mod verify;

#[doc(hidden)]
pub use private as __private;

pub use broadcast::{
    BroadcastError, BroadcastErrorKind, NamedShape, NamedStrategy, are_broadcastable,
    broadcast_missing_dimensions, broadcast_named, broadcast_shapes, broadcast_shapes_into,
    broadcast_to, predict_broadcast_shape, refine_shapes_for_broadcast,
};
pub use expr::{
    ArithFailure, ArithOp, Axis, CmpOp, DimExpr, Expr, Item, Name, Operand, Pattern, Pred,
    SliceSpec,
};
pub use parse::{ParseError, parse, parse_pattern};
pub use shape::{DisplayDims, INLINE_RANK, ParseShapeError, Shape, numel};
pub use solve::{
    InferError, InferErrorKind, Substitution, Term, infer_app, ops, unify, unify_partial,
};
#[cfg(feature = "checkpoint")]
pub use source::{Checkpoint, CheckpointError, CheckpointFormat, CheckpointTensor};
pub use source::{
    ConfigEntry, ConfigPlace, ConfigValue, Dims, Element, HasShape, Prefixed, ShapeSource,
    StaticShape,
};
#[cfg(feature = "gguf")]
pub use source::{GgmlType, GgufArray, GgufError, GgufHeader, GgufTensor, GgufType, GgufValue};
#[cfg(feature = "safetensors")]
pub use source::{SafetensorsError, SafetensorsHeader, ShapeIndex, TensorEntry};
pub use verify::{
    Binding, Bindings, FieldPath, Origin, Provenance, Segment, ShapeError, ShapeErrorDetails,
    ShapeErrorKind, ShapeErrors, Shaped, Tie, Value,
};
pub use verify::{Plan, PlanError, PlanErrorKind, PlanNode, SourceOptions};

#[cfg(feature = "spec")]
pub use spec::{
    CheckError, CheckOptions, InferSpecError, InferredSpec, Naming, Spec, SpecError,
    UnknownArchitecture,
};

/// The former name of [`SafetensorsError`], kept so that code written against it still
/// compiles: the two names are one type.
///
/// ```
/// let e: shapes::SafetensorsError = shapes::SafetensorsHeader::from_bytes(&[1]).unwrap_err();
/// let old: shapes::HeaderError = e;
/// assert!(old.to_string().starts_with("not a safetensors file"));
/// ```
#[cfg(feature = "safetensors")]
#[deprecated(note = "renamed to SafetensorsError")]
pub type HeaderError = source::SafetensorsError;
