//! `#[shape("…")]` on a `let` statement: it gives the local a known shape from there on (the
//! flow analysis reads it), and it is checked at run time, in debug builds, in the scope of
//! the call's other checks.
//!
//! `#[shape]` is not a real attribute, so it is taken off every `let` of the body before the
//! function is emitted, and the check is inserted as the statement after the `let`. A `let` in
//! a closure or an async block is refused: its check could not return the function's error.

use proc_macro2::TokenStream;
use shapes_core::expr::Pattern;
use syn::{Attribute, Block, Expr, LitStr, Pat, Stmt};

use super::dims::Dim;
use crate::ctxt::Ctxt;

/// One annotated `let`: the local's name and its pattern.
pub struct LetAnn {
    pub ident: syn::Ident,
    pub lit: LitStr,
    pub pattern: Pattern,
}

/// The pattern string of a `#[shape("…")]` among `attrs`, and its dims when it has a fixed
/// rank (`None` with `...` or `*rest`). Malformed attributes are `take`'s to report.
pub fn annotation(attrs: &[Attribute]) -> Option<(LitStr, Option<Vec<Dim>>)> {
    let attr = attrs.iter().find(|a| a.path().is_ident("shape"))?;
    let lit: LitStr = attr.parse_args().ok()?;
    let pattern = shapes_core::expr::parse_pattern(&lit.value()).ok()?;
    Some((lit, super::pattern_dims(&pattern)))
}

/// Whether any `let` of `block` (where `take` looks) carries a `#[shape]`: most bodies have
/// none, and are then left as they are, uncopied.
pub fn any(block: &Block) -> bool {
    block.stmts.iter().any(|stmt| match stmt {
        Stmt::Local(l) => {
            l.attrs.iter().any(|a| a.path().is_ident("shape"))
                || l.init.as_ref().is_some_and(|init| {
                    any_in(&init.expr) || init.diverge.as_ref().is_some_and(|(_, e)| any_in(e))
                })
        }
        Stmt::Expr(e, _) => any_in(e),
        Stmt::Item(_) | Stmt::Macro(_) => false,
    })
}

fn any_in(e: &Expr) -> bool {
    match e {
        Expr::Block(b) => any(&b.block),
        Expr::Unsafe(b) => any(&b.block),
        Expr::If(i) => {
            any(&i.then_branch) || i.else_branch.as_ref().is_some_and(|(_, e)| any_in(e))
        }
        Expr::Match(m) => m.arms.iter().any(|arm| any_in(&arm.body)),
        Expr::ForLoop(f) => any(&f.body),
        Expr::While(w) => any(&w.body),
        Expr::Loop(l) => any(&l.body),
        Expr::Closure(c) => any_in(&c.body),
        Expr::Async(a) => any(&a.block),
        Expr::Paren(p) => any_in(&p.expr),
        Expr::Try(t) => any_in(&t.expr),
        _ => false,
    }
}

/// The patterns of the well-formed annotations of `block`, in order: their variables join
/// the call's scope.
pub fn patterns(block: &Block) -> Vec<Pattern> {
    let mut out = Vec::new();
    if !any(block) {
        return out;
    }
    let mut copy = block.clone();
    let mut collect = |ann: &LetAnn| {
        out.push(ann.pattern.clone());
        TokenStream::new()
    };
    walk_block(None, &mut copy, &mut collect, false);
    out
}

/// Takes every `#[shape]` off the `let`s of `block`, reporting malformed ones into `cx`, and
/// inserts after each well-formed one the statement `check` makes of it.
pub fn take(cx: &Ctxt, block: &mut Block, check: &mut dyn FnMut(&LetAnn) -> TokenStream) {
    walk_block(Some(cx), block, check, false);
}

/// Takes every `#[shape]` off the `let`s of `block`, inserting nothing (the function is
/// emitted as written beside errors).
pub fn strip(block: &mut Block) {
    if any(block) {
        walk_block(None, block, &mut |_| TokenStream::new(), false);
    }
}

type Check<'a> = &'a mut dyn FnMut(&LetAnn) -> TokenStream;

fn walk_block(cx: Option<&Ctxt>, block: &mut Block, check: Check<'_>, nested: bool) {
    let stmts = std::mem::take(&mut block.stmts);
    for mut stmt in stmts {
        let mut after = None;
        match &mut stmt {
            Stmt::Local(l) => {
                if let Some(ann) = take_attr(cx, &mut l.attrs, &l.pat, nested) {
                    let tokens = check(&ann);
                    if !tokens.is_empty() {
                        after = Some(Stmt::Expr(Expr::Verbatim(tokens), None));
                    }
                }
                if let Some(init) = &mut l.init {
                    walk_expr(cx, &mut init.expr, check, nested);
                    if let Some((_, e)) = &mut init.diverge {
                        walk_expr(cx, e, check, nested);
                    }
                }
            }
            Stmt::Expr(e, _) => walk_expr(cx, e, check, nested),
            Stmt::Item(_) | Stmt::Macro(_) => {}
        }
        block.stmts.push(stmt);
        block.stmts.extend(after);
    }
}

fn walk_expr(cx: Option<&Ctxt>, e: &mut Expr, check: Check<'_>, nested: bool) {
    match e {
        Expr::Block(b) => walk_block(cx, &mut b.block, check, nested),
        Expr::Unsafe(b) => walk_block(cx, &mut b.block, check, nested),
        Expr::If(i) => {
            walk_block(cx, &mut i.then_branch, check, nested);
            if let Some((_, e)) = &mut i.else_branch {
                walk_expr(cx, e, check, nested);
            }
        }
        Expr::Match(m) => {
            for arm in &mut m.arms {
                walk_expr(cx, &mut arm.body, check, nested);
            }
        }
        Expr::ForLoop(f) => walk_block(cx, &mut f.body, check, nested),
        Expr::While(w) => walk_block(cx, &mut w.body, check, nested),
        Expr::Loop(l) => walk_block(cx, &mut l.body, check, nested),
        Expr::Closure(c) => walk_expr(cx, &mut c.body, check, true),
        Expr::Async(a) => walk_block(cx, &mut a.block, check, true),
        Expr::Paren(p) => walk_expr(cx, &mut p.expr, check, nested),
        Expr::Try(t) => walk_expr(cx, &mut t.expr, check, nested),
        _ => {}
    }
}

/// Takes the `#[shape]` attributes off a `let`, returning the annotation when there is
/// exactly one well-formed one on a `let` of a plain name.
fn take_attr(
    cx: Option<&Ctxt>,
    attrs: &mut Vec<Attribute>,
    pat: &Pat,
    nested: bool,
) -> Option<LetAnn> {
    let (shape, rest): (Vec<Attribute>, Vec<Attribute>) =
        attrs.drain(..).partition(|a| a.path().is_ident("shape"));
    *attrs = rest;
    let report = |tokens: &Attribute, msg: &str| {
        if let Some(cx) = cx {
            cx.error_spanned(tokens, msg);
        }
    };
    let mut out = None;
    for attr in &shape {
        if out.is_some() {
            report(
                attr,
                "duplicate #[shape] attribute: a `let` has one pattern",
            );
            continue;
        }
        match attr.parse_args::<LitStr>() {
            Ok(lit) => out = Some((attr, lit)),
            Err(_) => report(
                attr,
                "#[shape(...)] on a `let` takes one pattern string: #[shape(\"(b, s, d_model)\")]",
            ),
        }
    }
    let (attr, lit) = out?;
    if nested {
        report(
            attr,
            "#[shape] on a `let` inside a closure or an async block is not supported: its run-time check could not return the function's error; annotate a `let` of the function's own body",
        );
        return None;
    }
    let Some(ident) = ident_of(pat) else {
        report(
            attr,
            "#[shape] on a `let` needs a plain name (`let h = …`) so the check can read the value",
        );
        return None;
    };
    match shapes_core::expr::parse_pattern(&lit.value()) {
        Ok(pattern) => {
            if let Some(cx) = cx {
                crate::analysis::check_supported(cx, &pattern, &lit, "a value");
            }
            Some(LetAnn {
                ident: ident.clone(),
                lit,
                pattern,
            })
        }
        Err(e) => {
            if let Some(cx) = cx {
                cx.error_at(lit.span(), format!("invalid shape pattern: {e}"));
            }
            None
        }
    }
}

/// Whether a `let` binds a plain name (`let h = …`, `let h: Tensor = …`).
pub fn is_plain_name(pat: &Pat) -> bool {
    ident_of(pat).is_some()
}

/// Puts `#[shape("…")]` with its tracked shape on each `let` of `block` listed in `tracked`
/// (by the address the walk saw it at, in this same block): `#[check(each_let)]`, so that
/// each is checked when it runs like an annotated one. A `let` walked twice with two shapes
/// (it cannot be, but a loop walked again would) gets none. Unknown dims are `_`.
pub fn annotate(block: &mut Block, tracked: &[(usize, Vec<Dim>)]) {
    let mut shapes: std::collections::BTreeMap<usize, Option<&[Dim]>> = Default::default();
    for (at, dims) in tracked {
        shapes
            .entry(*at)
            .and_modify(|seen| {
                if seen.is_some_and(|s| s != dims.as_slice()) {
                    *seen = None;
                }
            })
            .or_insert(Some(dims));
    }
    annotate_block(block, &shapes);
}

fn annotate_block(block: &mut Block, shapes: &std::collections::BTreeMap<usize, Option<&[Dim]>>) {
    for stmt in &mut block.stmts {
        match stmt {
            Stmt::Local(l) => {
                let at = std::ptr::from_ref::<syn::Local>(l) as usize;
                if let Some(Some(dims)) = shapes.get(&at) {
                    let text = pattern_text(dims);
                    l.attrs.push(syn::parse_quote!(#[shape(#text)]));
                }
                if let Some(init) = &mut l.init {
                    annotate_expr(&mut init.expr, shapes);
                }
            }
            Stmt::Expr(e, _) => annotate_expr(e, shapes),
            Stmt::Item(_) | Stmt::Macro(_) => {}
        }
    }
}

fn annotate_expr(e: &mut Expr, shapes: &std::collections::BTreeMap<usize, Option<&[Dim]>>) {
    match e {
        Expr::Block(b) => annotate_block(&mut b.block, shapes),
        Expr::Unsafe(b) => annotate_block(&mut b.block, shapes),
        Expr::If(i) => {
            annotate_block(&mut i.then_branch, shapes);
            if let Some((_, e)) = &mut i.else_branch {
                annotate_expr(e, shapes);
            }
        }
        Expr::Match(m) => {
            for arm in &mut m.arms {
                annotate_expr(&mut arm.body, shapes);
            }
        }
        Expr::ForLoop(f) => annotate_block(&mut f.body, shapes),
        Expr::While(w) => annotate_block(&mut w.body, shapes),
        Expr::Loop(l) => annotate_block(&mut l.body, shapes),
        Expr::Paren(p) => annotate_expr(&mut p.expr, shapes),
        Expr::Try(t) => annotate_expr(&mut t.expr, shapes),
        _ => {}
    }
}

/// A tracked shape as a pattern: each dim printed by the expression language's printer, `_`
/// for an unknown one.
fn pattern_text(dims: &[Dim]) -> String {
    let items: Vec<String> = dims
        .iter()
        .map(|d| {
            d.as_ref()
                .map_or_else(|| "_".to_owned(), ToString::to_string)
        })
        .collect();
    match items.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", items.join(", ")),
    }
}

fn ident_of(pat: &Pat) -> Option<&syn::Ident> {
    match pat {
        Pat::Ident(pi) if pi.subpat.is_none() => Some(&pi.ident),
        Pat::Type(pt) => ident_of(&pt.pat),
        _ => None,
    }
}
