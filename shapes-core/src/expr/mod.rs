//! The shape-expression language's syntax tree (and, in `print`, its printer).

mod ast;
mod print;

pub use ast::{ArithOp, Axis, CmpOp, DimExpr, Expr, Item, Name, Operand, Pattern, Pred, SliceSpec};
