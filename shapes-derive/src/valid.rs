//! Compile-time checks of a struct's patterns, all errors collected.
//!
//! What can be known from one struct alone is checked here: unsupported pattern items, a name
//! used both as a dim and as a variadic, conflicting literal values in `where` clauses, and —
//! when no nested struct shares the scope (a nested struct may use or bind any name) — names
//! used only once (likely typos), `where`/`given` names no field uses, and variables no field
//! can ever determine.

use std::collections::{BTreeMap, BTreeSet};

use shapes_core::{ArithOp, DimExpr, Item};
use syn::LitStr;

use crate::ast::{Access, Input, Kind};
use crate::ctxt::Ctxt;

/// Every variable of one pattern or equation, and how it appears.
#[derive(Default)]
struct Uses {
    /// name → number of occurrences.
    count: BTreeMap<String, usize>,
    /// Names that appear alone as a dim (`d_model`, `#c`): bound directly by a tensor.
    bare: BTreeSet<String>,
    /// Names used as `*name`.
    variadic: BTreeSet<String>,
    /// Names used as a single dim anywhere (alone or in arithmetic).
    dims: BTreeSet<String>,
    /// Where each name first appears, for error spans.
    first: BTreeMap<String, LitStr>,
}

impl Uses {
    fn note(&mut self, name: &str, lit: &LitStr) {
        *self.count.entry(name.to_owned()).or_default() += 1;
        self.first
            .entry(name.to_owned())
            .or_insert_with(|| lit.clone());
    }
}

pub(crate) fn dim_vars(e: &DimExpr, out: &mut Vec<String>) {
    match e {
        DimExpr::Lit(_) => {}
        DimExpr::Var(n) => out.push(n.as_str().to_owned()),
        DimExpr::Bin(_, l, r) => {
            dim_vars(l, out);
            dim_vars(r, out);
        }
        DimExpr::Rank(_) | DimExpr::Prod(_) | DimExpr::Sum(_) | DimExpr::Index(..) => {}
    }
}

/// Whether `e = known` determines `var` uniquely once every other variable is known: `var`
/// occurs once and no floor division or remainder stands between it and the top.
pub(crate) fn invertible(e: &DimExpr, var: &str) -> bool {
    let mut vars = Vec::new();
    dim_vars(e, &mut vars);
    if vars.iter().filter(|v| *v == var).count() != 1 {
        return false;
    }
    fn path_ok(e: &DimExpr, var: &str) -> bool {
        match e {
            DimExpr::Var(n) => n.as_str() == var,
            DimExpr::Bin(op, l, r) => {
                let inside = path_ok(l, var) || path_ok(r, var);
                inside && !matches!(op, ArithOp::FloorDiv | ArithOp::Rem)
            }
            _ => false,
        }
    }
    path_ok(e, var)
}

pub fn check(cx: &Ctxt, input: &Input<'_>) {
    let mut uses = Uses::default();
    // Equations that can determine variables: (one side, the other side or None for a tensor
    // dim, which is always known).
    let mut equations: Vec<(&DimExpr, Option<&DimExpr>)> = Vec::new();
    let shared_nested = input
        .fields
        .iter()
        .any(|f| matches!(f.kind, Kind::Nested) && f.attr.own_scope.is_none());

    source_keys(cx, input);
    for field in &input.fields {
        // `count = "n"`: the element count binds `n` directly, like a bare dim.
        if let Some(lit) = &field.attr.count {
            uses.note(&lit.value(), lit);
            uses.bare.insert(lit.value());
            uses.dims.insert(lit.value());
        }
        let Kind::Tensor { pattern, lit } = &field.kind else {
            continue;
        };
        for item in &pattern.items {
            match item {
                Item::Dim(DimExpr::Var(n)) | Item::Broadcast(DimExpr::Var(n)) => {
                    uses.note(n.as_str(), lit);
                    uses.bare.insert(n.as_str().to_owned());
                    uses.dims.insert(n.as_str().to_owned());
                }
                Item::Variadic(n) => {
                    uses.note(n.as_str(), lit);
                    uses.variadic.insert(n.as_str().to_owned());
                }
                Item::Dim(e) | Item::Broadcast(e) => {
                    if let Some(what) = unsupported(e) {
                        cx.error_at(
                            lit.span(),
                            format!("{what} cannot be checked against a tensor in #[shape] patterns: use arithmetic on names and numbers"),
                        );
                        continue;
                    }
                    let mut vars = Vec::new();
                    dim_vars(e, &mut vars);
                    for v in &vars {
                        uses.note(v, lit);
                        uses.dims.insert(v.clone());
                    }
                    equations.push((e, None));
                }
                Item::Any | Item::Ellipsis => {}
            }
        }
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
            let mut vars = Vec::new();
            dim_vars(side, &mut vars);
            for v in &vars {
                uses.note(v, lit);
                uses.dims.insert(v.clone());
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
        equations.push((lhs, Some(rhs)));
    }

    for name in uses.variadic.intersection(&uses.dims) {
        {
            if let Some(lit) = uses.first.get(name) {
                cx.error_at(
                    lit.span(),
                    format!("`{name}` is used both as a variadic `*{name}` (a sub-shape) and as a single dim"),
                );
            }
        }
    }

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

    let names: Vec<&str> = uses.count.keys().map(String::as_str).collect();
    for (name, lit) in &given {
        if !uses.count.contains_key(name) {
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
        let mut vars = Vec::new();
        dim_vars(lhs, &mut vars);
        dim_vars(rhs, &mut vars);
        for v in vars {
            if uses.count.get(&v) == Some(&1) {
                cx.error_at(
                    lit.span(),
                    format!(
                        "the where clause names `{v}`, which no field uses{}",
                        suggest(&v, &names)
                    ),
                );
            }
        }
    }
    for (name, &count) in &uses.count {
        if count == 1 && !name.starts_with('_') && !uses.variadic.contains(name) {
            // A bare dim used once binds a value nobody checks; an expression's lone variable
            // is usually a typo for another name.
            let in_where = input.wheres.iter().any(|(l, r, _)| {
                let mut v = Vec::new();
                dim_vars(l, &mut v);
                dim_vars(r, &mut v);
                v.contains(name)
            });
            if in_where {
                continue; // reported above
            }
            if let Some(lit) = uses.first.get(name) {
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
    let mut start: BTreeSet<String> = uses.bare.union(&uses.variadic).cloned().collect();
    start.extend(given.iter().map(|(n, _)| n.clone()));
    let solved = closure(start.clone(), &equations);
    let unsolved: Vec<&String> = uses.count.keys().filter(|n| !solved.contains(*n)).collect();
    if let Some(first) = unsolved.first() {
        // Suggest the variable whose value would determine the most others.
        let best = unsolved
            .iter()
            .max_by_key(|v| {
                let mut with = start.clone();
                with.insert((**v).clone());
                // Ties go to the earliest name: max_by_key keeps the last maximum, so negate.
                (
                    closure(with, &equations).len(),
                    std::cmp::Reverse((**v).clone()),
                )
            })
            .copied()
            .unwrap_or(first);
        let list = unsolved
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ");
        if let Some(lit) = uses.first.get(*first) {
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

/// Every variable determined by `solved` through `equations`, one inversion at a time.
pub(crate) fn closure(
    mut solved: BTreeSet<String>,
    equations: &[(&DimExpr, Option<&DimExpr>)],
) -> BTreeSet<String> {
    loop {
        let before = solved.len();
        for (lhs, rhs) in equations {
            let mut lv = Vec::new();
            dim_vars(lhs, &mut lv);
            let lu: Vec<&String> = lv.iter().filter(|v| !solved.contains(*v)).collect();
            let found = match rhs {
                None => match lu.as_slice() {
                    [one] if invertible(lhs, one) => Some((*one).clone()),
                    _ => None,
                },
                Some(rhs) => {
                    let mut rv = Vec::new();
                    dim_vars(rhs, &mut rv);
                    let ru: Vec<&String> = rv.iter().filter(|v| !solved.contains(*v)).collect();
                    match (lu.as_slice(), ru.as_slice()) {
                        ([one], []) if invertible(lhs, one) => Some((*one).clone()),
                        ([], [one]) if invertible(rhs, one) => Some((*one).clone()),
                        _ => None,
                    }
                }
            };
            if let Some(v) = found {
                solved.insert(v);
            }
        }
        if solved.len() == before {
            return solved;
        }
    }
}

pub(crate) fn unsupported(e: &DimExpr) -> Option<&'static str> {
    match e {
        DimExpr::Lit(_) | DimExpr::Var(_) => None,
        DimExpr::Bin(_, l, r) => unsupported(l).or_else(|| unsupported(r)),
        DimExpr::Rank(_) => Some("`D` (rank of a shape)"),
        DimExpr::Prod(_) => Some("`Π`/`prod` (product of a shape)"),
        DimExpr::Sum(_) => Some("`Σ`/`sum` (sum of a shape)"),
        DimExpr::Index(..) => Some("indexing a shape"),
    }
}

fn suggest(name: &str, names: &[&str]) -> String {
    // One- and two-letter names (`n`, `m`, `h`, `w`) are distinct variables, not typos of
    // each other.
    if name.chars().count() < 3 {
        return String::new();
    }
    let others: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| *n != name && n.chars().count() >= 3)
        .collect();
    match shapes_core::__private::closest(name, &others) {
        Some(s) => format!(" (did you mean `{s}`?)"),
        None => String::new(),
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
