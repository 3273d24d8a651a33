//! The derive's side of the one static analysis of variables
//! (`shapes_core::__private::analysis`, shared with spec files): the scope with syn's literals
//! as the places names first appear, and the rules worded for `#[derive(Shaped)]` and
//! `#[shapes::check]`.

use shapes_core::{Item, Pattern};
use syn::LitStr;

pub use shapes_core::__private::analysis::{
    dim_vars, name_list, pattern_vars, push_unique, suggest, unsupported,
};

use crate::ctxt::Ctxt;

/// Every variable of the patterns and equations checked in one scope, each name's first use
/// remembered as the literal it is written in.
pub type Scope<'a> = shapes_core::__private::analysis::Scope<'a, LitStr>;

/// Rule: a name is either a variadic (a sub-shape) or a single dim, never both.
pub fn check_variadic_dims(scope: &Scope<'_>, cx: &Ctxt) {
    for (name, lit) in scope.variadic_dims() {
        cx.error_at(
            lit.span(),
            format!(
                "`{name}` is used both as a variadic `*{name}` (a sub-shape) and as a single dim"
            ),
        );
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

/// Rule (the derive and `#[check]` alike): a name used once, beside a name used more often
/// that is close enough to be what was meant (`d_modle` beside `d_model`), is a likely typo.
/// A name used once is otherwise correct code: it binds a value the caller reads back
/// (`h_wins`, `w_wins` in `(h_wins * window, w_wins * window)`), or is derived by a `where`
/// equation. `_name` and variadics are left alone.
pub fn check_likely_typos(scope: &Scope<'_>, cx: &Ctxt) {
    for (name, hint, lit) in scope.likely_typos() {
        cx.error_at(
            lit.span(),
            format!("`{name}` is used only once, so nothing checks it{hint}; name it `_{name}` (or use `_`) if that is intended"),
        );
    }
}
