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

/// What is done at each `let` a walk meets (and whether it is inside a closure or an async
/// block): the statement to insert after it, if any.
type Visit<'a> = &'a mut dyn FnMut(&mut syn::Local, bool) -> Option<Stmt>;

/// Takes the annotations off the `let`s of `block` and inserts after each the statement
/// `check` makes of it.
fn walk_block(cx: Option<&Ctxt>, block: &mut Block, check: Check<'_>, nested: bool) {
    visit_block(
        block,
        &mut |l, nested| {
            let ann = take_attr(cx, &mut l.attrs, &l.pat, nested)?;
            let tokens = check(&ann);
            (!tokens.is_empty()).then(|| Stmt::Expr(Expr::Verbatim(tokens), None))
        },
        nested,
    );
}

/// Calls `visit` on every `let` of `block` where a `#[shape]` may be (a `let` before the ones
/// of its initializer), in place: a `Local` keeps the address a walk of the same block saw.
fn visit_block(block: &mut Block, visit: Visit<'_>, nested: bool) {
    let mut inserts = Vec::new();
    for (i, stmt) in block.stmts.iter_mut().enumerate() {
        match stmt {
            Stmt::Local(l) => {
                if let Some(after) = visit(l, nested) {
                    inserts.push((i, after));
                }
                if let Some(init) = &mut l.init {
                    visit_expr(&mut init.expr, visit, nested);
                    if let Some((_, e)) = &mut init.diverge {
                        visit_expr(e, visit, nested);
                    }
                }
            }
            Stmt::Expr(e, _) => visit_expr(e, visit, nested),
            Stmt::Item(_) | Stmt::Macro(_) => {}
        }
    }
    for (i, after) in inserts.into_iter().rev() {
        block.stmts.insert(i + 1, after);
    }
}

fn visit_expr(e: &mut Expr, visit: Visit<'_>, nested: bool) {
    match e {
        Expr::Block(b) => visit_block(&mut b.block, visit, nested),
        Expr::Unsafe(b) => visit_block(&mut b.block, visit, nested),
        Expr::If(i) => {
            visit_block(&mut i.then_branch, visit, nested);
            if let Some((_, e)) = &mut i.else_branch {
                visit_expr(e, visit, nested);
            }
        }
        Expr::Match(m) => {
            for arm in &mut m.arms {
                visit_expr(&mut arm.body, visit, nested);
            }
        }
        Expr::ForLoop(f) => visit_block(&mut f.body, visit, nested),
        Expr::While(w) => visit_block(&mut w.body, visit, nested),
        Expr::Loop(l) => visit_block(&mut l.body, visit, nested),
        Expr::Closure(c) => visit_expr(&mut c.body, visit, true),
        Expr::Async(a) => visit_block(&mut a.block, visit, true),
        Expr::Paren(p) => visit_expr(&mut p.expr, visit, nested),
        Expr::Try(t) => visit_expr(&mut t.expr, visit, nested),
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
    visit_block(
        block,
        &mut |l, nested| {
            let at = std::ptr::from_ref::<syn::Local>(l) as usize;
            if let (false, Some(Some(dims))) = (nested, shapes.get(&at)) {
                let text = pattern_text(dims);
                l.attrs.push(syn::parse_quote!(#[shape(#text)]));
            }
            None
        },
        false,
    );
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
