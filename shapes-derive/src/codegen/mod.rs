//! The code generator shared by the three front ends: the derive's `check_in`
//! (`expand_memory`), its `check_source_in` (`expand_source`), and `#[shapes::check]`.
//!
//! Every variable becomes a slot index at compile time; each pattern item becomes one call on
//! the checker. Dim expressions become `static` trees of slot indices, so nothing is looked up
//! by name at run time.

use std::cell::Cell;
use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use shapes_core::expr::{ArithOp, CmpOp, DimExpr, Item, Pattern};
use syn::{Ident, LitStr};

mod arith;

use self::arith as codegen_arith;
use crate::ast::{Constraint, Field, Input, WhereClause, span_of_field};

/// The pieces every generated item needs.
pub struct Codegen {
    /// `::shapes::__private` (or the `crate = "…"` override's).
    pub private_path: TokenStream,
    /// The variables of this struct (or function), in order of first appearance: a variable's
    /// position here is its local index.
    pub own_vars: Vec<String>,
    /// A counter for unique `static` names.
    next_static: Cell<usize>,
    /// Whether a dim expression gets the inlined shortcut (`codegen_arith::dim_expr`)
    /// before the general checker, or the general checker alone: what a struct of very many
    /// fields gets, whose `check_in` is not inlined anyway and whose size rustc pays for. Such
    /// a struct's plain patterns keep the general item checks too (`plain_tensor_check`).
    pub straight_line: bool,
}

/// What every tensor field's code in memory starts with.
pub struct FieldPrelude {
    /// The name of the field's `FieldInfo` static, for `__cx.field(&…)`.
    pub info: Ident,
    /// The static itself: the field's name (empty for a sequence, whose elements are named by
    /// the path) and its pattern text, which errors print.
    pub info_static: TokenStream,
}

impl Codegen {
    pub fn new(private_path: TokenStream, own_vars: Vec<String>) -> Self {
        Codegen {
            private_path,
            own_vars,
            next_static: Cell::new(0),
            straight_line: true,
        }
    }

    /// This generator with the inlined shortcut for dim expressions on or off.
    pub fn with_straight_line(mut self, on: bool) -> Self {
        self.straight_line = on;
        self
    }

    /// A fresh name for a `static`: `__{prefix}{n}`.
    pub fn fresh(&self, prefix: &str) -> Ident {
        let n = self.next_static.get();
        self.next_static.set(n + 1);
        format_ident!("__{}{}", prefix, n)
    }

    /// The local index of one of [`own_vars`](Self::own_vars).
    pub fn local(&self, name: &str) -> u8 {
        match self.own_vars.iter().position(|n| n == name) {
            // More than 64 variables fail the const VarTable built from `own_vars` in the
            // user's build, so an index in code that compiles fits in a `u8`.
            Some(l) => l as u8,
            // `own_vars` is collected from the very patterns and keys code is generated for.
            None => unreachable!("internal: `{name}` is not among the own variables"),
        }
    }

    /// `let __slotN = __map.get(N);` for each own variable: its scope slot, looked up once per
    /// call rather than at every use.
    pub fn slot_lets(&self) -> Vec<TokenStream> {
        (0..self.own_vars.len())
            .map(|l| {
                let v = slot_ident(l);
                quote!(let #v = __map.get(#l);)
            })
            .collect()
    }

    /// The checks of the struct-level `where` relations, after the fields: the equations,
    /// then the other comparisons, in the order [`relations`](Self::relations) lists them.
    pub fn where_checks(
        &self,
        wheres: &[WhereClause],
        constraints: &[Constraint],
    ) -> Vec<TokenStream> {
        let p = &self.private_path;
        in_order(wheres, constraints)
            .map(|(l, op, r, lit)| {
                let (ln, rn, wn) = (self.fresh("WL"), self.fresh("WR"), self.fresh("WI"));
                let (le, re) = (self.slot_expr(l), self.slot_expr(r));
                let place = crate::place::place(lit.span());
                let check = codegen_arith::where_relation(self, (l, op, r), [&ln, &rn, &wn]);
                quote! {
                    static #ln: #p::SlotExpr = #le;
                    static #rn: #p::SlotExpr = #re;
                    static #wn: #p::FieldInfo = #p::FieldInfo::at("", "", #place);
                    #check
                }
            })
            .collect()
    }

    /// The `where` equations, then the other comparisons, each in the order written (as a
    /// plan sorts them), as a description's relations (`(CmpOp, &SlotExpr, &SlotExpr)`
    /// tuples) and, in the same order, the `FieldInfo`s that place their `where` strings: the
    /// runtime's items named by `p`.
    pub fn relations(
        &self,
        p: &TokenStream,
        wheres: &[WhereClause],
        constraints: &[Constraint],
    ) -> (Vec<TokenStream>, Vec<TokenStream>) {
        in_order(wheres, constraints)
            .map(|(l, op, r, lit)| {
                let op = cmp_op(op);
                let (l, r) = (self.slot_expr(l), self.slot_expr(r));
                let place = crate::place::place(lit.span());
                (
                    quote!((#p::CmpOp::#op, &#l, &#r)),
                    quote!(#p::FieldInfo::at("", "", #place)),
                )
            })
            .unzip()
    }

    /// A dim expression as a `SlotExpr` constant.
    pub fn slot_expr(&self, e: &DimExpr) -> TokenStream {
        let p = &self.private_path;
        match e {
            DimExpr::Lit(n) => quote!(#p::SlotExpr::Lit(#n)),
            DimExpr::Var(v) => {
                let l = self.local(v.as_str());
                quote!(#p::SlotExpr::Var(#l))
            }
            DimExpr::Bin(op, l, r) => {
                let op = arith_op(*op);
                let (l, r) = (self.slot_expr(l), self.slot_expr(r));
                quote!(#p::SlotExpr::Bin(#p::ArithOp::#op, &#l, &#r))
            }
            // Reported by the rules, so this output is discarded; a literal keeps it
            // well-formed.
            DimExpr::Rank(_) | DimExpr::Prod(_) | DimExpr::Sum(_) | DimExpr::Index(..) => {
                quote!(#p::SlotExpr::Lit(0))
            }
        }
    }

    /// The [`FieldPrelude`] of a tensor field whose pattern is `lit`; its static is named
    /// `__{prefix}{n}`.
    pub fn field_prelude(&self, f: &Field, prefix: &str, lit: &LitStr) -> FieldPrelude {
        let p = &self.private_path;
        let name = &f.name;
        let info = self.fresh(prefix);
        let seq = f.access.has_seq();
        let info_name = if seq { String::new() } else { name.clone() };
        let pattern_text = lit.value();
        let span = span_of_field(f);
        let place = crate::place::place(lit.span());
        let info_static = quote_spanned! {span=>
            static #info: #p::FieldInfo = #p::FieldInfo::at(#info_name, #pattern_text, #place);
        };
        FieldPrelude { info, info_static }
    }

    /// A pattern's items as `ItemOp`s, for a `static` the runtime's `run_items` interprets:
    /// `(&[ops], rest)`, where `rest` is the `Option<usize>` index of its `...`/`*name`.
    /// `p` is the path generated code names the runtime's items by.
    pub fn item_ops(&self, p: &TokenStream, pattern: &Pattern) -> (TokenStream, TokenStream) {
        let mut rest = quote!(#p::None);
        let ops = pattern
            .items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Item::Dim(DimExpr::Lit(n)) => quote!(#p::ItemOp::Lit(#n)),
                Item::Dim(DimExpr::Var(v)) => {
                    let l = self.local(v.as_str());
                    quote!(#p::ItemOp::Var(#l))
                }
                Item::Dim(e) => {
                    let tree = self.slot_expr(e);
                    quote!(#p::ItemOp::Expr(&#tree))
                }
                Item::Broadcast(DimExpr::Lit(n)) => quote!(#p::ItemOp::BcastLit(#n)),
                Item::Broadcast(DimExpr::Var(v)) => {
                    let l = self.local(v.as_str());
                    quote!(#p::ItemOp::BcastVar(#l))
                }
                Item::Broadcast(_) | Item::Any => quote!(#p::ItemOp::Skip),
                Item::Ellipsis => {
                    rest = quote!(#p::Some(#i));
                    quote!(#p::ItemOp::Skip)
                }
                Item::Variadic(v) => {
                    rest = quote!(#p::Some(#i));
                    let l = self.local(v.as_str());
                    quote!(#p::ItemOp::Variadic(#l))
                }
            });
        let ops: Vec<TokenStream> = ops.collect();
        (quote!(&[#(#ops),*]), rest)
    }

    /// The item checks of one pattern, each variable checked with `var_is` (which binds it when
    /// it is not bound yet).
    pub fn items_check(&self, pattern: &Pattern) -> TokenStream {
        self.items_check_with(pattern, None)
    }

    /// [`items_check`](Self::items_check) for a derived `check_in`, using what earlier fields
    /// of the struct bound.
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
    pub fn items_check_known(
        &self,
        pattern: &Pattern,
        bound: &mut BTreeSet<u8>,
        unconditional: bool,
    ) -> TokenStream {
        let mut known = bound.clone();
        let code = self.items_check_with(pattern, Some(&mut known));
        if unconditional {
            *bound = known;
        }
        code
    }

    /// For a pattern of plain variables only (`(d_model, d_ff)`, the common case), the checks
    /// `items_check_known` would make, as one `ScopeChecks::plain_tensor` call that records the
    /// field `info` only when something is bound or wrong: no store per tensor on the success
    /// path. A variable is known bound when an earlier check bound it for sure (`bound`, as in
    /// `items_check_known`) or the struct's map says so (its parent bound it). `None` for
    /// another pattern.
    pub fn plain_tensor_check(
        &self,
        pattern: &Pattern,
        info: &Ident,
        bound: &mut BTreeSet<u8>,
        unconditional: bool,
    ) -> Option<TokenStream> {
        // A struct of hundreds of fields: a call per field either way, and its size is
        // rustc's time (`benches/compile_time.sh`).
        if !self.straight_line {
            return None;
        }
        let locals: Vec<u8> = pattern
            .items
            .iter()
            .map(|item| match item {
                Item::Dim(DimExpr::Var(v)) => Some(self.local(v.as_str())),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let mut known = bound.clone();
        let (slots, sure): (Vec<Ident>, Vec<TokenStream>) = locals
            .iter()
            .map(|&l| {
                // `insert` is false when an earlier check bound the variable for sure.
                let sure = if known.insert(l) {
                    quote!(__map.is_known(#l as usize))
                } else {
                    quote!(true)
                };
                (slot_ident(usize::from(l)), sure)
            })
            .collect();
        if unconditional {
            *bound = known;
        }
        Some(quote!(__cx.plain_tensor(&#info, __d, [#(#slots),*], [#(#sure),*]);))
    }

    fn items_check_with(
        &self,
        pattern: &Pattern,
        mut known: Option<&mut BTreeSet<u8>>,
    ) -> TokenStream {
        let p = &self.private_path;
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
                // bounds checks are left on the success path. ok (the generated `__a[#i]`):
                // `__a` is `[usize; fixed]` and, with no rest, `i < pattern.items.len() ==
                // fixed`.
                Item::Dim(DimExpr::Lit(n)) if rest.is_none() => {
                    quote!(__cx.lit_is(#n, __a[#i], __d, #i);)
                }
                Item::Dim(DimExpr::Var(v)) if rest.is_none() => {
                    let local = self.local(v.as_str());
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
                    let slot = slot_ident(usize::from(self.local(v.as_str())));
                    quote!(__cx.var(#slot, __d, #axis);)
                }
                Item::Dim(e) => {
                    let name = self.fresh("E");
                    let tree = self.slot_expr(e);
                    // The inlined shortcut first; the tree for what it cannot decide.
                    let check = if rest.is_none() {
                        let target = quote!(__a[#i]);
                        codegen_arith::dim_expr(self, e, &name, &target, &axis)
                    } else {
                        let target = quote!(__t);
                        let inline = codegen_arith::dim_expr(self, e, &name, &target, &axis);
                        quote! {
                            if let #p::Some(&__t) = __d.get(#axis) {
                                #inline
                            }
                        }
                    };
                    quote! {
                        static #name: #p::SlotExpr = #tree;
                        #check
                    }
                }
                Item::Broadcast(DimExpr::Lit(n)) => quote!(__cx.bcast_lit(#n, __d, #axis);),
                Item::Broadcast(DimExpr::Var(v)) => {
                    let slot = slot_ident(usize::from(self.local(v.as_str())));
                    quote!(__cx.bcast_var(#slot, __d, #axis);)
                }
                Item::Broadcast(_) | Item::Any | Item::Ellipsis => quote!(),
                Item::Variadic(v) => {
                    let slot = slot_ident(usize::from(self.local(v.as_str())));
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
}

/// The `where` equations, then the other comparisons, each in the order written, with the
/// attribute string each comes from: the order a plan sorts them in, which the derive's
/// checks and its description both follow.
fn in_order<'a>(
    wheres: &'a [WhereClause],
    constraints: &'a [Constraint],
) -> impl Iterator<Item = (&'a DimExpr, CmpOp, &'a DimExpr, &'a syn::LitStr)> {
    let equations = wheres.iter().map(|(l, r, lit)| (l, CmpOp::Eq, r, lit));
    equations.chain(constraints.iter().map(|(l, op, r, lit)| (l, *op, r, lit)))
}

/// The path of the `shapes` crate in generated code: `crate = "…"`'s, or `::shapes`.
pub fn crate_tokens(path: Option<&syn::Path>) -> TokenStream {
    match path {
        Some(path) => quote!(#path),
        None => quote!(::shapes),
    }
}

/// The local holding own variable number `local`'s scope slot.
pub fn slot_ident(local: usize) -> Ident {
    format_ident!("__slot{}", local)
}

/// A nested field's `rename(inner = "outer", …)` as `("inner", "outer"), …`.
pub fn renames(f: &Field) -> TokenStream {
    let pairs = f.attr.renames.iter().map(|(inner, outer)| {
        let (i, o) = (inner.value(), outer.value());
        quote!((#i, #o))
    });
    quote!(#(#pairs),*)
}

/// `renames_at(level, …)` for a nested field in the shared scope that renames variables, so
/// that an error under it writes its pattern in this struct's names, and the `renames_end`
/// that follows the field's checks; nothing otherwise.
pub fn renames_calls(
    p: &TokenStream,
    f: &Field,
    level: &TokenStream,
) -> (TokenStream, TokenStream) {
    if f.attr.own_scope.is_some() || f.attr.renames.is_empty() {
        return (quote!(), quote!());
    }
    let renames = renames(f);
    (
        quote!(#p::ScopeChecks::renames_at(__cx, #level, &[#renames]);),
        quote!(#p::ScopeChecks::renames_end(__cx, #level);),
    )
}

/// For each `rename(inner = …)` of a nested field, a `const` assertion, at `inner`, that
/// `inner` is a variable of the nested struct: a free `const _` item (`item`), checked by
/// `cargo check`, for a nested type that names none of the struct's parameters; otherwise
/// `const` blocks in the function body, checked when it is compiled for a type.
pub fn rename_checks(krate: &TokenStream, f: &Field, item: bool) -> TokenStream {
    let child = f.access.leaf();
    let child_text = child
        .to_token_stream()
        .to_string()
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",");
    let checks = f.attr.renames.iter().map(|(inner, _)| {
        let name = inner.value();
        let message = format!(
            "`rename({name} = …)`: `{name}` is not a variable of the nested struct `{child_text}`"
        );
        let test = quote_spanned! {inner.span()=>
            ::core::assert!(
                ::core::option::Option::is_some(
                    &<#child as #krate::Shaped>::VARS.index_of(#name)
                ),
                #message
            )
        };
        if item {
            quote_spanned!(inner.span()=> const _: () = #test;)
        } else {
            quote_spanned!(inner.span()=> const { #test };)
        }
    });
    quote!(#(#checks)*)
}

/// `let __child = …;`: the slot map from a nested field's variables to this struct's scope
/// (a `const`, built at compile time), for a field in the shared scope; nothing for
/// `scope = "own"`. `known`, an expression of this struct's locals bound for sure before the
/// field (bit `i` for local `i`), tells the child which of its variables are known bound.
pub fn child_map(krate: &TokenStream, f: &Field, known: Option<&TokenStream>) -> TokenStream {
    if f.attr.own_scope.is_some() {
        return quote!();
    }
    let child = f.access.leaf();
    let renames = renames(f);
    // A nested type naming the struct's parameters has its variables known only once the
    // function is instantiated: its rename keys are checked there (see `rename_checks`).
    let checks = if f.contains_generic {
        rename_checks(krate, f, false)
    } else {
        quote!()
    };
    let knowing = known.map(|k| quote!(.knowing(#k)));
    quote! {
        #checks
        let __child = __map.then(&const {
            <Self as #krate::Shaped>::VARS.map_of(&<#child as #krate::Shaped>::VARS, &[#renames])
        }#knowing);
    }
}

/// `let __level = __cx.level();`, the nesting level a struct's checks start at, for a struct
/// with a field that enters a path level (a nested struct, a list); nothing otherwise.
pub fn level_let(input: &Input<'_>) -> TokenStream {
    if input.fields.iter().any(Field::is_path_level) {
        quote!(let __level = __cx.level();)
    } else {
        quote!()
    }
}

/// The path level of the elements of a field's `seqs`-th list (0 for the outermost): one
/// below the field's own level, `__level`, and one more per list it sits in.
pub fn seq_level(seqs: usize) -> TokenStream {
    let below = seqs + 1;
    quote!((__level + #below))
}

/// The `FieldInfo` pattern text shown when a list's length disagrees with its `count`
/// variable.
pub fn count_text(count: &str) -> String {
    format!("({count},) = the number of elements")
}

/// The `ArithOp` variant's name, to follow a path to the enum (`#p::ArithOp::#op`).
pub fn arith_op(op: ArithOp) -> TokenStream {
    match op {
        ArithOp::Add => quote!(Add),
        ArithOp::Sub => quote!(Sub),
        ArithOp::Mul => quote!(Mul),
        ArithOp::Div => quote!(Div),
        ArithOp::FloorDiv => quote!(FloorDiv),
        ArithOp::Rem => quote!(Rem),
    }
}

/// The `CmpOp` variant's name, to follow a path to the enum (`#p::CmpOp::#op`).
pub fn cmp_op(op: CmpOp) -> TokenStream {
    match op {
        CmpOp::Eq => quote!(Eq),
        CmpOp::Ne => quote!(Ne),
        CmpOp::Lt => quote!(Lt),
        CmpOp::Le => quote!(Le),
        CmpOp::Gt => quote!(Gt),
        CmpOp::Ge => quote!(Ge),
    }
}

/// Items that keep the generated locals' names from resolving to the user's items.
///
/// A `let __cx = …` (or a parameter `__cx`) is read as a pattern matching a unit struct or a
/// constant of that name when one is in scope, whatever the span's hygiene (`mixed_site`
/// resolves items at the call site too). A function of the same name declared in an
/// enclosing block shadows the user's item in the value namespace, and a binding may shadow
/// a function: one `fn` per local name, declared where the generated code (and no code of
/// the user's) can see it. Names in `bound_outside` are bound around that block and are left
/// alone (an item in the block would shadow their binding).
pub fn local_guards(generated: &TokenStream, bound_outside: &[&str]) -> TokenStream {
    fn collect(ts: &TokenStream, names: &mut BTreeSet<String>) {
        for tt in ts.clone() {
            match tt {
                proc_macro2::TokenTree::Group(g) => collect(&g.stream(), names),
                proc_macro2::TokenTree::Ident(i) => {
                    let s = i.to_string();
                    let local = s.strip_prefix("__").is_some_and(|rest| {
                        !rest.is_empty()
                            && rest
                                .chars()
                                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                    });
                    if local && s != "__private" {
                        names.insert(s);
                    }
                }
                _ => {}
            }
        }
    }
    let mut names = BTreeSet::new();
    collect(generated, &mut names);
    names.retain(|n| !bound_outside.contains(&n.as_str()));
    let fns = names.iter().map(|n| {
        let id = Ident::new(n, proc_macro2::Span::call_site());
        quote!(#[allow(dead_code, non_snake_case)] fn #id() {})
    });
    quote!(#(#fns)*)
}
