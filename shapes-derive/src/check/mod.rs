//! `#[shapes::check]`: a function's arguments (and return value) checked against their
//! `#[shape("…")]` patterns in one scope per call.
//!
//! The same pipeline as the derive, on the same lower layers: `attr` reads the macro's
//! options, `ast` takes the `#[shape]` patterns off the parameters, `valid` runs the shared
//! `analysis` on them, and `expand` generates the checks with the derive's `codegen`.
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
//!
//! With `#[shape("…")]` on a `let` of the body, the scope is kept for the body too (as
//! `__shapes_lets`, a `&mut` of it) and the `let` is followed by the check of its value, in
//! debug builds. Before any of this, `flow` walks the body: the shapes of its tensor locals
//! through the ops of candle's vocabulary, a provable mismatch an error here; with `trace`,
//! the places where a shape is lost are emitted as `deprecated` warnings.

mod ast;
mod attr;
mod expand;
mod flow;
mod on_impl;
mod valid;

use std::path::Path;
use std::rc::Rc;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ItemFn;

use crate::ctxt::Ctxt;

pub use on_impl::callback as expand_impl_callback;

/// `#[shapes::check(args)]` on `item`, read from the source file `file` (where the checked
/// items beside it are found; `None` where it is not known).
pub fn expand(args: TokenStream, item: TokenStream, file: Option<&Path>) -> TokenStream {
    if let Ok(block) = syn::parse2::<syn::ItemImpl>(item.clone()) {
        return on_impl::expand(args, &block);
    }
    let beside = |f: &ItemFn| {
        let text = flow::fn_text(&f.sig, &f.block);
        neighbours(
            file,
            &flow::Anchor::Fn(&f.sig.ident.to_string(), Some(text)),
        )
    };
    expand_fn(args, item, None, &beside)
}

/// The checked items beside `anchor` in `file`: not read with `--cfg shapes_no_flow`.
fn neighbours(file: Option<&Path>, anchor: &flow::Anchor<'_>) -> Option<Rc<flow::Neighbours>> {
    if cfg!(shapes_no_flow) {
        return None;
    }
    flow::Neighbours::read(file?, anchor)
}

/// `#[shapes::check(args)]` on the function `item`; `fields` are its struct's declarations
/// when it is a method of an `impl` block under `#[shapes::check]`, `beside` finds the checked
/// items beside the function in its module (once it is parsed).
fn expand_fn(
    args: TokenStream,
    item: TokenStream,
    fields: Option<&flow::SelfFacts>,
    beside: &dyn Fn(&ItemFn) -> Option<Rc<flow::Neighbours>>,
) -> TokenStream {
    let mut func: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let mut out = syn::Error::new(
                e.span(),
                format!("#[shapes::check] goes on a function with a body, or on an `impl` block of a struct that derives `Shaped`: {e}"),
            )
            .to_compile_error();
            out.extend(item);
            return out;
        }
    };
    // Found by the function as written, before its `#[shape]`s are taken off.
    let neighbours = beside(&func);
    // Only for a function: on anything else the one error above is the whole story.
    let cx = Ctxt::new();
    let opts = attr::options(&cx, args);
    let any_let = flow::any_lets(&func.block) || opts.each_let;
    let checked = ast::CheckedFn::take_from(&cx, &opts, &mut func, any_let);
    let analysis = valid::check(&cx, &checked);
    // The body's shapes, followed through the ops: provable mismatches go into `cx`.
    // `--cfg shapes_no_flow` (read when this crate is built): the bodies are not analysed.
    let outcome = if cfg!(shapes_no_flow) {
        flow::Outcome::default()
    } else {
        flow::analyse(&cx, &checked, &func, fields, neighbours.as_deref())
    };
    if opts.each_let {
        flow::annotate_lets(&mut func, &outcome);
    }
    let gaps = outcome.gaps;
    // On errors the output is discarded below; generation stays total anyway.
    let generated = expand::generate(&cx, &opts, &func, &checked, &analysis, &gaps);
    match cx.check() {
        Ok(()) => generated,
        Err(errors) => {
            // The function as written minus its #[shape] attributes (already taken off), so
            // the user sees these errors and not a cascade.
            // The parameters look unused without the checks: say nothing about them.
            let mut out = errors.to_compile_error();
            flow::strip_lets(&mut func.block);
            func.attrs
                .push(syn::parse_quote!(#[allow(unused_variables)]));
            out.extend(func.into_token_stream());
            out
        }
    }
}
