//! The derive's compile-time rules, serde style: one named `check_*` function per rule, each
//! stating its rule, all errors collected in the `Ctxt`.
//!
//! What can be known from one struct alone is checked here. When a nested struct shares the
//! scope, the rules about names stop after the variadic/dim conflict: a nested struct may use,
//! bind or solve any name, so they would guess.

use std::collections::BTreeMap;

use proc_macro2::Span;
use shapes_core::__private::rules::{self, Declared, Words};
use shapes_core::expr::DimExpr;
use syn::LitStr;

use crate::analysis::{self, Scope, unsupported};
use crate::ast::{Access, Constraint, Input, Kind, WhereClause};
use crate::ctxt::Ctxt;

/// How the shared rules speak in `#[derive(Shaped)]`.
const WORDS: Words = Words {
    item: "field",
    config: "`config`",
    declare_given: |name| format!("declare it with #[shapes(given = \"{name}\")]"),
    unsolved_advice: |best| {
        format!(
            "Bind one through `verify_with` and declare it with #[shapes(given = \"{best}\")], or give it a dim of its own"
        )
    },
};

pub fn check(cx: &Ctxt, input: &Input<'_>) {
    check_source_keys(cx, input);
    check_renames(cx, input);
    check_supported_fields(cx, input);
    check_where_clauses(cx, &input.wheres, &input.constraints);
    let scope = scope_of(input);
    let given: Vec<(&str, Span)> = input
        .given
        .iter()
        .map(|(n, lit)| (n.as_str(), lit.span()))
        .collect();
    let config: Vec<(String, Span)> = input
        .config
        .iter()
        .map(|(var, _, _)| (var.to_string(), var.span()))
        .collect();
    // The struct's `verify()` of values in memory reads no config: a variable the config
    // binds must still be determined by the fields.
    let declared = Declared {
        given: given.iter().map(|(n, s)| (*n, s)).collect(),
        config: config.iter().map(|(n, s)| (n.as_str(), s)).collect(),
        config_is_known: false,
        shares_scope: input.shares_scope_with_nested(),
    };
    analysis::report(cx, rules::check(&scope, &declared, &WORDS));
    check_config_keys(cx, input);
}

/// Every variable of the struct's own patterns, `count` keys and `where` clauses.
fn scope_of<'a>(input: &'a Input<'_>) -> Scope<'a> {
    let mut scope = Scope::default();
    for field in &input.fields {
        if let Some(lit) = &field.attr.count {
            scope.add_count(&lit.value(), &lit.span());
        }
        if let Kind::Tensor { pattern, lit } = &field.kind {
            scope.add_pattern(pattern, &lit.span());
        }
    }
    for (lhs, rhs, lit) in &input.wheres {
        scope.add_equation(lhs, rhs, &lit.span());
    }
    for (lhs, _, rhs, lit) in &input.constraints {
        scope.add_comparison(lhs, rhs, &lit.span());
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

/// Rule: `config(var = "key | key")` binds each variable once, from non-empty keys. (That
/// the variable is one of the struct's is a shared rule.)
fn check_config_keys(cx: &Ctxt, input: &Input<'_>) {
    let mut seen: Vec<String> = Vec::new();
    for (var, keys, span) in &input.config {
        let name = var.to_string();
        if seen.contains(&name) {
            cx.error_at(
                var.span(),
                format!(
                    "`config` binds `{name}` twice: list its keys in one string, separated by `|`, or in a list [\"…\", \"…\"]"
                ),
            );
        }
        seen.push(name);
        if keys.is_empty() || keys.iter().any(String::is_empty) {
            cx.error_at(
                *span,
                "a config key cannot be empty: write keys separated by `|`, as in \"hidden_size | {arch}.embedding_length\", or list them, as in [\"hidden_size\", \"{arch}.embedding_length\"]",
            );
        }
    }
}

/// Rule: `rename(inner = "outer")` maps a nested variable to a name of this struct: `outer` is
/// a variable name, not an expression (an equation between the two is a `where` clause of the
/// nested struct). That `inner` is a variable of the nested struct is checked where its
/// variables are known, in a `const` the derive emits (see `expand::rename_checks`).
fn check_renames(cx: &Ctxt, input: &Input<'_>) {
    for f in &input.fields {
        // Rule: a rename maps into this struct's scope, which a nested struct in a scope of
        // its own does not share: it would do nothing.
        if let (Some(_), Some((inner, _))) = (f.attr.own_scope, f.attr.renames.first()) {
            cx.error_at(
                inner.span(),
                "`rename` maps a nested struct's variables into this struct's scope, but with `scope = \"own\"` it has a scope of its own: remove one or the other",
            );
        }
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
