//! The derive's compile-time rules, serde style: one named `check_*` function per rule, each
//! stating its rule, all errors collected in the `Ctxt`.
//!
//! What can be known from one struct alone is checked here. When a nested struct shares the
//! scope, the rules about names stop after the variadic/dim conflict: a nested struct may use,
//! bind or solve any name, so they would guess.

use std::collections::BTreeMap;

use shapes_core::DimExpr;
use syn::LitStr;

use crate::analysis::{self, Scope, suggest, unsupported};
use crate::ast::{Access, Constraint, Input, Kind, WhereClause};
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, input: &Input<'_>) {
    check_source_keys(cx, input);
    check_renames(cx, input);
    check_supported_fields(cx, input);
    check_where_clauses(cx, &input.wheres, &input.constraints);
    let scope = scope_of(input);
    analysis::check_variadic_dims(&scope, cx);
    check_config(cx, input, &scope);
    if input.shares_scope_with_nested() {
        // A nested struct may use, bind or solve any name; the rules below would guess.
        return;
    }
    check_given_names(cx, input, &scope);
    if !check_compared_only(cx, input, &scope) {
        // The rules below would report the same names again, less clearly.
        return;
    }
    // A name only a `where` clause uses is fine when the clause determines it
    // (`height = rows * window`): `check_solvable` says when it does not.
    analysis::check_likely_typos(&scope, cx);
    check_solvable(cx, input, &scope);
}

/// Every variable of the struct's own patterns, `count` keys and `where` clauses.
fn scope_of<'a>(input: &'a Input<'_>) -> Scope<'a> {
    let mut scope = Scope::default();
    for field in &input.fields {
        if let Some(lit) = &field.attr.count {
            scope.add_count(&lit.value(), lit);
        }
        if let Kind::Tensor { pattern, lit } = &field.kind {
            scope.add_pattern(pattern, lit);
        }
    }
    for (lhs, rhs, lit) in &input.wheres {
        scope.add_equation(lhs, rhs, lit);
    }
    for (lhs, _, rhs, lit) in &input.constraints {
        scope.add_comparison(lhs, rhs, lit);
    }
    scope
}

/// Rule: a field's pattern uses only what can be checked against a tensor's dims: arithmetic
/// on names and numbers.
fn check_supported_fields(cx: &Ctxt, input: &Input<'_>) {
    for field in &input.fields {
        if let Kind::Tensor { pattern, lit } = &field.kind {
            analysis::check_supported(cx, pattern, lit, "a tensor");
        }
    }
}

/// The rules of a `where` (a struct's or a checked function's): its equations and comparisons
/// use what the checker supports, and equations setting a name to a number agree. Clause by
/// clause, so each clause's errors come together, in source order.
pub(crate) fn check_where_clauses(cx: &Ctxt, wheres: &[WhereClause], constraints: &[Constraint]) {
    let mut literals = BTreeMap::new();
    for clause in wheres {
        let (lhs, rhs, lit) = clause;
        check_supported_where(cx, lhs, rhs, lit);
        check_where_literals(cx, clause, &mut literals);
    }
    for (lhs, _, rhs, lit) in constraints {
        check_supported_where(cx, lhs, rhs, lit);
    }
}

/// Rule: so does each side of a `where` equation or comparison.
fn check_supported_where(cx: &Ctxt, lhs: &DimExpr, rhs: &DimExpr, lit: &LitStr) {
    for side in [lhs, rhs] {
        if let Some(what) = unsupported(side) {
            cx.error_at(
                lit.span(),
                format!("{what} is not supported in a where clause"),
            );
        }
    }
}

/// Rule: `where` clauses that set a name to a number (`n = 4`) agree with each other.
/// `literals` holds the values set by earlier clauses.
fn check_where_literals<'a>(
    cx: &Ctxt,
    (lhs, rhs, lit): &'a WhereClause,
    literals: &mut BTreeMap<&'a str, usize>,
) {
    if let (DimExpr::Var(v), DimExpr::Lit(n)) | (DimExpr::Lit(n), DimExpr::Var(v)) = (lhs, rhs) {
        match literals.get(v.as_str()) {
            Some(m) if m != n => cx.error_at(
                lit.span(),
                format!("`{v}` is set to {n} here but to {m} by another where clause"),
            ),
            _ => {
                literals.insert(v.as_str(), *n);
            }
        }
    }
}

/// Rule: `config(var = "key | key")` names a variable of the struct (of its own patterns;
/// with a nested struct in the scope, a name it uses is checked when the impl is used) and
/// non-empty keys, each variable once.
fn check_config(cx: &Ctxt, input: &Input<'_>, scope: &Scope<'_>) {
    let names: Vec<&str> = scope.names().collect();
    let mut seen: Vec<String> = Vec::new();
    for (var, keys, lit) in &input.config {
        let name = var.to_string();
        if seen.contains(&name) {
            cx.error_at(
                var.span(),
                format!(
                    "`config` binds `{name}` twice: list its keys in one string, separated by `|`"
                ),
            );
        }
        seen.push(name.clone());
        if scope.uses(&name) == 0 && !input.shares_scope_with_nested() {
            cx.error_at(
                var.span(),
                format!(
                    "`config` binds `{name}`, which no field uses{}",
                    suggest(&name, &names)
                ),
            );
        }
        if keys.iter().any(String::is_empty) {
            cx.error_at(
                lit.span(),
                "a config key cannot be empty: write keys separated by `|`, as in \"hidden_size | {arch}.embedding_length\"",
            );
        }
    }
}

/// Rule: a variable that only `where` comparisons name (`d_modle >= 1` beside a `d_model`
/// the fields bind) is bound by nothing unless it is given. Returns whether the rule holds.
fn check_compared_only(cx: &Ctxt, input: &Input<'_>, scope: &Scope<'_>) -> bool {
    let names: Vec<&str> = scope.names().collect();
    let mut holds = true;
    for (name, lit) in scope.only_compared() {
        if input.given.iter().any(|(g, _)| g == name) {
            continue;
        }
        holds = false;
        cx.error_at(
            lit.span(),
            format!(
                "`{name}` appears only in a `where` comparison, which checks values but binds none{}; \
                 compare a variable that a field binds, or declare it with #[shapes(given = \"{name}\")]",
                suggest(name, &names)
            ),
        );
    }
    holds
}

/// Rule: every `given` name is used by some field.
fn check_given_names(cx: &Ctxt, input: &Input<'_>, scope: &Scope<'_>) {
    let names: Vec<&str> = scope.names().collect();
    for (name, lit) in &input.given {
        if scope.uses(name) == 0 {
            cx.error_at(
                lit.span(),
                format!(
                    "`given` names `{name}`, which no field uses{}",
                    suggest(name, &names)
                ),
            );
        }
    }
}

/// Rule: every variable can be determined from the fields (and the `given` names): bound by a
/// dim of its own, or solved from a dim expression or a `where` clause once the others are
/// known. The error suggests the variable whose value would determine the most others.
fn check_solvable(cx: &Ctxt, input: &Input<'_>, scope: &Scope<'_>) {
    let mut start = scope.bound();
    start.extend(input.given.iter().map(|(n, _)| n.clone()));
    let solved = scope.solvable_from(start.clone());
    let unsolved: Vec<&str> = scope.names().filter(|n| !solved.contains(*n)).collect();
    let Some(first) = unsolved.first() else {
        return;
    };
    let best = scope.most_determining(&start, &unsolved).unwrap_or(first);
    let list = analysis::name_list(&unsolved);
    if let Some(lit) = scope.first_use(first) {
        cx.error_at(
            lit.span(),
            format!(
                "{list} can never be solved from the fields: they only appear inside arithmetic with other unknowns. \
                 Bind one through `verify_with` and declare it with #[shapes(given = \"{best}\")], or give it a dim of its own"
            ),
        );
    }
}

/// Rule: `rename(inner = "outer")` maps a nested variable to a name of this struct: `outer` is
/// a variable name, not an expression (an equation between the two is a `where` clause of the
/// nested struct). That `inner` is a variable of the nested struct is checked where its
/// variables are known, in a `const` the derive emits (see `expand::rename_checks`).
fn check_renames(cx: &Ctxt, input: &Input<'_>) {
    for f in &input.fields {
        for (_, outer) in &f.attr.renames {
            let value = outer.value();
            if !shapes_core::__private::is_identifier(&value) {
                cx.error_at(
                    outer.span(),
                    format!(
                        "`rename` maps a nested variable to a variable name of this struct like \"d_model\", not {value:?}; state an equation with `#[shapes(where = \"…\")]` instead"
                    ),
                );
            }
        }
    }
}

/// Rule: the checkpoint-naming keys go where they make sense. `name` names one tensor (not a
/// `nested` field) and is not empty; `prefix` is for `nested` fields; `count` is on a
/// collection field and names one variable.
fn check_source_keys(cx: &Ctxt, input: &Input<'_>) {
    for f in &input.fields {
        let nested = matches!(f.kind, Kind::Nested);
        if let (Some(lit), true) = (&f.attr.name, nested) {
            cx.error_at(
                lit.span(),
                "`name` names one tensor; the tensors of a `nested` field are placed under `prefix = \"…\"`",
            );
        }
        if let (Some(lit), false) = (&f.attr.prefix, nested) {
            cx.error_at(
                lit.span(),
                "`prefix` applies to `nested` fields; a tensor field's checkpoint name is set with `name = \"…\"`",
            );
        }
        if let Some(lit) = &f.attr.name
            && lit.value().is_empty()
        {
            cx.error_at(lit.span(), "a tensor name cannot be empty");
        }
        if let Some(lit) = &f.attr.min
            && !f.access.has_seq()
        {
            cx.error_at(
                lit.span(),
                "`min` is the least number of elements of a `Vec`, array or slice field in a checkpoint; this field is not one",
            );
        }
        if let Some(lit) = &f.attr.tied {
            let optional =
                matches!(&f.access, Access::Option(inner) if matches!(**inner, Access::Leaf(_)));
            if nested || !optional {
                cx.error_at(
                    lit.span(),
                    "`tied` applies to an `Option` tensor field (the checkpoint may leave it out when it shares another tensor's weights)",
                );
            }
            if lit.value().is_empty() {
                cx.error_at(
                    lit.span(),
                    "`tied` names the tensor it shares weights with; it cannot be empty",
                );
            }
        }
        if let (Some(lit), None) = (&f.attr.tie_key, &f.attr.tied) {
            cx.error_at(
                lit.span(),
                "`tie_key` states the tie of a `tied = \"…\"` field; this field has no `tied`",
            );
        }
        if let Some(lit) = &f.attr.count {
            let mut access = &f.access;
            while let Access::Deref(inner) = access {
                access = inner;
            }
            if !matches!(access, Access::Seq(_)) {
                cx.error_at(
                    lit.span(),
                    "`count` binds the number of elements of a `Vec`, array or slice field; this field is not one",
                );
            }
            let value = lit.value();
            if !shapes_core::__private::is_identifier(&value) {
                cx.error_at(
                    lit.span(),
                    format!("`count` takes a variable name like \"n_layers\", not {value:?}"),
                );
            }
        }
    }
}
