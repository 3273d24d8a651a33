//! Items that macro-generated code names through `::shapes::__private`, and the few the
//! derive itself calls while it expands (`analysis`, `rules`, `is_identifier`,
//! `parse_constraints`), and nothing else: what only tests use is in `__testing`. Not a
//! public API: anything here may change in any release.

pub use crate::expr_impl::{
    ArithOp, Axis, CmpOp, DimExpr, Expr, Item, Name, Operand, Pattern, Pred, SliceSpec,
};
pub use crate::parse::{is_identifier, parse_constraints};
pub use crate::source::{HasShape, StaticShape, dims};
pub use crate::verify_impl::analysis;
pub use crate::verify_impl::rename_config;
pub use crate::verify_impl::rules;
pub use crate::verify_impl::{
    Arith, Checker, FieldInfo, ItemChecks, ItemOp, Leaf, NO_FIELD, Place, ScopeChecks, Segment,
    Shaped, Slot, SlotExpr, SlotMap, StaticItem, VarTable, isolated, isolated_source, message_str,
    static_matches,
};
pub use crate::verify_impl::{
    Binder, Binders, BindingOrder, shared_mask, shares_var, struct_binder, struct_error,
};
pub use crate::verify_impl::{
    CHECKS, CallCx, CallLog, CallScope, FastCx, Journal, call_error, call_panic,
};
pub use crate::verify_impl::{
    Checks, ConfigKey, Description, FieldLeaf, FieldNode, NestedRun, Node, Relation, SourceCx,
    Wrap, run_description,
};
pub use core::option::Option::{None, Some};
pub use core::result::Result::{Err, Ok};
pub use std::boxed::Box;
pub use std::vec::Vec;
