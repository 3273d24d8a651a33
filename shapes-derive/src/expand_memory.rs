//! `check_in`: the derive's checks of a struct in memory, each tensor's shape read from its
//! field through `HasShape`.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Access, Field, Input, Kind, span_of_field};
use crate::codegen::{
    Codegen, FieldPrelude, child_map, count_text, level_let, renames, seq_level, slot_ident,
};
use crate::place::place;

/// Above this many fields, `check_in` is not marked `#[inline]`.
pub const INLINE_FIELDS: usize = 64;

/// In a struct above [`INLINE_FIELDS`] fields, how many fields' checks go into one function
/// (see [`MemoryChecks::chunks`]).
pub const CHUNK_FIELDS: usize = 16;

/// The in-memory checks of a struct: the `check_in` method of the `Shaped` impl, and for a
/// struct of hundreds of fields the methods of an inherent impl it calls, one per
/// [`CHUNK_FIELDS`] fields.
pub struct MemoryChecks {
    pub check_in: TokenStream,
    /// Methods for `impl Struct { … }`, empty for a struct of up to [`INLINE_FIELDS`] fields.
    pub chunks: TokenStream,
}

/// The `check_in` method of the `Shaped` impl. `g` names the runtime's items by the alias
/// `__p`, which the body declares for `private`, the path the signature uses.
///
/// A struct of up to [`INLINE_FIELDS`] fields has its checks in `check_in`, inlined into
/// `verify`. Above that, `check_in` calls one function per [`CHUNK_FIELDS`] fields: the same
/// statements in the same order (the path's base level passed along), but LLVM optimises
/// tens of small functions in a fraction of the time one function of thousands of checks
/// takes, and a call per [`CHUNK_FIELDS`] fields costs nothing measurable.
pub fn check_fn(
    g: &Codegen,
    private: &TokenStream,
    krate: &TokenStream,
    input: &Input<'_>,
) -> MemoryChecks {
    let inline = input.fields.len() <= INLINE_FIELDS;
    let mut bound = BTreeSet::new();
    let mut known = KnownBound::default();
    // The statements of each field (a run's depth set before the first of it).
    let mut checks: Vec<TokenStream> = Vec::new();
    // Whether the field before is a path level (a nested field, a list): a run of them sets the
    // path's depth once, and each names its level (see `ScopeChecks::name_at`).
    let mut in_run = false;
    for (k, f) in input.fields.iter().enumerate() {
        let level = f.is_path_level();
        let depth = (level != in_run).then(|| depth_for_run(level));
        in_run = level;
        // Not for a struct of hundreds of fields, whose `check_in` is a call anyway.
        let known_here = inline.then(|| known.before(krate, k, f, &bound)).flatten();
        let check = field_check(g, krate, f, &mut bound, known_here.as_ref());
        checks.push(quote!(#depth #check));
    }
    let end_run = in_run.then(|| depth_for_run(false));
    let known = known.table(input.fields.len());
    let wheres = g.where_checks(&input.wheres, &input.constraints);
    let slots = g.slot_lets();
    let level = level_let(input);
    // A generic struct's scope is known where the verification is compiled for a type.
    let typos = crate::expand_typo::is_generic(input)
        .then(|| crate::expand_typo::typo_check(krate, input, false));
    if inline {
        // Inlined into `verify` where it pays (a model's structs have tens of fields).
        let check_in = quote! {
            #[inline]
            fn check_in<__C: #private::ScopeChecks>(&self, __cx: &mut __C, __map: &#private::SlotMap) {
                use #private as __p;
                use __p::ItemChecks as _;
                #typos
                #(#slots)*
                #level
                #known
                #(#checks)*
                #end_run
                #(#wheres)*
            }
        };
        return MemoryChecks {
            check_in,
            chunks: quote!(),
        };
    }
    // A struct of hundreds of fields: `check_in` is a call either way, and its body is then not
    // written into the crate's metadata for inlining elsewhere (rustc's time and memory on a
    // struct of thousands).
    let level_arg = if level.is_empty() {
        quote!(0)
    } else {
        quote!(__level)
    };
    let mut calls = Vec::new();
    let mut chunks = Vec::new();
    for (i, chunk) in checks.chunks(CHUNK_FIELDS).enumerate() {
        let name = format_ident!("__shapes_check_in_{}", i);
        calls.push(quote!(self.#name(__cx, __map, #level_arg);));
        chunks.push(quote! {
            #[doc(hidden)]
            #[inline(never)]
            #[allow(unused_variables, non_snake_case, clippy::all)]
            fn #name<__C: #private::ScopeChecks>(&self, __cx: &mut __C, __map: &#private::SlotMap, __level: usize) {
                use #private as __p;
                use __p::ItemChecks as _;
                #(#slots)*
                #(#chunk)*
            }
        });
    }
    let check_in = quote! {
        fn check_in<__C: #private::ScopeChecks>(&self, __cx: &mut __C, __map: &#private::SlotMap) {
            use #private as __p;
            use __p::ItemChecks as _;
            #typos
            #(#slots)*
            #level
            #(#calls)*
            #end_run
            #(#wheres)*
        }
    };
    MemoryChecks {
        check_in,
        chunks: quote!(#(#chunks)*),
    }
}

/// What a nested field's checks may take as bound for sure: the variables of the tensor fields
/// before it (known to the derive: `bound`) and those the nested fields before it bind (their
/// `BINDERS`, known to the compiler). `__known[k]` is the mask for field `k`, computed in one
/// `const` whose size is linear in the fields.
#[derive(Default)]
struct KnownBound {
    steps: Vec<TokenStream>,
}

impl KnownBound {
    /// `__known[k]` for the nested field `f` at `k` (in the shared scope), with this struct's
    /// tensor fields before it binding `bound`; `None` for another field.
    fn before(
        &mut self,
        krate: &TokenStream,
        k: usize,
        f: &Field,
        bound: &BTreeSet<u8>,
    ) -> Option<TokenStream> {
        if !matches!(f.kind, Kind::Nested) || f.attr.own_scope.is_some() {
            return None;
        }
        let bits = bound
            .iter()
            .filter(|&&l| l < 64)
            .fold(0u64, |m, &l| m | (1u64 << l));
        self.steps.push(quote!(__k[#k] = __acc | #bits;));
        if f.access.is_unconditional() {
            let child = f.access.leaf();
            let renames = renames(f);
            self.steps.push(quote! {
                __acc |= <Self as #krate::Shaped>::VARS
                    .map_of(&<#child as #krate::Shaped>::VARS, &[#renames])
                    .parent_mask(<#child as #krate::Shaped>::BINDERS.mask());
            });
        }
        Some(quote!(__known[#k]))
    }

    /// `let __known = …;`, if a field uses it.
    fn table(self, fields: usize) -> TokenStream {
        if self.steps.is_empty() {
            return quote!();
        }
        let steps = self.steps;
        quote! {
            let __known: [u64; #fields] = const {
                let mut __k = [0u64; #fields];
                let mut __acc: u64 = 0;
                #(#steps)*
                let _ = __acc;
                __k
            };
        }
    }
}

/// One field's checks. `bound` holds the struct's variables that an earlier field's checks
/// bound for sure (see [`Codegen::items_check_known`]); this field's own are added when it is
/// checked unconditionally. `known` is the mask a nested field's child map is told.
fn field_check(
    g: &Codegen,
    krate: &TokenStream,
    f: &Field,
    bound: &mut BTreeSet<u8>,
    known: Option<&TokenStream>,
) -> TokenStream {
    let p = &g.private_path;
    let member = &f.member;
    let name = &f.name;
    let span = span_of_field(f);
    match &f.kind {
        Kind::Tensor { pattern, lit } => {
            let FieldPrelude {
                info, info_static, ..
            } = g.field_prelude(f, "F", lit);
            // A list of tensors is a path level, in the struct's run of such fields.
            let enter = f.access.has_seq().then(|| name_level(g, &f.name));
            let leaf_ty = f.access.leaf().clone();
            let unconditional = f.access.is_unconditional();
            let items = match g.plain_tensor_check(pattern, &info, bound, unconditional) {
                Some(call) => call,
                None => {
                    let items = g.items_check_known(pattern, bound, unconditional);
                    quote!(__cx.field(&#info); #items)
                }
            };
            let leaf = move |v: TokenStream| {
                // Qualified through the field's own type tokens, so a type without `HasShape`
                // is reported at the field, not at the derive.
                let shape_call = quote_spanned! {leaf_ty.span()=>
                    <#leaf_ty as #p::HasShape>::shape(#v)
                };
                quote! {
                    let __s = #shape_call;
                    let __d = #p::dims(&__s);
                    #items
                }
            };
            let body = access_code(g, &f.access, quote!(&self.#member), 0, 0, &leaf);
            let count = count_check(g, f);
            quote_spanned! {span=>
                {
                    #info_static
                    #enter
                    #count
                    #body
                }
            }
        }
        Kind::Nested => {
            let child = f.access.leaf();
            let leaf: Box<dyn Fn(TokenStream) -> TokenStream> = if f.attr.own_scope.is_some() {
                Box::new(|v: TokenStream| quote!(#p::isolated(__cx, #v);))
            } else {
                Box::new(
                    move |v: TokenStream| quote!(<#child as #krate::Shaped>::check_in(#v, __cx, &__child);),
                )
            };
            let body = access_code(g, &f.access, quote!(&self.#member), 0, 0, &*leaf);
            let map = child_map(krate, f, known);
            let count = count_check(g, f);
            // Made with `quote!`, so that `__cx` and `__level` keep the call site's hygiene:
            // spelled inside `quote_spanned!` they would take the field's and miss the locals
            // when the struct comes out of a `macro_rules!`.
            let enter = name_level(g, name);
            let (renamed, renamed_end) = crate::codegen::renames_calls(p, f, &quote!(__level));
            quote_spanned! {span=>
                {
                    #map
                    #enter
                    #renamed
                    #count
                    #body
                    #renamed_end
                }
            }
        }
    }
}

/// `__cx.leave_to(…)`: the path one level below the struct's, as a run of fields that are path
/// levels begins (`run`), or the struct's own again as it ends.
fn depth_for_run(run: bool) -> TokenStream {
    if run {
        quote!(__cx.leave_to(__level + 1);)
    } else {
        quote!(__cx.leave_to(__level);)
    }
}

/// Names the struct's level below it (`__level`) after the field `name`, in a run.
fn name_level(g: &Codegen, name: &str) -> TokenStream {
    let p = &g.private_path;
    quote!(__cx.name_at(__level, &#p::Segment::Field(#name));)
}

/// Walks the wrappers from `expr` (a reference) down to the leaf; `seqs` lists were entered on
/// the way (each a path level).
fn access_code(
    g: &Codegen,
    access: &Access,
    expr: TokenStream,
    depth: usize,
    seqs: usize,
    leaf: &dyn Fn(TokenStream) -> TokenStream,
) -> TokenStream {
    let p = &g.private_path;
    let v = format_ident!("__v{}", depth);
    match access {
        Access::Leaf(_) => leaf(expr),
        Access::Option(inner) => {
            let body = access_code(g, inner, quote!(#v), depth + 1, seqs, leaf);
            quote! {
                if let #p::Some(#v) = ::core::option::Option::as_ref(#expr) {
                    #body
                }
            }
        }
        Access::Seq(inner) => {
            let body = access_code(g, inner, quote!(#v), depth + 1, seqs + 1, leaf);
            let i = format_ident!("__i{}", depth);
            let level = seq_level(seqs);
            // One level for the elements, its index set per element: the loop then writes
            // one index, and the nesting depth stays put.
            quote! {
                __cx.enter_at(#level, &#p::Segment::Index(0));
                for (#i, #v) in ::core::iter::Iterator::enumerate(<[_]>::iter(&(#expr)[..])) {
                    __cx.index_at(#level, #i);
                    #body
                }
                __cx.leave_to(#level);
            }
        }
        Access::Deref(inner) => {
            let body = access_code(g, inner, quote!(#v), depth + 1, seqs, leaf);
            quote! {
                {
                    let #v = &**(#expr);
                    #body
                }
            }
        }
    }
}

/// In `check_in`: binds a `count = "n"` field's element count to `n` (nothing for other
/// fields). Emitted right after the field's path segment is entered.
pub(crate) fn count_check(g: &Codegen, f: &Field) -> TokenStream {
    let Some(count) = &f.attr.count else {
        return quote!();
    };
    let p = &g.private_path;
    let member = &f.member;
    let slot = slot_ident(usize::from(g.local(&count.value())));
    let info = g.fresh("C");
    let text = count_text(&count.value());
    let place = place(count.span());
    quote! {
        static #info: #p::FieldInfo = #p::FieldInfo::at("", #text, #place);
        __cx.field(&#info);
        __cx.var(#slot, &[(self.#member).len()], 0);
    }
}
