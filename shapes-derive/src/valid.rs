//! Compile-time checks of a struct's patterns, all errors collected.
//!
//! What can be known from one struct alone is checked here: unsupported pattern items, a name
//! used both as a dim and as a variadic, conflicting literal values in `where` clauses, and —
//! when no nested struct shares the scope (a nested struct may use or bind any name) — names
//! used only once (likely typos), `where`/`given` names no field uses, and variables no field
//! can ever determine.

use std::collections::BTreeMap;

use shapes_core::{DimExpr, Item};
use syn::LitStr;

use crate::analysis::{self, Scope, dim_vars, suggest, unsupported};
use crate::ast::{Access, Input, Kind};
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, input: &Input<'_>) {
    let mut scope = Scope::default();
    let shared_nested = input
        .fields
        .iter()
        .any(|f| matches!(f.kind, Kind::Nested) && f.attr.own_scope.is_none());

    source_keys(cx, input);
    for field in &input.fields {
        if let Some(lit) = &field.attr.count {
            scope.add_count(lit);
        }
        let Kind::Tensor { pattern, lit } = &field.kind else {
            continue;
        };
        analysis::check_supported(cx, pattern, lit, "a tensor");
        scope.add_pattern(pattern, lit);
    }

    let mut literal: BTreeMap<String, (usize, &LitStr)> = BTreeMap::new();
    for (lhs, rhs, lit) in &input.wheres {
        for side in [lhs, rhs] {
            if let Some(what) = unsupported(side) {
                cx.error_at(
                    lit.span(),
                    format!("{what} is not supported in a where clause"),
                );
            }
        }
        if let (DimExpr::Var(v), DimExpr::Lit(n)) | (DimExpr::Lit(n), DimExpr::Var(v)) = (lhs, rhs)
        {
            match literal.get(v.as_str()) {
                Some((m, _)) if m != n => cx.error_at(
                    lit.span(),
                    format!("`{v}` is set to {n} here but to {m} by another where clause"),
                ),
                _ => {
                    literal.insert(v.as_str().to_owned(), (*n, lit));
                }
            }
        }
        scope.add_equation(lhs, rhs, lit);
    }

    scope.check_variadic_dims(cx);

    let given: Vec<(String, &LitStr)> = input
        .attrs
        .given
        .iter()
        .flat_map(|lit| {
            lit.value()
                .split(',')
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .map(|s| (s, lit))
                .collect::<Vec<_>>()
        })
        .collect();

    if shared_nested {
        // A nested struct may use, bind or solve any name; these checks would guess.
        return;
    }

    let names: Vec<&str> = scope.names().collect();
    for (name, lit) in &given {
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
    for (lhs, rhs, lit) in &input.wheres {
        for v in dim_vars(lhs).into_iter().chain(dim_vars(rhs)) {
            if scope.uses(v) == 1 {
                cx.error_at(
                    lit.span(),
                    format!(
                        "the where clause names `{v}`, which no field uses{}",
                        suggest(v, &names)
                    ),
                );
            }
        }
    }
    for &name in &names {
        if scope.uses(name) == 1 && !name.starts_with('_') && !scope.is_variadic(name) {
            // A bare dim used once binds a value nobody checks; an expression's lone variable
            // is usually a typo for another name.
            let in_where = input.wheres.iter().any(|(l, r, _)| {
                dim_vars(l)
                    .into_iter()
                    .chain(dim_vars(r))
                    .any(|v| v == name)
            });
            if in_where {
                continue; // reported above
            }
            if let Some(lit) = scope.first_use(name) {
                // A lone name is often deliberate (it is reported in the bindings); it is
                // flagged only when another name is close enough to be what was meant.
                let hint = suggest(name, &names);
                if !hint.is_empty() {
                    cx.error_at(
                        lit.span(),
                        format!("`{name}` is used only once, so nothing checks it{hint}; name it `_{name}` (or use `_`) if that is intended"),
                    );
                }
            }
        }
    }

    // Which variables the fields can determine.
    let mut start = scope.bound();
    start.extend(given.iter().map(|(n, _)| n.clone()));
    let solved = scope.solvable_from(start.clone());
    let unsolved: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !solved.contains(*n))
        .collect();
    if let Some(first) = unsolved.first() {
        // Suggest the variable whose value would determine the most others.
        let best = unsolved
            .iter()
            .max_by_key(|v| {
                let mut with = start.clone();
                with.insert((**v).to_owned());
                // Ties go to the earliest name: max_by_key keeps the last maximum, so negate.
                (scope.solvable_from(with).len(), std::cmp::Reverse(**v))
            })
            .copied()
            .unwrap_or(first);
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
}

/// The checkpoint-naming keys (`name`, `prefix`, `count`) where they make sense.
fn source_keys(cx: &Ctxt, input: &Input<'_>) {
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
            let is_name = match shapes_core::parse_pattern(&format!("({value},)")) {
                Ok(p) => {
                    matches!(p.items.as_slice(), [Item::Dim(DimExpr::Var(v))] if v.as_str() == value)
                }
                Err(_) => false,
            };
            if !is_name {
                cx.error_at(
                    lit.span(),
                    format!("`count` takes a variable name like \"n_layers\", not {value:?}"),
                );
            }
        }
    }
}
