//! The inlined shortcut for a dim expression or a `where` relation known at compile time.
//!
//! A pattern item such as `h_wins * window` is an equation `h_wins * window = d` checked
//! against each value's dim `d`. The general checker (`ItemChecks::expr`) decides it by walking
//! a `static SlotExpr` tree. For the common case, one operator between two leaves (literals
//! or variables), the derive calls `ItemChecks::bin` instead, with the operator and the leaves
//! as constants: inlined, it is a checked instruction or two when the leaves are bound, or
//! the table's inversion when one variable is unknown, and the tree's `expr` for anything
//! else, so what waits, what is solved and every error stay the general checker's. A `where`
//! relation whose sides are such leaves or operators calls `ItemChecks::where_holds`, which
//! does nothing when it holds and hands anything else to the trees. Deeper expressions go to
//! the trees directly: the arithmetic is walked once, by `shapes-core`'s `expr::tree`.

use proc_macro2::TokenStream;
use quote::quote;
use shapes_core::expr::{CmpOp, DimExpr};
use syn::Ident;

use super::{Codegen, arith_op, cmp_op, slot_ident};

/// The check of the dim `e` at `axis`, `target` the tokens of its size (a `usize`), `tree`
/// the static `SlotExpr` of `e`: `ItemChecks::bin` for one operator between two leaves (in
/// a struct small enough for inlined checks), else the tree's `expr`.
pub fn dim_expr(
    g: &Codegen,
    e: &DimExpr,
    tree: &Ident,
    target: &TokenStream,
    axis: &TokenStream,
) -> TokenStream {
    match arith(g, e) {
        Some(Arith::Bin(op, l, r)) if g.straight_line => {
            let p = &g.private_path;
            quote!(__cx.bin((#p::ArithOp::#op, #l, #r), #target, &#tree, __map, __d, #axis);)
        }
        _ => quote!(__cx.expr(&#tree, __map, __d, #axis);),
    }
}

/// The check of a `where` relation `l op r`, `lhs`/`rhs` the static trees of its sides and
/// `info` what its errors name: `ItemChecks::where_holds` when both sides are leaves or one
/// operator between two, else the trees' `where_cmp`.
pub fn where_relation(
    g: &Codegen,
    (l, op, r): (&DimExpr, CmpOp, &DimExpr),
    [lhs, rhs, info]: [&Ident; 3],
) -> TokenStream {
    let p = &g.private_path;
    let name = cmp_op(op);
    match (arith(g, l), arith(g, r)) {
        (Some(l), Some(r)) => {
            let (l, r) = (l.tokens(g), r.tokens(g));
            quote!(__cx.where_holds((#l, #p::CmpOp::#name, #r), &#lhs, &#rhs, __map, &#info);)
        }
        _ => quote!(__cx.where_cmp(#p::CmpOp::#name, &#lhs, &#rhs, __map, &#info);),
    }
}

/// A leaf, or one operator between two, as tokens of `__private::Leaf`s.
enum Arith {
    Leaf(TokenStream),
    Bin(TokenStream, TokenStream, TokenStream),
}

impl Arith {
    /// As a `__private::Arith`.
    fn tokens(self, g: &Codegen) -> TokenStream {
        let p = &g.private_path;
        match self {
            Arith::Leaf(l) => quote!(#p::Arith::Leaf(#l)),
            Arith::Bin(op, l, r) => quote!(#p::Arith::Bin(#p::ArithOp::#op, #l, #r)),
        }
    }
}

/// `e` as a leaf or one operator between two leaves, when it is one.
fn arith(g: &Codegen, e: &DimExpr) -> Option<Arith> {
    match e {
        DimExpr::Bin(op, l, r) => Some(Arith::Bin(arith_op(*op), leaf(g, l)?, leaf(g, r)?)),
        _ => leaf(g, e).map(Arith::Leaf),
    }
}

/// A literal or a variable as a `__private::Leaf`.
fn leaf(g: &Codegen, e: &DimExpr) -> Option<TokenStream> {
    let p = &g.private_path;
    match e {
        DimExpr::Lit(n) => Some(quote!(#p::Leaf::Lit(#n))),
        DimExpr::Var(v) => {
            let slot = slot_ident(usize::from(g.local(v.as_str())));
            Some(quote!(#p::Leaf::Var(#slot)))
        }
        _ => None,
    }
}
