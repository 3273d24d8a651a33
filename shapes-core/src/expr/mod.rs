//! The shape-expression language's syntax tree, its printer (`print`), the walks over its
//! variables (`visit`), the one table of size arithmetic (`arith`) and the one walk that
//! applies it to either form of a size expression (`tree`).

mod arith;
mod ast;
mod print;
mod tree;
pub(crate) mod visit;

pub use arith::ArithFailure;
#[doc(hidden)]
pub use arith::Side;
pub(crate) use arith::{Int, Step, int};
pub use ast::{ArithOp, Axis, CmpOp, DimExpr, Expr, Item, Name, Operand, Pattern, Pred, SliceSpec};
pub(crate) use tree::{
    Eval, SizeNode, SizeTree, Solution, eval, eval_size, for_each_var, solve, undo_path, write,
};
