//! Procedural macros for the [`shapes`](https://docs.rs/shapes) crate: `#[derive(Shaped)]`,
//! `expr!` and `#[check]`.
//!
//! Use them through the facade crate `shapes`, which re-exports them. Every shape string is
//! parsed here, at compile time, by the same parser `shapes` uses at run time; a bad string is
//! a compile error at the attribute.
//!
//! The derive is split like thiserror's, and `#[check]` (the `check` module) the same way:
//!
//! - `ctxt`: every error of one macro call, collected (serde's `Ctxt`, with its drop bomb).
//! - `attr` reads the attributes; `ast` builds a typed view of the struct, with per-field facts.
//! - `analysis`: the one static analysis of variables, shared with `#[check]`; `valid` holds
//!   the derive's rules on top of it.
//! - `codegen`: the code generator shared by the three bodies: `expand_memory` (`check_in`),
//!   `expand_source` (`check_source_in`) and `#[check]`'s; its child `codegen::arith`: a dim
//!   expression or `where` relation of one operator handed to the inlined
//!   `ItemChecks::bin`/`where_holds`, beside the general checker's tree.
//! - `expand`: the pipeline and the `impl Shaped`; `fallback`: the impl emitted beside errors.
//! - `expr_macro`: `expr!`.
//! - `check::flow`: `#[check]`'s analysis of the body: the shapes of tensor locals followed
//!   through a vocabulary of candle ops, a provable mismatch a compile error at the op,
//!   `#[shape]` on a `let`, and `trace`'s warnings where tracking is lost.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod analysis;
mod ast;
mod attr;
mod check;
mod codegen;
mod ctxt;
mod expand;
mod expand_binders;
mod expand_memory;
mod expand_source;
mod expand_typo;
mod expr_macro;
mod fallback;
mod place;
mod self_facts;
mod valid;

use proc_macro::TokenStream;

/// (Defined in `shapes-derive`; depend on `shapes`, which re-exports it.)
#[proc_macro_derive(Shaped, attributes(shape, shapes))]
pub fn derive_shaped(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input).into()
}

/// (Defined in `shapes-derive`; depend on `shapes`, which re-exports it.)
#[proc_macro]
pub fn expr(input: TokenStream) -> TokenStream {
    match expr_macro::expand(input.into()) {
        Ok(out) => out.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// (Defined in `shapes-derive`; depend on `shapes`, which re-exports it, and documents it in
/// full.)
///
/// Checks the arguments (and, with `ret = "…"`, the return value) against their
/// `#[shape("…")]` patterns at run time, and follows the shapes of the body's `Tensor` locals
/// through candle's ops at compile time: a mismatch that holds for every size satisfying the
/// patterns and `where` equations (distinct variables being distinct dims) is a compile error
/// at the op; anything the vocabulary does not cover makes a shape unknown, never an error.
/// `#[shape("…")]` on a `let` gives a local a shape (checked when it runs, in debug builds);
/// `#[check(trace)]` shows each place where a shape was lost as a warning.
#[proc_macro_attribute]
pub fn check(args: TokenStream, item: TokenStream) -> TokenStream {
    let file = source_file(&item);
    check::expand(args.into(), item.into(), file.as_deref()).into()
}

/// The callback of `#[shapes::check]` on an `impl` block (called by the macro a derived
/// struct emits; see `self_facts`). Not for users: generated code calls it as
/// `shapes::__private::check_impl!`.
#[doc(hidden)]
#[proc_macro]
pub fn __check_impl(input: TokenStream) -> TokenStream {
    let file = source_file(&input);
    check::expand_impl_callback(input.into(), file.as_deref()).into()
}

/// The source file on disk that the first leaf token of `tokens` (a group's contents searched
/// in order) was written in: where `#[shapes::check]` finds the checked items beside the one
/// it expands. `None` where the compiler does not say (a token a macro made).
fn source_file(tokens: &TokenStream) -> Option<std::path::PathBuf> {
    tokens.clone().into_iter().find_map(|tt| match tt {
        proc_macro::TokenTree::Group(g) => source_file(&g.stream()),
        leaf => leaf.span().local_file(),
    })
}
