//! The symbolic solver of the shape algebra: unification, evaluation and function
//! application ([`infer_app`]).
//!
//! - `subst`: [`Substitution`], idempotent, and [`Term`] (what a variable stands for);
//! - `unify`: [`unify`], with kinds, arithmetic inversion and deferred equations;
//! - `arith`: checked folding of size arithmetic and inversion for one unknown;
//! - `eval`: evaluation of expressions, sizes and constraints under a substitution;
//! - `ops`: shape operations on concrete shapes (numpy semantics), public as `shapes::solve::ops`;
//! - `rename`: alpha-renaming of a function's variables apart from its arguments';
//! - `size`: the size of terms, and the limits on what substitution may build;
//! - `infer`: [`infer_app`];
//! - `error`: [`InferError`].

mod arith;
mod error;
mod eval;
mod infer;
pub mod ops;
mod rename;
mod size;
mod subst;
mod unify;

pub use error::{InferError, InferErrorKind};
pub use infer::infer_app;
pub use subst::{Substitution, Term};
pub use unify::{unify, unify_partial};
