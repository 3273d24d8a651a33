//! The shape-expression language's syntax tree, its printer (`print`), the walks over its
//! variables (`visit`), and the one table of size arithmetic (`arith`).

mod arith;
mod ast;
mod print;
pub(crate) mod visit;

pub use arith::ArithFailure;
#[doc(hidden)]
pub use arith::Side;
#[doc(hidden)]
pub use arith::generated as arith_generated;
pub(crate) use arith::{Int, Inversion, Step, int, natural, root};
pub use ast::{ArithOp, Axis, CmpOp, DimExpr, Expr, Item, Name, Operand, Pattern, Pred, SliceSpec};
