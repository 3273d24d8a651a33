//! `#[shapes::check]`: a function's arguments (and return value) checked against their
//! `#[shape("…")]` patterns in one scope per call.
//!
//! Each pattern is parsed here, at compile time, and compiled by the derive's own code
//! generator (`codegen::Codegen::items_check`) into straight-line item checks, with variables
//! as slot indices. Each group of checks is emitted twice, against the lean `CallCx<N>` (the
//! success path) and against the general `Checker` (run only to build the error after a
//! mismatch; see `shapes-core/src/verify/call.rs`). The generated function body is:
//!
//! ```text
//! if CHECKS { scope = CallScope::<N>::new(..); scope.check(args: fast, slow) or fail }
//! let ret = (move || -> R { original body })();             // only with `ret = "…"`
//! if CHECKS { scope.check(ret: fast, slow) or fail }         // only with `ret = "…"`
//! ```
//!
//! where "fail" is `return Err(E::from(error))` for a function returning `…Result<_, E>` and a
//! panic with the full message otherwise. Without `ret`, the original body runs in place, so
//! `return`, `?`, `impl Trait`, `async` and borrows behave exactly as written.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote};
use shapes_core::Pattern;
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, ItemFn, LitStr, Pat, ReturnType, Type};

use crate::analysis::{self, Scope, pattern_vars};
use crate::codegen::{Codegen, slot_ident};
use crate::ctxt::Ctxt;

const KEYS: &str = "`ret = \"(…)\"`, `debug_only`, `crate = \"path\"`";

/// What `#[shapes::check(...)]` says.
#[derive(Default)]
struct Options {
    /// `ret = "(…)"`: the return value's pattern.
    ret: Option<LitStr>,
    /// `debug_only`: check only when `debug_assertions` are on (like `debug_assert!`).
    debug_only: bool,
    /// `crate = "path"`: where the `shapes` crate is.
    crate_path: Option<syn::Path>,
}

fn options(cx: &Ctxt, args: TokenStream) -> Options {
    let mut out = Options::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("ret") {
            if out.ret.is_some() {
                return Err(meta.error("duplicate `ret`"));
            }
            out.ret = Some(meta.value()?.parse()?);
        } else if meta.path.is_ident("debug_only") {
            out.debug_only = true;
        } else if meta.path.is_ident("crate") {
            let lit: LitStr = meta.value()?.parse()?;
            out.crate_path = Some(lit.parse()?);
        } else {
            let key = meta.path.to_token_stream().to_string();
            return Err(meta.error(format!(
                "unknown key `{key}` in #[shapes::check]: expected {KEYS}"
            )));
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        cx.syn_error(e);
    }
    out
}

/// One checked parameter (or the return value).
struct Checked {
    /// The name in error messages: the parameter's, `self`, or `return`.
    name: String,
    /// A place expression for the value (the check borrows it).
    value: TokenStream,
    /// Where a missing `HasShape` impl is reported.
    span: Span,
    lit: LitStr,
    pattern: Pattern,
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
    match shapes_core::parse_pattern(&lit.value()) {
        Ok(p) => Some(p),
        Err(e) => {
            cx.error_at(lit.span(), format!("invalid shape pattern: {e}"));
            None
        }
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

/// Whether a type mentions `impl Trait`, which a closure's return annotation cannot name.
fn has_impl_trait(ty: &Type) -> bool {
    fn walk(ts: TokenStream) -> bool {
        ts.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(id) => id == "impl",
            proc_macro2::TokenTree::Group(g) => walk(g.stream()),
            _ => false,
        })
    }
    walk(ty.to_token_stream())
}

pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut func: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let mut out = syn::Error::new(
                e.span(),
                format!("#[shapes::check] goes on a function with a body: {e}"),
            )
            .to_compile_error();
            out.extend(item);
            return out;
        }
    };
    // Only for a function: on anything else the one error above is the whole story.
    let cx = Ctxt::new();
    let opts = options(&cx, args);
    let generated = generate(&cx, &opts, &mut func);
    match cx.check() {
        Ok(()) => generated,
        Err(errors) => {
            // The function as written minus its #[shape] attributes (already taken off), so
            // the user sees these errors and not a cascade.
            // The parameters look unused without the checks: say nothing about them.
            let mut out = errors.to_compile_error();
            func.attrs
                .push(syn::parse_quote!(#[allow(unused_variables)]));
            out.extend(func.into_token_stream());
            out
        }
    }
}

fn generate(cx: &Ctxt, opts: &Options, func: &mut ItemFn) -> TokenStream {
    let krate = match &opts.crate_path {
        Some(path) => quote!(#path),
        None => quote!(::shapes),
    };
    let p = quote!(#krate::__private);
    let fname = func.sig.ident.to_string();

    let mut params: Vec<Checked> = Vec::new();
    // Whether any parameter has a #[shape] attribute, well-formed or not.
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
                    });
                }
            }
        }
    }

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
                    });
                }
            }
        }
    }

    if !any_shape && opts.ret.is_none() {
        cx.error_at(
            func.sig.ident.span(),
            format!("#[shapes::check] has nothing to check on `{fname}`: put #[shape(\"(…)\")] on a parameter, or give `ret = \"(…)\"`"),
        );
    }

    // On errors the output is discarded by `expand`; generation below stays total anyway.
    validate(cx, &params, ret.as_ref());

    // Every variable, the arguments' first: its slot.
    let mut own = Vec::new();
    for c in params.iter().chain(&ret) {
        pattern_vars(&c.pattern, &mut own);
    }
    let g = Codegen::new(p.clone(), own);
    let names = &g.own_vars;
    let slots = (0..g.own_vars.len()).map(|l| {
        let v = slot_ident(l);
        quote!(let #v: usize = #l;)
    });
    let prelude = quote! {
        let __map: &#p::SlotMap = &__SHAPES_MAP;
        #(#slots)*
    };

    let arg_checks: Vec<TokenStream> = params
        .iter()
        .enumerate()
        .map(|(i, c)| value_check(&g, c, format_ident!("__SHAPES_F{}", i)))
        .collect();

    let guard = if opts.debug_only {
        quote!((#p::CHECKS && ::core::cfg!(debug_assertions)))
    } else {
        quote!(#p::CHECKS)
    };
    let fail = match &output {
        // At the return type: where a missing `From<ShapeError>` is reported.
        Some(ty) if returns_result => respan(
            quote!(return #p::Err(#p::call_error(__shapes_error))),
            ty.span(),
        ),
        _ => quote!(#p::call_panic(__shapes_error)),
    };
    let statics = quote! {
        const __SHAPES_VARS: #p::VarTable = #p::VarTable::new() #(.with(#names))*;
        static __SHAPES_TABLE: #p::VarTable = __SHAPES_VARS;
        static __SHAPES_MAP: #p::SlotMap = __SHAPES_VARS.identity();
    };

    let (inner_attrs, outer_attrs): (Vec<&Attribute>, Vec<&Attribute>) = func
        .attrs
        .iter()
        .partition(|a| matches!(a.style, syn::AttrStyle::Inner(_)));
    let vis = &func.vis;
    let sig = &func.sig;
    let block = &func.block;

    let n = g.own_vars.len();
    // The same checks against the lean checker (success path) and the general one (errors).
    let group = |checks: &[TokenStream]| {
        quote! {
            |__cx: &mut #p::CallCx<#n>| {
                #prelude
                #(#checks)*
            },
            |__cx: &mut #p::Checker| {
                #prelude
                #(#checks)*
            }
        }
    };
    let args_group = group(&arg_checks);
    let new_scope = quote!(#p::CallScope::<#n>::new(&__SHAPES_TABLE, &__SHAPES_MAP, #fname));
    let body = match &ret {
        None => quote! {
            #(#inner_attrs)*
            if #guard {
                #statics
                let mut __shapes_scope = #new_scope;
                if let #p::Err(__shapes_error) = __shapes_scope.check(#args_group) {
                    #fail;
                }
            }
            #block
        },
        Some(rc) => {
            let ret_check = value_check(&g, rc, format_ident!("__SHAPES_RET"));
            let ret_check = if returns_result {
                quote! {
                    if let #p::Ok(__shapes_ok) = &__shapes_ret {
                        #ret_check
                    }
                }
            } else {
                ret_check
            };
            let ret_group = group(&[ret_check]);
            // `output` is Some: `ret` without a return type was rejected above.
            let ty = output
                .as_ref()
                .map(|t| quote!(#t))
                .unwrap_or_else(|| quote!(()));
            let annotated = !output.as_ref().is_some_and(has_impl_trait);
            let call = match (func.sig.asyncness.is_some(), annotated) {
                (false, true) => quote!((move || -> #ty #block)()),
                (false, false) => quote!((move || #block)()),
                (true, true) => quote!((async move || -> #ty #block)().await),
                (true, false) => quote!((async move || #block)().await),
            };
            quote! {
                #(#inner_attrs)*
                #statics
                let mut __shapes_scope = if #guard {
                    #p::Some(#new_scope)
                } else {
                    #p::None
                };
                if let #p::Some(__shapes_scope) = &mut __shapes_scope {
                    if let #p::Err(__shapes_error) = __shapes_scope.check(#args_group) {
                        #fail;
                    }
                }
                let __shapes_ret = #call;
                if let #p::Some(__shapes_scope) = &mut __shapes_scope {
                    if let #p::Err(__shapes_error) = __shapes_scope.check(#ret_group) {
                        #fail;
                    }
                }
                __shapes_ret
            }
        }
    };
    quote! {
        #(#outer_attrs)*
        #vis #sig {
            #body
        }
    }
}

/// The checks of one value against its pattern, as in the derive's field checks.
fn value_check(g: &Codegen, c: &Checked, info: syn::Ident) -> TokenStream {
    let p = &g.private_path;
    let (name, pattern) = (&c.name, c.lit.value());
    let value = &c.value;
    // Every token at the type, so a missing `HasShape` impl is reported there (a span made of
    // tokens from several places would fall back to the attribute).
    let shape_call = respan(quote!(#p::HasShape::shape(&#value)), c.span);
    let items = g.items_check(&c.pattern);
    quote! {
        {
            static #info: #p::FieldInfo = #p::FieldInfo { name: #name, pattern: #pattern };
            let __s = #shape_call;
            let __d: &[usize] = ::core::convert::AsRef::<[usize]>::as_ref(&__s);
            __cx.field(&#info);
            #items
        }
    }
}

/// What can be known before the call: unsupported items, a name that is both a dim and a
/// variadic, and variables no argument (or, for the return pattern, no argument and not the
/// return value) can ever determine.
fn validate(cx: &Ctxt, params: &[Checked], ret: Option<&Checked>) {
    for c in params.iter().chain(ret) {
        analysis::check_supported(cx, &c.pattern, &c.lit, "a value");
    }
    let mut scope = Scope::default();
    for c in params {
        scope.add_pattern(&c.pattern, &c.lit);
    }
    // What the arguments determine, before the return pattern joins the scope.
    let known = scope.solvable_from(scope.bound());
    let unsolved: Vec<&str> = scope.names().filter(|n| !known.contains(*n)).collect();
    let unsolved_args = analysis::name_list(&unsolved);
    let first_unsolved = unsolved.first().and_then(|n| scope.first_use(n)).cloned();
    let ret_names = ret.map(|c| scope.add_pattern(&c.pattern, &c.lit));
    scope.check_variadic_dims(cx);

    // Rule: each variable of the arguments is determined by the arguments alone.
    if let Some(lit) = first_unsolved {
        cx.error_at(
            lit.span(),
            format!(
                "{unsolved_args} can never be solved from the arguments: they only appear inside arithmetic with other unknowns; give one of them a dim of its own"
            ),
        );
    }
    // Rule: each variable of `ret` is determined by the arguments and the return value.
    if let (Some(c), Some(ret_names)) = (ret, ret_names) {
        let mut start = known;
        start.extend(scope.bound());
        let known = scope.solvable_from(start);
        let unsolved: Vec<&str> = ret_names
            .iter()
            .map(String::as_str)
            .filter(|n| !known.contains(*n))
            .collect();
        if !unsolved.is_empty() {
            cx.error_at(
                c.lit.span(),
                format!(
                    "{} in `ret` can never be solved from the arguments or the return value: they only appear inside arithmetic with other unknowns",
                    analysis::name_list(&unsolved)
                ),
            );
        }
    }
}

/// `tokens` with every span set to `span`, recursively.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = proc_macro2::TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}
