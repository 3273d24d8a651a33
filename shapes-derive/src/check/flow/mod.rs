//! The flow analysis of a `#[shapes::check]` body: the symbolic shape of each tensor-valued
//! local, followed through a vocabulary of candle ops, so that a provable mismatch is a build
//! error at the op that makes it.
//!
//! - `dims`: a dim is a `DimExpr` of the crate's one expression language (or unknown); the
//!   normal form that compares two dims, and the rule of provability;
//! - `ops`: the vocabulary's shape rules, on shapes alone;
//! - `body`: the walk over the body (locals, shadowing, branches, loops, closures);
//! - `lets`: `#[shape("…")]` on a `let`, read, taken off and checked at run time;
//! - `diag`: how expressions are quoted, the gaps, and `trace`'s warnings.
//!
//! Facts come from the parameters' patterns (for parameters whose type is a `Tensor`), the
//! function's `where` equations, `dims2()`..`dims5()` and `dim(i)` locals, and annotated
//! `let`s. What the analysis cannot see (the fields of `self`, other functions' contracts,
//! anything outside the vocabulary) is unknown, never an error.

mod body;
mod diag;
mod dims;
mod lets;
mod ops;

use shapes_core::expr::{Item, Pattern};
use syn::{FnArg, ItemFn, Pat};

use super::ast::CheckedFn;
use crate::ctxt::Ctxt;

pub use diag::{Gap, trace_tokens};
pub use lets::{LetAnn, patterns as let_patterns, strip as strip_lets, take as take_lets};

/// Walks `func`'s body, reporting each provable mismatch into `cx`; returns the gaps.
pub fn analyse(cx: &Ctxt, checked: &CheckedFn, func: &ItemFn) -> Vec<Gap> {
    let facts = dims::Facts::new(checked.wheres.iter().map(|(l, r, _)| (l, r)));
    let ret = checked.ret.as_ref().and_then(|c| pattern_dims(&c.pattern));
    let mut w = body::Walker::new(&facts, ret.as_deref());
    for c in &checked.params {
        if !c.optional && is_tensor_param(func, &c.name) {
            w.bind_param(&c.name, body::Val::Tensor(pattern_dims(&c.pattern)));
        }
    }
    w.walk_fn_body(&func.block);
    for e in w.errors {
        cx.syn_error(e);
    }
    w.gaps
}

/// A pattern's dims, when its rank is fixed: `_` and `#n` are unknown dims; `...` and `*rest`
/// make the whole shape unknown.
pub fn pattern_dims(p: &Pattern) -> Option<Vec<dims::Dim>> {
    p.items
        .iter()
        .map(|i| match i {
            Item::Dim(e) => Some(Some(e.clone())),
            Item::Any | Item::Broadcast(_) => Some(None),
            Item::Ellipsis | Item::Variadic(_) => None,
        })
        .collect()
}

/// Whether the parameter `name` has a type that names `Tensor` (`&Tensor`,
/// `candle_core::Tensor`): only those are tracked, so that another type's methods of the same
/// names are never read with candle's rules.
fn is_tensor_param(func: &ItemFn, name: &str) -> bool {
    func.sig.inputs.iter().any(|arg| match arg {
        FnArg::Typed(pt) => {
            let named = match &*pt.pat {
                Pat::Ident(pi) => {
                    let n = pi.ident.to_string();
                    n.strip_prefix("r#").unwrap_or(&n) == name
                }
                _ => false,
            };
            named && names_tensor(&pt.ty)
        }
        FnArg::Receiver(_) => false,
    })
}

fn names_tensor(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => names_tensor(&r.elem),
        syn::Type::Paren(p) => names_tensor(&p.elem),
        syn::Type::Group(g) => names_tensor(&g.elem),
        syn::Type::Path(p) => {
            p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Tensor")
        }
        _ => false,
    }
}
