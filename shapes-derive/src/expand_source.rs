//! Code generation for `verify_source`: `check_source_in`, the twin of `check_in` that reads
//! each tensor's shape by its checkpoint name from a `SourceCx` instead of from a field value.
//!
//! A plain tensor field (not in a list, not tied) is a `static` `SourceTensor` (its name, its
//! pattern's items as `ItemOp`s) and one call of the runtime's `source_tensor`, which makes
//! the same `ItemChecks` calls `check_in`'s inlined checks make: the same checks and errors,
//! in a fraction of the code (what a struct of thousands of fields costs to compile is mostly
//! this function). Lists and tied tensors use `codegen`'s inlined item checks as `check_in`
//! does; only where the dims come from differs.
//! Names: the field's name or `name = "…"` for a tensor, the field's name or `prefix = "…"` for
//! a nested struct, joined with `.`; list elements are `prefix.{i}` with the count discovered
//! from the source (and bound to `count = "…"`'s variable).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use crate::ast::{Access, Field, Input, Kind, span_of_field};
use crate::codegen::{
    Codegen, FieldPrelude, child_map, count_text, level_let, seq_level, slot_ident,
};

/// The `check_source_in` method of the `Shaped` impl.
pub(crate) fn check_source_fn(g: &Codegen, krate: &TokenStream, input: &Input<'_>) -> TokenStream {
    let p = &g.private_path;
    let slots = g.slot_lets();
    let level = level_let(input);
    let fields: Vec<TokenStream> = input
        .fields
        .iter()
        .map(|f| field_source(g, krate, f))
        .collect();
    let mut wheres = g.where_checks(&input.wheres);
    wheres.extend(g.constraint_checks(&input.constraints));
    // The struct's `ignore` globs are about the names under it, wherever it is read.
    let ignore = (!input.ignore.is_empty())
        .then(|| quote!(__src.ignore_here(<Self as #krate::Shaped>::IGNORE);));
    quote! {
        fn check_source_in(
            __cx: &mut #p::Checker,
            __map: &#p::SlotMap,
            __src: &mut #p::SourceCx<'_>,
        ) {
            use #p::ItemChecks as _;
            use #p::ScopeChecks as _;
            #ignore
            #(#slots)*
            #level
            #(#fields)*
            #(#wheres)*
        }
    }
}

fn field_source(g: &Codegen, krate: &TokenStream, f: &Field) -> TokenStream {
    let p = &g.private_path;
    let name = &f.name;
    let span = span_of_field(f);
    // A list that matches nothing in a checkpoint is most likely under another prefix: at
    // least one element unless the field says otherwise (`min = 0`, or an `Option` around it).
    let min = match &f.attr.min {
        Some(lit) => lit.base10_parse::<usize>().unwrap_or(1),
        None => 1,
    };
    let count = f.attr.count.as_ref().map(|c| {
        let slot = slot_ident(usize::from(g.local(&c.value())));
        (slot, count_text(&c.value()))
    });
    match &f.kind {
        // A tensor that is neither a list nor tied (most of a model): one `static` describing
        // it and one call, rather than its checks inlined (a struct of thousands of fields
        // compiles in a fraction of the time; a checkpoint's name lookups dwarf the call).
        Kind::Tensor { pattern, lit } if !f.access.has_seq() && f.attr.tied.is_none() => {
            let row = g.fresh("SF");
            let tensor_name = f
                .attr
                .name
                .as_ref()
                .map_or_else(|| name.clone(), |n| n.value());
            let text = lit.value();
            let (ops, rest) = g.item_ops(pattern);
            let optional = !f.access.is_unconditional();
            // Call-site locals, as below.
            let (src, cx, map) = (quote!(__src), quote!(__cx), quote!(__map));
            quote_spanned! {span=>
                {
                    static #row: #p::SourceTensor = #p::SourceTensor {
                        info: #p::FieldInfo { name: #name, pattern: #text },
                        name: #tensor_name,
                        ops: #ops,
                        rest: #rest,
                        optional: #optional,
                    };
                    #p::source_tensor(#cx, #src, #map, &#row);
                }
            }
        }
        Kind::Tensor { pattern, lit } => {
            let FieldPrelude {
                info,
                info_static,
                enter,
                leave,
            } = g.field_prelude(f, "SF", lit);
            let tensor_name = f
                .attr
                .name
                .as_ref()
                .map_or_else(|| name.clone(), |n| n.value());
            let items = g.items_check(pattern);
            let leaf = |_: usize| {
                quote! {
                    __cx.field(&#info);
                    let __e = __src.mark(__cx);
                    if let #p::Some(__d) = __src.tensor(__cx) {
                        let __d: &[::core::primitive::usize] = __d;
                        #items
                    }
                    __src.tag(__cx, __e);
                }
            };
            // A tied tensor: absent is allowed when the tie holds (see `SourceCx::tie`).
            let tp = quote!(__tp);
            let body = match (&f.attr.tied, &f.access) {
                (Some(to), Access::Option(inner)) => {
                    let inner = walk(g, inner, 1, 0, None, min, &leaf);
                    let to = to.value();
                    let key = match &f.attr.tie_key {
                        Some(k) => {
                            let k = k.value();
                            quote!(#p::Some(#k))
                        }
                        None => quote!(#p::None),
                    };
                    quote! {
                        __cx.field(&#info);
                        if __src.present() || __src.tie(__cx, #tp, #to, #key) {
                            #inner
                        }
                    }
                }
                _ => walk(g, &f.access, 0, 0, count.as_ref(), min, &leaf),
            };
            // The locals are interpolated at the call site: spelled inside `quote_spanned!` they
            // would take the field's hygiene and miss the parameters when the struct comes out of
            // a `macro_rules!` (tests/adversarial.rs, `ten_thousand_fields_verify`).
            let src = quote!(__src);
            quote_spanned! {span=>
                {
                    #info_static
                    let #tp = #src.prefix_mark();
                    let __m = #src.push(#tensor_name);
                    #enter
                    #body
                    #leave
                    #src.pop(__m);
                }
            }
        }
        Kind::Nested => {
            let child = f.access.leaf();
            let own = f.attr.own_scope.is_some();
            let leaf = |_: usize| {
                if own {
                    quote!(#p::isolated_source::<#child>(__cx, __src);)
                } else {
                    quote!(<#child as #krate::Shaped>::check_source_in(__cx, &__child, __src);)
                }
            };
            let body = walk(g, &f.access, 0, 0, count.as_ref(), min, &leaf);
            let map = child_map(krate, f, None);
            let prefix = f
                .attr
                .prefix
                .as_ref()
                .map_or_else(|| name.clone(), |n| n.value());
            // Call-site locals, as above.
            let (src, cx, level) = (quote!(__src), quote!(__cx), quote!(__level));
            let (renamed, renamed_end) = crate::codegen::renames_calls(p, f, &level);
            quote_spanned! {span=>
                {
                    #map
                    let __m = #src.push(#prefix);
                    #cx.enter_at(#level, &#p::Segment::Field(#name));
                    #renamed
                    #body
                    #renamed_end
                    #cx.leave_to(#level);
                    #src.pop(__m);
                }
            }
        }
    }
}

/// Walks the field's wrappers by name: an `Option` is `Some` when the source has anything
/// under the current name, a sequence is `name.0`, `name.1`, … as far as the source goes, with
/// at least `min` elements.
/// `count` (the variable's slot and its pattern text) is bound at the first sequence; `seqs`
/// sequences were entered on the way (each a path level).
fn walk(
    g: &Codegen,
    access: &Access,
    depth: usize,
    seqs: usize,
    count: Option<&(proc_macro2::Ident, String)>,
    min: usize,
    leaf: &dyn Fn(usize) -> TokenStream,
) -> TokenStream {
    let p = &g.private_path;
    match access {
        Access::Leaf(_) => leaf(depth),
        Access::Deref(inner) => walk(g, inner, depth + 1, seqs, count, min, leaf),
        Access::Option(inner) => {
            let body = walk(g, inner, depth + 1, seqs, None, min, leaf);
            quote! {
                if __src.present() {
                    #body
                }
            }
        }
        Access::Seq(inner) => {
            let body = walk(g, inner, depth + 1, seqs + 1, None, min, leaf);
            let level = seq_level(seqs);
            let (n, i, m) = (
                format_ident!("__n{}", depth),
                format_ident!("__i{}", depth),
                format_ident!("__m{}", depth),
            );
            let info = g.fresh("SC");
            let text = count.map_or_else(String::new, |(_, t)| t.clone());
            let bind = count.map(|(slot, _)| quote!(__src.bind_count(__cx, #slot, #n);));
            quote! {
                static #info: #p::FieldInfo = #p::FieldInfo { name: "", pattern: #text };
                __cx.field(&#info);
                let #n = __src.count(__cx, #min);
                #bind
                __cx.enter_at(#level, &#p::Segment::Index(0));
                for #i in 0..#n {
                    let #m = __src.push_index(#i);
                    __cx.index_at(#level, #i);
                    #body
                    __src.pop(#m);
                }
                __cx.leave_to(#level);
            }
        }
    }
}
