//! The derive's side of the one static analysis of variables
//! (`shapes_core::__private::{analysis, rules}`, shared with spec files): the scope with the
//! spans of syn's literals as the places names first appear, the shared rules' findings
//! reported as compile errors, and the rule about what a pattern may hold.

use proc_macro2::Span;
use shapes_core::__private::rules::Finding;
use shapes_core::expr::{Item, Pattern};
use syn::LitStr;

pub use shapes_core::__private::analysis::{
    dim_vars, name_list, pattern_vars, push_unique, unsupported,
};

use crate::ctxt::Ctxt;

/// Every variable of the patterns and equations checked in one scope, each name's first use
/// remembered as the span of the literal it is written in.
pub type Scope<'a> = shapes_core::__private::analysis::Scope<'a, Span>;

/// Reports each finding of the shared rules as a compile error at its span.
pub fn report(cx: &Ctxt, findings: Vec<Finding<'_, Span>>) {
    for f in findings {
        cx.error_at(*f.at, f.message);
    }
}

/// Rule: a pattern item must be something the checker can evaluate against `against` ("a
/// tensor", "a value"): arithmetic on names and numbers, not `D`, `Π`, `Σ` or indexing.
pub fn check_supported(cx: &Ctxt, pattern: &Pattern, lit: &LitStr, against: &str) {
    for item in &pattern.items {
        if let Item::Dim(e) | Item::Broadcast(e) = item
            && let Some(what) = unsupported(e)
        {
            cx.error_at(
                lit.span(),
                format!("{what} cannot be checked against {against} in #[shape] patterns: use arithmetic on names and numbers"),
            );
        }
    }
}
