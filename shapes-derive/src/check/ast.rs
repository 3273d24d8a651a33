//! The checked parts of a `#[shapes::check]` function: its `#[shape]` parameters (taken off
//! the signature) and its `ret` pattern.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use shapes_core::expr::Pattern;
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, ItemFn, LitStr, Pat, ReturnType, Type};

use super::attr::Options;
use crate::ast::{Constraint, WhereClause, parse_wheres};
use crate::ctxt::Ctxt;

/// One checked parameter (or the return value).
pub struct Checked {
    /// The name in error messages: the parameter's, `self`, or `return`.
    pub name: String,
    /// A place expression for the value (the check borrows it).
    pub value: TokenStream,
    /// Where a missing `HasShape` impl is reported.
    pub span: Span,
    pub lit: LitStr,
    pub pattern: Pattern,
    /// The parameter is an `Option` (an attention mask): checked when `Some`.
    pub optional: bool,
}

/// What of a function gets checked, and how it returns.
pub struct CheckedFn {
    /// The parameters with a well-formed `#[shape]`, in order.
    pub params: Vec<Checked>,
    /// The return value, with `ret = "…"`.
    pub ret: Option<Checked>,
    /// The declared return type, if any.
    pub output: Option<Type>,
    /// Whether that is syntactically a `Result`: a failed check then returns the error.
    pub returns_result: bool,
    /// `where = "…"` equations (`=`): they may determine variables.
    pub wheres: Vec<WhereClause>,
    /// `where = "…"` comparisons other than `=`: checked, never solved.
    pub constraints: Vec<Constraint>,
    /// With `self`: the receiver as a `&Self` expression.
    pub receiver: Option<TokenStream>,
}

impl CheckedFn {
    /// Reads the function, taking the `#[shape]` attributes off its parameters (they are not
    /// real attributes), and reports what makes it uncheckable; `any_let` says whether a `let`
    /// of the body has a `#[shape]`.
    pub fn take_from(cx: &Ctxt, opts: &Options, func: &mut ItemFn, any_let: bool) -> Self {
        let fname = func.sig.ident.to_string();
        let (params, any_shape) = take_params(cx, func);

        // Rule: a `const fn` cannot read shapes, which are only known at run time.
        if let Some(c) = &func.sig.constness {
            cx.error_at(
                c.span,
                "#[shapes::check] cannot check a `const fn`: shapes are read at run time",
            );
        }

        let output = match &func.sig.output {
            ReturnType::Type(_, ty) => Some((**ty).clone()),
            ReturnType::Default => None,
        };
        let returns_result = output.as_ref().is_some_and(is_result);

        let mut ret: Option<Checked> = None;
        if let Some(lit) = &opts.ret {
            match &output {
                // Rule: `ret` needs a return value.
                None => cx.error_at(
                    lit.span(),
                    format!("`ret` describes the return value, but `{fname}` returns nothing"),
                ),
                Some(ty) => {
                    if let Some(pattern) = parse(cx, lit) {
                        ret = Some(Checked {
                            name: "return".into(),
                            value: if returns_result {
                                quote!(*__shapes_ok)
                            } else {
                                quote!(__shapes_ret)
                            },
                            span: ty.span(),
                            lit: lit.clone(),
                            pattern,
                            optional: false,
                        });
                    }
                }
            }
        }

        // Rule: `panic` makes a `Result` function panic; any other function panics already,
        // and the key would do nothing.
        if let (Some(span), false) = (opts.panic, returns_result) {
            cx.error_at(
                span,
                format!("`panic` makes a function that returns a `Result` panic on a mismatch; `{fname}` does not return a `Result`, so it panics already: remove `panic`"),
            );
        }
        // Rule: `map_err` and `panic` choose how a `Result` function fails, one of them.
        if let (Some(path), Some(_)) = (&opts.map_err, &opts.panic) {
            cx.error_spanned(path, "`map_err` and `panic` contradict each other: a mismatch either panics or returns the mapped error");
        } else if let Some(path) = &opts.map_err
            && !returns_result
        {
            cx.error_spanned(
                path,
                format!("`map_err` maps the error a `Result` returns, but `{fname}` does not return a `Result`"),
            );
        }

        let (wheres, constraints) = parse_wheres(cx, &opts.wheres);
        // Rule: `self` shares the receiver's variables, so the function has one.
        let receiver = opts.self_key.and_then(|span| {
            let r = receiver_ref(func);
            if r.is_none() {
                cx.error_at(
                    span,
                    format!("`self` shares the variables of the method's receiver with its patterns, but `{fname}` has no `self` parameter"),
                );
            }
            r
        });

        // Rule: there is something to check (a `#[shape]` on a `let` of the body counts).
        if !any_shape && !any_let && opts.ret.is_none() && opts.wheres.is_empty() {
            cx.error_at(
                func.sig.ident.span(),
                format!("#[shapes::check] has nothing to check on `{fname}`: put #[shape(\"(…)\")] on a parameter, or give `ret = \"(…)\"`"),
            );
        }

        CheckedFn {
            params,
            ret,
            output,
            returns_result,
            wheres,
            constraints,
            receiver,
        }
    }
}

/// The parameters with a well-formed `#[shape]`, and whether any parameter had a `#[shape]`
/// at all (well-formed or not).
fn take_params(cx: &Ctxt, func: &mut ItemFn) -> (Vec<Checked>, bool) {
    let mut params: Vec<Checked> = Vec::new();
    let mut any_shape = false;
    for arg in func.sig.inputs.iter_mut() {
        let has_shape = match arg {
            FnArg::Receiver(r) => &r.attrs,
            FnArg::Typed(pt) => &pt.attrs,
        }
        .iter()
        .any(|a| a.path().is_ident("shape"));
        any_shape = any_shape || has_shape;
        match arg {
            FnArg::Receiver(r) => {
                let Some(lit) = take_shape(cx, &mut r.attrs) else {
                    continue;
                };
                let self_token = r.self_token;
                if let Some(pattern) = parse(cx, &lit) {
                    params.push(Checked {
                        name: "self".into(),
                        value: quote!(#self_token),
                        span: self_token.span(),
                        lit,
                        pattern,
                        optional: false,
                    });
                }
            }
            FnArg::Typed(pt) => {
                let Some(lit) = take_shape(cx, &mut pt.attrs) else {
                    continue;
                };
                let ident = match &*pt.pat {
                    Pat::Ident(pi) if pi.subpat.is_none() => pi.ident.clone(),
                    other => {
                        cx.error_spanned(
                            other,
                            "#[shape] needs the parameter to be a plain name (`x: T`) so the check can read it; destructure it inside the function body instead",
                        );
                        continue;
                    }
                };
                if let Some(pattern) = parse(cx, &lit) {
                    let name = ident.to_string();
                    let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
                    params.push(Checked {
                        name,
                        value: quote!(#ident),
                        span: pt.ty.span(),
                        lit,
                        pattern,
                        optional: is_option(&pt.ty),
                    });
                }
            }
        }
    }
    (params, any_shape)
}

/// Removes the `#[shape]` attributes from `attrs`, returning the pattern string if there is
/// exactly one well-formed one.
fn take_shape(cx: &Ctxt, attrs: &mut Vec<Attribute>) -> Option<LitStr> {
    let (shape, rest): (Vec<Attribute>, Vec<Attribute>) =
        attrs.drain(..).partition(|a| a.path().is_ident("shape"));
    *attrs = rest;
    let mut out = None;
    for attr in shape {
        if out.is_some() {
            cx.error_spanned(
                &attr,
                "duplicate #[shape] attribute: a parameter has one pattern",
            );
            continue;
        }
        if !matches!(attr.meta, syn::Meta::List(_)) {
            cx.error_spanned(
                &attr,
                "#[shape] needs a pattern string: #[shape(\"(batch, d_model)\")]",
            );
            continue;
        }
        match attr.parse_args::<LitStr>() {
            Ok(lit) => out = Some(lit),
            Err(_) => cx.error_spanned(
                &attr,
                "#[shape(...)] on a parameter takes one pattern string: #[shape(\"(batch, d_model)\")]",
            ),
        }
    }
    out
}

fn parse(cx: &Ctxt, lit: &LitStr) -> Option<Pattern> {
    match shapes_core::expr::parse_pattern(&lit.value()) {
        Ok(p) => Some(p),
        Err(e) => {
            cx.error_at(lit.span(), format!("invalid shape pattern: {e}"));
            None
        }
    }
}

/// The method's receiver as a `&Self` expression: `&self` for `self` taken by value, `&*self`
/// for a reference or a smart pointer (`&self`, `&mut self`, `self: Box<Self>`).
fn receiver_ref(func: &ItemFn) -> Option<TokenStream> {
    match func.sig.inputs.first()? {
        FnArg::Receiver(r) => {
            let self_token = r.self_token;
            Some(match r.kind {
                syn::ReceiverKind::Value => quote!(&#self_token),
                _ => quote!(&*#self_token),
            })
        }
        FnArg::Typed(_) => None,
    }
}

/// Whether `ty` is syntactically an `Option`: `Option<&Tensor>`, `core::option::Option<T>`.
fn is_option(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => {
            p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Option")
        }
        Type::Group(g) => is_option(&g.elem),
        Type::Paren(p) => is_option(&p.elem),
        _ => false,
    }
}

/// Whether `ty` is syntactically a `Result`: `Result<…>`, `io::Result<…>`, `anyhow::Result<…>`.
fn is_result(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Result"),
        Type::Group(g) => is_result(&g.elem),
        Type::Paren(p) => is_result(&p.elem),
        _ => false,
    }
}
