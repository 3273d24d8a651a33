//! Straight-line arithmetic for a dim expression known at compile time.
//!
//! A pattern item such as `h_wins * window` is an equation `h_wins * window = d` checked
//! against each value's dim `d`. The general checker (`ItemChecks::expr`) decides it by walking
//! a `static SlotExpr` tree; this module emits, beside that tree, the code of the two cases
//! that make up a passing check:
//!
//! - every variable bound: the value, computed with the arithmetic table's steps
//!   (`__private::arith::step`, the operator fixed, so each inlines to a checked instruction
//!   or two), compared with `d`;
//! - one variable unknown, written once: the table's inversions along the path down to it
//!   (`__private::arith::undo`), and the value bound with `ItemChecks::solved`.
//!
//! Anything else (a mismatch, an arithmetic failure, no whole solution, a variable still
//! waiting, a power of the unknown) calls the general `expr`, so what waits, what is solved
//! and every error stay exactly the general checker's: the emitted code only takes the
//! shortcut when it reaches the very value `expr` would.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use shapes_core::expr::{CmpOp, DimExpr, Side, for_each_var, undo_path};
use syn::Ident;

use super::{Codegen, arith_op, slot_ident};

/// At most this many distinct variables get straight-line code (one match arm per variable
/// plus one); an expression with more is left to the general checker.
const MAX_INLINE_VARS: usize = 4;

/// The distinct variables of `exprs` that straight-line code reads, or `None` when it does
/// not apply: an expression it cannot compute, no variable at all, or more than
/// [`MAX_INLINE_VARS`].
fn inline_vars(g: &Codegen, exprs: &[&DimExpr]) -> Option<Vec<(u8, usize)>> {
    let mut vars: Vec<(u8, usize)> = Vec::new();
    for e in exprs {
        if !collect(g, e, &mut vars) {
            return None;
        }
    }
    (!vars.is_empty() && vars.len() <= MAX_INLINE_VARS).then_some(vars)
}

/// The check of `e = target` (`target`: tokens of a `usize`, the dim at `axis` of `__d`),
/// with `general` (the call of the general checker's `expr`) wherever the straight-line code
/// finds no value.
pub fn dim_expr(
    g: &Codegen,
    e: &DimExpr,
    target: &TokenStream,
    axis: &TokenStream,
    general: &TokenStream,
) -> TokenStream {
    let Some(vars) = g.straight_line.then(|| inline_vars(g, &[e])).flatten() else {
        return general.clone();
    };
    let p = &g.private_path;
    let reads = reads(&vars);
    let all_known = {
        let pats = arm_pattern(g, &vars, None);
        let value = side(g, e);
        quote! {
            #pats => {
                let __value = || -> ::core::option::Option<::core::primitive::i128> {
                    #value
                };
                if __value() != #p::Some(#p::arith::int(#target)) {
                    #general
                }
            }
        }
    };
    let solves = vars
        .iter()
        .filter(|(_, uses)| *uses == 1)
        .map(|(unknown, _)| {
            let pats = arm_pattern(g, &vars, Some(*unknown));
            let solve = solve(g, e, *unknown, target);
            let slot = slot_ident(usize::from(*unknown));
            quote! {
                #pats => match (|| -> ::core::option::Option<::core::primitive::usize> #solve)() {
                    #p::Some(__solved) => __cx.solved(#slot, __solved, __d, #axis),
                    #p::None => { #general }
                },
            }
        });
    let solves: Vec<TokenStream> = solves.collect();
    quote! {
        match #reads {
            #all_known
            #(#solves)*
            _ => { #general }
        }
    }
}

/// The check of a `where` relation `l op r`, with `general` (the general checker's
/// `where_eq` or `where_cmp`) unless every variable is bound and both sides are sizes that
/// satisfy it: then the general checker would do nothing either. An equation with one
/// unknown, written once, on one side and the other side bound is solved here as the general
/// checker solves it (the same inversions, the binding made with no field, as `where_eq`
/// makes it); whatever has no value goes to `general`, which waits or reports.
pub fn where_relation(
    g: &Codegen,
    l: &DimExpr,
    op: CmpOp,
    r: &DimExpr,
    general: &TokenStream,
) -> TokenStream {
    let Some(vars) = inline_vars(g, &[l, r]) else {
        return general.clone();
    };
    let p = &g.private_path;
    let reads = reads(&vars);
    let pats = arm_pattern(g, &vars, None);
    let (lv, rv) = (side(g, l), side(g, r));
    let holds = match op {
        CmpOp::Eq => quote!(__a == __b),
        CmpOp::Ne => quote!(__a != __b),
        CmpOp::Lt => quote!(__a < __b),
        CmpOp::Le => quote!(__a <= __b),
        CmpOp::Gt => quote!(__a > __b),
        CmpOp::Ge => quote!(__a >= __b),
    };
    let solves: Vec<TokenStream> = if op == CmpOp::Eq {
        vars.iter()
            .filter(|(_, uses)| *uses == 1)
            .map(|(unknown, _)| {
                let pats = arm_pattern(g, &vars, Some(*unknown));
                let (with, known) = if has(g, l, *unknown) { (l, r) } else { (r, l) };
                let known = side(g, known);
                let solve = solve(g, with, *unknown, &quote!(__t));
                let slot = slot_ident(usize::from(*unknown));
                quote! {
                    #pats => {
                        let __known = || -> ::core::option::Option<::core::primitive::i128> { #known };
                        let __solve = || -> ::core::option::Option<::core::primitive::usize> {
                            let __t: ::core::primitive::usize = #p::arith::size(__known()?)?;
                            #solve
                        };
                        match __solve() {
                            #p::Some(__solved) => {
                                __cx.field(&#p::NO_FIELD);
                                __cx.solved(#slot, __solved, &[], 0);
                            }
                            #p::None => { #general }
                        }
                    }
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    quote! {
        match #reads {
            #(#solves)*
            #pats => {
                let __lhs = || -> ::core::option::Option<::core::primitive::i128> { #lv };
                let __rhs = || -> ::core::option::Option<::core::primitive::i128> { #rv };
                match (
                    __lhs().and_then(#p::arith::size),
                    __rhs().and_then(#p::arith::size),
                ) {
                    (#p::Some(__a), #p::Some(__b)) if #holds => {}
                    _ => { #general }
                }
            }
            _ => { #general }
        }
    }
}

/// An expression's value as an `Option<Int>`, inside a closure (see [`eval`]): the last
/// step's `Option` as it is (no `Some(…?)`, which lints flag).
fn side(g: &Codegen, e: &DimExpr) -> TokenStream {
    let p = &g.private_path;
    match e {
        DimExpr::Bin(op, l, r) => {
            let op = arith_op(*op);
            let (l, r) = (eval(g, l), eval(g, r));
            quote!(#p::arith::step(#p::ArithOp::#op, #l, #r))
        }
        _ => {
            let v = eval(g, e);
            quote!(#p::Some(#v))
        }
    }
}

/// Records each variable's local index and how often it is written; `false` when `e` holds
/// something the checker does not evaluate (reported by the rules).
fn collect(g: &Codegen, e: &DimExpr, vars: &mut Vec<(u8, usize)>) -> bool {
    for_each_var(e, &mut |v| {
        let l = g.local(v.as_str());
        match vars.iter_mut().find(|(x, _)| *x == l) {
            Some((_, uses)) => *uses += 1,
            None => vars.push((l, 1)),
        }
    })
}

/// `(__cx.value_of(__slotA), …)`: the value of each of `vars`, read once, for the arms to match.
fn reads(vars: &[(u8, usize)]) -> TokenStream {
    let reads = vars.iter().map(|(l, _)| {
        let slot = slot_ident(usize::from(*l));
        quote!(__cx.value_of(#slot))
    });
    quote!((#(#reads,)*))
}

/// The pattern of an arm over [`reads`]: `Some(__xA)` binding each variable's value, but
/// `None` for `unknown`, the one to solve for.
fn arm_pattern(g: &Codegen, vars: &[(u8, usize)], unknown: Option<u8>) -> TokenStream {
    let p = &g.private_path;
    let pats = vars.iter().map(|(l, _)| {
        if Some(*l) == unknown {
            quote!(#p::None)
        } else {
            let x = value_ident(*l);
            quote!(#p::Some(#x))
        }
    });
    quote!((#(#pats,)*))
}

/// The local holding own variable `local`'s value in the arms above.
fn value_ident(local: u8) -> Ident {
    format_ident!("__x{}", local)
}

/// `e`'s value as an `Int`, inside a closure returning `Option<Int>` (a step with no value
/// returns `None` through `?`).
fn eval(g: &Codegen, e: &DimExpr) -> TokenStream {
    let p = &g.private_path;
    match e {
        DimExpr::Lit(n) => quote!(#p::arith::int(#n)),
        DimExpr::Var(v) => {
            let x = value_ident(g.local(v.as_str()));
            quote!(#p::arith::int(#x))
        }
        DimExpr::Bin(op, l, r) => {
            let op = arith_op(*op);
            let (l, r) = (eval(g, l), eval(g, r));
            quote!(#p::arith::step(#p::ArithOp::#op, #l, #r)?)
        }
        // Excluded by `collect`.
        DimExpr::Rank(_) | DimExpr::Prod(_) | DimExpr::Sum(_) | DimExpr::Index(..) => {
            quote!(#p::arith::int(0))
        }
    }
}

/// Whether `e` writes the variable `local`.
fn has(g: &Codegen, e: &DimExpr, local: u8) -> bool {
    let mut found = false;
    for_each_var(e, &mut |v| found |= g.local(v.as_str()) == local);
    found
}

/// A block giving `Option<usize>`: the one natural `unknown` with `e = target`, the one
/// solver's walk (`undo_path`) unrolled: each operator from the top down to `unknown` undone
/// through the table; `unknown` is written once in `e` and every other variable is bound.
fn solve(g: &Codegen, e: &DimExpr, unknown: u8, target: &TokenStream) -> TokenStream {
    let p = &g.private_path;
    let steps = undo_path(e, |d| !has(g, d, unknown)).map(|undo| {
        let side = match undo.side {
            Side::Left => quote!(Left),
            Side::Right => quote!(Right),
        };
        let size = undo.size();
        let op = arith_op(undo.op);
        let k = eval(g, undo.known);
        quote! {
            let __t = #p::arith::undo(#p::ArithOp::#op, #p::Side::#side, #k, __t, #size)?;
        }
    });
    quote! {{
        let __t = #p::arith::int(#target);
        #(#steps)*
        ::core::convert::TryFrom::try_from(__t).ok()
    }}
}
