//! A spec's variables checked before any file is: the static analysis `#[derive(Shaped)]`
//! runs at compile time (`shapes::__private::analysis`, one implementation), with each rule
//! worded for spec files and pointing at the spec's text.

use std::ops::Range;

use crate::expr::{CmpOp, DimExpr, Pattern};
use crate::verify::analysis::{Scope, dim_vars, name_list, suggest};

use super::{Parsed, SpecError, SpecText};

/// Checks the variables of `spec`, whose patterns and `where` clauses are already known to
/// parse (`patterns` in the order of `spec.entries`; `wheres` every clause of every `where`
/// string, each with its string's index in `spec.wheres`).
pub fn check(
    src: &SpecText<'_>,
    spec: &Parsed,
    patterns: &[Pattern],
    wheres: &[(usize, DimExpr, CmpOp, DimExpr)],
) -> Result<(), SpecError> {
    let err = |span: &Range<usize>, msg: String| SpecError::span(src.file, src.text, span, msg);
    let mut scope: Scope<'_, Range<usize>> = Scope::default();
    for (e, p) in spec.entries.iter().zip(patterns) {
        scope.add_pattern(p, &e.span);
    }
    for (_, count, span) in &spec.repeats {
        scope.add_count(count, span);
    }
    for (i, l, op, r) in wheres {
        let Some((_, span)) = spec.wheres.get(*i) else {
            continue;
        };
        if *op == CmpOp::Eq {
            scope.add_equation(l, r, span);
        } else {
            scope.add_comparison(l, r, span);
        }
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
    // Rule: a variable only `where` comparisons name (`d_modle >= 1`) is bound by nothing
    // unless it is given.
    if let Some((name, span)) = scope.only_compared().find(|(n, _)| !declared(n)) {
        return Err(err(
            span,
            format!(
                "`{name}` appears only in a `where` comparison, which checks values but binds none{}; \
                 compare a variable that a tensor binds, or declare it with given = [\"{name}\"]",
                suggest(name, &names)
            ),
        ));
    }
    // A variable only a `where` clause names is fine when an equation determines it
    // (`height = rows * window`): the rule below reports it when nothing does.
    let in_where = |name: &str| {
        wheres.iter().any(|(_, l, _, r)| {
            dim_vars(l)
                .into_iter()
                .chain(dim_vars(r))
                .any(|v| v == name)
        })
    };
    // Rule (the derive's): a name used once beside a close name used more often is a likely
    // typo; a lone name is otherwise deliberate (read back from the bindings). Names in
    // `where` clauses, `given` or `[config]` are left alone.
    if let Some((name, hint, span)) = scope
        .likely_typos()
        .into_iter()
        .find(|(n, _, _)| !in_where(n) && !declared(n))
    {
        return Err(err(
            span,
            format!(
                "`{name}` is used only once, so nothing checks it{hint}; name it `_{name}` (or use `_`) if that is intended"
            ),
        ));
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
        let best = scope.most_determining(&start, &unsolved).unwrap_or(first);
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
