//! What can be known before the call, on the shared `analysis`: unsupported items, a name that
//! is both a dim and a variadic, likely typos (as the derive finds them), and variables no argument (or, for the return pattern, no
//! argument and not the return value) can ever determine.

use super::ast::CheckedFn;
use crate::analysis::{self, Scope};
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, checked: &CheckedFn) {
    let (params, ret) = (&checked.params, checked.ret.as_ref());
    for c in params.iter().chain(ret) {
        analysis::check_supported(cx, &c.pattern, &c.lit, "a value");
    }
    let mut scope = Scope::default();
    for c in params {
        scope.add_pattern(&c.pattern, &c.lit);
    }
    // What the arguments determine, before the return pattern joins the scope.
    let known = scope.solvable_from(scope.bound());
    let unsolved: Vec<&str> = scope.names().filter(|n| !known.contains(*n)).collect();
    let unsolved_args = analysis::name_list(&unsolved);
    let first_unsolved = unsolved.first().and_then(|n| scope.first_use(n)).cloned();
    let ret_names = ret.map(|c| scope.add_pattern(&c.pattern, &c.lit));
    analysis::check_variadic_dims(&scope, cx);
    analysis::check_likely_typos(&scope, cx);

    // Rule: each variable of the arguments is determined by the arguments alone.
    if let Some(lit) = first_unsolved {
        cx.error_at(
            lit.span(),
            format!(
                "{unsolved_args} can never be solved from the arguments: they only appear inside arithmetic with other unknowns; give one of them a dim of its own"
            ),
        );
    }
    // Rule: each variable of `ret` is determined by the arguments and the return value.
    if let (Some(c), Some(ret_names)) = (ret, ret_names) {
        let mut start = known;
        start.extend(scope.bound());
        let known = scope.solvable_from(start);
        let unsolved: Vec<&str> = ret_names
            .iter()
            .map(String::as_str)
            .filter(|n| !known.contains(*n))
            .collect();
        if !unsolved.is_empty() {
            cx.error_at(
                c.lit.span(),
                format!(
                    "{} in `ret` can never be solved from the arguments or the return value: they only appear inside arithmetic with other unknowns",
                    analysis::name_list(&unsolved)
                ),
            );
        }
    }
}
