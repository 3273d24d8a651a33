//! The shape algebra behind the [`shapes`](https://docs.rs/shapes) crate.
//!
//! Use it through the facade crate `shapes`, which re-exports everything here together with
//! the derive macros. The root holds what ordinary use names ([`Shape`], [`Shaped`],
//! [`Bindings`], [`ShapeError`], [`Checkpoint`], [`Spec`], [`broadcast_shapes`], …); the rest
//! lives in modules:
//!
//! - [`broadcast`]: the broadcasting family: numpy's rules for any number of shapes, without
//!   allocation, on `i64` shapes, one-directional, TBE's kernel helper, and by dim name;
//! - [`expr`]: the shape-expression language, its syntax tree and its parsers;
//! - [`solve`]: the symbolic solver (unification, function application) and shape operations
//!   with numpy semantics ([`solve::ops`]);
//! - [`shape`]: [`Shape`] and its companions;
//! - [`verify`]: checking shapes against patterns, and what a check reports;
//! - [`checkpoint`]: checkpoints, and the safetensors and GGUF header readers;
//! - `spec`, `report`, `adapter`, `diff` (feature `spec`, `checkpoint`): spec files, the
//!   report of a check, and the comparison of two checkpoints;
//! - `frameworks` (features `candle`, `burn`): the frameworks' layers as [`Shaped`] types.
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
pub mod broadcast;
#[cfg(feature = "checkpoint")]
pub mod diff;
pub mod forwards;
#[cfg(any(feature = "candle", feature = "burn"))]
pub mod frameworks;
mod hint;
mod parse;
#[doc(hidden)]
pub mod private;
#[cfg(feature = "spec")]
pub mod report;
pub mod shape;
pub mod solve;
mod source;
#[cfg(feature = "spec")]
pub mod spec;
#[doc(hidden)]
pub mod testing;
pub mod text;
#[cfg(feature = "spec")]
#[doc = include_str!("../SPEC.md")]
pub mod spec_format {}

// `expr` and `verify` hold, besides what users name, what generated code calls through
// `__private`: their files stay where they are, as the crate-private `expr_impl` and
// `verify_impl`, and the public `expr` and `verify` below list what users see. Each public
// module also imports the whole internal one for the crate (`pub(crate) use …::*`), so that
// the crate's own paths (`crate::verify::Checker`, `crate::expr::visit`) keep working.
#[path = "expr/mod.rs"]
mod expr_impl;
#[path = "verify/mod.rs"]
mod verify_impl;

#[doc(hidden)]
pub use private as __private;
#[doc(hidden)]
pub use testing as __testing;

pub mod expr {
    //! The shape-expression language: its syntax tree ([`Expr`], [`Pattern`], [`DimExpr`], …),
    //! and the parsers of strings into it ([`parse`], [`parse_pattern`]). The `expr!` macro of
    //! the facade builds the same tree at compile time.
    //!
    //! ```
    //! use shapes::expr::{Expr, parse};
    //!
    //! let matmul: Expr = parse("(a, b) -> (b, c) -> (a, c)").unwrap();
    //! assert_eq!(matmul.to_string(), "(a, b) → (b, c) → (a, c)");
    //! ```

    #[doc(hidden)]
    pub use crate::expr_impl::Side;
    pub use crate::expr_impl::{
        ArithFailure, ArithOp, Axis, CmpOp, DimExpr, Expr, Item, Name, Operand, Pattern, Pred,
        SliceSpec,
    };
    pub use crate::parse::{ParseError, parse, parse_pattern};

    pub(crate) use crate::expr_impl::*;
}

pub mod verify {
    //! Checking shapes against patterns and what a check reports: the root's [`Shaped`],
    //! [`Bindings`], [`ShapeError`], [`Plan`] and [`ShapeSource`], together with the types their
    //! methods take and return (an error's [`FieldPath`], [`Provenance`] and [`Place`], a plan's
    //! [`PlanNode`], a source's [`SourceOptions`]) and the traits that give a value its shape
    //! ([`HasShape`], [`StaticShape`]).

    pub use crate::source::{Dims, Element, HasShape, Prefixed, ShapeSource, StaticShape};
    pub use crate::verify_impl::{
        Binding, Bindings, FieldPath, Origin, Place, Plan, PlanError, PlanErrorKind, PlanNode,
        Provenance, Segment, ShapeError, ShapeErrorDetails, ShapeErrorKind, ShapeErrors, Shaped,
        SourceOptions, Tie, Value,
    };

    pub(crate) use crate::verify_impl::*;
}

pub mod checkpoint {
    //! Checkpoints and what they state: [`Checkpoint`] opens any format the crate reads, and the
    //! readers of safetensors and GGUF headers ([`SafetensorsHeader`], [`GgufHeader`]) read one
    //! file's header alone. [`ConfigValue`] and its kin are what a source's configuration states.

    #[cfg(feature = "checkpoint")]
    pub use crate::source::{Checkpoint, CheckpointError, CheckpointFormat, CheckpointTensor};
    pub use crate::source::{ConfigEntry, ConfigPlace, ConfigValue};
    #[cfg(feature = "gguf")]
    pub use crate::source::{
        GgmlType, GgufArray, GgufError, GgufHeader, GgufTensor, GgufType, GgufValue,
    };
    #[cfg(feature = "safetensors")]
    pub use crate::source::{SafetensorsError, SafetensorsHeader, ShapeIndex, TensorEntry};
}

pub use broadcast::broadcast_shapes;
#[cfg(feature = "checkpoint")]
pub use checkpoint::{Checkpoint, CheckpointError, CheckpointFormat};
pub use shape::Shape;
#[cfg(feature = "spec")]
pub use spec::{CheckOptions, Spec, SpecError};
pub use verify::{
    Binding, Bindings, Plan, ShapeError, ShapeErrorKind, ShapeErrors, ShapeSource, Shaped, Value,
};
