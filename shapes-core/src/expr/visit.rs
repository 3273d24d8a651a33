//! Every variable occurrence in an expression of the language: one walk for each part of the
//! tree (shapes, patterns, dims, predicates), used by the solver's occurs check and its
//! renaming of a function's variables apart from its arguments'.

use super::ast::{DimExpr, Expr, Item, Name, Operand, Pattern, Pred};

/// Same variable? Pointer equality first (names cloned from one parse share it).
#[inline]
pub(crate) fn same(a: &Name, b: &Name) -> bool {
    name_ptr_eq(a, b) || a.as_str() == b.as_str()
}

#[inline]
fn name_ptr_eq(a: &Name, b: &Name) -> bool {
    std::ptr::eq(a.as_str().as_ptr(), b.as_str().as_ptr()) && a.as_str().len() == b.as_str().len()
}

pub(crate) fn expr_mentions(e: &Expr, v: &Name) -> bool {
    let mut found = false;
    visit_expr_vars(e, &mut |n| found |= same(n, v));
    found
}

pub(crate) fn dim_mentions(d: &DimExpr, v: &Name) -> bool {
    let mut found = false;
    visit_dim_vars(d, &mut |n| found |= same(n, v));
    found
}

/// Calls `f` on every variable occurrence in `e` (shape, dim and variadic variables alike).
pub(crate) fn visit_expr_vars(e: &Expr, f: &mut dyn FnMut(&Name)) {
    match e {
        Expr::Var(n) => f(n),
        Expr::Pattern(p) => visit_pattern_vars(p, f),
        Expr::Arrow(a, b) | Expr::Slice(a, b) | Expr::Broadcast(a, b) | Expr::Concat(_, a, b) => {
            visit_expr_vars(a, f);
            visit_expr_vars(b, f);
        }
        Expr::Compound(a, p) => {
            visit_expr_vars(a, f);
            visit_pred_vars(p, f);
        }
        Expr::Axes(_) | Expr::Sizes(_) | Expr::Slices(_) => {}
        Expr::Transpose(_, a) | Expr::Reduce(_, a) | Expr::Repeat(_, _, a) => visit_expr_vars(a, f),
    }
}

pub(crate) fn visit_pattern_vars(p: &Pattern, f: &mut dyn FnMut(&Name)) {
    for item in &p.items {
        match item {
            Item::Dim(d) | Item::Broadcast(d) => visit_dim_vars(d, f),
            Item::Variadic(n) => f(n),
            Item::Any | Item::Ellipsis => {}
        }
    }
}

pub(crate) fn visit_dim_vars(d: &DimExpr, f: &mut dyn FnMut(&Name)) {
    match d {
        DimExpr::Lit(_) => {}
        DimExpr::Var(n) => f(n),
        DimExpr::Bin(_, a, b) => {
            visit_dim_vars(a, f);
            visit_dim_vars(b, f);
        }
        DimExpr::Rank(e) | DimExpr::Prod(e) | DimExpr::Sum(e) | DimExpr::Index(e, _) => {
            visit_expr_vars(e, f)
        }
    }
}

pub(crate) fn visit_pred_vars(p: &Pred, f: &mut dyn FnMut(&Name)) {
    let operand = |o: &Operand, f: &mut dyn FnMut(&Name)| match o {
        Operand::Size(d) => visit_dim_vars(d, f),
        Operand::ForAll(e) => visit_expr_vars(e, f),
    };
    match p {
        Pred::Cmp(_, a, b) => {
            operand(a, f);
            operand(b, f);
        }
        Pred::Broadcastable(a, b) => {
            visit_expr_vars(a, f);
            visit_expr_vars(b, f);
        }
        Pred::And(a, b) | Pred::Or(a, b) => {
            visit_pred_vars(a, f);
            visit_pred_vars(b, f);
        }
    }
}
