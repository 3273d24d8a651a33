//! Items that macro-generated code names through `::shapes::__private`. Not a public API:
//! anything here may change in any release.

pub use crate::expr::Side;
pub use crate::expr::arith_generated as arith;
pub use crate::expr::{
    ArithOp, Axis, CmpOp, DimExpr, Expr, Item, Name, Operand, Pattern, Pred, SliceSpec,
};
pub use crate::parse::{caret, is_identifier, parse_constraints, parse_equation};
#[cfg(feature = "checkpoint")]
pub use crate::source::checkpoint_fuzz;
pub use crate::source::{HasShape, StaticShape};
pub use crate::verify::analysis;
pub use crate::verify::rules;
pub use crate::verify::{Binder, Binders, shared_mask, shares_var, struct_binder, struct_error};
pub use crate::verify::{CHECKS, CallCx, CallScope, call_error, call_panic, call_reports};
pub use crate::verify::{
    Checker, FieldInfo, ItemChecks, ItemOp, Lean, MAX_VARS, NO_FIELD, ScopeChecks, Segment, Shaped,
    Slot, SlotExpr, SlotMap, StaticItem, VarTable, closest, isolated, isolated_source,
    static_matches, verify_general,
};
pub use crate::verify::{ConfigKey, SourceCx, SourceTensor, run_items, source_tensor};
pub use core::option::Option::{None, Some};
pub use core::result::Result::{Err, Ok};
pub use std::boxed::Box;
pub use std::vec::Vec;
