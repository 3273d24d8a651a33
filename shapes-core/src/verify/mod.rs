//! Verification: the runtime that `#[derive(Shaped)]` drives, its errors and its bindings.

mod bindings;
mod call;
mod checker;
mod error;
mod path;
mod plan;
mod shaped;
mod source;
mod static_check;
mod vars;

pub use bindings::{Binding, Bindings, Value};
pub use call::{CHECKS, CallCx, CallScope, call_error, call_panic, call_reports};
pub use checker::{Checker, closest};
pub use error::{Provenance, ShapeError, ShapeErrorDetails, ShapeErrorKind, ShapeErrors};
pub use path::{FieldPath, Origin, Segment};
pub use plan::{FieldInfo, SlotExpr};
pub use shaped::Shaped;
pub use source::{SourceCx, SourceOptions};
pub use static_check::{StaticItem, static_matches};
pub use vars::{MAX_VARS, SlotMap, VarTable};
