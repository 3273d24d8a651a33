//! What can be known before the call, on the shared `analysis`: unsupported items, a name that
//! is both a dim and a variadic, likely typos (as the derive finds them), and variables no
//! argument (or, for the return pattern and the `where` clauses, no argument and not the
//! return value) can ever determine.
//!
//! With `self`, a variable the arguments cannot determine may be one `self`'s struct binds,
//! which only the compiler knows (the struct's variables are another derive's): the rule is
//! then handed to generated code as a table of which subsets of those variables, read from
//! `self`, determine everything ([`Analysis::self_needs`]), asserted in a `const`.

use std::collections::BTreeSet;

use proc_macro2::Span;
use shapes_core::__private::rules::{self, Declared, Words};

use super::ast::CheckedFn;

use crate::analysis::{self, Scope, dim_vars};
use crate::ctxt::Ctxt;
use crate::valid::check_where_clauses;

/// The most variables whose every subset the `self` rule tabulates (256 entries); beyond it,
/// the table asks for all of them from `self`.
const MAX_TABULATED: usize = 8;

/// What the code generator needs from the analysis.
#[derive(Default)]
pub struct Analysis {
    /// With `self`: the variables the arguments (and the return value) cannot determine, the
    /// subsets of them that, read from `self`, determine every variable (bit `k` for
    /// `candidates[k]`), and the error when the struct's are not such a subset.
    pub self_needs: Option<SelfNeeds>,
    /// For each `where` equation, then each comparison: whether it waits for the return value
    /// (it names a variable only the return value determines).
    pub after_ret: Vec<bool>,
}

pub struct SelfNeeds {
    pub candidates: Vec<String>,
    /// By mask; a single entry (for the full set) when there are too many candidates.
    pub ok: Vec<bool>,
    pub message: String,
    pub span: Span,
}

/// How the shared rules speak in `#[shapes::check]`.
const WORDS: Words = Words {
    item: "pattern",
    config: "`config`",
    declare_given: |_| "use #[shapes::check(self)] on a method whose struct binds it".to_owned(),
    unsolved_advice: |_| "give one of them a dim of its own".to_owned(),
};

pub fn check(cx: &Ctxt, checked: &CheckedFn) -> Analysis {
    let (params, ret) = (&checked.params, checked.ret.as_ref());
    let shared = checked.receiver.is_some();
    for c in params.iter().chain(ret) {
        analysis::check_supported(cx, &c.pattern, &c.lit, "a value");
    }
    check_where_clauses(cx, &checked.wheres, &checked.constraints);
    let mut scope = Scope::default();
    let mut arg_names = BTreeSet::new();
    for c in params {
        arg_names.extend(scope.add_pattern(&c.pattern, &c.lit.span()));
    }
    for (lhs, rhs, lit) in &checked.wheres {
        scope.add_equation(lhs, rhs, &lit.span());
    }
    for (lhs, _, rhs, lit) in &checked.constraints {
        scope.add_comparison(lhs, rhs, &lit.span());
    }
    let arg_bound = scope.bound();
    // What the arguments determine, before the return pattern joins the scope.
    let known = scope.solvable_from(arg_bound.clone());
    let where_names: BTreeSet<String> = where_sides(checked)
        .flat_map(|(l, r)| dim_vars(l).into_iter().chain(dim_vars(r)))
        .map(str::to_owned)
        .collect();
    let unsolved_args: Vec<&str> = arg_names
        .iter()
        .map(String::as_str)
        .filter(|n| !known.contains(*n))
        .collect();
    let ret_names = ret.map(|c| scope.add_pattern(&c.pattern, &c.lit.span()));
    analysis::report(cx, rules::variadic_dims(&scope));
    analysis::report(cx, rules::likely_typos(&scope));
    let mut with_ret = known.clone();
    with_ret.extend(scope.bound());
    let known_all = scope.solvable_from(with_ret);
    let later: BTreeSet<&str> = ret_names
        .iter()
        .flatten()
        .chain(&where_names)
        .map(String::as_str)
        .filter(|n| !known_all.contains(*n))
        .collect();

    // A clause waits for the return value when a name of it is determined only with it.
    let after_ret = where_sides(checked)
        .map(|(l, r)| {
            ret.is_some()
                && dim_vars(l)
                    .into_iter()
                    .chain(dim_vars(r))
                    .any(|n| !known.contains(n) && known_all.contains(n))
        })
        .collect();

    if shared {
        let mut candidates: Vec<String> = unsolved_args.iter().map(|n| (*n).to_owned()).collect();
        for n in &later {
            analysis::push_unique(&mut candidates, n);
        }
        let self_needs = (!candidates.is_empty()).then(|| {
            let ok = subsets_that_determine(&scope, &arg_bound, &arg_names, &candidates);
            let list: Vec<&str> = candidates.iter().map(String::as_str).collect();
            let span = scope
                .first_use(&candidates[0])
                .copied()
                .unwrap_or_else(Span::call_site);
            SelfNeeds {
                message: format!(
                    "#[shapes::check(self)]: {} can never be solved from the arguments, the return value and the fields of `self`: they only appear inside arithmetic with other unknowns (or in `where` comparisons), and `self`'s struct binds too few of them; give one of them a dim of its own",
                    analysis::name_list(&list)
                ),
                candidates,
                ok,
                span,
            }
        });
        return Analysis {
            self_needs,
            after_ret,
        };
    }

    // Rule: each variable of the arguments is determined by the arguments alone.
    if let Some(span) = unsolved_args.first().and_then(|n| scope.first_use(n)) {
        cx.error_at(
            *span,
            format!(
                "{} can never be solved from the arguments: they only appear inside arithmetic with other unknowns; give one of them a dim of its own",
                analysis::name_list(&unsolved_args)
            ),
        );
    }
    // Rule (shared): a name only `where` comparisons use is bound by nothing.
    let compared: Vec<&str> = scope.only_compared().map(|(n, _)| n).collect();
    let nothing_declared = Declared {
        given: Vec::new(),
        config: Vec::new(),
        config_is_known: false,
        shares_scope: false,
    };
    analysis::report(cx, rules::compared_only(&scope, &nothing_declared, &WORDS));
    // Rule: each variable of `ret` and of the `where` clauses is determined by the arguments
    // and the return value.
    let later: Vec<&str> = later
        .into_iter()
        .filter(|n| !unsolved_args.contains(n) && !compared.contains(n))
        .collect();
    if let Some(first) = later.first() {
        let in_ret = ret_names.as_ref().is_some_and(|r| r.contains(*first));
        let span = match (in_ret, ret, scope.first_use(first)) {
            (true, Some(c), _) => c.lit.span(),
            (_, _, Some(span)) => *span,
            _ => Span::call_site(),
        };
        cx.error_at(
            span,
            format!(
                "{} {} can never be solved from the arguments or the return value: they only appear inside arithmetic with other unknowns",
                analysis::name_list(&later),
                if in_ret { "in `ret`" } else { "in `where`" }
            ),
        );
    }
    Analysis {
        self_needs: None,
        after_ret,
    }
}

/// Both sides of every `where` equation, then of every comparison.
fn where_sides(
    checked: &CheckedFn,
) -> impl Iterator<Item = (&shapes_core::expr::DimExpr, &shapes_core::expr::DimExpr)> {
    let eqs = checked.wheres.iter().map(|(l, r, _)| (l, r));
    eqs.chain(checked.constraints.iter().map(|(l, _, r, _)| (l, r)))
}

/// For each subset of `candidates` (bit `k` for `candidates[k]`), whether, read from `self`,
/// it lets the arguments determine their own variables and everything else be determined with
/// the return value. Beyond [`MAX_TABULATED`] candidates, only the full set is tried, and the
/// table has that one entry.
fn subsets_that_determine(
    scope: &Scope<'_>,
    arg_bound: &BTreeSet<String>,
    arg_names: &BTreeSet<String>,
    candidates: &[String],
) -> Vec<bool> {
    let everything: BTreeSet<String> = scope.names().map(str::to_owned).collect();
    let holds = |given: &[&String]| {
        let mut start = arg_bound.clone();
        start.extend(given.iter().map(|s| (*s).clone()));
        let from_args = scope.solvable_from(start);
        if !arg_names.is_subset(&from_args) {
            return false;
        }
        let mut start = from_args;
        start.extend(scope.bound());
        scope.solvable_from(start).is_superset(&everything)
    };
    if candidates.len() > MAX_TABULATED {
        // Only "all of them" is tried: the table's one entry.
        let all: Vec<&String> = candidates.iter().collect();
        return vec![holds(&all)];
    }
    (0..1usize << candidates.len())
        .map(|mask| {
            let given: Vec<&String> = candidates
                .iter()
                .enumerate()
                .filter(|(k, _)| mask & (1 << k) != 0)
                .map(|(_, c)| c)
                .collect();
            holds(&given)
        })
        .collect()
}
