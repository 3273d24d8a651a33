//! Items that macro-generated code names through `::shapes::__private`. Not a public API:
//! anything here may change in any release.

pub use crate::expr_impl::Side;
pub use crate::expr_impl::arith_generated as arith;
pub use crate::expr_impl::{
    ArithOp, Axis, CmpOp, DimExpr, Expr, Item, Name, Operand, Pattern, Pred, SliceSpec,
};
pub use crate::parse::{caret, is_identifier, parse_constraints, parse_equation};
#[cfg(feature = "checkpoint")]
pub use crate::source::checkpoint_fuzz;
pub use crate::source::{HasShape, StaticShape};
#[cfg(feature = "spec")]
pub use crate::spec::{ENTRY_KEYS as SPEC_ENTRY_KEYS, TOP_KEYS as SPEC_TOP_KEYS};
pub use crate::verify_impl::analysis;
pub use crate::verify_impl::rules;
pub use crate::verify_impl::{
    Binder, Binders, shared_mask, shares_var, struct_binder, struct_error,
};
pub use crate::verify_impl::{CHECKS, CallCx, CallScope, call_error, call_panic, call_reports};
pub use crate::verify_impl::{
    Checker, FieldInfo, ItemChecks, ItemOp, Lean, MAX_VARS, NO_FIELD, ScopeChecks, Segment, Shaped,
    Slot, SlotExpr, SlotMap, StaticItem, VarTable, close_names, closest, isolated, isolated_source,
    message_str, one_slip, static_matches, typo_shaped, verify_general,
};
pub use crate::verify_impl::{ConfigKey, SourceCx, SourceTensor, run_items, source_tensor};
pub use crate::verify_impl::{TorchLayout, glob_match, ignored, rename_config};
pub use core::option::Option::{None, Some};
pub use core::result::Result::{Err, Ok};
pub use std::boxed::Box;
pub use std::vec::Vec;
