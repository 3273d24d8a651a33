//! The calls the walk reads by a contract: a layer's `forward` held by a field of `self`
//! (`shapes_core::forwards`), a checked method of the same `impl` block, a checked method of
//! another struct a field holds, and a checked free or associated function beside the function
//! (`neighbours`).
//! Each argument is matched against the callee's pattern and the result is the callee's
//! `ret` (`ops::forward`, `ops::call`).

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::Expr;

use shapes_core::expr::Pattern;

use super::super::contract::Contract;
use super::super::diag::Quote;
use super::super::fields::SelfFacts;
use super::super::ops::{self, Operand};
use super::vocab::strip_ref;
use super::{Val, Walker};

impl Walker<'_> {
    /// `recv.name(args)` where `recv` is a layer or a struct a field of `self` holds: its
    /// value, or `None` for any other receiver or method.
    pub(super) fn held(
        &mut self,
        m: &syn::ExprMethodCall,
        recv: &Val,
        args: &[Val],
        at: &dyn Fn() -> TokenStream,
    ) -> Option<Val> {
        let name = m.method.to_string();
        let op_text = Quote::Method(m);
        let recv_text = Quote::Expr(&m.receiver);
        match recv {
            Val::Struct(held) => match held.methods.get(&name) {
                Some(contract) => {
                    let callee = format!("{recv_text}.{name}");
                    let shared = |v: &str| held.is_shared(contract, v);
                    let exprs: Vec<&Expr> = m.args.iter().collect();
                    Some(self.by_contract(&callee, &exprs, args, contract, &shared, at, op_text))
                }
                None => Some(self.unread(m, &held.ty, args)),
            },
            Val::Unread(ty) => Some(self.unread(m, ty, args)),
            Val::Layer(layer) if name == "forward" => Some(match args {
                [Val::Tensor(Some(x))] => {
                    let x = Operand {
                        text: Quote::Expr(strip_ref(&m.args[0])),
                        dims: x,
                    };
                    let (input, output) = (&layer.input, &layer.output);
                    let who = recv_text.to_string();
                    let rule = ops::forward(&who, layer.kind, input, output, &x, self.facts);
                    self.apply(rule, at, op_text)
                }
                _ => Val::Tensor(None),
            }),
            _ => None,
        }
    }

    /// A method of a struct held by a field of `self` that has no checked method of that name
    /// beside the function: unknown, and a gap that says where its contract would be read.
    fn unread(&mut self, m: &syn::ExprMethodCall, ty: &str, args: &[Val]) -> Val {
        if args.iter().any(Val::is_tracked) {
            self.gap(
                m.method.span(),
                format!(
                    "`{}`: `{ty}` has no forward contract and no checked method `{}` declared in this module of this file, where its contract would be read; put #[shape(\"…\")] on the `let` to give its result a shape",
                    Quote::Method(m),
                    m.method
                ),
            );
        }
        Val::Other
    }

    /// `name(args)` (or `self::name(args)`) of a checked free function beside the function,
    /// or `Self::name(args)`/`Type::name(args)` of a checked associated function of a struct
    /// beside it: its value, or `None` for any other call.
    pub(super) fn checked_fn(
        &mut self,
        c: &syn::ExprCall,
        segs: &[&str],
        vals: &[Val],
        op_text: Quote<'_>,
    ) -> Option<Val> {
        let neighbours = self.neighbours?;
        let contract = match segs {
            [name] if !self.shadowed(name) => neighbours.function(name)?,
            ["self", name] => neighbours.function(name)?,
            ["Self", name] => neighbours.associated(self.self_type.as_deref()?, name)?,
            [ty, name] if !self.shadowed(ty) => neighbours.associated(ty, name)?,
            _ => return None,
        };
        let callee = segs.join("::");
        let exprs: Vec<&Expr> = c.args.iter().collect();
        let at = || c.to_token_stream();
        Some(self.by_contract(&callee, &exprs, vals, contract, &|_| false, &at, op_text))
    }

    /// `self.method(…)` of a checked method of the same `impl` block, read by its contract.
    pub(super) fn sibling(
        &mut self,
        m: &syn::ExprMethodCall,
        fields: &SelfFacts,
        contract: &Contract,
    ) -> Val {
        let vals: Vec<Val> = m.args.iter().map(|a| self.eval(a)).collect();
        let exprs: Vec<&Expr> = m.args.iter().collect();
        let callee = format!("self.{}", m.method);
        let shared = |v: &str| fields.is_shared(contract, v);
        let at = || {
            let mut at = m.method.to_token_stream();
            m.paren_token.surround(&mut at, |t| m.args.to_tokens(t));
            at
        };
        self.by_contract(
            &callee,
            &exprs,
            &vals,
            contract,
            &shared,
            &at,
            Quote::Method(m),
        )
    }

    /// A call of a checked function or method, read by its contract (`ops::call`): `exprs`
    /// and `vals` are its arguments after the receiver, `shared` says which variables are the
    /// caller's own.
    #[allow(clippy::too_many_arguments)]
    fn by_contract(
        &mut self,
        callee: &str,
        exprs: &[&Expr],
        vals: &[Val],
        contract: &Contract,
        shared: &dyn Fn(&str) -> bool,
        at: &dyn Fn() -> TokenStream,
        op_text: Quote<'_>,
    ) -> Val {
        let args: Vec<(Option<&Pattern>, Option<Operand<'_>>)> = contract
            .params
            .iter()
            .zip(exprs.iter().zip(vals))
            .map(|(p, (e, v))| {
                let x = v.dims().map(|dims| Operand {
                    text: Quote::Expr(strip_ref(e)),
                    dims,
                });
                (p.as_ref(), x)
            })
            .collect();
        let rule = ops::call(callee, &args, contract.ret.as_ref(), shared, self.facts);
        self.apply(rule, at, op_text)
    }
}
