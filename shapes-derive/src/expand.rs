//! Code generation for `#[derive(Shaped)]`.
//!
//! Every variable becomes a slot index at compile time; each pattern item becomes one call on the
//! checker. Dim expressions become `static` trees of slot indices. The variable table is a
//! `const` merged with the nested structs' tables, so nothing is looked up by name at run time.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use shapes_core::{DimExpr, Item, Pattern};
use syn::Type;
use syn::spanned::Spanned;

use crate::ast::{Access, Field, Input, Kind, is_data_array, span_of_field};
use crate::codegen::{Codegen, FieldPrelude, renames};
use crate::ctxt::Ctxt;
use crate::{attr, fallback, valid};

pub(crate) fn pattern_vars(pattern: &Pattern, out: &mut Vec<String>) {
    for item in &pattern.items {
        match item {
            Item::Dim(e) | Item::Broadcast(e) => dim_vars(e, out),
            Item::Variadic(n) => push_unique(out, n.as_str()),
            Item::Any | Item::Ellipsis => {}
        }
    }
}

fn dim_vars(e: &DimExpr, out: &mut Vec<String>) {
    match e {
        DimExpr::Var(n) => push_unique(out, n.as_str()),
        DimExpr::Bin(_, l, r) => {
            dim_vars(l, out);
            dim_vars(r, out);
        }
        _ => {}
    }
}

fn push_unique(out: &mut Vec<String>, name: &str) {
    if !out.iter().any(|n| n == name) {
        out.push(name.to_owned());
    }
}

/// The whole derive, thiserror's way: read the input, check it, generate the impl; on any
/// error, the errors and the fallback impl instead.
pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let (attrs, attr_errors) = attr::struct_attr(&input.attrs);
    // Read once, here, because the fallback impl needs it as much as the real one.
    let krate = attr::crate_tokens(attrs.crate_path.as_ref());
    let expanded = match Input::from_syn(&cx, input, attrs, attr_errors) {
        Some(view) => {
            valid::check(&cx, &view);
            impl_shaped(&view, &krate)
        }
        None => TokenStream::new(),
    };
    match cx.check() {
        Ok(()) => expanded,
        Err(errors) => {
            let mut out = errors.to_compile_error();
            out.extend(fallback::expand(input, &krate));
            out
        }
    }
}

/// The `impl Shaped` of a struct the checks accepted.
fn impl_shaped(input: &Input<'_>, krate: &TokenStream) -> TokenStream {
    let p = quote!(#krate::__private);
    let mut own = Vec::new();
    for f in &input.fields {
        if let Kind::Tensor { pattern, .. } = &f.kind {
            pattern_vars(pattern, &mut own);
        }
    }
    for (l, r, _) in &input.wheres {
        dim_vars(l, &mut own);
        dim_vars(r, &mut own);
    }
    for f in &input.fields {
        if let Some(count) = &f.attr.count {
            push_unique(&mut own, &count.value());
        }
    }
    let g = Codegen::new(p.clone(), own);

    let mut vars = quote!(#p::VarTable::new());
    for name in &g.own_vars {
        vars = quote!(#vars.with(#name));
    }
    for f in &input.fields {
        if matches!(f.kind, Kind::Nested) && f.attr.own_scope.is_none() {
            let child = f.access.leaf();
            let renames = renames(f);
            vars = quote!(#vars.merge(&<#child as #krate::Shaped>::VARS, &[#renames]));
        }
    }

    let mut bound = BTreeSet::new();
    let checks: Vec<TokenStream> = input
        .fields
        .iter()
        .map(|f| field_check(&g, krate, f, &mut bound))
        .collect();
    let wheres = g.where_checks(&input.wheres);
    let static_checks: Vec<TokenStream> = input
        .fields
        .iter()
        .filter_map(|f| static_check(&g, input, f))
        .collect();

    let slots = g.slot_lets();
    let source_fn = crate::expand_source::check_source_fn(&g, krate, input);
    let ident = input.ident;
    let name = ident.to_string();
    let generics = bounded_generics(input, krate);
    let (impl_g, ty_g, where_c) = generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_g #krate::Shaped for #ident #ty_g #where_c {
            const VARS: #p::VarTable = #vars;
            const NAME: &'static str = #name;
            #[inline]
            fn check_in(&self, __cx: &mut #p::Checker, __map: &#p::SlotMap) {
                #(#slots)*
                #(#checks)*
                #(#wheres)*
            }
            #source_fn
        }
        #(#static_checks)*
    }
}

/// One field's checks. `bound` holds the struct's variables that an earlier field's checks
/// bound for sure (see [`items_check_known`]); this field's own are added when it is checked
/// unconditionally.
fn field_check(
    g: &Codegen,
    krate: &TokenStream,
    f: &Field,
    bound: &mut BTreeSet<u8>,
) -> TokenStream {
    let p = &g.private_path;
    let member = &f.member;
    let name = &f.name;
    let span = span_of_field(f);
    match &f.kind {
        Kind::Tensor { pattern, lit } => {
            let FieldPrelude {
                info,
                info_static,
                enter,
                leave,
            } = g.field_prelude(f, "F", lit);
            let leaf_ty = f.access.leaf().clone();
            let items = g.items_check_known(pattern, bound, f.access.is_unconditional());
            let leaf = move |v: TokenStream| {
                // Qualified through the field's own type tokens, so a type without `HasShape`
                // is reported at the field, not at the derive.
                let shape_call = quote_spanned! {leaf_ty.span()=>
                    <#leaf_ty as #p::HasShape>::shape(#v)
                };
                quote! {
                    let __s = #shape_call;
                    let __d: &[usize] = ::core::convert::AsRef::<[usize]>::as_ref(&__s);
                    __cx.field(&#info);
                    #items
                }
            };
            let body = access_code(g, &f.access, quote!(&self.#member), 0, &leaf);
            let count = crate::expand_source::count_check(g, f);
            quote_spanned! {span=>
                {
                    #info_static
                    #enter
                    #count
                    #body
                    #leave
                }
            }
        }
        Kind::Nested => {
            let child = f.access.leaf();
            let leaf: Box<dyn Fn(TokenStream) -> TokenStream> = if f.attr.own_scope.is_some() {
                Box::new(|v: TokenStream| quote!(__cx.isolated(#v);))
            } else {
                Box::new(
                    move |v: TokenStream| quote!(<#child as #krate::Shaped>::check_in(#v, __cx, &__child);),
                )
            };
            let body = access_code(g, &f.access, quote!(&self.#member), 0, &*leaf);
            let map = if f.attr.own_scope.is_some() {
                quote!()
            } else {
                let renames = renames(f);
                quote! {
                    let __child = __map.then(&const {
                        <Self as #krate::Shaped>::VARS.map_of(&<#child as #krate::Shaped>::VARS, &[#renames])
                    });
                }
            };
            let count = crate::expand_source::count_check(g, f);
            // `__cx` interpolated at the call site: spelled inside `quote_spanned!` it would take
            // the field's hygiene and miss the parameter when the struct comes out of a
            // `macro_rules!`.
            let cx = quote!(__cx);
            quote_spanned! {span=>
                {
                    #map
                    #cx.enter(#p::Segment::Field(#name));
                    #count
                    #body
                    #cx.leave();
                }
            }
        }
    }
}

/// Walks the wrappers from `expr` (a reference) down to the leaf.
fn access_code(
    g: &Codegen,
    access: &Access,
    expr: TokenStream,
    depth: usize,
    leaf: &dyn Fn(TokenStream) -> TokenStream,
) -> TokenStream {
    let p = &g.private_path;
    let v = format_ident!("__v{}", depth);
    match access {
        Access::Leaf(_) => leaf(expr),
        Access::Option(inner) => {
            let body = access_code(g, inner, quote!(#v), depth + 1, leaf);
            quote! {
                if let #p::Some(#v) = ::core::option::Option::as_ref(#expr) {
                    #body
                }
            }
        }
        Access::Seq(inner) => {
            let body = access_code(g, inner, quote!(#v), depth + 1, leaf);
            let i = format_ident!("__i{}", depth);
            // One level for the elements, its index set per element: the loop then writes
            // one index, and the nesting depth stays put.
            quote! {
                __cx.enter(#p::Segment::Index(0));
                for (#i, #v) in (#expr).iter().enumerate() {
                    __cx.index(#i);
                    #body
                }
                __cx.leave();
            }
        }
        Access::Deref(inner) => {
            let body = access_code(g, inner, quote!(#v), depth + 1, leaf);
            quote! {
                {
                    let #v = &**(#expr);
                    #body
                }
            }
        }
    }
}

/// `#[shape("(3, 5)")] m: [[f32; 4]; 3]`: the compiler knows the shape, so check the literal
/// parts of the pattern in a `const` and fail the build on a mismatch.
fn static_check(g: &Codegen, input: &Input<'_>, f: &Field) -> Option<TokenStream> {
    let Kind::Tensor { pattern, lit } = &f.kind else {
        return None;
    };
    let Access::Leaf(ty) = &f.access else {
        return None;
    };
    if !is_data_array(ty) || mentions_generics(ty, input.generics) {
        return None;
    }
    let p = &g.private_path;
    let items = pattern.items.iter().map(|item| match item {
        Item::Dim(DimExpr::Lit(n)) => quote!(#p::StaticItem::Lit(#n)),
        Item::Broadcast(DimExpr::Lit(n)) => quote!(#p::StaticItem::Broadcast(#n)),
        Item::Dim(DimExpr::Var(v)) => {
            let l = g.local(v.as_str());
            quote!(#p::StaticItem::Var(#l))
        }
        Item::Ellipsis | Item::Variadic(_) => quote!(#p::StaticItem::Rest),
        _ => quote!(#p::StaticItem::Any),
    });
    let message = format!(
        "field `{}`: the pattern {} does not match the shape of its array type",
        f.name,
        lit.value()
    );
    // ok (the `assert!` below): a `const` assertion in the user's crate: a failure is a
    // compile error (the documented way a wrong static pattern is reported), never a panic.
    Some(quote_spanned! {lit.span()=>
        const _: () = ::core::assert!(
            #p::static_matches(<#ty as #p::StaticShape>::DIMS, &[#(#items),*]),
            #message
        );
    })
}

fn mentions_generics(ty: &Type, generics: &syn::Generics) -> bool {
    let names: Vec<String> = generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            syn::GenericParam::Const(c) => Some(c.ident.to_string()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    if names.is_empty() {
        return false;
    }
    fn walk(ts: TokenStream, names: &[String]) -> bool {
        ts.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(id) => names.contains(&id.to_string()),
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), names),
            _ => false,
        })
    }
    walk(quote!(#ty), &names)
}

/// The struct's generics with `Leaf: HasShape` / `Leaf: Shaped` for every field type that
/// mentions a type parameter, spanned at the field so a missing impl points there.
fn bounded_generics(input: &Input<'_>, krate: &TokenStream) -> syn::Generics {
    let mut generics = input.generics.clone();
    let p = quote!(#krate::__private);
    let mut preds: Vec<syn::WherePredicate> = Vec::new();
    for f in &input.fields {
        let leaf = f.access.leaf();
        if !mentions_generics(leaf, input.generics) {
            continue;
        }
        let span = leaf.span();
        let pred = match f.kind {
            Kind::Tensor { .. } => quote_spanned!(span=> #leaf: #p::HasShape),
            Kind::Nested => quote_spanned!(span=> #leaf: #krate::Shaped),
        };
        match syn::parse2(pred) {
            Ok(pred) => preds.push(pred),
            Err(_) => continue,
        }
    }
    if !preds.is_empty() {
        generics.make_where_clause().predicates.extend(preds);
    }
    generics
}
