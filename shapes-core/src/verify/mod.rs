//! Verification: the runtime that generated code drives (`#[derive(Shaped)]`'s `verify*` and
//! `verify_source*`, `#[shapes::check]`'s calls), its errors and its bindings.
//!
//! Layers, lowest first: `vars` (slots), `plan` (the static description of checks: dim
//! expressions over slots), `path`, `bindings`, `error`, `suggest`, `fold` and `summary` (how
//! many errors are written); then `item_checks`, the one contract generated code calls,
//! implemented by `checker` (records and reports; the pass driver) and `fast` (the success
//! path of compiled checks: `verify`'s first pass and a checked call's), and `scope_checks`,
//! what a struct's checks drive on top of it (path levels, nested scopes), implemented by
//! both; `call` (a checked call's scope); `by_name` (the source side of a
//! checkpoint check); `item_ops` (a pattern's items as data, run through `item_checks` by one
//! interpreter: a run-time plan's tensors and a derived struct's tensors read by name);
//! `binders` (where a method checked with `#[shapes::check(self)]` reads a struct's
//! variables, and, computed at compile time, the order and origins of a fast `verify`'s
//! bindings); and on top `shaped`, the `Shaped` trait and its entry points, and
//! `runtime_plan`, checks built at run time from pattern strings and run by the same checker.
//! Beside them, `analysis`: the static analysis of a scope's variables (which are used once,
//! which can ever be determined) that the derive and spec files share.

#[doc(hidden)]
pub mod analysis;
mod binders;
pub(crate) mod bindings;
pub(crate) mod by_name;
mod call;
mod check_self;
pub(crate) mod checker;
pub(crate) mod description;
mod drive;
pub(crate) mod error;
mod fast;
pub(crate) mod fold;
mod glob;
mod interpret;
mod item_checks;
mod item_ops;
pub(crate) mod names;
pub(crate) mod path;
pub(crate) mod plan;
#[doc(hidden)]
pub mod rules;
mod runtime_plan;
mod scope_checks;
mod scope_typos;
mod shaped;
mod static_check;
pub(crate) mod suggest;
mod summary;
pub(crate) mod vars;

pub use binders::{Binder, Binders, BindingOrder};
pub use bindings::{Binding, Bindings, Tie, Value};
#[cfg(any(feature = "candle", feature = "burn"))]
pub use by_name::TorchLayout;
pub use by_name::{ConfigKey, SourceCx, SourceOptions, rename_config};
pub use call::{CHECKS, CallScope, call_error, call_panic, call_reports};
pub use check_self::{shared_mask, shares_var, struct_binder, struct_error};
pub use checker::Checker;
pub use description::{Checks, Description, FieldLeaf, FieldNode, NestedRun, Node, Relation, Wrap};
#[cfg(feature = "spec")]
pub(crate) use error::{ErrorWords, Give, InWords};
pub use error::{Provenance, ShapeError, ShapeErrorDetails, ShapeErrorKind, ShapeErrors};
pub use fast::{AtBinders, CallCx, CallLog, FastCx, Journal, StructCx};
pub use glob::{glob_match, ignored};
pub use interpret::run_description;
pub use item_checks::{Arith, ItemChecks, Leaf};
pub use item_ops::{ItemOp, run_items};
#[doc(hidden)]
pub use path::NO_FIELD;
pub use path::{FieldPath, Origin, Segment};
pub use plan::{FieldInfo, Place, SlotExpr};
#[cfg(feature = "spec")]
pub(crate) use runtime_plan::Fit;
#[cfg(feature = "spec")]
pub(crate) use runtime_plan::file_name;
pub use runtime_plan::{Plan, PlanError, PlanErrorKind, PlanNode};
pub use scope_checks::ScopeChecks;
pub use scope_typos::message_str;
pub use shaped::{Shaped, isolated, isolated_source, verify_general};
pub use static_check::{StaticItem, static_matches};
pub use suggest::{close_names, closest, one_slip, typo_shaped};
#[cfg(feature = "spec")]
pub(crate) use summary::causes;
pub use vars::{Slot, SlotMap, VarTable};
