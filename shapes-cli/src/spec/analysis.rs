//! A spec's variables checked before any file is: the static analysis `#[derive(Shaped)]`
//! runs at compile time (`shapes::__private::analysis`, one implementation), with each rule
//! worded for spec files and pointing at the spec's text.

use std::ops::Range;

use shapes::__private::analysis::{Scope, dim_vars, name_list, suggest};
use shapes::{DimExpr, Pattern};

use super::{Spec, SpecError, SpecText};

/// Checks the variables of `spec`, whose patterns and `where` equations are already known to
/// parse (`patterns` in the order of `spec.entries`, `wheres` in the order of `spec.wheres`).
pub fn check(
    src: &SpecText<'_>,
    spec: &Spec,
    patterns: &[Pattern],
    wheres: &[(DimExpr, DimExpr)],
) -> Result<(), SpecError> {
    let err = |span: &Range<usize>, msg: String| SpecError::span(src.file, src.text, span, msg);
    let mut scope: Scope<'_, Range<usize>> = Scope::default();
    for (e, p) in spec.entries.iter().zip(patterns) {
        scope.add_pattern(p, &e.span);
    }
    for (_, count, span) in &spec.repeats {
        scope.add_count(count, span);
    }
    for ((l, r), (_, span)) in wheres.iter().zip(&spec.wheres) {
        scope.add_equation(l, r, span);
    }
    let names: Vec<&str> = scope.names().collect();

    // Rule: a name is either a variadic (a sub-shape) or a single dim, never both.
    if let Some((name, span)) = scope.variadic_dims().next() {
        return Err(err(
            span,
            format!(
                "`{name}` is used both as a variadic `*{name}` (a sub-shape) and as a single dim"
            ),
        ));
    }
    // Rule: every `given` name and every variable `[config]` binds is used by some tensor.
    for (name, span) in &spec.given {
        if scope.uses(name) == 0 {
            return Err(err(
                span,
                format!(
                    "`given` names `{name}`, which no tensor uses{}",
                    suggest(name, &names)
                ),
            ));
        }
    }
    for (name, _, span) in &spec.config {
        if scope.uses(name) == 0 {
            return Err(err(
                span,
                format!(
                    "[config] binds `{name}`, which no tensor uses{}",
                    suggest(name, &names)
                ),
            ));
        }
    }
    let declared = |name: &str| {
        spec.given.iter().any(|(g, _)| g == name) || spec.config.iter().any(|(c, _, _)| c == name)
    };
    // Rule: every name of a `where` equation is used by some tensor too, unless the equation
    // checks a value the config or `--set` gives (`d_model = heads * head_dim`: `heads`
    // divides `d_model`, and `head_dim` is reported).
    let in_where = |name: &str| {
        wheres.iter().any(|(l, r)| {
            dim_vars(l)
                .into_iter()
                .chain(dim_vars(r))
                .any(|v| v == name)
        })
    };
    for ((l, r), (_, span)) in wheres.iter().zip(&spec.wheres) {
        let vars: Vec<&str> = dim_vars(l).into_iter().chain(dim_vars(r)).collect();
        if vars.iter().any(|v| declared(v)) {
            continue;
        }
        for v in vars {
            if scope.uses(v) == 1 {
                return Err(err(
                    span,
                    format!(
                        "the where equation names `{v}`, which no tensor uses{}",
                        suggest(v, &names)
                    ),
                ));
            }
        }
    }
    // Rule: a name used once, close to another name, is a likely typo (a lone name is often
    // deliberate, so only with a suggestion). `_name`, variadics and names in `where`
    // equations, `given` or `[config]` are left alone.
    for &name in &names {
        if scope.uses(name) != 1
            || name.starts_with('_')
            || scope.is_variadic(name)
            || in_where(name)
            || declared(name)
        {
            continue;
        }
        let hint = suggest(name, &names);
        if let (false, Some(span)) = (hint.is_empty(), scope.first_use(name)) {
            return Err(err(
                span,
                format!(
                    "`{name}` is used only once, so nothing checks it{hint}; name it `_{name}` (or use `_`) if that is intended"
                ),
            ));
        }
    }
    // Rule: every variable can be determined from the tensors, `given` and `[config]`: bound
    // by a dim of its own, or solved once the others are known.
    let mut start = scope.bound();
    start.extend(spec.given.iter().map(|(n, _)| n.clone()));
    start.extend(spec.config.iter().map(|(n, _, _)| n.clone()));
    let solved = scope.solvable_from(start.clone());
    let unsolved: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !solved.contains(*n))
        .collect();
    if let Some(first) = unsolved.first() {
        let best = unsolved
            .iter()
            .max_by_key(|v| {
                let mut with = start.clone();
                with.insert((**v).to_owned());
                (scope.solvable_from(with).len(), std::cmp::Reverse(**v))
            })
            .copied()
            .unwrap_or(first);
        if let Some(span) = scope.first_use(first) {
            return Err(err(
                span,
                format!(
                    "{} can never be solved from the tensors: they only appear inside arithmetic with other unknowns. \
                     Declare one with given = [\"{best}\"] (and bind it in [config] or with --set), or give it a dim of its own",
                    name_list(&unsolved)
                ),
            ));
        }
    }
    Ok(())
}
