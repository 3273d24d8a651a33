//! The checked function: its original signature around a body that checks the arguments
//! (and the return value), and, with `#[shape]` on a `let`, that local's value where it is
//! bound. Each group of checks (the arguments, the return value, an annotated `let`) is
//! described once, as a `Description` static (its values' patterns as `Node::Tensor`s, its
//! `where` clauses as relations), compiled by the derive's `codegen` into the fast path, and
//! read by the runtime's interpreter when that path finds a mismatch.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, ItemFn, Type};

use super::ast::{Checked, CheckedFn};
use super::attr::Options;
use super::flow::{self, Gap, LetAnn};
use super::valid::Analysis;
use crate::analysis::{dim_vars, pattern_vars, push_unique};
use crate::ast::{Constraint, WhereClause};
use crate::codegen::{Codegen, crate_tokens, local_guards, slot_ident};
use crate::ctxt::Ctxt;

pub fn generate(
    cx: &Ctxt,
    opts: &Options,
    func: &ItemFn,
    checked: &CheckedFn,
    analysis: &Analysis,
    gaps: &[Gap],
) -> TokenStream {
    let krate = crate_tokens(opts.crate_path.as_ref());
    let p = quote!(#krate::__private);
    // Every variable, the arguments' first, then those only the `where` clauses name, then
    // those only annotated `let`s name: its slot.
    let mut own = Vec::new();
    for c in checked.params.iter().chain(&checked.ret) {
        pattern_vars(&c.pattern, &mut own);
    }
    let compared = checked.constraints.iter().map(|(l, _, r, _)| (l, r));
    for (l, r) in checked
        .wheres
        .iter()
        .map(|(l, r, _)| (l, r))
        .chain(compared)
    {
        for v in dim_vars(l).into_iter().chain(dim_vars(r)) {
            push_unique(&mut own, v);
        }
    }
    for pattern in flow::let_patterns(&func.block) {
        pattern_vars(&pattern, &mut own);
    }
    let g = Codegen::new(p, own);
    let fail = fail_tokens(&g, opts, checked);
    // The body with each annotated `let` followed by its check (copied only when it has one).
    let mut lets = 0usize;
    let taken;
    let func = if flow::any_lets(&func.block) {
        let mut copy = func.clone();
        flow::take_lets(cx, &mut copy.block, &mut |ann| {
            lets += 1;
            let_check(&g, ann, lets, &fail)
        });
        taken = copy;
        &taken
    } else {
        func
    };
    let (inner_attrs, outer_attrs): (Vec<&Attribute>, Vec<&Attribute>) = func
        .attrs
        .iter()
        .partition(|a| matches!(a.style, syn::AttrStyle::Inner(_)));
    let body = wrap_body(&g, opts, func, checked, analysis, &fail, lets > 0);
    let trace = if opts.trace {
        flow::trace_tokens(gaps)
    } else {
        quote!()
    };
    let vis = &func.vis;
    let sig = &func.sig;
    let track_caller = track_caller(func);
    quote! {
        #(#outer_attrs)*
        #track_caller
        #vis #sig {
            #(#inner_attrs)*
            #trace
            #body
        }
    }
}

/// What a failed check does: return the error (mapped) from a function returning a `Result`,
/// panic otherwise.
fn fail_tokens(g: &Codegen, opts: &Options, checked: &CheckedFn) -> TokenStream {
    let p = &g.private_path;
    match (&checked.output, &opts.map_err) {
        _ if opts.panic.is_some() => quote!(#p::call_panic(__shapes_error)),
        (Some(_), Some(map)) if checked.returns_result => {
            quote!(return #p::Err((#map)(__shapes_error)))
        }
        // At the return type: where a missing `From<ShapeError>` is reported.
        (Some(ty), _) if checked.returns_result => respan(
            quote!(return #p::Err(#p::call_error(__shapes_error))),
            ty.span(),
        ),
        _ => quote!(#p::call_panic(__shapes_error)),
    }
}

/// The check of an annotated `let`'s value, in debug builds, in the call's scope (so its
/// variables are those the arguments bound): the statement inserted after the `let`.
fn let_check(g: &Codegen, ann: &LetAnn, k: usize, fail: &TokenStream) -> TokenStream {
    let p = &g.private_path;
    let ident = &ann.ident;
    let name = ident.to_string();
    let c = Checked {
        name: name.strip_prefix("r#").unwrap_or(&name).to_owned(),
        value: quote!(#ident),
        span: ident.span(),
        lit: ann.lit.clone(),
        pattern: ann.pattern.clone(),
        optional: false,
    };
    let info = format_ident!("__SHAPES_LET{}", k);
    // The local and the line of its `let`: what an error names, as the arguments' name theirs.
    let local = &c.name;
    let named = quote_spanned! {ident.span()=>
        ::core::concat!(#local, " (line ", ::core::line!(), ")")
    };
    let (info_static, node) = value_node_named(g, &c, &info, named);
    let description = description_static(g, quote!(__SHAPES_LET), &[node], &Default::default());
    let group = check_group(
        g,
        &[value_check(g, &c, info.clone())],
        quote!(__SHAPES_LET),
        value_shape(g, &c),
    );
    let check = quote! {
        #info_static
        #description
        if ::core::cfg!(debug_assertions) {
            if let #p::Some(__shapes_scope) = &mut *__shapes_lets {
                if let #p::Err(__shapes_error) = __shapes_scope.check(#group) {
                    #fail;
                }
            }
        }
    };
    let guards = local_guards(&check, &["__shapes_lets"]);
    quote!({ #guards #check })
}

/// `#[track_caller]`, so that a mismatch panic names the line that called the function, not
/// the function or the library: on every function that can carry it (not `async`, not
/// `extern`, not already marked).
fn track_caller(func: &ItemFn) -> TokenStream {
    let sig = &func.sig;
    let marked = func.attrs.iter().any(|a| a.path().is_ident("track_caller"));
    if sig.asyncness.is_some() || sig.abi.is_some() || marked {
        quote!()
    } else {
        quote!(#[track_caller])
    }
}

/// The original body with the checks around it: the arguments' before it, and with `ret`, the
/// return value's after it. With annotated `let`s (`lets`), the scope is kept for the body,
/// which reaches it as `__shapes_lets`.
fn wrap_body(
    g: &Codegen,
    opts: &Options,
    func: &ItemFn,
    checked: &CheckedFn,
    analysis: &Analysis,
    fail: &TokenStream,
    lets: bool,
) -> TokenStream {
    let p = &g.private_path;
    let fname = func.sig.ident.to_string();
    let n = g.own_vars.len();
    let guard = if opts.debug_only {
        quote!((#p::CHECKS && ::core::cfg!(debug_assertions)))
    } else {
        quote!(#p::CHECKS)
    };
    let statics = scope_statics(g, checked, analysis);
    let args_group = args_group(g, checked, analysis);
    let new_scope = quote!(#p::CallScope::<#n>::new(&__SHAPES_TABLE, #fname));
    let from_self = self_presets(g, opts, checked, analysis, fail);
    let stmts = &func.block.stmts;
    if checked.ret.is_none() && !lets {
        let checks = quote! {
            #statics
            let mut __shapes_scope = #new_scope;
            #from_self
            if let #p::Err(__shapes_error) = __shapes_scope.check(#args_group) {
                #fail;
            }
        };
        let guards = local_guards(&checks, &[]);
        // The body's statements, not its block: a one-line body in braces after the checks
        // would trip `unused_braces`.
        return quote! {
            if #guard {
                #guards
                #checks
            }
            #(#stmts)*
        };
    }
    // The guards of the checks' own locals go into blocks of their own; the bindings beside
    // the body are guarded at its level (the body sees guards of those names only).
    let check_args = guarded(quote! {
        #from_self
        if let #p::Err(__shapes_error) = __shapes_scope.check(#args_group) {
            #fail;
        }
    });
    let open = quote! {
        #[allow(dead_code, non_snake_case)]
        fn __shapes_scope() {}
        #[allow(dead_code, non_snake_case)]
        fn __shapes_ret() {}
        #[allow(dead_code, non_snake_case)]
        fn __shapes_lets() {}
        #statics
        let mut __shapes_scope = if #guard {
            #p::Some(#new_scope)
        } else {
            #p::None
        };
        if let #p::Some(__shapes_scope) = &mut __shapes_scope {
            #check_args
        }
    };
    let lets_ref = lets.then(|| quote!(let __shapes_lets = &mut __shapes_scope;));
    let Some(rc) = &checked.ret else {
        return quote! {
            #open
            #lets_ref
            #(#stmts)*
        };
    };
    let ret_group = ret_group(g, rc, checked, analysis);
    let call = call_body(func, checked.output.as_ref());
    let check_ret = guarded(quote! {
        if let #p::Err(__shapes_error) = __shapes_scope.check(#ret_group) {
            #fail;
        }
    });
    quote! {
        #open
        #lets_ref
        let __shapes_ret = #call;
        if let #p::Some(__shapes_scope) = &mut __shapes_scope {
            #check_ret
        }
        __shapes_ret
    }
}

/// `check` (a call of `CallScope::check` and what follows a failure) in a block of its own,
/// with the guards of its locals' names but for the two bound around it.
fn guarded(check: TokenStream) -> TokenStream {
    let guards = local_guards(&check, &["__shapes_scope", "__shapes_ret", "__shapes_lets"]);
    quote!({ #guards #check })
}

/// The scope's variable table and identity slot map, and its description: each value's
/// `FieldInfo`, then the arguments' group (their patterns and the `where` clauses that do not
/// wait for the return value) and the return value's (its pattern and the rest), as statics.
/// The compiled checks name the same `FieldInfo`s; the descriptions are what a mismatch is
/// reported from.
fn scope_statics(g: &Codegen, checked: &CheckedFn, analysis: &Analysis) -> TokenStream {
    let p = &g.private_path;
    let names = &g.own_vars;
    let infos = checked
        .params
        .iter()
        .enumerate()
        .map(|(i, c)| (c, format_ident!("__SHAPES_F{}", i)))
        .chain(
            checked
                .ret
                .iter()
                .map(|c| (c, format_ident!("__SHAPES_RET"))),
        );
    let mut info_statics = Vec::new();
    let mut args = Vec::new();
    let mut ret = Vec::new();
    for (c, info) in infos {
        let (info_static, node) = value_node(g, c, &info);
        info_statics.push(info_static);
        if info == "__SHAPES_RET" {
            ret.push(node);
        } else {
            args.push(node);
        }
    }
    let args_wheres = where_relations(g, checked, analysis, false);
    let ret_wheres = where_relations(g, checked, analysis, true);
    let args = description_static(g, quote!(__SHAPES_ARGS), &args, &args_wheres);
    let ret = description_static(g, quote!(__SHAPES_RETURN), &ret, &ret_wheres);
    quote! {
        const __SHAPES_VARS: #p::VarTable = #p::VarTable::new() #(.with(#names))*;
        static __SHAPES_TABLE: #p::VarTable = __SHAPES_VARS;
        static __SHAPES_MAP: #p::SlotMap = __SHAPES_VARS.identity();
        #(#info_statics)*
        #args
        #ret
    }
}

/// One checked value's `FieldInfo` static (named `info`) and its description node: a
/// `Node::Tensor` named after it, its pattern's items as `ItemOp`s.
fn value_node(g: &Codegen, c: &Checked, info: &syn::Ident) -> (TokenStream, TokenStream) {
    let name = &c.name;
    value_node_named(g, c, info, quote!(#name))
}

/// [`value_node`] with the name as an expression of a `&'static str` (a `let`'s carries its
/// line).
fn value_node_named(
    g: &Codegen,
    c: &Checked,
    info: &syn::Ident,
    name: TokenStream,
) -> (TokenStream, TokenStream) {
    let p = &g.private_path;
    let pattern = c.lit.value();
    let (ops, rest) = g.item_ops(p, &c.pattern);
    let place = crate::place::place(c.lit.span());
    let info_static = quote! {
        static #info: #p::FieldInfo = #p::FieldInfo::at(#name, #pattern, #place);
    };
    let node = quote! {
        #p::Node::Tensor { name: #name, checks: #p::Checks { info: &#info, ops: #ops, rest: #rest } }
    };
    (info_static, node)
}

/// A group of a function's checks as a `Description` static named `name`: its values'
/// nodes and its `where` relations (nothing given, bound from a config or ignored).
fn description_static(
    g: &Codegen,
    name: TokenStream,
    nodes: &[TokenStream],
    (wheres, where_infos): &(Vec<TokenStream>, Vec<TokenStream>),
) -> TokenStream {
    let p = &g.private_path;
    quote! {
        static #name: #p::Description = #p::Description {
            nodes: &[#(#nodes),*],
            wheres: &[#(#wheres),*],
            where_infos: &[#(#where_infos),*],
            given: &[],
            config: &[],
            config_places: &[],
            ignore: &[],
        };
    }
}

/// The `where` equations and comparisons that wait for the return value (`after_ret`) or
/// not, in the order written.
fn wheres_when(
    checked: &CheckedFn,
    analysis: &Analysis,
    after_ret: bool,
) -> (Vec<WhereClause>, Vec<Constraint>) {
    let mut waits = analysis.after_ret.iter().copied();
    let mut pick = || waits.next().unwrap_or(false) == after_ret;
    let wheres = checked.wheres.iter().filter(|_| pick()).cloned().collect();
    let constraints = (checked.constraints.iter())
        .filter(|_| pick())
        .cloned()
        .collect();
    (wheres, constraints)
}

/// The `where` clauses that wait for the return value (`after_ret`) or not, as the
/// description's relations.
fn where_relations(
    g: &Codegen,
    checked: &CheckedFn,
    analysis: &Analysis,
    after_ret: bool,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let (wheres, constraints) = wheres_when(checked, analysis, after_ret);
    g.relations(&g.private_path, &wheres, &constraints)
}

/// The arguments' checks, then the `where` clauses that do not wait for the return value:
/// the three arguments `CallScope::check` takes (the compiled checks, the description, the
/// values' shapes).
fn args_group(g: &Codegen, checked: &CheckedFn, analysis: &Analysis) -> TokenStream {
    let mut checks: Vec<TokenStream> = checked
        .params
        .iter()
        .enumerate()
        .map(|(i, c)| value_check(g, c, format_ident!("__SHAPES_F{}", i)))
        .collect();
    checks.extend(where_checks(g, checked, analysis, false));
    let values = checked.params.iter().map(|c| value_shape(g, c));
    check_group(g, &checks, quote!(__SHAPES_ARGS), quote!(#(#values)*))
}

/// The return value's checks, then the `where` clauses that wait for it, as
/// [`args_group`]. For a `Result`, only an `Ok` value is checked.
fn ret_group(g: &Codegen, rc: &Checked, checked: &CheckedFn, analysis: &Analysis) -> TokenStream {
    let p = &g.private_path;
    let ret_check = value_check(g, rc, format_ident!("__SHAPES_RET"));
    let ret_shape = value_shape(g, rc);
    let (check, value) = if checked.returns_result {
        (
            quote! {
                if let #p::Ok(__shapes_ok) = &__shapes_ret {
                    #ret_check
                }
            },
            quote! {
                match &__shapes_ret {
                    #p::Ok(__shapes_ok) => #ret_shape,
                    #p::Err(_) => __sink(#p::None),
                }
            },
        )
    } else {
        (ret_check, ret_shape)
    };
    let mut checks = vec![check];
    checks.extend(where_checks(g, checked, analysis, true));
    check_group(g, &checks, quote!(__SHAPES_RETURN), value)
}

/// The `where` equations, then comparisons, that wait for the return value (`after_ret`) or
/// not: the derive's own checks of them.
fn where_checks(
    g: &Codegen,
    checked: &CheckedFn,
    analysis: &Analysis,
    after_ret: bool,
) -> Vec<TokenStream> {
    let (wheres, constraints) = wheres_when(checked, analysis, after_ret);
    g.where_checks(&wheres, &constraints)
}

/// With `self`: the variables `self`'s struct binds, read from it and bound in the scope
/// before the arguments are checked; and the `const` assertions that each variable the
/// method shares has a field that binds it, and that the struct binds enough of what the
/// arguments cannot determine.
fn self_presets(
    g: &Codegen,
    opts: &Options,
    checked: &CheckedFn,
    analysis: &Analysis,
    fail: &TokenStream,
) -> TokenStream {
    let Some(recv) = &checked.receiver else {
        return quote!();
    };
    let p = &g.private_path;
    let names = &g.own_vars;
    let n = names.len();
    let at_self = opts.self_key.unwrap_or_else(Span::call_site);
    let asserts = names.iter().map(|name| {
        let (span, variadic) = first_use(checked, name).unwrap_or((at_self, false));
        let message = if variadic {
            format!(
                "#[shapes::check(self)]: `*{name}` is a variable of `self`'s struct, which a method shares as a single dim only; give the method's variadic another name"
            )
        } else {
            format!(
                "#[shapes::check(self)]: `{name}` is a variable of `self`'s struct, but no field binds it as a plain dim on every run (it appears only inside arithmetic, under an `Option` or a collection, in a `count`, `given` or `where`), so it cannot be read from `self` without verifying the whole struct; give the method's variable another name to keep it its own"
            )
        };
        quote_spanned! {span=>
            const { ::core::assert!(#p::shares_var::<Self>(#name, #variadic), #message) };
        }
    });
    let needs = analysis.self_needs.as_ref().map(|s| {
        let candidates = &s.candidates;
        let len = candidates.len();
        let mask = quote!(#p::shared_mask::<Self>(&[#(#candidates),*]));
        let ok = &s.ok;
        let holds = if ok.len() == 1 << len.min(16) {
            quote!([#(#ok),*][#mask])
        } else {
            let all = ok.first().copied().unwrap_or(false);
            quote!(#all && #mask == ::core::primitive::usize::MAX >> (::core::primitive::usize::BITS as ::core::primitive::usize - #len))
        };
        let message = &s.message;
        quote_spanned! {s.span=>
            const { ::core::assert!(#holds, #message) };
        }
    });
    let reads = (0..n).map(|l| {
        quote! {
            if let #p::Some(__b) = __shapes_from[#l] {
                match <Self as #p::Shaped>::read_binder(__shapes_recv, __b) {
                    #p::Some(__v) => {
                        __shapes_scope.bind_struct(const { #p::Slot::new(#l) }, __v)
                    }
                    #p::None => {
                        let __shapes_error = #p::struct_error::<Self>(__shapes_recv);
                        #fail;
                    }
                }
            }
        }
    });
    quote! {
        #(#asserts)*
        #needs
        let __shapes_from: &'static [::core::option::Option<&'static #p::Binder>; #n] =
            const { &[#(#p::struct_binder::<Self>(#names)),*] };
        __shapes_scope.from_struct(<Self as #p::Shaped>::NAME, __shapes_from);
        let __shapes_recv: &Self = #recv;
        #(#reads)*
    }
}

/// Where the method first uses `name` (a parameter's or the return value's pattern, or a
/// `where` clause), and whether as a variadic.
fn first_use(checked: &CheckedFn, name: &str) -> Option<(Span, bool)> {
    for c in checked.params.iter().chain(&checked.ret) {
        let mut vars = Vec::new();
        pattern_vars(&c.pattern, &mut vars);
        if vars.iter().any(|v| v == name) {
            let variadic =
                c.pattern.items.iter().any(
                    |i| matches!(i, shapes_core::expr::Item::Variadic(v) if v.as_str() == name),
                );
            return Some((c.lit.span(), variadic));
        }
    }
    let eqs = checked.wheres.iter().map(|(l, r, lit)| (l, r, lit));
    let cmps = checked.constraints.iter().map(|(l, _, r, lit)| (l, r, lit));
    eqs.chain(cmps)
        .find(|(l, r, _)| {
            dim_vars(l)
                .into_iter()
                .chain(dim_vars(r))
                .any(|v| v == name)
        })
        .map(|(_, _, lit)| (lit.span(), false))
}

/// The compiled checks against the fast checker (the success path), the description a
/// mismatch is reported from, and the closure that hands the values' shapes to it.
fn check_group(
    g: &Codegen,
    checks: &[TokenStream],
    description: TokenStream,
    values: TokenStream,
) -> TokenStream {
    let p = &g.private_path;
    let n = g.own_vars.len();
    let slots = (0..n).map(|l| {
        let v = slot_ident(l);
        quote!(let #v = const { #p::Slot::new(#l) };)
    });
    quote! {
        |__cx: &mut #p::CallCx<#n>| {
            use #p::ItemChecks as _;
            let __map: &#p::SlotMap = &__SHAPES_MAP;
            #(#slots)*
            #(#checks)*
        },
        &#description,
        // Its type is `CallScope::check`'s: a sink of `Option<&[usize]>`.
        |__sink| {
            #values
        }
    }
}

/// The shape of one value handed to `__sink` (`None` for an absent `Option`), for the
/// description a mismatch is reported from.
fn value_shape(g: &Codegen, c: &Checked) -> TokenStream {
    let p = &g.private_path;
    let value = &c.value;
    let sink = |shape_call: TokenStream| {
        quote! {{
            let __s = #shape_call;
            __sink(#p::Some(::core::convert::AsRef::<[::core::primitive::usize]>::as_ref(&__s)));
        }}
    };
    if c.optional {
        let some = sink(respan(quote!(#p::HasShape::shape(__shapes_some)), c.span));
        quote! {
            match ::core::option::Option::as_ref(&#value) {
                ::core::option::Option::Some(__shapes_some) => #some,
                ::core::option::Option::None => __sink(#p::None),
            }
        }
    } else {
        sink(respan(quote!(#p::HasShape::shape(&#value)), c.span))
    }
}

/// The original body as a closure called in place, so its value can be checked before it is
/// returned. `return` and `?` inside it leave the closure, which is what the function did.
fn call_body(func: &ItemFn, output: Option<&Type>) -> TokenStream {
    let block = &func.block;
    // `output` is Some: `ret` without a return type was rejected.
    let ty = output.map(|t| quote!(#t)).unwrap_or_else(|| quote!(()));
    // A closure's return annotation cannot name `impl Trait`.
    let annotated = !output.is_some_and(has_impl_trait);
    match (func.sig.asyncness.is_some(), annotated) {
        (false, true) => quote!((move || -> #ty #block)()),
        (false, false) => quote!((move || #block)()),
        (true, true) => quote!((async move || -> #ty #block)().await),
        (true, false) => quote!((async move || #block)().await),
    }
}

/// The checks of one value against its pattern, as in the derive's field checks.
fn value_check(g: &Codegen, c: &Checked, info: syn::Ident) -> TokenStream {
    let p = &g.private_path;
    let value = &c.value;
    // Every token at the type, so a missing `HasShape` impl is reported there (a span made of
    // tokens from several places would fall back to the attribute).
    let shape_call = if c.optional {
        respan(quote!(#p::HasShape::shape(__shapes_some)), c.span)
    } else {
        respan(quote!(#p::HasShape::shape(&#value)), c.span)
    };
    let items = g.items_check(&c.pattern);
    let check = quote! {
        let __s = #shape_call;
        let __d: &[::core::primitive::usize] =
            ::core::convert::AsRef::<[::core::primitive::usize]>::as_ref(&__s);
        __cx.field(&#info);
        #items
    };
    // An `Option` parameter (an attention mask) is checked when it is `Some`.
    let check = if c.optional {
        quote! {
            if let ::core::option::Option::Some(__shapes_some) = ::core::option::Option::as_ref(&#value) {
                #check
            }
        }
    } else {
        check
    };
    quote!({ #check })
}

/// Whether a type mentions `impl Trait`, which a closure's return annotation cannot name.
fn has_impl_trait(ty: &Type) -> bool {
    fn walk(ts: TokenStream) -> bool {
        ts.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(id) => id == "impl",
            proc_macro2::TokenTree::Group(g) => walk(g.stream()),
            _ => false,
        })
    }
    walk(ty.to_token_stream())
}

/// `tokens` with every span set to `span`, recursively.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = proc_macro2::TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}
