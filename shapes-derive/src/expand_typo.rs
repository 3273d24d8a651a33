//! The likely-typo rule over a struct's whole scope as a `const` the compiler evaluates:
//! only the compiler knows the variables of the nested structs (they are other derives').

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::ast::Input;

/// Whether the struct has type or const parameters: a `const` about `Self` then lives in a
/// generic function, evaluated where it is instantiated.
pub fn is_generic(input: &Input<'_>) -> bool {
    input
        .generics
        .params
        .iter()
        .any(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
}

/// The likely-typo rule over the struct's whole scope, nested structs included, which only
/// the compiler knows (their variables are other derives'): a `const` that fails the build
/// with the rule's message (`VarTable::typo_message`). Only for a struct that shares its
/// scope with a nested struct (alone, the derive's analysis applies the rule itself). As an
/// item for a struct without parameters (`cargo check` reports it); inside `check_in` for a
/// generic one, where it is evaluated when the verification is compiled for a type (`cargo
/// build`).
pub fn typo_check(krate: &TokenStream, input: &Input<'_>, item: bool) -> TokenStream {
    if !input.shares_scope_with_nested() {
        return TokenStream::new();
    }
    let p = quote!(#krate::__private);
    let ident = input.ident;
    let name = ident.to_string();
    let ty = if item { quote!(#ident) } else { quote!(Self) };
    let test = quote_spanned! {ident.span()=>
        {
            let (__buf, __len) = <#ty as #krate::Shaped>::VARS.typo_message(#name);
            if __len > 0 {
                ::core::panic!("{}", #p::message_str(&__buf, __len));
            }
        }
    };
    if item {
        quote!(const _: () = #test;)
    } else {
        quote!(const #test;)
    }
}
