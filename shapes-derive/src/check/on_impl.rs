//! `#[shapes::check]` on an `impl` block of a struct that derives `Shaped`: its checked
//! methods' bodies read `self`'s fields (their patterns, the framework layers they hold) and the
//! struct's `where` equations.
//!
//! The attribute cannot see the struct, so it asks the struct's derive for it
//! (`self_facts`): it expands to the struct's macro, which calls [`callback`] back with the
//! impl and the struct's tokens. The callback expands each method carrying
//! `#[shapes::check(…)]` as that attribute would, with the struct's declarations as facts of
//! its flow analysis; other items are left as written.

use proc_macro2::{TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{ImplItem, ItemImpl, Type};

use std::collections::BTreeMap;
use std::path::Path;

use super::attr::{args_of, is_check};
use super::flow::{Anchor, Contract, MethodsOf, SelfFacts, impl_text};
use crate::codegen::crate_tokens;

/// `#[shapes::check(args)]` on `block`: the call of the struct's macro.
pub fn expand(args: TokenStream, block: &ItemImpl) -> TokenStream {
    let mut crate_path = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("crate") {
            let lit: syn::LitStr = meta.value()?.parse()?;
            crate_path = Some(lit.parse::<syn::Path>()?);
            Ok(())
        } else {
            Err(meta.error(
                "#[shapes::check] on an `impl` block takes only `crate = \"path\"`: the options of a method's checks go on the method's own #[shapes::check(…)]",
            ))
        }
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        let mut out = e.to_compile_error();
        out.extend(block.to_token_stream());
        return out;
    }
    let path = match &*block.self_ty {
        Type::Path(p) if p.qself.is_none() => &p.path,
        other => {
            let mut out = syn::Error::new_spanned(
                other,
                "#[shapes::check] on an `impl` block needs the struct's path as its type (`impl Model`, `impl<B: Backend> Model<B>`, `impl Module for Model`)",
            )
            .to_compile_error();
            out.extend(block.to_token_stream());
            return out;
        }
    };
    let krate = crate_tokens(crate_path.as_ref());
    let callback = quote!(#krate::__private::check_impl);
    let item = quote!({ #crate_path } { #block });
    crate::self_facts::call(path, &callback, &item)
}

/// The struct's macro calls this back with `{ crate path } { impl … } struct …`; `file` is
/// the source file the impl is read from, where the items beside it are found.
pub fn callback(input: TokenStream, file: Option<&Path>) -> TokenStream {
    let mut tokens = input.into_iter();
    let (Some(TokenTree::Group(krate)), Some(TokenTree::Group(block))) =
        (tokens.next(), tokens.next())
    else {
        return quote!(::core::compile_error! {
            "shapes: the callback of #[shapes::check] on an `impl` block was called with something else"
        });
    };
    let krate: Option<syn::Path> = syn::parse2(krate.stream()).ok();
    let block = block.stream();
    let mut block: ItemImpl = match syn::parse2(block) {
        Ok(b) => b,
        Err(e) => return e.to_compile_error(),
    };
    // The struct's declarations: when they do not read, the derive has said why at the
    // struct, and the methods are checked without them.
    let strukt = match syn::parse2::<syn::DeriveInput>(tokens.collect()) {
        Ok(s) => s,
        Err(e) => {
            let mut out = syn::Error::new(
                e.span(),
                format!("#[shapes::check] on an `impl` block could not read the struct's declarations: {e}"),
            )
            .to_compile_error();
            out.extend(block.into_token_stream());
            return out;
        }
    };
    let name = strukt.ident.to_string();
    let neighbours = super::neighbours(file, &Anchor::Impl(&name, Some(impl_text(&block))));
    let facts = SelfFacts::from_struct(&strukt, neighbours.as_deref().map(|n| n as &dyn MethodsOf))
        .map(|f| f.with_methods(contracts(&block, krate.as_ref())));
    for item in &mut block.items {
        let ImplItem::Fn(method) = item else {
            continue;
        };
        let Some(pos) = method
            .attrs
            .iter()
            .position(|a| is_check(a.path(), krate.as_ref()))
        else {
            continue;
        };
        let args = args_of(&method.attrs.remove(pos));
        let beside = |_: &syn::ItemFn| neighbours.clone();
        let expanded = super::expand_fn(args, method.to_token_stream(), facts.as_ref(), &beside);
        *item = ImplItem::Verbatim(expanded);
    }
    block.into_token_stream()
}

/// The checked methods of `block`, as contracts their siblings' bodies read.
fn contracts(block: &ItemImpl, krate: Option<&syn::Path>) -> BTreeMap<String, Contract> {
    let mut methods = BTreeMap::new();
    for item in &block.items {
        if let ImplItem::Fn(method) = item
            && let Some(attr) = method.attrs.iter().find(|a| is_check(a.path(), krate))
            && let Some(c) = Contract::of(method, args_of(attr))
        {
            methods.insert(method.sig.ident.to_string(), c);
        }
    }
    methods
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{ast::CheckedFn, attr, flow, flow::Neighbours};
    use crate::ctxt::Ctxt;

    /// Every checked method of every checked `impl` of the Rust file `path` (from the
    /// workspace's root), read as the macros read it, with its struct's declarations and its
    /// siblings' contracts: no error, no place where a shape is lost. Returns how many.
    fn tracked_in_full(path: &str) -> usize {
        let path = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("the file");
        let file = syn::parse_file(&text).expect("a Rust file");
        let mut structs = BTreeMap::new();
        for item in &file.items {
            if let syn::Item::Struct(s) = item {
                let input: syn::DeriveInput = syn::parse2(s.to_token_stream()).expect("a struct");
                structs.insert(s.ident.to_string(), input);
            }
        }
        let mut methods = 0;
        for item in &file.items {
            let syn::Item::Impl(block) = item else {
                continue;
            };
            let Type::Path(ty) = &*block.self_ty else {
                continue;
            };
            let name = ty.path.segments.last().expect("a type").ident.to_string();
            let Some(strukt) = structs.get(&name) else {
                continue;
            };
            let neighbours = Neighbours::in_file(&file, &Anchor::Impl(&name, None));
            let facts =
                SelfFacts::from_struct(strukt, neighbours.as_deref().map(|n| n as &dyn MethodsOf))
                    .expect("the struct's declarations read")
                    .with_methods(contracts(block, None));
            for item in &block.items {
                let ImplItem::Fn(method) = item else {
                    continue;
                };
                let mut method = method.clone();
                let Some(pos) = method.attrs.iter().position(|a| is_check(a.path(), None)) else {
                    continue;
                };
                let args = args_of(&method.attrs.remove(pos));
                let mut func: syn::ItemFn =
                    syn::parse2(method.to_token_stream()).expect("a method");
                let cx = Ctxt::new();
                let opts = attr::options(&cx, args);
                let any_let = flow::any_lets(&func.block);
                let checked = CheckedFn::take_from(&cx, &opts, &mut func, any_let);
                let gaps =
                    flow::analyse(&cx, &checked, &func, Some(&facts), neighbours.as_deref()).gaps;
                let errors: Vec<String> = match cx.check() {
                    Ok(()) => Vec::new(),
                    Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
                };
                let label = format!("{path}: {name}::{}", func.sig.ident);
                assert!(errors.is_empty(), "{label}: {errors:?}");
                let gaps: Vec<String> = gaps.into_iter().map(|g| g.message).collect();
                assert!(gaps.is_empty(), "{label}: {gaps:?}");
                methods += 1;
            }
        }
        methods
    }

    /// The models of `tests/it/flow_model.rs` (a BERT layer and a Llama decoder layer as
    /// structs of candle_nn layers): BERT's attention (2 methods) and feed-forward, Llama's
    /// attention (2), MLP and block, and the residual block of `each_let`.
    #[test]
    fn the_candle_model_structs_are_tracked_in_full() {
        assert_eq!(tracked_in_full("tests/it/flow_model.rs"), 8);
    }

    /// The burn Llama attention (2 methods) and MLP of the burn tests.
    #[test]
    fn the_burn_modules_are_tracked_in_full() {
        let path = "shapes-core/src/frameworks/burn_flow_tests.rs";
        assert_eq!(tracked_in_full(path), 3);
    }

    /// A convolution field's forward gives its output's rank and channels, in the struct's
    /// names; its length is unknown, and its input's channels are not compared.
    #[test]
    fn a_convolution_gives_its_output_channels() {
        let strukt: syn::DeriveInput = syn::parse_quote! {
            struct Stem {
                #[shape(nested, rename(c_in = "c", c_out = "hidden"))]
                conv: Conv2d,
                #[shape(nested, rename(d_model = "hidden"))]
                norm: LayerNorm,
                #[shape(nested, rename(d_model = "c"))]
                input_norm: LayerNorm,
            }
        };
        let facts = SelfFacts::from_struct(&strukt, None).expect("the struct reads");
        let errors = |body: TokenStream| {
            let mut func: syn::ItemFn = syn::parse2(quote! {
                fn f(&self, #[shape("(b, c, h, w)")] x: &Tensor) -> Result<Tensor> { #body }
            })
            .expect("a method");
            let cx = Ctxt::new();
            let opts = attr::options(&cx, quote!(self));
            let checked = CheckedFn::take_from(&cx, &opts, &mut func, false);
            let gaps = flow::analyse(&cx, &checked, &func, Some(&facts), None).gaps;
            let errors: Vec<String> = match cx.check() {
                Ok(()) => Vec::new(),
                Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
            };
            (errors, gaps.len())
        };
        let channels_last = quote!(self.conv.forward(x)?.permute((0, 2, 3, 1))?);
        assert_eq!(
            errors(quote!(self.norm.forward(&#channels_last))),
            (vec![], 0)
        );
        let (wrong, _) = errors(quote!(self.input_norm.forward(&#channels_last)));
        assert_eq!(wrong.len(), 1, "{wrong:?}");
        assert!(
            wrong[0].contains("a LayerNorm) takes (*batch, c)") && wrong[0].contains("hidden"),
            "{wrong:?}"
        );
        // The input's channels are not compared: a grouped convolution takes `c_in * groups`.
        assert_eq!(
            errors(quote!(self.conv.forward(&x.permute((0, 2, 3, 1))?))),
            (vec![], 0)
        );
    }

    /// A struct of the user's held by a field, whose checked methods are not beside the impl:
    /// its calls are unknown, and the gap says where their contracts would be read.
    #[test]
    fn a_held_struct_without_methods_beside_says_where_they_would_be_read() {
        let strukt: syn::DeriveInput = syn::parse_quote! {
            struct Block {
                #[shape(nested)]
                attn: Attention,
            }
        };
        let file: syn::File = syn::parse_quote! {
            #[shapes::check]
            impl Block {}
        };
        let neighbours = Neighbours::in_file(&file, &Anchor::Impl("Block", None));
        let neighbours = neighbours.expect("one module");
        let facts = SelfFacts::from_struct(&strukt, Some(&*neighbours as &dyn MethodsOf))
            .expect("the struct reads");
        let mut func: syn::ItemFn = syn::parse_quote! {
            fn f(&self, #[shape("(b, s, d)")] x: &Tensor) -> Result<Tensor> {
                self.attn.forward(x)
            }
        };
        let cx = Ctxt::new();
        let opts = attr::options(&cx, quote!(self));
        let checked = CheckedFn::take_from(&cx, &opts, &mut func, false);
        let gaps = flow::analyse(&cx, &checked, &func, Some(&facts), Some(&neighbours)).gaps;
        assert!(cx.check().is_ok());
        assert_eq!(gaps.len(), 1);
        assert!(
            gaps[0]
                .message
                .contains("`Attention` has no forward contract and no checked method `forward`"),
            "{}",
            gaps[0].message
        );
    }

    /// A method without `self` under an impl-level check does not read the fields (its `d`
    /// is not the struct's), and says so where its body reaches one.
    #[test]
    fn a_method_without_self_says_it_does_not_read_the_fields() {
        let strukt: syn::DeriveInput = syn::parse_quote! {
            struct Head {
                #[shape("(d, e)")]
                w: Tensor,
            }
        };
        let facts = SelfFacts::from_struct(&strukt, None).expect("the struct reads");
        let analyse = |args: TokenStream, mut func: syn::ItemFn| {
            let cx = Ctxt::new();
            let opts = attr::options(&cx, args);
            let checked = CheckedFn::take_from(&cx, &opts, &mut func, false);
            let outcome = flow::analyse(&cx, &checked, &func, Some(&facts), None);
            let errors = cx.check().err().map(|e| e.into_iter().count()).unwrap_or(0);
            (
                errors,
                outcome
                    .gaps
                    .into_iter()
                    .map(|g| g.message)
                    .collect::<Vec<_>>(),
            )
        };
        let func: syn::ItemFn = syn::parse_quote! {
            fn f(&self, #[shape("(n, d)")] x: &Tensor) -> Result<Tensor> {
                x.matmul(&self.w)
            }
        };
        let (errors, gaps) = analyse(quote!(), func.clone());
        assert_eq!(errors, 0);
        assert!(
            gaps.iter().any(|g| g.contains("`self.w` is not read")),
            "{gaps:?}"
        );
        // With `self`, the field is read and the product tracked.
        let (errors, gaps) = analyse(quote!(self), func);
        assert_eq!((errors, gaps.len()), (0, 0), "{gaps:?}");

        // `x.matmul(&self.w)` with `w` of (d, e) would be an error (e against d); a body that
        // assigns the field does not take its shape from the struct.
        let wrong: syn::ItemFn = syn::parse_quote! {
            fn f(&mut self, #[shape("(n, e)")] x: &Tensor) -> Result<Tensor> {
                x.matmul(&self.w)
            }
        };
        assert_eq!(analyse(quote!(self), wrong).0, 1);
        for assigning in [
            quote! {
                fn f(&mut self, #[shape("(n, e)")] x: &Tensor) -> Result<Tensor> {
                    self.w = x.t()?;
                    x.matmul(&self.w)
                }
            },
            quote! {
                fn f(&mut self, #[shape("(n, e)")] x: &Tensor) -> Result<Tensor> {
                    refill(&mut self.w, x);
                    x.matmul(&self.w)
                }
            },
        ] {
            let (errors, gaps) = analyse(quote!(self), syn::parse2(assigning).expect("a method"));
            assert_eq!(errors, 0);
            assert!(
                gaps.iter().any(|g| g.contains("`self.w` is assigned")),
                "{gaps:?}"
            );
        }
    }
}
