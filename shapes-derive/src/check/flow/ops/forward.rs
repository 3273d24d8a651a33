//! The rules of calls with a contract: a layer's `forward` (`shapes_core::forwards`), whose
//! input must match one pattern and whose output is another, sharing the leading `*batch`;
//! and a checked method of the same `impl` block, its parameters' and return value's patterns.

use std::collections::BTreeMap;

use shapes_core::expr::{DimExpr, Item, Pattern};

use super::super::dims::{Cmp, Dim, Facts, compare, show_dim, show_shape};
use super::super::pattern_dims;
use super::{Operand, Rule};

/// `layer.forward(x)` for a layer of the contract `input` → `output` (both a leading variadic
/// and fixed dims): `x` has at least the fixed dims, each provably equal or not provably
/// different, and the result is `x`'s leading dims followed by `output`'s fixed ones.
/// `layer` is how the layer is written (`self.up`), `kind` its type (`Linear`).
pub fn forward(
    layer: &str,
    kind: &str,
    input: &Pattern,
    output: &Pattern,
    x: &Operand<'_>,
    facts: &Facts,
) -> Rule {
    let (Some(want), Some(out)) = (fixed_dims(input), fixed_dims(output)) else {
        return Ok(None);
    };
    let rank = x.dims.len();
    if rank < want.len() {
        return Err(format!(
            "`{layer}` (a {kind}) takes {}, but `{}` is {} (rank {rank})",
            input,
            x.text,
            show_shape(x.dims)
        ));
    }
    let lead = rank - want.len();
    for (i, (have, want)) in x.dims[lead..].iter().zip(&want).enumerate() {
        if compare(have, want, facts) == Cmp::Differ {
            return Err(format!(
                "`{layer}` (a {kind}) takes {}, but `{}` is {}: axis {} is {}, not {}",
                input,
                x.text,
                show_shape(x.dims),
                lead + i,
                show_dim(have),
                show_dim(want)
            ));
        }
    }
    let mut result = x.dims[..lead].to_vec();
    result.extend(out);
    Ok(Some(result))
}

/// The dims after a pattern's leading variadic, when the rest is fixed.
fn fixed_dims(p: &Pattern) -> Option<Vec<Dim>> {
    match p.items.split_first() {
        Some((Item::Variadic(_), rest)) => pattern_dims(&Pattern {
            items: rest.to_vec(),
        }),
        _ => None,
    }
}

/// A call of a checked method of the same `impl` block: each argument of known shape matched
/// against its parameter's pattern, the method's own variables bound from the arguments (the
/// struct's, for a method that shares them, stay themselves), and the return value's pattern
/// with those bindings. `shared` says which variables are the struct's. A pattern with a
/// `...`/`*name` is not matched; a variable bound to an unknown dim stays unknown.
pub fn call(
    callee: &str,
    args: &[(Option<&Pattern>, Option<Operand<'_>>)],
    ret: Option<&Pattern>,
    shared: &dyn Fn(&str) -> bool,
    facts: &Facts,
) -> Rule {
    let mut bound: BTreeMap<String, Dim> = BTreeMap::new();
    let fixed: Vec<(&Pattern, Vec<Dim>, &Operand<'_>)> = args
        .iter()
        .filter_map(|(p, x)| Some((p.as_ref()?, pattern_dims(p.as_ref()?)?, x.as_ref()?)))
        .map(|(p, want, x)| (*p, want, x))
        .collect();
    for (pattern, want, x) in &fixed {
        if want.len() != x.dims.len() {
            return Err(format!(
                "`{callee}` takes {pattern}, but `{}` is {} (rank {})",
                x.text,
                show_shape(x.dims),
                x.dims.len()
            ));
        }
        // The method's own variables are bound by their first plain occurrence.
        for (w, have) in want.iter().zip(x.dims) {
            if let Some(DimExpr::Var(v)) = w
                && !shared(v.as_str())
            {
                bound
                    .entry(v.as_str().to_owned())
                    .or_insert_with(|| have.clone());
            }
        }
    }
    for (pattern, want, x) in &fixed {
        for (i, (w, have)) in want.iter().zip(x.dims).enumerate() {
            let want = w.as_ref().and_then(|w| substitute(w, &bound, shared));
            if compare(have, &want, facts) == Cmp::Differ {
                return Err(format!(
                    "`{callee}` takes {pattern}, but `{}` is {}: axis {i} is {}, not {}",
                    x.text,
                    show_shape(x.dims),
                    show_dim(have),
                    show_dim(&want)
                ));
            }
        }
    }
    let Some(ret) = ret.and_then(pattern_dims) else {
        return Ok(None);
    };
    Ok(Some(
        ret.iter()
            .map(|d| d.as_ref().and_then(|d| substitute(d, &bound, shared)))
            .collect(),
    ))
}

/// `e` with the method's own variables replaced by what they are bound to; unknown when one
/// is unbound or bound to an unknown dim.
fn substitute(
    e: &DimExpr,
    bound: &BTreeMap<String, Dim>,
    shared: &dyn Fn(&str) -> bool,
) -> Option<DimExpr> {
    match e {
        DimExpr::Lit(_) => Some(e.clone()),
        DimExpr::Var(v) if shared(v.as_str()) => Some(e.clone()),
        DimExpr::Var(v) => bound.get(v.as_str()).cloned().flatten(),
        DimExpr::Bin(op, l, r) => Some(DimExpr::Bin(
            *op,
            Box::new(substitute(l, bound, shared)?),
            Box::new(substitute(r, bound, shared)?),
        )),
        _ => None,
    }
}
