//! `BINDERS` and `read_binder`: where each variable of the struct is first bound on every run,
//! and how to read it from a value, for methods checked with `#[shapes::check(self)]`.
//!
//! A field is a binder when it is reached on every run (no `Option`, no collection on the
//! way): a tensor field for each plain variable at a fixed axis of its pattern (before any
//! `...` or `*rest`), a nested field sharing the scope for every variable its own struct has
//! a binder for (under the field's renames). Fields are taken in declaration order and the
//! first binder of a variable wins; the table is a `const` built from the nested structs'
//! tables, so the derive needs to know nothing of them.
//!
//! The table is also told, field by field, every variable a check may bind on some run: a
//! plain dim, a broadcastable `#name` (bound when its size is not 1) and a `count = "n"` (the
//! number of elements). A binder after one of those is not where a run binds its variable
//! first, so the variable is not `first` and `verify` records where it was bound instead.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use shapes_core::expr::{DimExpr, Item};
use syn::spanned::Spanned;

use crate::ast::{Access, Input, Kind};
use crate::codegen::{Codegen, renames};

/// The `BINDERS` const and the `read_binder` method of the `Shaped` impl.
///
/// The table is built in flat statements (a struct may have thousands of fields), and an own
/// variable gets at most one `dim` entry, at its index in `VARS` (the own variables come
/// first, in order), so evaluating the table costs no more than the struct's variables: only
/// a nested field's variables are looked up by name.
pub fn binders(g: &Codegen, krate: &TokenStream, input: &Input<'_>) -> TokenStream {
    let p = &g.private_path;
    let usize_ty = quote!(::core::primitive::usize);
    let mut steps = Vec::new();
    let mut arms = Vec::new();
    let mut seen = BTreeSet::new();
    // The own variables some dim of an earlier field may bind, as `may` was told them, and
    // those given a conditional binder (which every later dim that may bind them must be told).
    let mut may = Told::default();
    for (member, f) in input.fields.iter().enumerate() {
        // A `count = "n"` binds `n` as the field is entered, before any of its dims.
        if let Some(bits) = count_bits(g, f).map(|b| may.tell(b)).filter(|&b| b != 0) {
            steps.push(quote!(__t = __t.may(#bits);));
        }
        if !f.access.is_unconditional() {
            let reach = f.access.first_reach();
            match u16::try_from(member).ok().zip(reach) {
                Some((member, list)) => {
                    steps.extend(cond_binders(g, krate, f, member, list, &mut may))
                }
                None => steps.extend(may_bind(g, krate, f, false, &mut may)),
            }
            continue;
        }
        let member = u16::try_from(member).ok();
        // After the field's binders: what its dims may bind, bound for sure or not.
        let after = may_bind(g, krate, f, member.is_some(), &mut may);
        let Some(member) = member else {
            steps.extend(after);
            continue;
        };
        let name = &f.name;
        let field = &f.member;
        let value = reach(&f.access, quote!(&self.#field));
        match &f.kind {
            Kind::Tensor { pattern, .. } => {
                let mut any = false;
                for (local, axis) in fixed_axes(g, pattern) {
                    if seen.insert(local) {
                        steps.push(quote!(__t = __t.dim_at(#local, #name, #member, #axis);));
                        any = true;
                    }
                }
                if any {
                    let ty = f.access.leaf();
                    // At the field's type, so a type without `HasShape` is reported there.
                    let shape = quote_spanned!(ty.span()=> <#ty as #p::HasShape>::shape(#value));
                    arms.push(quote! {
                        #p::Binder::Dim { member: #member, axis: __axis, .. } => {
                            let __s = #shape;
                            ::core::convert::AsRef::<[#usize_ty]>::as_ref(&__s)
                                .get(<#usize_ty as ::core::convert::From<::core::primitive::u16>>::from(__axis))
                                .copied()
                        }
                    });
                }
            }
            Kind::Nested if f.attr.own_scope.is_none() => {
                let child = f.access.leaf();
                let tables = child_tables(krate, f);
                steps.push(quote!(__t = __t.nested(#tables, #name, #member);));
                arms.push(quote! {
                    #p::Binder::Nested { member: #member, child: __inner, .. } => {
                        <#child as #krate::Shaped>::read_binder(#value, __inner)
                    }
                });
            }
            Kind::Nested => {}
        }
        steps.extend(after);
    }
    quote! {
        const BINDERS: &'static #p::Binders = &{
            #[allow(unused_mut)]
            let mut __t = #p::Binders::listed();
            #(#steps)*
            __t
        };

        #[inline]
        fn read_binder(&self, __b: &#p::Binder) -> ::core::option::Option<#usize_ty> {
            match *__b {
                #(#arms)*
                #[allow(unreachable_patterns)]
                _ => #p::None,
            }
        }
    }
}

/// The step that tells the table what the field's dims may bind, on any run: the variables of
/// its pattern's plain dims (those not already told), or a nested struct's; `None` when that
/// adds nothing. A nested field that is a binder (`binder`) says it in its `nested` step, and
/// a nested field with a scope of its own binds none of the struct's variables.
fn may_bind(
    g: &Codegen,
    krate: &TokenStream,
    f: &crate::ast::Field,
    binder: bool,
    may: &mut Told,
) -> Option<TokenStream> {
    match &f.kind {
        Kind::Tensor { pattern, .. } => {
            let bits = may.tell(pattern_bits(g, pattern));
            (bits != 0).then(|| quote!(__t = __t.may(#bits);))
        }
        Kind::Nested if f.attr.own_scope.is_none() && !binder => {
            let tables = child_tables(krate, f);
            Some(quote!(__t = __t.may_nested(#tables);))
        }
        Kind::Nested => None,
    }
}

/// The step of a field a run may not reach whose binders can still name where a successful
/// run bound a variable (see `Binders::nested_cond`): under `Option`s, or the first element
/// of a list (`list`).
fn cond_binders(
    g: &Codegen,
    krate: &TokenStream,
    f: &crate::ast::Field,
    member: u16,
    list: bool,
    may: &mut Told,
) -> Option<TokenStream> {
    let name = &f.name;
    match &f.kind {
        Kind::Tensor { pattern, .. } => {
            let mut locals = BTreeSet::new();
            let at = fixed_axes(g, pattern)
                .filter(|&(local, _)| locals.insert(local))
                .map(|(local, axis)| quote!((#local, #axis)));
            let at: Vec<TokenStream> = at.collect();
            let all = pattern_bits(g, pattern);
            let bits = may.tell(all);
            may.cond |= all;
            Some(quote!(__t = __t.dims_cond(&[#(#at),*], #bits, #name, #member, #list);))
        }
        Kind::Nested if f.attr.own_scope.is_none() => {
            let tables = child_tables(krate, f);
            Some(quote!(__t = __t.nested_cond(#tables, #name, #member, #list);))
        }
        Kind::Nested => None,
    }
}

/// The arguments that tell the table about the nested field `f`: this struct's variables, the
/// nested struct's variables and binders, and the field's renames.
fn child_tables(krate: &TokenStream, f: &crate::ast::Field) -> TokenStream {
    let child = f.access.leaf();
    let renames = renames(f);
    quote! {
        &Self::VARS,
        &<#child as #krate::Shaped>::VARS,
        <#child as #krate::Shaped>::BINDERS,
        &[#renames]
    }
}

/// The plain variables of `pattern` at a fixed axis (before any `...` or `*rest`), as
/// `(local, axis)`, in order: the dims that can be a binder.
fn fixed_axes<'p>(
    g: &'p Codegen,
    pattern: &'p shapes_core::expr::Pattern,
) -> impl Iterator<Item = (usize, u16)> + 'p {
    pattern
        .items
        .iter()
        .take_while(|item| !matches!(item, Item::Ellipsis | Item::Variadic(_)))
        .enumerate()
        .filter_map(|(axis, item)| match item {
            Item::Dim(DimExpr::Var(v)) => Some((usize::from(g.local(v.as_str())), axis)),
            _ => None,
        })
        .map_while(|(local, axis)| Some((local, u16::try_from(axis).ok()?)))
}

/// What the table was told of the own variables: those some dim of an earlier field may bind
/// (`may`), and those given a conditional binder (`cond`).
#[derive(Default)]
struct Told {
    may: u64,
    cond: u64,
}

impl Told {
    /// The bits of `bits` to tell the table that a field's dims may bind: those not told yet,
    /// and those with a conditional binder, which a later dim takes away from it.
    fn tell(&mut self, bits: u64) -> u64 {
        let told = bits & (!self.may | self.cond);
        self.may |= bits;
        told
    }
}

/// The own variables that `pattern`'s dims may bind (bit `l` for local `l`): its plain dims,
/// and its broadcastable `#name` dims, which bind the name when the size is not 1.
fn pattern_bits(g: &Codegen, pattern: &shapes_core::expr::Pattern) -> u64 {
    pattern
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Dim(DimExpr::Var(v)) | Item::Broadcast(DimExpr::Var(v)) => {
                Some(g.local(v.as_str()))
            }
            _ => None,
        })
        .filter(|&l| l < 64)
        .fold(0u64, |m, l| m | (1u64 << l))
}

/// The bit of the variable a `count = "n"` field binds to its number of elements, if any.
fn count_bits(g: &Codegen, f: &crate::ast::Field) -> Option<u64> {
    let local = g.local(&f.attr.count.as_ref()?.value());
    (local < 64).then(|| 1u64 << local)
}

/// A reference to the leaf of an unconditional field: through its `Box`/`&`/`Rc`/`Arc`
/// wrappers.
fn reach(access: &Access, expr: TokenStream) -> TokenStream {
    match access {
        Access::Deref(inner) => reach(inner, quote!(&**(#expr))),
        _ => expr,
    }
}
