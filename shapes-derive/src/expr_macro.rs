//! `expr!("…")`: a shape expression parsed at compile time.
//!
//! The string is parsed by the same parser as `shapes::expr::parse`; a bad string is a compile error
//! at the literal, with the parser's message and a caret under the spot. A good string expands
//! to an expression that builds the [`Expr`] tree with the public constructors of the AST
//! (named through `::shapes::__private`), so the macro and the parser can never disagree.
//!
//! Every `match` below is exhaustive on purpose: a new AST node fails to compile here until the
//! macro learns to build it.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use shapes_core::expr::{Axis, DimExpr, Expr, Item, Name, Operand, Pattern, Pred, SliceSpec};
use syn::LitStr;
use syn::parse::{Parse, ParseStream};

use crate::codegen::{arith_op, cmp_op};

/// The macro's input: one string literal, nothing else.
struct Input {
    lit: LitStr,
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        const USAGE: &str =
            "expr! takes one string literal: shapes::expr!(\"(a, b) -> (b, c) -> (a, c)\")";
        if input.is_empty() {
            return Err(syn::Error::new(Span::call_site(), USAGE));
        }
        if !input.peek(LitStr) {
            return Err(input.error(format!(
                "{USAGE}; a string built at run time goes to shapes::expr::parse instead"
            )));
        }
        let lit: LitStr = input.parse()?;
        // One trailing comma is harmless (`expr!("…",)`), as with other macros.
        if input.peek(syn::Token![,]) {
            input.parse::<syn::Token![,]>()?;
        }
        if !input.is_empty() {
            return Err(input.error(format!("unexpected tokens after the string: {USAGE}")));
        }
        Ok(Input { lit })
    }
}

/// The whole macro: the parsed input, or the compile error to emit.
pub fn expand(tokens: TokenStream) -> syn::Result<TokenStream> {
    let Input { lit } = syn::parse2(tokens)?;
    let text = lit.value();
    let expr = shapes_core::expr::parse(&text)
        .map_err(|e| syn::Error::new(lit.span(), format!("invalid shape expression: {e}")))?;
    let b = Build {
        p: quote!(::shapes::__private),
    };
    let built = b.expr(&expr);
    Ok(quote!({ #built }))
}

/// Emits constructor code for each AST node.
struct Build {
    /// `::shapes::__private`.
    p: TokenStream,
}

impl Build {
    fn boxed(&self, inner: TokenStream) -> TokenStream {
        let p = &self.p;
        quote!(#p::Box::new(#inner))
    }

    fn vec(&self, items: impl IntoIterator<Item = TokenStream>) -> TokenStream {
        let p = &self.p;
        let items = items.into_iter();
        quote!(#p::Vec::from([#(#items),*]))
    }

    fn name(&self, n: &Name) -> TokenStream {
        let p = &self.p;
        let s = n.as_str();
        quote!(#p::Name::new(#s))
    }

    fn option(&self, v: Option<isize>) -> TokenStream {
        let p = &self.p;
        match v {
            Some(v) => quote!(#p::Some(#v)),
            None => quote!(#p::None),
        }
    }

    fn usizes(&self, v: &[usize]) -> TokenStream {
        self.vec(v.iter().map(|n| quote!(#n)))
    }

    fn expr(&self, e: &Expr) -> TokenStream {
        let p = &self.p;
        match e {
            Expr::Pattern(pat) => {
                let pat = self.pattern(pat);
                quote!(#p::Expr::Pattern(#pat))
            }
            Expr::Var(n) => {
                let n = self.name(n);
                quote!(#p::Expr::Var(#n))
            }
            Expr::Arrow(a, b) => {
                let (a, b) = (self.boxed(self.expr(a)), self.boxed(self.expr(b)));
                quote!(#p::Expr::Arrow(#a, #b))
            }
            Expr::Compound(e, pred) => {
                let (e, pred) = (self.boxed(self.expr(e)), self.boxed(self.pred(pred)));
                quote!(#p::Expr::Compound(#e, #pred))
            }
            Expr::Axes(v) => {
                let v = self.usizes(v);
                quote!(#p::Expr::Axes(#v))
            }
            Expr::Sizes(v) => {
                let v = self.usizes(v);
                quote!(#p::Expr::Sizes(#v))
            }
            Expr::Slices(specs) => {
                let v = self.vec(specs.iter().map(|s| self.slice_spec(s)));
                quote!(#p::Expr::Slices(#v))
            }
            Expr::Slice(e, s) => {
                let (e, s) = (self.boxed(self.expr(e)), self.boxed(self.expr(s)));
                quote!(#p::Expr::Slice(#e, #s))
            }
            Expr::Transpose(axes, e) => {
                let (axes, e) = (self.usizes(axes), self.boxed(self.expr(e)));
                quote!(#p::Expr::Transpose(#axes, #e))
            }
            Expr::Reduce(axis, e) => {
                let (axis, e) = (self.axis(*axis), self.boxed(self.expr(e)));
                quote!(#p::Expr::Reduce(#axis, #e))
            }
            Expr::Broadcast(a, b) => {
                let (a, b) = (self.boxed(self.expr(a)), self.boxed(self.expr(b)));
                quote!(#p::Expr::Broadcast(#a, #b))
            }
            Expr::Repeat(axis, counts, e) => {
                let axis = self.axis(*axis);
                let counts = self.usizes(counts);
                let e = self.boxed(self.expr(e));
                quote!(#p::Expr::Repeat(#axis, #counts, #e))
            }
            Expr::Concat(axis, a, b) => {
                let (a, b) = (self.boxed(self.expr(a)), self.boxed(self.expr(b)));
                quote!(#p::Expr::Concat(#axis, #a, #b))
            }
        }
    }

    fn pattern(&self, pat: &Pattern) -> TokenStream {
        let p = &self.p;
        let items = self.vec(pat.items.iter().map(|i| self.item(i)));
        quote!(#p::Pattern::new(#items))
    }

    fn item(&self, item: &Item) -> TokenStream {
        let p = &self.p;
        match item {
            Item::Dim(d) => {
                let d = self.dim(d);
                quote!(#p::Item::Dim(#d))
            }
            Item::Any => quote!(#p::Item::Any),
            Item::Ellipsis => quote!(#p::Item::Ellipsis),
            Item::Variadic(n) => {
                let n = self.name(n);
                quote!(#p::Item::Variadic(#n))
            }
            Item::Broadcast(d) => {
                let d = self.dim(d);
                quote!(#p::Item::Broadcast(#d))
            }
        }
    }

    fn dim(&self, d: &DimExpr) -> TokenStream {
        let p = &self.p;
        match d {
            DimExpr::Lit(n) => quote!(#p::DimExpr::Lit(#n)),
            DimExpr::Var(n) => {
                let n = self.name(n);
                quote!(#p::DimExpr::Var(#n))
            }
            DimExpr::Bin(op, l, r) => {
                let op = arith_op(*op);
                let (l, r) = (self.boxed(self.dim(l)), self.boxed(self.dim(r)));
                quote!(#p::DimExpr::Bin(#p::ArithOp::#op, #l, #r))
            }
            DimExpr::Rank(e) => {
                let e = self.boxed(self.expr(e));
                quote!(#p::DimExpr::Rank(#e))
            }
            DimExpr::Prod(e) => {
                let e = self.boxed(self.expr(e));
                quote!(#p::DimExpr::Prod(#e))
            }
            DimExpr::Sum(e) => {
                let e = self.boxed(self.expr(e));
                quote!(#p::DimExpr::Sum(#e))
            }
            DimExpr::Index(e, i) => {
                let e = self.boxed(self.expr(e));
                quote!(#p::DimExpr::Index(#e, #i))
            }
        }
    }

    fn slice_spec(&self, s: &SliceSpec) -> TokenStream {
        let p = &self.p;
        match *s {
            SliceSpec::Index(i) => quote!(#p::SliceSpec::Index(#i)),
            SliceSpec::Range { start, end, step } => {
                let (start, end, step) = (self.option(start), self.option(end), self.option(step));
                quote!(#p::SliceSpec::Range { start: #start, end: #end, step: #step })
            }
        }
    }

    fn axis(&self, a: Axis) -> TokenStream {
        let p = &self.p;
        match a {
            Axis::One(n) => quote!(#p::Axis::One(#n)),
            Axis::All => quote!(#p::Axis::All),
        }
    }

    fn pred(&self, pred: &Pred) -> TokenStream {
        let p = &self.p;
        match pred {
            Pred::Cmp(op, a, b) => {
                let op = cmp_op(*op);
                let (a, b) = (self.operand(a), self.operand(b));
                quote!(#p::Pred::Cmp(#p::CmpOp::#op, #a, #b))
            }
            Pred::Broadcastable(a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                quote!(#p::Pred::Broadcastable(#a, #b))
            }
            Pred::And(a, b) => {
                let (a, b) = (self.boxed(self.pred(a)), self.boxed(self.pred(b)));
                quote!(#p::Pred::And(#a, #b))
            }
            Pred::Or(a, b) => {
                let (a, b) = (self.boxed(self.pred(a)), self.boxed(self.pred(b)));
                quote!(#p::Pred::Or(#a, #b))
            }
        }
    }

    fn operand(&self, o: &Operand) -> TokenStream {
        let p = &self.p;
        match o {
            Operand::Size(d) => {
                let d = self.dim(d);
                quote!(#p::Operand::Size(#d))
            }
            Operand::ForAll(e) => {
                let e = self.expr(e);
                quote!(#p::Operand::ForAll(#e))
            }
        }
    }
}
