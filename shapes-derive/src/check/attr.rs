//! `#[shapes::check(...)]`'s own options.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::LitStr;

use crate::ctxt::Ctxt;

const KEYS: &str = "`self`, `ret = \"(…)\"`, `where = \"…\"`, `debug_only`, `panic`, `map_err = \"path\"`, `crate = \"path\"`, `trace`, `each_let`";

/// What `#[shapes::check(...)]` says.
#[derive(Default)]
pub struct Options {
    /// `ret = "(…)"`: the return value's pattern.
    pub ret: Option<LitStr>,
    /// `debug_only`: check only when `debug_assertions` are on (like `debug_assert!`).
    pub debug_only: bool,
    /// `crate = "path"`: where the `shapes` crate is.
    pub crate_path: Option<syn::Path>,
    /// `panic`: a mismatch panics even when the function returns a `Result`.
    pub panic: Option<proc_macro2::Span>,
    /// `map_err = "path"`: a mismatch of a function returning a `Result` returns
    /// `Err(path(error))`, for an error type without `From<ShapeError>`.
    pub map_err: Option<syn::Path>,
    /// `self`: the method's patterns share the variables `self`'s fields bind.
    pub self_key: Option<proc_macro2::Span>,
    /// `where = "…"`: equations and comparisons between the variables, as the derive's.
    pub wheres: Vec<LitStr>,
    /// `trace`: each place of the body where the flow analysis lost a shape is shown as a
    /// warning.
    pub trace: bool,
    /// `each_let`: every `let` whose shape the flow analysis tracked is checked when it runs
    /// (debug builds), as if it carried `#[shape]` with that shape.
    pub each_let: bool,
}

pub fn options(cx: &Ctxt, args: TokenStream) -> Options {
    let mut out = Options::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("ret") {
            if out.ret.is_some() {
                return Err(meta.error("duplicate `ret`"));
            }
            out.ret = Some(meta.value()?.parse()?);
        } else if meta.path.is_ident("self") {
            out.self_key = Some(syn::spanned::Spanned::span(&meta.path));
        } else if meta.path.is_ident("where") {
            out.wheres.push(meta.value()?.parse()?);
        } else if meta.path.is_ident("trace") {
            out.trace = true;
        } else if meta.path.is_ident("each_let") {
            out.each_let = true;
        } else if meta.path.is_ident("debug_only") {
            out.debug_only = true;
        } else if meta.path.is_ident("panic") {
            out.panic = Some(syn::spanned::Spanned::span(&meta.path));
        } else if meta.path.is_ident("map_err") {
            if out.map_err.is_some() {
                return Err(meta.error("duplicate `map_err`"));
            }
            let lit: LitStr = meta.value()?.parse()?;
            out.map_err = Some(lit.parse()?);
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

/// The tokens inside `#[shapes::check(…)]`'s parentheses (none for a bare `#[shapes::check]`).
pub fn args_of(attr: &syn::Attribute) -> TokenStream {
    match &attr.meta {
        syn::Meta::List(l) => l.tokens.clone(),
        _ => TokenStream::new(),
    }
}

/// Whether `path` names `#[shapes::check]`: `check` (imported), `shapes::check`, or the
/// `crate = "…"` path's `check`.
pub fn is_check(path: &syn::Path, krate: Option<&syn::Path>) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segs.as_slice() {
        [one] => one == "check",
        [first, last] if first == "shapes" && last == "check" => true,
        [prefix @ .., last] if last == "check" => krate.is_some_and(|k| {
            k.segments
                .iter()
                .map(|s| s.ident.to_string())
                .eq(prefix.iter().cloned())
        }),
        _ => false,
    }
}
