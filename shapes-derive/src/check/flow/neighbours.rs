//! The checked items beside a checked function in its own source file: other structs' checked
//! methods and associated functions, and checked free functions, as contracts its body reads.
//!
//! A macro sees only its own item. The contracts of the items beside it reach it the way a
//! reader finds them: the macro reads the file its input comes from (`Span::local_file`,
//! handed down by the entry points in `lib.rs`), parses it with syn, and keeps the items of
//! the module that holds the checked item. Each contract is read from the callee's own
//! `#[shapes::check(…)]` attribute and `#[shape("…")]` parameters, with the same parser, and
//! is what the callee's checks enforce when it runs; a struct's variables are read from its
//! derive, as `verify()` reads them.
//!
//! Unknown is never an error: a file that cannot be read or parsed, a checked item found in
//! no module, or in several that its text does not tell apart, a name its module declares twice (two `impl`s giving a method the
//! same name, `cfg` variants of a function), or an item a macro generates: the call stays
//! unknown, as before.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use quote::ToTokens;
use syn::{ImplItem, Type};

use super::super::attr::{args_of, is_check};
use super::contract::{Contract, renamed};
use super::fields::SelfFacts;
use super::val::{Methods, MethodsOf};
use crate::analysis::pattern_vars;

/// What the module of a checked item declares beside it: the checked methods of each struct
/// that derives `Shaped`, with the struct's variables, and the checked free functions.
#[derive(Default)]
pub struct Neighbours {
    structs: BTreeMap<String, Neighbour>,
    fns: BTreeMap<String, Contract>,
}

/// A struct of the module: its variables and its checked methods.
#[derive(Default)]
struct Neighbour {
    /// The variables its declarations name (its fields', its layers', its `where`'s).
    vars: BTreeSet<String>,
    /// Its checked methods, over all its `impl` blocks; a name two blocks give is dropped.
    methods: BTreeMap<String, Contract>,
    /// Its checked associated functions (no `self`: `Self::rotate_half(&q)`), likewise.
    assoc: BTreeMap<String, Contract>,
}

/// Which checked item the macro expands, found again in the file by its name and, where two
/// modules hold one of that name, by its text ([`impl_text`], [`fn_text`]).
pub enum Anchor<'a> {
    /// An `impl` block of the struct of this name, with its text.
    Impl(&'a str, Option<String>),
    /// A function (or a method) of this name, with its text.
    Fn(&'a str, Option<String>),
}

/// The text an `impl` block is told apart by: its items, as tokens (its own attributes, the
/// macro's among them, left out).
pub fn impl_text(block: &syn::ItemImpl) -> String {
    let mut tokens = proc_macro2::TokenStream::new();
    for item in &block.items {
        item.to_tokens(&mut tokens);
    }
    tokens.to_string()
}

/// The text a function is told apart by: its signature and body, as tokens.
pub fn fn_text(sig: &syn::Signature, block: &syn::Block) -> String {
    let mut tokens = sig.to_token_stream();
    block.to_tokens(&mut tokens);
    tokens.to_string()
}

impl Neighbours {
    /// The neighbours of `anchor` in the file at `path`; none when the file does not read or
    /// parse, or the anchor is not found in exactly one module of it (by name, then by text).
    pub fn read(path: &Path, anchor: &Anchor<'_>) -> Option<Rc<Neighbours>> {
        indexed(path)?.find(anchor)
    }

    /// The neighbours of `anchor` in `file`.
    #[cfg(test)]
    pub fn in_file(file: &syn::File, anchor: &Anchor<'_>) -> Option<Rc<Neighbours>> {
        FileIndex::of(file).find(anchor)
    }

    /// The items of one module.
    fn of(items: &[syn::Item]) -> Neighbours {
        let mut structs: BTreeMap<String, Neighbour> = BTreeMap::new();
        let mut fns = BTreeMap::new();
        // What cannot be told apart: a struct declared twice, a function or a method of a
        // name given twice (an unchecked one included).
        let mut declared: BTreeSet<String> = BTreeSet::new();
        let mut dropped_structs: BTreeSet<String> = BTreeSet::new();
        let mut dropped_fns: BTreeSet<String> = BTreeSet::new();
        let mut dropped_methods: BTreeSet<(String, String)> = BTreeSet::new();
        for item in items {
            match item {
                syn::Item::Struct(s) if derives_shaped(&s.attrs) => {
                    let input: Option<syn::DeriveInput> = syn::parse2(s.to_token_stream()).ok();
                    let vars = input
                        .as_ref()
                        .and_then(|i| SelfFacts::from_struct(i, None))
                        .map(|f| f.vars().clone())
                        .unwrap_or_default();
                    let name = s.ident.to_string();
                    if !declared.insert(name.clone()) {
                        dropped_structs.insert(name.clone());
                    }
                    structs.entry(name).or_default().vars = vars;
                }
                syn::Item::Impl(block) => {
                    let Some(name) = type_name(&block.self_ty) else {
                        continue;
                    };
                    let entry = structs.entry(name.clone()).or_default();
                    for item in &block.items {
                        let ImplItem::Fn(method) = item else {
                            continue;
                        };
                        let method_name = method.sig.ident.to_string();
                        let attr = method.attrs.iter().find(|a| is_check(a.path(), None));
                        let contract = attr.and_then(|a| Contract::of(method, args_of(a)));
                        let assoc = attr
                            .filter(|_| contract.is_none())
                            .and_then(|a| Contract::of_fn(&method.sig, args_of(a)));
                        let key = (name.clone(), method_name.clone());
                        if entry.methods.contains_key(&method_name)
                            || entry.assoc.contains_key(&method_name)
                            || dropped_methods.contains(&key)
                        {
                            dropped_methods.insert(key);
                        } else if let Some(c) = contract {
                            entry.methods.insert(method_name, c);
                        } else if let Some(c) = assoc {
                            entry.assoc.insert(method_name, c);
                        } else {
                            // Unchecked: nothing to read, and a checked method of the same
                            // name in another impl would not be the one called for sure.
                            dropped_methods.insert(key);
                        }
                    }
                }
                syn::Item::Fn(f) => {
                    let name = f.sig.ident.to_string();
                    let contract = f
                        .attrs
                        .iter()
                        .find(|a| is_check(a.path(), None))
                        .and_then(|a| Contract::of_fn(&f.sig, args_of(a)));
                    if fns.contains_key(&name) || dropped_fns.contains(&name) {
                        dropped_fns.insert(name);
                    } else if let Some(c) = contract {
                        fns.insert(name, c);
                    } else {
                        dropped_fns.insert(name);
                    }
                }
                _ => {}
            }
        }
        for (ty, method) in dropped_methods {
            if let Some(s) = structs.get_mut(&ty) {
                s.methods.remove(&method);
                s.assoc.remove(&method);
            }
        }
        for name in &dropped_fns {
            fns.remove(name);
        }
        for name in &dropped_structs {
            structs.remove(name);
        }
        Neighbours { structs, fns }
    }

    /// The checked free function `name` of the module.
    pub fn function(&self, name: &str) -> Option<&Contract> {
        self.fns.get(name)
    }

    /// The checked associated function `name` (no `self`) of the module's struct `ty`.
    pub fn associated(&self, ty: &str, name: &str) -> Option<&Contract> {
        self.structs.get(ty)?.assoc.get(name)
    }
}

impl MethodsOf for Neighbours {
    fn methods_of(&self, ty: &Type, renames: &[(String, String)], shared: bool) -> Option<Methods> {
        let name = type_name(ty)?;
        let neighbour = self.structs.get(&name)?;
        let outer = |v: &str| renamed(renames, v);
        let shared_vars: BTreeSet<String> = if shared {
            neighbour.vars.iter().map(|v| outer(v)).collect()
        } else {
            BTreeSet::new()
        };
        let mut methods = BTreeMap::new();
        for (method, contract) in &neighbour.methods {
            if !shared || !contract.shares_self {
                // Every variable is the callee's own: bound from the arguments.
                methods.insert(method.clone(), contract.clone());
                continue;
            }
            // The struct's variables become the holder's; a variable of the method's own that
            // a renamed one would capture makes the contract unreadable here.
            let mut vars = Vec::new();
            for p in contract.patterns() {
                pattern_vars(p, &mut vars);
            }
            let captured = vars
                .iter()
                .any(|v| !neighbour.vars.contains(v) && shared_vars.contains(v));
            if captured {
                continue;
            }
            let rename = |v: &str| {
                if neighbour.vars.contains(v) {
                    outer(v)
                } else {
                    v.to_owned()
                }
            };
            methods.insert(method.clone(), contract.renamed(&rename));
        }
        if methods.is_empty() {
            return None;
        }
        Some(Methods {
            ty: name,
            methods,
            shared: shared_vars,
        })
    }
}

/// A file's modules, each with the checked items that anchor it and its neighbours: plain
/// data, kept from one macro call to the next (a token of one call is not valid in another).
struct FileIndex {
    modules: Vec<ModuleIndex>,
}

struct ModuleIndex {
    /// The types of its checked `impl` blocks, with each block's text.
    impls: BTreeMap<String, Vec<String>>,
    /// Its checked functions, and the checked methods of its `impl` blocks, with their texts.
    fns: BTreeMap<String, Vec<String>>,
    neighbours: Rc<Neighbours>,
}

impl FileIndex {
    fn of(file: &syn::File) -> FileIndex {
        let mut modules_found = Vec::new();
        modules(&file.items, &mut |items| {
            let mut index = ModuleIndex {
                impls: BTreeMap::new(),
                fns: BTreeMap::new(),
                neighbours: Rc::new(Neighbours::of(items)),
            };
            for item in items {
                match item {
                    syn::Item::Impl(block) => {
                        if block.attrs.iter().any(|a| is_check(a.path(), None))
                            && let Some(name) = type_name(&block.self_ty)
                        {
                            index.impls.entry(name).or_default().push(impl_text(block));
                        }
                        for i in &block.items {
                            if let ImplItem::Fn(m) = i
                                && m.attrs.iter().any(|a| is_check(a.path(), None))
                            {
                                let text = fn_text(&m.sig, &m.block);
                                index
                                    .fns
                                    .entry(m.sig.ident.to_string())
                                    .or_default()
                                    .push(text);
                            }
                        }
                    }
                    syn::Item::Fn(f) if f.attrs.iter().any(|a| is_check(a.path(), None)) => {
                        let text = fn_text(&f.sig, &f.block);
                        index
                            .fns
                            .entry(f.sig.ident.to_string())
                            .or_default()
                            .push(text);
                    }
                    _ => {}
                }
            }
            modules_found.push(index);
        });
        FileIndex {
            modules: modules_found,
        }
    }

    /// The neighbours of the one module `anchor` is found in: by name, or, where several
    /// modules hold the name, by the anchor's text.
    fn find(&self, anchor: &Anchor<'_>) -> Option<Rc<Neighbours>> {
        let (entries, text) = match anchor {
            Anchor::Impl(name, text) => (self.texts(|m| m.impls.get(*name)), text),
            Anchor::Fn(name, text) => (self.texts(|m| m.fns.get(*name)), text),
        };
        let found: Vec<&ModuleIndex> = match entries.as_slice() {
            [_] => entries.iter().map(|(m, _)| *m).collect(),
            _ => {
                let text = text.as_deref()?;
                entries
                    .iter()
                    .filter(|(_, texts)| texts.iter().any(|t| t == text))
                    .map(|(m, _)| *m)
                    .collect()
            }
        };
        match found.as_slice() {
            [m] => Some(Rc::clone(&m.neighbours)),
            _ => None,
        }
    }

    /// Each module holding an entry `of` it gives, with that entry's texts.
    fn texts<'a>(
        &'a self,
        of: impl Fn(&'a ModuleIndex) -> Option<&'a Vec<String>>,
    ) -> Vec<(&'a ModuleIndex, &'a Vec<String>)> {
        self.modules
            .iter()
            .filter_map(|m| Some((m, of(m)?)))
            .collect()
    }
}

/// Calls `visit` with the items of the file and of every inline module in it.
fn modules<'a>(items: &'a [syn::Item], visit: &mut dyn FnMut(&'a [syn::Item])) {
    visit(items);
    for item in items {
        if let syn::Item::Mod(m) = item
            && let Some((_, inner)) = &m.content
        {
            modules(inner, visit);
        }
    }
}

/// The name of a struct a type names (`Attention`, `Attention<B>`, `self::Attention`).
fn type_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            let segs = &p.path.segments;
            let local = segs.len() == 1 || (segs.len() == 2 && segs[0].ident == "self");
            local.then(|| segs.last().map(|s| s.ident.to_string()))?
        }
        Type::Group(g) => type_name(&g.elem),
        Type::Paren(p) => type_name(&p.elem),
        _ => None,
    }
}

/// Whether `attrs` hold `#[derive(…, Shaped, …)]` (or `shapes::Shaped`).
fn derives_shaped(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("derive")
            && a.parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            )
            .is_ok_and(|paths| {
                paths
                    .iter()
                    .any(|p| p.segments.last().is_some_and(|s| s.ident == "Shaped"))
            })
    })
}

thread_local! {
    /// The last file read, by path and text, indexed: the macros of one file parse it once.
    static LAST: RefCell<Option<(PathBuf, String, Rc<FileIndex>)>> = const { RefCell::new(None) };
}

/// The index of the file at `path` (from the cache when its text is unchanged).
fn indexed(path: &Path) -> Option<Rc<FileIndex>> {
    let text = std::fs::read_to_string(path).ok()?;
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if let Some((p, t, index)) = last.as_ref()
            && p == path
            && *t == text
        {
            return Some(Rc::clone(index));
        }
        let index = Rc::new(FileIndex::of(&syn::parse_file(&text).ok()?));
        *last = Some((path.to_owned(), text, Rc::clone(&index)));
        Some(index)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> syn::File {
        syn::parse_file(text).expect("a Rust file")
    }

    const MODEL: &str = r#"
        #[derive(Shaped)]
        struct Mlp {
            #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
            up: Linear,
            #[shape(nested, rename(d_in = "d_ff", d_out = "d_model"))]
            down: Linear,
        }

        #[shapes::check]
        impl Mlp {
            #[shapes::check(self, ret = "(b, s, d_model)")]
            fn forward(&self, #[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
                self.down.forward(&self.up.forward(x)?)
            }
            fn helper(&self) {}
        }

        #[shapes::check(ret = "(b, heads * n, s, d)")]
        fn repeat_kv(#[shape("(b, heads, s, d)")] x: &Tensor, n: usize) -> Result<Tensor> {
            todo()
        }

        fn unchecked(x: &Tensor) -> Tensor { x.clone() }

        #[derive(Shaped)]
        struct Block {
            #[shape(nested, rename(d_model = "hidden"))]
            mlp: Mlp,
        }

        #[shapes::check]
        impl Block {
            #[shapes::check(self)]
            fn forward(&self, #[shape("(b, s, hidden)")] x: &Tensor) -> Result<Tensor> {
                self.mlp.forward(x)
            }
        }

        mod inner {
            #[shapes::check]
            fn repeat_kv(#[shape("(a,)")] x: &Tensor) -> Result<Tensor> { todo() }
        }
    "#;

    #[test]
    fn a_module_gives_its_checked_methods_and_functions() {
        let f = file(MODEL);
        let n = Neighbours::in_file(&f, &Anchor::Impl("Block", None)).expect("found once");
        let repeat = n.function("repeat_kv").expect("a checked function");
        assert_eq!(repeat.params.len(), 2);
        assert!(repeat.params[1].is_none());
        assert!(n.function("unchecked").is_none());

        // The field's rename applied: the MLP's d_model is the block's hidden.
        let ty: Type = syn::parse_quote!(Mlp);
        let renames = [("d_model".to_owned(), "hidden".to_owned())];
        let m = n.methods_of(&ty, &renames, true).expect("Mlp's methods");
        let forward = &m.methods["forward"];
        assert_eq!(
            forward.ret.as_ref().map(ToString::to_string).as_deref(),
            Some("(b, s, hidden)")
        );
        assert!(m.is_shared(forward, "hidden") && m.is_shared(forward, "d_ff"));
        assert!(!m.is_shared(forward, "b"));
        assert!(!m.methods.contains_key("helper"));

        // In a scope of its own, nothing is renamed or shared.
        let own = n.methods_of(&ty, &renames, false).expect("Mlp's methods");
        assert!(own.shared.is_empty());
        assert_eq!(
            own.methods["forward"]
                .ret
                .as_ref()
                .map(ToString::to_string)
                .as_deref(),
            Some("(b, s, d_model)")
        );
    }

    #[test]
    fn the_anchor_picks_the_module() {
        let f = file(MODEL);
        // `repeat_kv` is checked in two modules: by its name alone, which one is expanding is
        // not known; its text tells them apart.
        assert!(Neighbours::in_file(&f, &Anchor::Fn("repeat_kv", None)).is_none());
        let texts: Vec<String> = f
            .items
            .iter()
            .flat_map(|item| match item {
                syn::Item::Fn(func) => vec![func.clone()],
                syn::Item::Mod(m) => m
                    .content
                    .iter()
                    .flat_map(|(_, items)| items.iter())
                    .filter_map(|i| match i {
                        syn::Item::Fn(func) => Some(func.clone()),
                        _ => None,
                    })
                    .collect(),
                _ => vec![],
            })
            .filter(|func| func.sig.ident == "repeat_kv")
            .map(|func| fn_text(&func.sig, &func.block))
            .collect();
        assert_eq!(texts.len(), 2);
        let top = Neighbours::in_file(&f, &Anchor::Fn("repeat_kv", Some(texts[0].clone())))
            .expect("the top module");
        let inner = Neighbours::in_file(&f, &Anchor::Fn("repeat_kv", Some(texts[1].clone())))
            .expect("the inner module");
        // The top module has `Mlp`'s methods; the inner one has none.
        assert!(top.methods_of(&syn::parse_quote!(Mlp), &[], true).is_some());
        assert!(
            inner
                .methods_of(&syn::parse_quote!(Mlp), &[], true)
                .is_none()
        );
        let other = Anchor::Fn("repeat_kv", Some("fn repeat_kv () { }".to_owned()));
        assert!(Neighbours::in_file(&f, &other).is_none());
        // A method of a checked impl anchors its module.
        let n = Neighbours::in_file(&f, &Anchor::Fn("forward", None)).expect("one module");
        assert!(n.function("repeat_kv").is_some());
        assert!(Neighbours::in_file(&f, &Anchor::Impl("Nowhere", None)).is_none());
    }

    #[test]
    fn a_name_declared_twice_is_unknown() {
        let f = file(
            r#"
            #[derive(Shaped)]
            struct A { #[shape("(n,)")] w: Tensor }
            #[shapes::check]
            impl A {
                #[shapes::check(self, ret = "(n,)")]
                fn forward(&self, #[shape("(n,)")] x: &Tensor) -> Result<Tensor> { todo() }
                #[shapes::check(self, ret = "(n,)")]
                fn other(&self, #[shape("(n,)")] x: &Tensor) -> Result<Tensor> { todo() }
            }
            impl Module for A {
                fn forward(&self, x: &Tensor) -> Result<Tensor> { todo() }
            }
            #[shapes::check]
            #[cfg(feature = "x")]
            fn f(#[shape("(n,)")] x: &Tensor) -> Result<Tensor> { todo() }
            #[shapes::check]
            #[cfg(not(feature = "x"))]
            fn f(#[shape("(m, m)")] x: &Tensor) -> Result<Tensor> { todo() }
            "#,
        );
        let n = Neighbours::in_file(&f, &Anchor::Impl("A", None)).expect("one module");
        assert!(n.function("f").is_none());
        let m = n
            .methods_of(&syn::parse_quote!(A), &[], true)
            .expect("A's methods");
        assert!(!m.methods.contains_key("forward"));
        assert!(m.methods.contains_key("other"));
    }

    #[test]
    fn a_method_variable_a_rename_would_capture_drops_the_contract() {
        let f = file(
            r#"
            #[derive(Shaped)]
            struct A { #[shape("(d,)")] w: Tensor }
            #[shapes::check]
            impl A {
                #[shapes::check(self, ret = "(e,)")]
                fn forward(&self, #[shape("(e, d)")] x: &Tensor) -> Result<Tensor> { todo() }
            }
            "#,
        );
        let n = Neighbours::in_file(&f, &Anchor::Impl("A", None)).expect("one module");
        let renames = [("d".to_owned(), "e".to_owned())];
        assert!(
            n.methods_of(&syn::parse_quote!(A), &renames, true)
                .is_none()
        );
        // Without the rename, nothing is captured.
        assert!(n.methods_of(&syn::parse_quote!(A), &[], true).is_some());
    }
}
