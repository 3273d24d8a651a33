//! Code generation for `#[derive(Shaped)]`.
//!
//! Every variable becomes a slot index at compile time; each pattern item becomes one call on the
//! checker. Dim expressions become `static` trees of slot indices. The variable table is a
//! `const` merged with the nested structs' tables, so nothing is looked up by name at run time.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use shapes_core::{DimExpr, Item, Pattern};
use syn::spanned::Spanned;
use syn::{Ident, Type};

use crate::ast::{Access, Field, Input, Kind, is_data_array, span_of_field};
use crate::ctxt::Ctxt;
use crate::{attr, fallback, valid};

/// The pieces every generated item needs.
pub(crate) struct Gen {
    /// `::shapes::__private` (or the `crate = "…"` override's).
    pub(crate) p: TokenStream,
    /// The struct's own variables, in order of first appearance: their local indices.
    pub(crate) own: Vec<String>,
    /// A counter for unique `static` names.
    pub(crate) next: std::cell::Cell<usize>,
}

impl Gen {
    pub(crate) fn fresh(&self, prefix: &str) -> Ident {
        let n = self.next.get();
        self.next.set(n + 1);
        format_ident!("__{}{}", prefix, n)
    }

    pub(crate) fn local(&self, name: &str) -> u8 {
        // `own` is built from the same patterns, and valid.rs bounds the count through the
        // const VarTable (64 at most); an unknown name cannot reach here.
        self.own.iter().position(|n| n == name).unwrap_or(0) as u8
    }

    /// `let __sN = __map.get(N);` for each own variable: its scope slot, looked up once per
    /// call rather than at every use.
    pub(crate) fn slot_lets(&self) -> Vec<TokenStream> {
        (0..self.own.len())
            .map(|l| {
                let v = slot_ident(l);
                quote!(let #v = __map.get(#l);)
            })
            .collect()
    }

    /// The checks of the struct-level `where` equations, after the fields.
    pub(crate) fn where_checks(&self, input: &Input<'_>) -> Vec<TokenStream> {
        let p = &self.p;
        input
            .wheres
            .iter()
            .map(|(l, r, _)| {
                let (ln, rn, info) = (self.fresh("WL"), self.fresh("WR"), self.fresh("WI"));
                let (le, re) = (self.slot_expr(l), self.slot_expr(r));
                quote! {
                    static #ln: #p::SlotExpr = #le;
                    static #rn: #p::SlotExpr = #re;
                    static #info: #p::FieldInfo = #p::FieldInfo { name: "", pattern: "" };
                    __cx.where_eq(&#ln, &#rn, &#info, __map);
                }
            })
            .collect()
    }

    pub(crate) fn slot_expr(&self, e: &DimExpr) -> TokenStream {
        let p = &self.p;
        match e {
            DimExpr::Lit(n) => quote!(#p::SlotExpr::Lit(#n)),
            DimExpr::Var(v) => {
                let l = self.local(v.as_str());
                quote!(#p::SlotExpr::Var(#l))
            }
            DimExpr::Bin(op, l, r) => {
                let op = crate::expr_macro::arith_op(*op);
                let (l, r) = (self.slot_expr(l), self.slot_expr(r));
                quote!(#p::SlotExpr::Bin(#p::ArithOp::#op, &#l, &#r))
            }
            // Rejected by valid.rs before expansion; a literal keeps the output well-formed.
            DimExpr::Rank(_) | DimExpr::Prod(_) | DimExpr::Sum(_) | DimExpr::Index(..) => {
                quote!(#p::SlotExpr::Lit(0))
            }
        }
    }
}

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
    let g = Gen {
        p: p.clone(),
        own,
        next: std::cell::Cell::new(0),
    };

    let mut vars = quote!(#p::VarTable::new());
    for name in &g.own {
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
    let wheres = g.where_checks(input);
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

pub(crate) fn renames(f: &Field) -> TokenStream {
    let pairs = f.attr.renames.iter().map(|(inner, outer)| {
        let (i, o) = (inner.value(), outer.value());
        quote!((#i, #o))
    });
    quote!(#(#pairs),*)
}

/// One field's checks. `bound` holds the struct's variables that an earlier field's checks
/// bound for sure (see [`items_check_known`]); this field's own are added when it is checked
/// unconditionally.
fn field_check(g: &Gen, krate: &TokenStream, f: &Field, bound: &mut BTreeSet<u8>) -> TokenStream {
    let p = &g.p;
    let member = &f.member;
    let name = &f.name;
    let span = span_of_field(f);
    match &f.kind {
        Kind::Tensor { pattern, lit } => {
            let info = g.fresh("F");
            let seq = f.access.has_seq();
            let info_name = if seq { String::new() } else { name.clone() };
            let pattern_text = lit.value();
            let leaf_ty = f.access.leaf().clone();
            let items = items_check_known(g, pattern, bound, f.access.is_unconditional());
            let info_ref = info.clone();
            let leaf = move |v: TokenStream| {
                // Qualified through the field's own type tokens, so a type without `HasShape`
                // is reported at the field, not at the derive.
                let shape_call = quote_spanned! {leaf_ty.span()=>
                    <#leaf_ty as #p::HasShape>::shape(#v)
                };
                quote! {
                    let __s = #shape_call;
                    let __d: &[usize] = ::core::convert::AsRef::<[usize]>::as_ref(&__s);
                    __cx.field(&#info_ref);
                    #items
                }
            };
            let body = access_code(g, &f.access, quote!(&self.#member), 0, &leaf);
            let (enter, leave) = if seq {
                (
                    quote!(__cx.enter(#p::Segment::Field(#name));),
                    quote!(__cx.leave();),
                )
            } else {
                (quote!(), quote!())
            };
            let count = crate::expand_source::count_check(g, f);
            quote_spanned! {span=>
                {
                    static #info: #p::FieldInfo = #p::FieldInfo { name: #info_name, pattern: #pattern_text };
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
    g: &Gen,
    access: &Access,
    expr: TokenStream,
    depth: usize,
    leaf: &dyn Fn(TokenStream) -> TokenStream,
) -> TokenStream {
    let p = &g.p;
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

pub(crate) fn slot_ident(local: usize) -> Ident {
    format_ident!("__slot{}", local)
}

/// The item checks of one pattern, each variable checked with `var_is` (which binds it when it
/// is not bound yet).
pub(crate) fn items_check(g: &Gen, pattern: &Pattern) -> TokenStream {
    items_check_with(g, pattern, None)
}

/// [`items_check`] for a derived `check_in`, using what earlier fields of the struct bound.
///
/// A variable is bound for sure once a `var_is` on it has run: it either bound the variable
/// or compared it with the value already there. The generated code runs a field's item
/// checks in order, so within one pattern every use after the first is bound for sure; and
/// across fields, a variable that a field reached on every run (no `Option`, no collection)
/// checked is bound for every later field, unless that field's rank check failed, which
/// fails the verification anyway. Such uses call `var_bound`: one comparison where `var_is`
/// needs two, and most dims of a model are such uses.
///
/// The one thing given up, only after a rank error: a later dim of exactly `usize::MAX`
/// against a variable the failed field would have bound passes unchecked, so `verify_all`
/// may list one mismatch fewer (the rank error itself is always reported first).
pub(crate) fn items_check_known(
    g: &Gen,
    pattern: &Pattern,
    bound: &mut BTreeSet<u8>,
    unconditional: bool,
) -> TokenStream {
    let mut known = bound.clone();
    let code = items_check_with(g, pattern, Some(&mut known));
    if unconditional {
        *bound = known;
    }
    code
}

fn items_check_with(
    g: &Gen,
    pattern: &Pattern,
    mut known: Option<&mut BTreeSet<u8>>,
) -> TokenStream {
    let p = &g.p;
    let rest = pattern
        .items
        .iter()
        .position(|i| matches!(i, Item::Ellipsis | Item::Variadic(_)));
    let fixed = pattern.items.len() - usize::from(rest.is_some());
    let mut checks = Vec::new();
    for (i, item) in pattern.items.iter().enumerate() {
        let axis = match rest {
            Some(r) if i > r => {
                let from_end = pattern.items.len() - i;
                quote!(__n - #from_end)
            }
            _ => quote!(#i),
        };
        let check = match item {
            // A fixed-rank pattern reads its dims from the array `rank_n` handed back: no
            // bounds checks are left on the success path. ok (the generated `__a[#i]`): `__a`
            // is `[usize; fixed]` and, with no rest, `i < pattern.items.len() == fixed`.
            Item::Dim(DimExpr::Lit(n)) if rest.is_none() => {
                quote!(__cx.lit_is(#n, __a[#i], __d, #i);)
            }
            Item::Dim(DimExpr::Var(v)) if rest.is_none() => {
                let local = g.local(v.as_str());
                let slot = slot_ident(usize::from(local));
                // `insert` is false when an earlier check bound the variable for sure.
                let sure = known.as_deref_mut().is_some_and(|k| !k.insert(local));
                if sure {
                    quote!(__cx.var_bound(#slot, __a[#i], __d, #i);)
                } else {
                    quote!(__cx.var_is(#slot, __a[#i], __d, #i);)
                }
            }
            Item::Dim(DimExpr::Lit(n)) => quote!(__cx.lit(#n, __d, #axis);),
            Item::Dim(DimExpr::Var(v)) => {
                let slot = slot_ident(usize::from(g.local(v.as_str())));
                quote!(__cx.var(#slot, __d, #axis);)
            }
            Item::Dim(e) => {
                let name = g.fresh("E");
                let tree = g.slot_expr(e);
                quote! {
                    static #name: #p::SlotExpr = #tree;
                    __cx.expr(&#name, __map, __d, #axis);
                }
            }
            Item::Broadcast(DimExpr::Lit(n)) => quote!(__cx.bcast_lit(#n, __d, #axis);),
            Item::Broadcast(DimExpr::Var(v)) => {
                let slot = slot_ident(usize::from(g.local(v.as_str())));
                quote!(__cx.bcast_var(#slot, __d, #axis);)
            }
            Item::Broadcast(_) | Item::Any | Item::Ellipsis => quote!(),
            Item::Variadic(v) => {
                let slot = slot_ident(usize::from(g.local(v.as_str())));
                let after = pattern.items.len() - i - 1;
                quote!(__cx.variadic(#slot, __d, #i, __n - #after);)
            }
        };
        checks.push(check);
    }
    if rest.is_some() {
        quote! {
            if __cx.rank_at_least(__d, #fixed) {
                let __n = __d.len();
                #(#checks)*
            }
        }
    } else {
        quote! {
            if let #p::Some(__a) = __cx.rank_n::<#fixed>(__d) {
                let _ = __a;
                #(#checks)*
            }
        }
    }
}

/// `#[shape("(3, 5)")] m: [[f32; 4]; 3]`: the compiler knows the shape, so check the literal
/// parts of the pattern in a `const` and fail the build on a mismatch.
fn static_check(g: &Gen, input: &Input<'_>, f: &Field) -> Option<TokenStream> {
    let Kind::Tensor { pattern, lit } = &f.kind else {
        return None;
    };
    let Access::Leaf(ty) = &f.access else {
        return None;
    };
    if !is_data_array(ty) || mentions_generics(ty, input.generics) {
        return None;
    }
    let p = &g.p;
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
