//! The flow analysis of a `#[shapes::check]` body: the symbolic shape of each tensor-valued
//! local, followed through a vocabulary of candle ops, so that a provable mismatch is a build
//! error at the op that makes it.
//!
//! - `dims`: a dim is a `DimExpr` of the crate's one expression language (or unknown), and
//!   the rule of provability;
//! - `normal`: the normal form (a polynomial) two dims are compared through;
//! - `ops`: the vocabulary's shape rules, on shapes alone;
//! - `body`: the walk over the body (locals, shadowing, branches, loops, closures);
//! - `val`: what a local holds; `contract`: a checked function's or method's contract, as
//!   its callers read it; `fields`: `self`'s fields and the sibling methods' contracts;
//!   `neighbours`: the checked items beside the function in its file;
//!   `origins`: where each variable comes from, for the errors;
//! - `lets`: `#[shape("…")]` on a `let`, read, taken off and checked at run time;
//! - `diag`: how expressions are quoted, the gaps, and `trace`'s warnings.
//!
//! Facts come from the parameters' patterns (for parameters whose type is a `Tensor`), the
//! function's `where` equations, `dims2()`..`dims5()` and `dim(i)` locals, annotated `let`s,
//! and, for a method under an impl-level `#[shapes::check]` that has `self`, its struct's
//! fields and `where` and the impl's other checked methods; and the contracts of the checked
//! items beside it in its module of its file (`neighbours`: another struct's checked methods
//! through a field of `self` holding it, checked free and associated functions). What the
//! analysis cannot see (an item declared elsewhere, anything outside the vocabulary) is
//! unknown, never an error.

mod body;
mod contract;
mod diag;
mod dims;
mod fields;
mod lets;
mod neighbours;
mod normal;
mod ops;
mod origins;
mod val;

use shapes_core::expr::{Item, Pattern};
use syn::{FnArg, ItemFn, Pat};

use super::ast::CheckedFn;
use crate::ctxt::Ctxt;

pub use contract::Contract;
pub use diag::{Gap, trace_tokens};
pub use fields::SelfFacts;
pub use lets::{
    LetAnn, any as any_lets, patterns as let_patterns, strip as strip_lets, take as take_lets,
};
pub use neighbours::{Anchor, Neighbours, fn_text, impl_text};
pub use val::MethodsOf;

/// Walks `func`'s body, reporting each provable mismatch into `cx`; returns the gaps and the
/// tracked `let`s.
///
/// `fields` are `self`'s struct's declarations, for a method in an `impl` block under
/// `#[shapes::check]`; they are read only when the method shares the struct's variables
/// (`#[shapes::check(self)]`; see `fields`). `neighbours` are the checked items beside the
/// function in its module, whose contracts its calls read (see `neighbours`).
pub fn analyse(
    cx: &Ctxt,
    checked: &CheckedFn,
    func: &ItemFn,
    fields: Option<&SelfFacts>,
    neighbours: Option<&Neighbours>,
) -> Outcome {
    // Under an impl-level check, a method without `self` does not read the fields: `trace`
    // says so where the body reaches one.
    let fields_unread = fields.is_some() && checked.receiver.is_none();
    let self_type = fields.map(|f| f.name().to_owned());
    let fields = fields.filter(|_| checked.receiver.is_some());
    let struct_wheres = fields
        .into_iter()
        .flat_map(|f| f.wheres.iter().map(|(l, r)| (l, r)));
    let own_wheres = checked.wheres.iter().map(|(l, r, _)| (l, r));
    let facts = dims::Facts::new(own_wheres.chain(struct_wheres));
    let ret = checked.ret.as_ref().and_then(|c| pattern_dims(&c.pattern));
    let mut w = body::Walker::new(&facts, ret.as_deref(), fields);
    w.fields_unread = fields_unread;
    w.neighbours = neighbours;
    w.shadowing = shadowing_names(func);
    w.self_type = self_type;
    w.burn = func.sig.inputs.iter().any(|arg| match arg {
        FnArg::Typed(pt) => is_burn_tensor(&pt.ty),
        FnArg::Receiver(_) => false,
    });
    for c in &checked.params {
        if is_tensor_param(func, &c.name) {
            w.origins
                .note_pattern(&c.pattern, &format!("the pattern of `{}`", c.name));
            let t = body::Val::Tensor(pattern_dims(&c.pattern));
            let v = if c.optional {
                body::Val::Some(Box::new(t))
            } else {
                t
            };
            w.bind_param(&c.name, v);
        }
    }
    // The function's own patterns and `where` name a variable first; `self`'s fields the
    // others.
    for (l, r, _) in &checked.wheres {
        for v in crate::analysis::dim_vars(l)
            .into_iter()
            .chain(crate::analysis::dim_vars(r))
        {
            w.origins.note(v, "the `where`");
        }
    }
    if let Some(f) = fields {
        w.origins.extend(f.origins());
    }
    w.walk_fn_body(&func.block);
    for e in w.errors {
        cx.syn_error(e);
    }
    Outcome {
        gaps: w.gaps,
        tracked_lets: w.tracked_lets,
    }
}

/// What the walk found besides its errors: where shapes were lost, and the `let`s whose
/// shapes it tracked (for `each_let`, through [`annotate_lets`]).
#[derive(Default)]
pub struct Outcome {
    pub gaps: Vec<Gap>,
    pub tracked_lets: Vec<(usize, Vec<dims::Dim>)>,
}

/// `#[check(each_let)]`: puts the tracked shape on each tracked `let` of `func` (the function
/// `analyse` walked, unmoved since) as a `#[shape]`, checked when it runs like a written one.
pub fn annotate_lets(func: &mut ItemFn, outcome: &Outcome) {
    lets::annotate(&mut func.block, &outcome.tracked_lets);
}

/// The names a call in `func`'s body may mean instead of an item beside it: its parameters'
/// and the items its body declares (`fn name`, `struct Name`, … in its tokens).
fn shadowing_names(func: &ItemFn) -> Vec<String> {
    fn items(ts: proc_macro2::TokenStream, out: &mut Vec<String>) {
        const ITEMS: &[&str] = &["fn", "struct", "enum", "union", "type", "trait", "mod"];
        let mut after_item = false;
        for tt in ts {
            match &tt {
                proc_macro2::TokenTree::Ident(id) if after_item => out.push(id.to_string()),
                proc_macro2::TokenTree::Group(g) => items(g.stream(), out),
                _ => {}
            }
            after_item =
                matches!(&tt, proc_macro2::TokenTree::Ident(id) if ITEMS.iter().any(|k| id == k));
        }
    }
    let mut out: Vec<String> = func
        .sig
        .inputs
        .iter()
        .filter_map(|arg| match arg {
            FnArg::Typed(pt) => match &*pt.pat {
                Pat::Ident(pi) => Some(pi.ident.to_string()),
                _ => None,
            },
            FnArg::Receiver(_) => None,
        })
        .collect();
    items(quote::ToTokens::to_token_stream(&func.block), &mut out);
    out
}

/// A pattern's dims, when its rank is fixed: `_` and `#n` are unknown dims; `...` and `*rest`
/// make the whole shape unknown.
pub fn pattern_dims(p: &Pattern) -> Option<Vec<dims::Dim>> {
    p.items
        .iter()
        .map(|i| match i {
            Item::Dim(e) => Some(Some(e.clone())),
            Item::Any | Item::Broadcast(_) => Some(None),
            Item::Ellipsis | Item::Variadic(_) => None,
        })
        .collect()
}

/// Whether the parameter `name` has a type that names `Tensor` (`&Tensor`,
/// `candle_core::Tensor`): only those are tracked, so that another type's methods of the same
/// names are never read with candle's rules.
fn is_tensor_param(func: &ItemFn, name: &str) -> bool {
    func.sig.inputs.iter().any(|arg| match arg {
        FnArg::Typed(pt) => {
            let named = match &*pt.pat {
                Pat::Ident(pi) => {
                    let n = pi.ident.to_string();
                    n.strip_prefix("r#").unwrap_or(&n) == name
                }
                _ => false,
            };
            named && names_tensor(&pt.ty)
        }
        FnArg::Receiver(_) => false,
    })
}

/// Whether `ty` is a burn tensor: a `Tensor` with generic arguments (`Tensor<3>`,
/// `Tensor<B, 3, Int>`), behind references.
fn is_burn_tensor(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => is_burn_tensor(&r.elem),
        syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| {
            s.ident == "Tensor" && matches!(s.arguments, syn::PathArguments::AngleBracketed(_))
        }),
        _ => false,
    }
}

pub(super) fn names_tensor(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => names_tensor(&r.elem),
        syn::Type::Paren(p) => names_tensor(&p.elem),
        syn::Type::Group(g) => names_tensor(&g.elem),
        syn::Type::Path(p) if p.qself.is_none() => match p.path.segments.last() {
            Some(s) if s.ident == "Tensor" => true,
            // `Option<&Tensor>`: an optional tensor, read through `Some`.
            Some(s) if s.ident == "Option" => match &s.arguments {
                syn::PathArguments::AngleBracketed(a) => a
                    .args
                    .iter()
                    .any(|g| matches!(g, syn::GenericArgument::Type(t) if names_tensor(t))),
                _ => false,
            },
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    /// The errors and gaps of one checked function, as `#[shapes::check(args)]` finds them.
    fn analyse_fn(
        args: proc_macro2::TokenStream,
        func: proc_macro2::TokenStream,
    ) -> (Vec<String>, Vec<String>) {
        let cx = Ctxt::new();
        let opts = super::super::attr::options(&cx, args);
        let mut func: ItemFn = syn::parse2(func).expect("a function");
        let any_let = any_lets(&func.block);
        let checked = CheckedFn::take_from(&cx, &opts, &mut func, any_let);
        let gaps = analyse(&cx, &checked, &func, None, None).gaps;
        let errors = match cx.check() {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        };
        (errors, gaps.into_iter().map(|g| g.message).collect())
    }

    #[test]
    fn a_llama_attention_is_tracked_without_a_gap() {
        let (errors, gaps) = analyse_fn(
            quote!(ret = "(b, s, d_model)"),
            quote! {
                fn attn(
                    #[shape("(b, s, d_model)")] x: &Tensor,
                    #[shape("(s, head_dim / 2)")] cos: &Tensor,
                    #[shape("(s, head_dim / 2)")] sin: &Tensor,
                    #[shape("(s, past + s)")] mask: &Tensor,
                    #[shape("(b, kv_heads, past, head_dim)")] past_k: &Tensor,
                    #[shape("(heads * head_dim, d_model)")] wq: &Tensor,
                    #[shape("(kv_heads * head_dim, d_model)")] wk: &Tensor,
                    #[shape("(d_model, heads * head_dim)")] wo: &Tensor,
                ) -> Result<Tensor> {
                    let (b, s, _) = x.dims3()?;
                    let head_dim = cos.dim(D::Minus1)? * 2;
                    let heads = wq.dim(0)? / head_dim;
                    let kv_heads = wk.dim(0)? / head_dim;
                    let n_rep = heads / kv_heads;
                    let q = x.broadcast_matmul(&wq.t()?)?.reshape((b, s, heads, head_dim))?.transpose(1, 2)?;
                    let k = x.broadcast_matmul(&wk.t()?)?.reshape((b, s, kv_heads, head_dim))?.transpose(1, 2)?;
                    let q = candle_nn::rotary_emb::rope(&q, cos, sin)?;
                    let k = Tensor::cat(&[past_k, &k], 2)?;
                    let k = Tensor::cat(&vec![&k; n_rep], 2)?.reshape((b, kv_heads * n_rep, (), head_dim))?;
                    let att = (q.matmul(&k.t()?)? / 8.0)?;
                    let att = candle_nn::ops::softmax_last_dim(&att.broadcast_add(mask)?)?;
                    let y = att.matmul(&k)?.transpose(1, 2)?.reshape((b, s, heads * head_dim))?;
                    y.broadcast_matmul(&wo.t()?)
                }
            },
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert!(gaps.is_empty(), "{gaps:?}");
    }

    /// The forward bodies of `tests/it/flow.rs` (a BERT self-attention and feed-forward
    /// block, a Llama attention with grouped-query heads, rope and a kv-cache), as the macro
    /// sees them: no error, and no place where a shape is lost.
    #[test]
    fn the_model_bodies_are_tracked_in_full() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/it/flow.rs");
        let text = std::fs::read_to_string(path).expect("tests/it/flow.rs");
        let file = syn::parse_file(&text).expect("a Rust file");
        let mut checked = 0;
        for item in file.items {
            let syn::Item::Fn(mut func) = item else {
                continue;
            };
            let Some(pos) = func.attrs.iter().position(|a| a.path().is_ident("check")) else {
                continue;
            };
            let attr = func.attrs.remove(pos);
            let args = match attr.meta {
                syn::Meta::List(l) => l.tokens,
                _ => proc_macro2::TokenStream::new(),
            };
            let name = func.sig.ident.to_string();
            let (errors, gaps) = analyse_fn(args, quote!(#func));
            assert!(errors.is_empty(), "{name}: {errors:?}");
            assert!(gaps.is_empty(), "{name}: {gaps:?}");
            checked += 1;
        }
        assert_eq!(checked, 4);
    }

    /// How many errors the analysis finds in `func` (checked with no options), with
    /// `fields` and the items beside it.
    fn errors_beside(
        func: proc_macro2::TokenStream,
        fields: Option<&SelfFacts>,
        neighbours: &Neighbours,
    ) -> usize {
        let cx = Ctxt::new();
        let opts = super::super::attr::options(&cx, quote!());
        let mut func: ItemFn = syn::parse2(func).expect("a function");
        let checked = CheckedFn::take_from(&cx, &opts, &mut func, false);
        analyse(&cx, &checked, &func, fields, Some(neighbours));
        cx.check().err().map_or(0, |e| e.into_iter().count())
    }

    /// A checked function beside the body is read by its contract, unless a local, a
    /// parameter or a `fn` of the body of the same name is what the call means.
    #[test]
    fn a_function_beside_is_read_unless_a_name_of_the_body_shadows_it() {
        let file = syn::parse_file(
            r#"
            #[shapes::check(ret = "(b, h, s, s)")]
            fn scores(#[shape("(b, h, s, d)")] q: &Tensor, #[shape("(b, h, s, d)")] k: &Tensor) -> Result<Tensor> {
                q.matmul(&k.t()?)
            }
            #[shapes::check]
            fn caller() {}
            "#,
        )
        .expect("a file");
        let neighbours = neighbours::Neighbours::in_file(&file, &Anchor::Fn("caller", None))
            .expect("one module");
        let errors = |func| errors_beside(func, None, &neighbours);
        let params =
            quote!(#[shape("(b, h, s, d)")] q: &Tensor, #[shape("(b, g, s, d)")] k: &Tensor);
        assert_eq!(
            errors(quote!(fn f(#params) -> Result<Tensor> { scores(q, k) })),
            1
        );
        assert_eq!(
            errors(quote!(fn f(#params) -> Result<Tensor> { self::scores(q, k) })),
            1
        );
        // The result is the contract's `ret`: (b, h, s, s) is not (b, h, s, d).
        assert_eq!(
            errors(
                quote!(fn f(#params) -> Result<Tensor> { let a = scores(q, q)?; a.matmul(&k.t()?) })
            ),
            1
        );
        for shadowed in [
            quote!(fn f(#params) -> Result<Tensor> { let scores = |a: &Tensor, b: &Tensor| a.add(b); scores(q, k) }),
            quote!(fn f(#params, scores: &dyn Fn(&Tensor, &Tensor) -> Result<Tensor>) -> Result<Tensor> { scores(q, k) }),
            quote!(fn f(#params) -> Result<Tensor> { fn scores(a: &Tensor, b: &Tensor) -> Result<Tensor> { a.add(b) } scores(q, k) }),
        ] {
            assert_eq!(errors(shadowed), 0);
        }
    }

    /// A checked associated function of a struct beside the body is read by its contract, as
    /// `Type::name(…)` and, in a method of that struct, `Self::name(…)`.
    #[test]
    fn an_associated_function_beside_is_read_by_its_contract() {
        let file = syn::parse_file(
            r#"
            #[derive(Shaped)]
            struct Rope { #[shape("(s, half)")] cos: Tensor }
            #[shapes::check]
            impl Rope {
                #[shapes::check(ret = "(b, h, s, d)")]
                fn rotate(#[shape("(b, h, s, d)")] x: &Tensor) -> Result<Tensor> { todo!() }
                #[shapes::check(self)]
                fn caller(&self) {}
            }
            "#,
        )
        .expect("a file");
        let neighbours = neighbours::Neighbours::in_file(&file, &Anchor::Impl("Rope", None))
            .expect("one module");
        let strukt: syn::DeriveInput = syn::parse_quote!(
            struct Rope {
                #[shape("(s, half)")]
                cos: Tensor,
            }
        );
        let facts = SelfFacts::from_struct(&strukt, None).expect("the struct reads");
        let errors = |func, fields| errors_beside(func, fields, &neighbours);
        // Heads merged already: rank 3 where the contract takes 4.
        let merged = quote!(#[shape("(b, s, e)")] q: &Tensor);
        let call = |f: proc_macro2::TokenStream| quote!(fn f(#merged) -> Result<Tensor> { #f });
        assert_eq!(errors(call(quote!(Rope::rotate(q))), None), 1);
        let method = quote!(fn f(&self, #merged) -> Result<Tensor> { Self::rotate(q) });
        assert_eq!(errors(method, Some(&facts)), 1);
        // The result is the contract's `ret`, in the caller's names.
        let added = quote! {
            fn f(#[shape("(b, h, s, e)")] q: &Tensor, #[shape("(b, h, s, f)")] k: &Tensor) -> Result<Tensor> {
                Rope::rotate(q)? + k
            }
        };
        assert_eq!(errors(added, None), 1);
        // A struct of the same name declared in the body is what the call means.
        let local = quote! {
            fn f(#merged) -> Result<Tensor> {
                struct Rope;
                impl Rope { fn rotate(x: &Tensor) -> Result<Tensor> { x.contiguous() } }
                Rope::rotate(q)
            }
        };
        assert_eq!(errors(local, None), 0);
        // `Self` outside a struct's method, or another type's function: unknown.
        assert_eq!(errors(call(quote!(Self::rotate(q))), None), 0);
        assert_eq!(errors(call(quote!(Other::rotate(q))), None), 0);
    }

    /// `chunk`'s pieces, read by indexing: each `d / n` wide where `n` divides `d`.
    #[test]
    fn the_pieces_of_chunk_are_tracked() {
        let mlp = |axis: proc_macro2::TokenStream| {
            analyse_fn(
                quote!(),
                quote! {
                    fn f(
                        #[shape("(b, s, d_model)")] x: &Tensor,
                        #[shape("(2 * d_ff, d_model)")] w_gate_up: &Tensor,
                        #[shape("(d_model, d_ff)")] w_down: &Tensor,
                    ) -> Result<Tensor> {
                        let gu = x.broadcast_matmul(&w_gate_up.t()?)?;
                        let pieces = gu.chunk(2, #axis)?;
                        let (gate, up) = (&pieces[0], &pieces[1]);
                        let h = (candle_nn::ops::silu(gate)? * up)?;
                        h.broadcast_matmul(&w_down.t()?)
                    }
                },
            )
        };
        let (errors, gaps) = mlp(quote!(D::Minus1));
        assert!(errors.is_empty() && gaps.is_empty(), "{errors:?} {gaps:?}");
        // Split along the sequence instead: the pieces stay `2 * d_ff` wide.
        let (errors, _) = mlp(quote!(1));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("inner dims differ"), "{errors:?}");
        // Past the rank: an error at the op.
        let (errors, _) = mlp(quote!(3));
        assert_eq!(errors.len(), 1, "{errors:?}");
    }

    #[test]
    fn an_annotated_let_is_something_to_check() {
        let (errors, _) = analyse_fn(
            quote!(),
            quote! {
                fn f(x: &Tensor) -> Result<Tensor> {
                    #[shape("(b, s)")]
                    let y = x.contiguous()?;
                    Ok(y)
                }
            },
        );
        assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn only_tensor_parameters_are_tracked() {
        let (errors, _) = analyse_fn(
            quote!(),
            quote! {
                fn f(#[shape("(a, b)")] x: &Other, #[shape("(a, b)")] y: &Other) -> Other {
                    x.matmul(&y)
                }
            },
        );
        assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn where_equations_make_products_comparable() {
        let (errors, _) = analyse_fn(
            quote!(where = "d_model = heads * head_dim"),
            quote! {
                fn f(
                    #[shape("(b, s, d_model)")] x: &Tensor,
                    #[shape("(heads,)")] h: &Tensor,
                    #[shape("(kv_heads, head_dim)")] kv: &Tensor,
                ) -> Result<Tensor> {
                    let (b, s, _) = x.dims3()?;
                    let (kv_heads, head_dim) = kv.dims2()?;
                    x.reshape((b, s, kv_heads, head_dim))
                }
            },
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("element counts differ"), "{errors:?}");
    }

    #[test]
    fn a_let_annotation_gives_a_shape_and_is_compared() {
        let (errors, _) = analyse_fn(
            quote!(),
            quote! {
                fn f(#[shape("(b, s, d)")] x: &Tensor) -> Result<Tensor> {
                    #[shape("(b, s, d)")]
                    let h = helper(x)?;
                    #[shape("(b, d, s)")]
                    let g = x.contiguous()?;
                    h.matmul(&g)
                }
            },
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("contradicts the value"), "{errors:?}");
    }
}
