//! The impl emitted beside the errors of a failed derive (thiserror's `fallback.rs`).

use proc_macro2::TokenStream;
use quote::quote;

/// One error-free impl so a failed derive shows its own errors, not a cascade of "Shaped is not
/// implemented" at every use. `krate` is the `shapes` crate's path, as the real impl names it.
pub fn expand(input: &syn::DeriveInput, krate: &TokenStream) -> TokenStream {
    let p = quote!(#krate::__private);
    let ident = &input.ident;
    let name = ident.to_string();
    let (impl_g, ty_g, where_c) = input.generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_g #krate::Shaped for #ident #ty_g #where_c {
            const VARS: #p::VarTable = #p::VarTable::new();
            const NAME: &'static ::core::primitive::str = #name;
            fn check_in<C: #p::ScopeChecks>(&self, _: &mut C, _: &#p::SlotMap) {}
            fn check_source_in(_: &mut #p::Checker, _: &#p::SlotMap, _: &mut #p::SourceCx<'_>) {}
        }
    }
}
