//! How a derived struct's declarations reach the checked methods of its `impl` blocks.
//!
//! A method's attribute sees the method, not the struct. So the derive also emits a
//! `macro_rules!` named after the struct (`__shapes_derive_Shaped_on_Model`), re-exported under that
//! name in the struct's module, which hands the struct's own tokens to a callback:
//!
//! ```text
//! #[shapes::check] impl Model { … }
//!   → path::to::__shapes_derive_Shaped_on_Model! { [::shapes::__private::check_impl] {} { impl Model { … } } }
//!   → ::shapes::__private::check_impl! { {} { impl Model { … } } struct Model { … } }
//! ```
//!
//! The callback reads the struct with the derive's own parser (`ast::Input`), so a field's
//! pattern, a layer's renames and the `where` equations mean in a method what they mean in
//! `verify()`. The macro is found by the path the `impl` names its type with, so it works
//! wherever the impl is, in the struct's crate.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ext::IdentExt as _;

/// The name of the macro that hands `ident`'s tokens on.
pub fn macro_name(ident: &syn::Ident, span: Span) -> syn::Ident {
    format_ident!("__shapes_derive_Shaped_on_{}", ident.unraw(), span = span)
}

/// The macro for `input`, and its re-export by name in the struct's module.
pub fn emit(input: &syn::DeriveInput) -> TokenStream {
    let name = macro_name(&input.ident, Span::call_site());
    let tokens = input.to_token_stream();
    quote! {
        #[doc(hidden)]
        #[allow(unused_macros)]
        macro_rules! #name {
            ([$($cb:tt)*] $($rest:tt)*) => { $($cb)* ! { $($rest)* #tokens } };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use #name;
    }
}

/// The call `#[shapes::check]` on an `impl` block expands to: the derived struct's macro,
/// reached by the path of the impl's type, with `callback` and the impl.
pub fn call(ty_path: &syn::Path, callback: &TokenStream, item: &TokenStream) -> TokenStream {
    let mut path = ty_path.clone();
    let span = path
        .segments
        .last()
        .map_or_else(Span::call_site, |s| s.ident.span());
    if let Some(last) = path.segments.last_mut() {
        last.ident = macro_name(&last.ident, span);
        last.arguments = syn::PathArguments::None;
    }
    quote_spanned! {span=> #path ! { [#callback] #item } }
}
