//! The symbolic solver of the shape algebra: [`unify`] and [`unify_partial`] solve equations
//! between expressions into a [`Substitution`] (what each variable stands for: a [`Term`]),
//! [`infer_app`] applies a function's type to its arguments, and [`ops`] computes shape
//! operations on concrete shapes with numpy's semantics.
//!
//! ```
//! use shapes::expr::{Expr, parse};
//! use shapes::solve::infer_app;
//!
//! let matmul = parse("(a, b) -> (b, c) -> (a, c)").unwrap();
//! let out = infer_app(&matmul, &[Expr::shape(&[2, 3]), Expr::shape(&[3, 4])]).unwrap();
//! assert_eq!(out.to_string(), "(2, 4)");
//! ```

// - `subst`: `Substitution`, idempotent, and `Term` (what a variable stands for);
// - `unify`: `unify`, with kinds, arithmetic inversion and deferred equations;
// - `arith`: checked folding of size arithmetic and inversion for one unknown;
// - `eval`: evaluation of expressions, sizes and constraints under a substitution;
// - `ops`: shape operations on concrete shapes (numpy semantics);
// - `rename`: alpha-renaming of a function's variables apart from its arguments';
// - `size`: the size of terms, and the limits on what substitution may build;
// - `infer`: `infer_app`;
// - `error`: `InferError`.

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
