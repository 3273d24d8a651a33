//! A checked function's or method's contract, as its callers read it: the patterns of its
//! tensor parameters and of its return value, read from its own `#[shapes::check(…)]` and
//! `#[shape("…")]` attributes with the crate's one parser.

use shapes_core::expr::{DimExpr, Item, Name, Pattern};

use crate::ctxt::Ctxt;

/// A checked function's or method's contract: each argument's pattern (after `self`; `None`
/// for one without a tensor pattern), the return value's, and whether its variables are
/// `self`'s where the struct names them (`#[shapes::check(self)]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Contract {
    pub params: Vec<Option<Pattern>>,
    pub ret: Option<Pattern>,
    pub shares_self: bool,
}

impl Contract {
    /// The contract of `method`, checked with `args`: its `ret`, and the `#[shape("…")]`
    /// patterns of its tensor parameters. `None` for a function that is not a method.
    pub fn of(method: &syn::ImplItemFn, args: proc_macro2::TokenStream) -> Option<Contract> {
        if !matches!(method.sig.inputs.first(), Some(syn::FnArg::Receiver(_))) {
            return None;
        }
        Some(Contract::of_sig(&method.sig, args))
    }

    /// The contract of the free function of signature `sig`, checked with `args`; `None` for
    /// a method.
    pub fn of_fn(sig: &syn::Signature, args: proc_macro2::TokenStream) -> Option<Contract> {
        if matches!(sig.inputs.first(), Some(syn::FnArg::Receiver(_))) {
            return None;
        }
        Some(Contract::of_sig(sig, args))
    }

    /// The patterns of the parameters after a receiver, and of the return value.
    fn of_sig(sig: &syn::Signature, args: proc_macro2::TokenStream) -> Contract {
        let inputs = sig
            .inputs
            .iter()
            .filter(|a| !matches!(a, syn::FnArg::Receiver(_)));
        let cx = Ctxt::new();
        let opts = super::super::attr::options(&cx, args);
        let _ = cx.check();
        let ret = opts
            .ret
            .and_then(|l| shapes_core::expr::parse_pattern(&l.value()).ok());
        let params = inputs
            .map(|arg| match arg {
                syn::FnArg::Typed(pt) if super::names_tensor(&pt.ty) => {
                    pt.attrs.iter().find_map(|a| {
                        let lit: syn::LitStr =
                            a.path().is_ident("shape").then(|| a.parse_args().ok())??;
                        shapes_core::expr::parse_pattern(&lit.value()).ok()
                    })
                }
                _ => None,
            })
            .collect();
        Contract {
            params,
            ret,
            shares_self: opts.self_key.is_some(),
        }
    }

    /// Every pattern of the contract.
    pub fn patterns(&self) -> impl Iterator<Item = &Pattern> {
        self.params.iter().flatten().chain(&self.ret)
    }

    /// The contract with each variable renamed by `rename`.
    pub fn renamed(&self, rename: &dyn Fn(&str) -> String) -> Contract {
        Contract {
            params: self
                .params
                .iter()
                .map(|p| p.as_ref().map(|p| rename_pattern(p, rename)))
                .collect(),
            ret: self.ret.as_ref().map(|p| rename_pattern(p, rename)),
            shares_self: self.shares_self,
        }
    }
}

/// `var` under a field's `renames` (inner, outer): its outer name, or itself.
pub fn renamed(renames: &[(String, String)], var: &str) -> String {
    renames
        .iter()
        .find(|(inner, _)| inner == var)
        .map_or_else(|| var.to_owned(), |(_, outer)| outer.clone())
}

/// `p` with each variable renamed by `rename`; an expression over shapes (`D x`, `Π x`) keeps
/// its names, and `pattern_dims` reads it as unknown.
pub fn rename_pattern(p: &Pattern, rename: &dyn Fn(&str) -> String) -> Pattern {
    fn dim(d: &DimExpr, rename: &dyn Fn(&str) -> String) -> DimExpr {
        match d {
            DimExpr::Var(v) => DimExpr::Var(Name::new(&rename(v.as_str()))),
            DimExpr::Bin(op, l, r) => {
                DimExpr::Bin(*op, Box::new(dim(l, rename)), Box::new(dim(r, rename)))
            }
            other => other.clone(),
        }
    }
    Pattern {
        items: p
            .items
            .iter()
            .map(|item| match item {
                Item::Dim(d) => Item::Dim(dim(d, rename)),
                Item::Broadcast(d) => Item::Broadcast(dim(d, rename)),
                Item::Variadic(n) => Item::Variadic(Name::new(&rename(n.as_str()))),
                other => other.clone(),
            })
            .collect(),
    }
}
