//! Code generation for `verify_source`: the struct's `Shaped::DESCRIPTION`, its fields as
//! constant [`Node::Field`]s and its `where` relations over slots, and a `check_source_in`
//! that hands it to the runtime's one interpreter of by-name checks (`run_description`, which
//! reads a run-time `Plan` of a spec file too).
//!
//! Each field is data: its name in the source (the field's name, or `name = "…"` for a tensor
//! and `prefix = "…"` for a nested struct), its wrappers (`Option`, sequences, references),
//! a sequence's `min` and `count`, and its leaf: a tensor's pattern as `ItemOp`s (tied or
//! not), or a nested struct's `check_source_in` with the map from its variables to this
//! struct's. No code is generated per field (a struct of thousands of fields compiles in a
//! fraction of the time a block of checks per field took).
//!
//! [`Node::Field`]: ../../shapes/__private/enum.Node.html

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::ast::{Access, Field, Input, Kind, span_of_field};
use crate::codegen::{Codegen, count_text, rename_checks, renames};
use crate::place::place;

/// The `DESCRIPTION` const and the `check_source_in` method of the `Shaped` impl.
pub(crate) fn check_source_fn(g: &Codegen, krate: &TokenStream, input: &Input<'_>) -> TokenStream {
    let p = &g.private_path;
    // The nodes name the runtime's items through a short alias: a field costs a few dozen
    // tokens fewer, which a struct of thousands of fields pays for in compile time.
    let short = quote!(__p);
    let nodes: Vec<TokenStream> = input
        .fields
        .iter()
        // A size field (`dim = "…"`) is the struct's, not a checkpoint's.
        .filter(|f| f.attr.dim.is_none())
        .map(|f| field_node(g, &short, krate, f))
        .collect();
    // A nested type naming the struct's parameters has its variables known only once the
    // function is instantiated: its rename keys are checked there.
    let rename_checks: Vec<TokenStream> = input
        .fields
        .iter()
        .filter(|f| {
            matches!(f.kind, Kind::Nested) && f.attr.own_scope.is_none() && f.contains_generic
        })
        .map(|f| rename_checks(krate, f, false))
        .collect();
    let (wheres, where_infos) = g.relations(&short, &input.wheres, &input.constraints);
    let given = input.given.iter().map(|(n, _)| n);
    let ignore = input.ignore.iter().map(|(g, _)| g);
    let (config, config_checks) = config_keys(input);
    let config_places = input.config.iter().map(|(_, _, span)| {
        let place = place(*span);
        quote!(__p::Place::at(#place))
    });
    quote! {
        const DESCRIPTION: ::core::option::Option<&'static #p::Description> = {
            use #p as __p;
            #(#config_checks)*
            __p::Some(&__p::Description {
                nodes: &[#(#nodes),*],
                wheres: &[#(#wheres),*],
                where_infos: &[#(#where_infos),*],
                given: &[#(#given),*],
                config: &[#(#config),*],
                config_places: &[#(#config_places),*],
                ignore: &[#(#ignore),*],
            })
        };

        fn check_source_in(
            __cx: &mut #p::Checker,
            __map: &#p::SlotMap,
            __src: &mut #p::SourceCx<'_>,
        ) {
            #(#rename_checks)*
            if let #p::Some(__d) = <Self as #krate::Shaped>::DESCRIPTION {
                #p::run_description(__cx, __map, __src, __d);
            }
        }
    }
}

/// The description's config keys (`config(var = "key | key")`), and for each the assertion
/// (evaluated where the impl is used) that its variable is in `VARS`, which holds the nested
/// structs' names too.
fn config_keys(input: &Input<'_>) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let entries = input.config.iter().map(|(var, keys, _)| {
        let name = var.to_string();
        quote!(__p::ConfigKey { var: #name, keys: &[#(#keys),*] })
    });
    let checks = input.config.iter().map(|(var, _, _)| {
        let name = var.to_string();
        let message = format!(
            "#[shapes(config({name} = …))]: `{name}` is not a variable of {} or of the structs nested in its scope",
            input.ident
        );
        // ok (the `assert!`): evaluated at compile time where the impl is used; a failure is
        // a compile error, never a panic.
        quote_spanned!(var.span()=> ::core::assert!(Self::VARS.index_of(#name).is_some(), #message);)
    });
    (entries.collect(), checks.collect())
}

/// One field as a `Node::Field` constant.
fn field_node(g: &Codegen, p: &TokenStream, krate: &TokenStream, f: &Field) -> TokenStream {
    let name = &f.name;
    let span = span_of_field(f);
    let listed = if f.access.has_seq() {
        // A list that matches nothing in a checkpoint is most likely under another prefix: at
        // least one element unless the field says otherwise (`min = 0`, or an `Option` around
        // it).
        let min = match &f.attr.min {
            Some(lit) => lit.base10_parse::<usize>().unwrap_or(1),
            None => 1,
        };
        let (count, count_text, count_at) = match &f.attr.count {
            Some(c) => {
                let l = g.local(&c.value());
                let place = place(c.span());
                (
                    quote!(#p::Some(#l)),
                    count_text(&c.value()),
                    quote!(.count_at(#place)),
                )
            }
            None => (quote!(#p::None), String::new(), quote!()),
        };
        quote!(.listed(#min, #count, #count_text) #count_at)
    } else {
        quote!()
    };
    let wraps = wraps(p, &f.access);
    let node = match &f.kind {
        Kind::Tensor { pattern, lit } => {
            let source_name = f
                .attr
                .name
                .as_ref()
                .map_or_else(|| name.clone(), |n| n.value());
            // A tensor in a list names the list (a path level) and its index, not itself.
            let info_name = if f.access.has_seq() {
                String::new()
            } else {
                name.clone()
            };
            let text = lit.value();
            let (ops, rest) = g.item_ops(p, pattern);
            let tied = f.attr.tied.as_ref().map(|to| {
                let to = to.value();
                let key = match &f.attr.tie_key {
                    Some(k) => {
                        let k = k.value();
                        quote!(#p::Some(#k))
                    }
                    None => quote!(#p::None),
                };
                quote!(.tied(#to, #key))
            });
            let place = place(lit.span());
            quote! {
                #p::FieldNode::tensor(#source_name, #name, &[#(#wraps),*], #info_name, #text, #ops, #rest)
                    .at(#place) #listed #tied
            }
        }
        Kind::Nested => {
            let child = f.access.leaf();
            let source_name = f
                .attr
                .prefix
                .as_ref()
                .map_or_else(|| name.clone(), |n| n.value());
            if f.attr.own_scope.is_some() {
                quote! {
                    #p::FieldNode::own(#source_name, #name, &[#(#wraps),*], #p::isolated_source::<#child>)
                        #listed
                }
            } else {
                let renames = renames(f);
                quote! {
                    #p::FieldNode::nested(
                        #source_name,
                        #name,
                        &[#(#wraps),*],
                        (
                            <#child as #krate::Shaped>::check_source_in,
                            <#child as #krate::Shaped>::DESCRIPTION,
                        ),
                        <Self as #krate::Shaped>::VARS
                            .map_of(&<#child as #krate::Shaped>::VARS, &[#renames]),
                        &[#renames],
                    ) #listed
                }
            }
        }
    };
    quote_spanned! {span=> #p::Node::Field(&#node) }
}

/// The field's wrappers, outermost first.
fn wraps(p: &TokenStream, access: &Access) -> Vec<TokenStream> {
    let mut out = Vec::new();
    let mut at = access;
    loop {
        at = match at {
            Access::Leaf(_) => return out,
            Access::Deref(inner) => {
                out.push(quote!(#p::Wrap::Deref));
                inner
            }
            Access::Option(inner) => {
                out.push(quote!(#p::Wrap::Option));
                inner
            }
            Access::Seq(inner) => {
                out.push(quote!(#p::Wrap::Seq));
                inner
            }
        };
    }
}
