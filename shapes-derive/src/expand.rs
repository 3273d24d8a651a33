//! `#[derive(Shaped)]`: the pipeline (read, check, generate) and the `impl Shaped` it
//! produces.
//!
//! The impl wires together the variable table (`VARS`: a `const` merged with the nested
//! structs' tables, so nothing is looked up by name at run time), `NAME`, the bounds on generic
//! field types, and the two bodies: `check_in` ([`expand_memory`]) and `check_source_in`
//! ([`expand_source`]). Patterns of arrays of numbers, whose shape the compiler knows, are also
//! checked in a `const` beside the impl.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use shapes_core::expr::{DimExpr, Item};
use syn::spanned::Spanned;

use crate::analysis::{dim_vars, pattern_vars, push_unique};
use crate::ast::{Access, Field, Input, Kind, is_data_array};
use crate::codegen::{Codegen, crate_tokens, local_guards, rename_checks, renames};
use crate::ctxt::Ctxt;
use crate::expand_typo::{is_generic, typo_check};
use crate::{attr, expand_binders, expand_memory, expand_source, fallback, valid};

#[cfg(test)]
mod parity;
#[cfg(test)]
mod tests;

/// The whole derive, thiserror's way: read the input, check it, generate the impl; on any
/// error, the errors and the fallback impl instead.
pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let (attrs, attr_errors) = attr::struct_attr(&input.attrs);
    // Read once, here, because the fallback impl needs it as much as the real one.
    let krate = crate_tokens(attrs.crate_path.as_ref());
    let expanded = match Input::from_syn(&cx, input, attrs, attr_errors) {
        Some(view) => {
            valid::check(&cx, &view);
            impl_shaped(&view, &krate)
        }
        None => TokenStream::new(),
    };
    // What the struct's checked methods read (`#[shapes::check]` on an `impl` block).
    let facts = crate::self_facts::emit(input);
    match cx.check() {
        Ok(()) => quote!(#expanded #facts),
        Err(errors) => {
            let mut out = errors.to_compile_error();
            out.extend(fallback::expand(input, &krate));
            out.extend(facts);
            out
        }
    }
}

/// The `impl Shaped` (generated even when the checks found errors, then discarded).
fn impl_shaped(input: &Input<'_>, krate: &TokenStream) -> TokenStream {
    let p = quote!(#krate::__private);
    // Above the size at which `check_in` stops being inlined, dim expressions go to the
    // general checker alone: an inlined shortcut for each would grow the code rustc compiles
    // for a struct of a thousand fields, for a call made once per verification.
    let straight_line = input.fields.len() <= expand_memory::INLINE_FIELDS;
    let g = Codegen::new(p.clone(), own_vars(input)).with_straight_line(straight_line);
    let vars = var_table(&g, krate, input);
    // `check_in`'s body names the runtime's items through a short alias (`use … as __p`):
    // a struct of thousands of fields pays for every token of it in compile time.
    let g_memory = Codegen::new(quote!(__p), own_vars(input)).with_straight_line(straight_line);
    let memory = expand_memory::check_fn(&g_memory, &p, krate, input);
    let check_fn = &memory.check_in;
    let static_checks: Vec<TokenStream> = input
        .fields
        .iter()
        .filter_map(|f| static_check(&g, f))
        .chain(
            input
                .fields
                .iter()
                .filter(|f| matches!(f.kind, Kind::Nested) && !f.contains_generic)
                .map(|f| rename_checks(krate, f, true)),
        )
        .chain((!is_generic(input)).then(|| typo_check(krate, input, true)))
        .collect();
    let source_fn = expand_source::check_source_fn(&g, krate, input);
    let binders = expand_binders::binders(&g, krate, input);
    let ident = input.ident;
    let name = ident.to_string();
    let generics = bounded_generics(input, krate);
    let (impl_g, ty_g, where_c) = generics.split_for_impl();
    let items = quote! {
        #[automatically_derived]
        impl #impl_g #krate::Shaped for #ident #ty_g #where_c {
            const VARS: #p::VarTable = #vars;
            const NAME: &'static ::core::primitive::str = #name;
            #check_fn
            #source_fn
            #binders
        }
    };
    let chunks = &memory.chunks;
    let items = if chunks.is_empty() {
        items
    } else {
        quote! {
            #items
            #[automatically_derived]
            impl #impl_g #ident #ty_g #where_c {
                #chunks
            }
        }
    };
    // In an anonymous const, so the guards of the locals' names shadow the user's items for
    // the generated code only. The static checks bind no locals and stay outside (their
    // compile errors name them as they always did).
    let guards = local_guards(&items, &[]);
    quote! {
        const _: () = {
            #guards
            #items
        };
        #(#static_checks)*
    }
}

/// How many times each of the struct's own variables is written: in the fields' patterns,
/// the `where` clauses and the `count` keys.
fn own_uses(input: &Input<'_>) -> std::collections::BTreeMap<String, u16> {
    let mut uses = std::collections::BTreeMap::new();
    let mut note = |v: &str| *uses.entry(v.to_owned()).or_insert(0u16) += 1;
    for f in &input.fields {
        if let Kind::Tensor { pattern, .. } = &f.kind {
            for item in &pattern.items {
                match item {
                    Item::Dim(e) | Item::Broadcast(e) => {
                        dim_vars(e).into_iter().for_each(&mut note)
                    }
                    Item::Variadic(n) => note(n.as_str()),
                    Item::Any | Item::Ellipsis => {}
                }
            }
        }
        if let Some(count) = &f.attr.count {
            note(&count.value());
        }
    }
    let compared = input.constraints.iter().map(|(l, _, r, _)| (l, r));
    for (l, r) in input.wheres.iter().map(|(l, r, _)| (l, r)).chain(compared) {
        dim_vars(l)
            .into_iter()
            .chain(dim_vars(r))
            .for_each(&mut note);
    }
    uses
}

/// The struct's own variables in slot order: the fields' patterns, then the `where` clauses,
/// then the `count` keys.
fn own_vars(input: &Input<'_>) -> Vec<String> {
    let mut own = Vec::new();
    for f in &input.fields {
        if let Kind::Tensor { pattern, .. } = &f.kind {
            pattern_vars(pattern, &mut own);
        }
    }
    let compared = input.constraints.iter().map(|(l, _, r, _)| (l, r));
    for (l, r) in input.wheres.iter().map(|(l, r, _)| (l, r)).chain(compared) {
        for v in dim_vars(l).into_iter().chain(dim_vars(r)) {
            push_unique(&mut own, v);
        }
    }
    for f in &input.fields {
        if let Some(count) = &f.attr.count {
            push_unique(&mut own, &count.value());
        }
    }
    own
}

/// `VARS`: the own variables, merged with the tables of the nested structs that share the
/// scope (under their renames).
fn var_table(g: &Codegen, krate: &TokenStream, input: &Input<'_>) -> TokenStream {
    let p = &g.private_path;
    let uses = own_uses(input);
    let mut vars = quote!(#p::VarTable::new());
    for name in &g.own_vars {
        let n = uses.get(name).copied().unwrap_or(1);
        vars = quote!(#vars.with_uses(#name, #n));
    }
    let nested = input
        .fields
        .iter()
        .filter(|f| matches!(f.kind, Kind::Nested) && f.attr.own_scope.is_none());
    for (k, f) in nested.enumerate() {
        let child = f.access.leaf();
        let renames = renames(f);
        vars = quote!(#vars.merge_field(&<#child as #krate::Shaped>::VARS, &[#renames], #k));
    }
    let declared = input
        .given
        .iter()
        .map(|(n, _)| n.clone())
        .chain(input.config.iter().map(|(v, _, _)| v.to_string()));
    for name in declared {
        vars = quote!(#vars.declare(#name));
    }
    vars
}

/// `#[shape("(3, 5)")] m: [[f32; 4]; 3]`: the compiler knows the shape, so check the literal
/// parts of the pattern in a `const` and fail the build on a mismatch.
fn static_check(g: &Codegen, f: &Field) -> Option<TokenStream> {
    let Kind::Tensor { pattern, lit } = &f.kind else {
        return None;
    };
    let Access::Leaf(ty) = &f.access else {
        return None;
    };
    if !is_data_array(ty) || f.contains_generic {
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

/// The struct's generics with `Leaf: HasShape` / `Leaf: Shaped` for every field type that
/// mentions a type parameter, spanned at the field so a missing impl points there.
fn bounded_generics(input: &Input<'_>, krate: &TokenStream) -> syn::Generics {
    let mut generics = input.generics.clone();
    let p = quote!(#krate::__private);
    let mut preds: Vec<syn::WherePredicate> = Vec::new();
    for f in &input.fields {
        if !f.contains_generic {
            continue;
        }
        let leaf = f.access.leaf();
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
