//! The vocabulary: which candle methods and functions the walk follows, how their arguments
//! are read (axes, `reshape` targets, `cat`'s parts), and the rule of `ops` each applies.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Lit, Token};

use super::super::diag::Quote;
use super::super::dims::Dim;
use super::super::ops::{self, Axis, Operand, Rule, Target};
use super::burn::{self, Burn};
use super::{Val, Walker};

/// Methods that keep their receiver's shape (and `Result` plumbing).
const KEEP_SHAPE: &[&str] = &[
    "contiguous",
    "clone",
    "to_dtype",
    "to_device",
    "detach",
    "copy",
    "affine",
    "exp",
    "log",
    "sqrt",
    "sqr",
    "relu",
    "gelu",
    "gelu_erf",
    "silu",
    "neg",
    "abs",
    "tanh",
    "recip",
    "sin",
    "cos",
    "powf",
    "elu",
    "clamp",
    "round",
    "floor",
    "ceil",
    "sign",
    "ones_like",
    "zeros_like",
    "map_err",
    "unwrap",
    "expect",
    "context",
    "with_context",
];

/// Element-wise methods between two tensors of one shape (a scalar argument keeps the shape).
const ELEMENTWISE: &[&str] = &[
    "add", "sub", "mul", "div", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
];

/// Broadcasting element-wise methods.
const BROADCASTING: &[&str] = &[
    "broadcast_add",
    "broadcast_sub",
    "broadcast_mul",
    "broadcast_div",
    "broadcast_maximum",
    "broadcast_minimum",
];

/// Free functions of `candle_nn::ops` that keep their first argument's shape.
const NN_OPS_KEEP: &[&str] = &[
    "softmax",
    "softmax_last_dim",
    "log_softmax",
    "sigmoid",
    "silu",
    "leaky_relu",
    "dropout",
    "rms_norm",
    "layer_norm",
];

impl Walker<'_> {
    /// A rule's outcome as a value: an error is reported at `at` (the op) and gives an
    /// unknown shape, so one mistake is reported once.
    pub(super) fn apply(&mut self, rule: Rule, at: &dyn Fn() -> TokenStream, op: Quote<'_>) -> Val {
        match rule {
            Ok(Some(d)) => Val::Tensor(Some(d)),
            Ok(None) => {
                let span = at()
                    .into_iter()
                    .next()
                    .map_or_else(Span::call_site, |t| t.span());
                self.gap(
                    span,
                    format!("`{op}`: the result's shape cannot be told from its operands"),
                );
                Val::Tensor(None)
            }
            Err(detail) => {
                self.error(at(), format!("`{op}`: {detail}"));
                Val::Tensor(None)
            }
        }
    }

    pub(super) fn method(&mut self, m: &syn::ExprMethodCall) -> Val {
        if super::is_self(&m.receiver)
            && let Some(fields) = self.fields
            && let Some(contract) = fields.method(&m.method.to_string())
        {
            return self.sibling(m, fields, contract);
        }
        let recv = self.eval(&m.receiver);
        let args: Vec<Val> = m.args.iter().map(|a| self.eval(a)).collect();
        let name = m.method.to_string();
        let name = name.as_str();
        let arg_exprs: Vec<&Expr> = m.args.iter().collect();
        let recv_text = Quote::Expr(&m.receiver);
        let arg_text = |i: usize| {
            arg_exprs
                .get(i)
                .map_or(Quote::Str(""), |e| Quote::Expr(strip_ref(e)))
        };
        let op_text = Quote::Method(m);
        // Where an error is reported: the method and its arguments.
        let at = || {
            let mut at = m.method.to_token_stream();
            m.paren_token.surround(&mut at, |t| m.args.to_tokens(t));
            at
        };

        if let (Val::Some(_), "as_ref" | "as_deref" | "clone" | "cloned" | "copied") = (&recv, name)
        {
            return recv;
        }
        if let Some(v) = self.held(m, &recv, &args, &at) {
            return v;
        }
        let Val::Tensor(shape) = &recv else {
            return self.untracked_call(&args, m.method.span(), op_text);
        };
        let Some(a) = shape.as_deref() else {
            // A tensor of unknown shape stays one through the vocabulary.
            return if KEEP_SHAPE.contains(&name)
                || is_vocabulary(name)
                || burn::KEEP_SHAPE.contains(&name)
                || burn::is_vocabulary(name)
            {
                Val::Tensor(None)
            } else {
                Val::Other
            };
        };
        let a = Operand {
            text: recv_text,
            dims: a,
        };
        let axis = |i: usize| arg_exprs.get(i).and_then(|e| axis_of(e, args.get(i)));
        let size = |i: usize| match args.get(i) {
            Some(Val::Size(d)) => d.clone(),
            _ => None,
        };
        let rank = a.dims.len();
        match burn::method(name, &a, arg_exprs.len(), self.burn, &axis, &size) {
            Burn::Rule(rule) => return self.apply(rule, &at, op_text),
            Burn::Value(v) => return v,
            Burn::Other => {}
        }
        let rule: Rule = match name {
            n if KEEP_SHAPE.contains(&n) || burn::KEEP_SHAPE.contains(&n) => {
                Ok(Some(a.dims.to_vec()))
            }
            "matmul" | "broadcast_matmul" => match args.first() {
                Some(Val::Tensor(Some(b))) => {
                    let bt = arg_text(0);
                    let b = Operand { text: bt, dims: b };
                    if name == "matmul" {
                        ops::matmul(&a, &b, self.facts)
                    } else {
                        ops::broadcast_matmul(&a, &b, self.facts)
                    }
                }
                _ if name == "matmul" && rank >= 2 => {
                    let mut out = a.dims[..rank - 1].to_vec();
                    out.push(None);
                    Ok(Some(out))
                }
                _ => Ok(None),
            },
            n if ELEMENTWISE.contains(&n) => match args.first() {
                Some(Val::Tensor(Some(b))) => {
                    let bt = arg_text(0);
                    ops::elementwise(&a, &Operand { text: bt, dims: b }, self.facts)
                }
                _ => Ok(Some(a.dims.to_vec())),
            },
            n if BROADCASTING.contains(&n) => match args.first() {
                Some(Val::Tensor(Some(b))) => {
                    let bt = arg_text(0);
                    ops::broadcast(&a, &Operand { text: bt, dims: b }, self.facts)
                }
                _ => Ok(None),
            },
            "t" => ops::t(&a),
            "transpose" => match (axis(0), axis(1)) {
                (Some(i), Some(j)) => ops::transpose(&a, i, j),
                _ => Ok(Some(vec![None; rank])),
            },
            "permute" => match arg_exprs.first().and_then(|e| axes_of(e)) {
                Some(axes) => ops::permute(&a, &axes),
                None => Ok(Some(vec![None; rank])),
            },
            "reshape" => match arg_exprs.first().and_then(|e| target_of(e, args.first())) {
                Some(target) => ops::reshape(&a, &target, self.facts),
                None => Ok(None),
            },
            "broadcast_as" | "expand" => {
                match arg_exprs.first().and_then(|e| target_of(e, args.first())) {
                    Some(target) if target.iter().all(|t| matches!(t, Target::Dim(_))) => {
                        let dims: Vec<Dim> = target
                            .into_iter()
                            .map(|t| match t {
                                Target::Dim(d) => d,
                                Target::Hole => None,
                            })
                            .collect();
                        let text = arg_text(0);
                        ops::broadcast(&a, &Operand { text, dims: &dims }, self.facts)
                            .map(|_| Some(dims))
                    }
                    _ => Ok(None),
                }
            }
            "flatten_all" => ops::flatten(&a, None, None),
            "flatten_from" => match axis(0) {
                Some(s) => ops::flatten(&a, Some(s), None),
                None => Ok(None),
            },
            "flatten_to" => match axis(0) {
                Some(e) => ops::flatten(&a, None, Some(e)),
                None => Ok(None),
            },
            "flatten" => match (axis(0), axis(1)) {
                (Some(s), Some(e)) => ops::flatten(&a, Some(s), Some(e)),
                _ => Ok(None),
            },
            "squeeze" => match axis(0) {
                Some(k) => ops::squeeze(&a, k, self.facts),
                None => Ok(None),
            },
            // Without a readable axis, the rank is not known either: burn's `unsqueeze()`
            // adds as many leading dims as its type asks.
            "unsqueeze" => match axis(0) {
                Some(k) => ops::unsqueeze(&a, k),
                None => Ok(None),
            },
            "narrow" => match axis(0) {
                Some(k) => ops::narrow(&a, k, &size(1), &size(2), self.facts),
                None => Ok(Some(vec![None; rank])),
            },
            "sum_keepdim" | "mean_keepdim" | "max_keepdim" | "min_keepdim" | "argmax_keepdim"
            | "argmin_keepdim" => match axis(0) {
                Some(k) => ops::reduce(&a, k, true),
                None => Ok(Some(vec![None; rank])),
            },
            "sum" | "mean" | "max" | "min" | "argmax" | "argmin" if arg_exprs.len() == 1 => {
                match axis(0) {
                    Some(k) => ops::reduce(&a, k, false),
                    None => Ok(None),
                }
            }
            "dims2" | "dims3" | "dims4" | "dims5" => {
                let n = usize::from(name.as_bytes()[4] - b'0');
                return match ops::dims_n(&a, n) {
                    Ok(d) => Val::Tuple(d.into_iter().map(Val::Size).collect()),
                    Err(detail) => {
                        self.error(at(), format!("`{op_text}`: {detail}"));
                        Val::Other
                    }
                };
            }
            "index_select" => match (args.first(), axis(1)) {
                (Some(Val::Tensor(Some(ids))), Some(k)) => {
                    let it = arg_text(0);
                    ops::index_select(
                        &a,
                        &Operand {
                            text: it,
                            dims: ids,
                        },
                        k,
                    )
                }
                (_, Some(k)) => ops::resolve(k, rank, a.text, false).map(|k| {
                    let mut out = a.dims.to_vec();
                    out[k] = None;
                    Some(out)
                }),
                _ => Ok(None),
            },
            // `x.chunk(n, axis)`: pieces along `axis`, each `d / n` wide where `n` divides the
            // axis' `d` (candle and burn make them so); otherwise their width is unknown.
            "chunk" => {
                let Some(k) = axis(1) else {
                    self.gap(
                        m.method.span(),
                        format!("`{op_text}`: the axis of `chunk` is not known; put #[shape(\"…\")] on a `let` of each piece"),
                    );
                    return Val::Other;
                };
                return match ops::resolve(k, rank, a.text, false) {
                    Ok(k) => {
                        let mut piece = a.dims.to_vec();
                        let n = size(0);
                        piece[k] = if super::super::dims::divides(&piece[k], &n, self.facts) {
                            super::size_op(
                                shapes_core::expr::ArithOp::FloorDiv,
                                &piece[k],
                                &n,
                                self.facts,
                            )
                        } else {
                            None
                        };
                        Val::Pieces(Box::new(Val::Tensor(Some(piece))))
                    }
                    Err(detail) => {
                        self.error(at(), format!("`{op_text}`: {detail}"));
                        Val::Other
                    }
                };
            }
            "dim" => {
                return match axis(0).map(|k| ops::resolve(k, rank, a.text, false)) {
                    Some(Ok(k)) => Val::Size(a.dims[k].clone()),
                    Some(Err(detail)) => {
                        self.error(at(), format!("`{op_text}`: {detail}"));
                        Val::Other
                    }
                    None => Val::Size(None),
                };
            }
            _ => {
                return self.untracked_call(std::slice::from_ref(&recv), m.method.span(), op_text);
            }
        };
        self.apply(rule, &at, op_text)
    }

    /// A call the vocabulary does not cover: untracked, and a gap when it takes a tracked
    /// tensor.
    pub(super) fn untracked_call(&mut self, inputs: &[Val], span: Span, op: Quote<'_>) -> Val {
        if inputs.iter().any(Val::is_tracked) {
            self.gap(span, format!("`{op}` is not in the vocabulary; put #[shape(\"…\")] on the `let` to give its result a shape"));
        }
        Val::Other
    }

    pub(super) fn call(&mut self, c: &syn::ExprCall) -> Val {
        let path = match &*c.func {
            Expr::Path(p) if p.qself.is_none() => Some(
                p.path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        };
        let segs: Vec<&str> = path.iter().flatten().map(String::as_str).collect();
        let op_text = Quote::Call(c);
        match segs.as_slice() {
            ["Ok"] | [.., "Ok"] if c.args.len() == 1 => {
                return self.eval(&c.args[0]);
            }
            ["Some"] if c.args.len() == 1 => {
                return Val::Some(Box::new(self.eval(&c.args[0])));
            }
            [.., "Tensor", f @ ("cat" | "stack")] if c.args.len() == 2 => {
                return self.cat(c, f == &"stack", op_text);
            }
            [.., "ops", f] | [.., "rotary_emb", f] | [.., "activation", f]
                if (NN_OPS_KEEP.contains(f)
                    || f.starts_with("rope")
                    || burn::ACTIVATIONS_KEEP.contains(f))
                    && !c.args.is_empty() =>
            {
                let vals: Vec<Val> = c.args.iter().map(|a| self.eval(a)).collect();
                return match &vals[0] {
                    Val::Tensor(s) => Val::Tensor(s.clone()),
                    _ => Val::Other,
                };
            }
            _ => {}
        }
        let vals: Vec<Val> = c.args.iter().map(|a| self.eval(a)).collect();
        if let Some(v) = self.checked_fn(c, &segs, &vals, op_text) {
            return v;
        }
        self.untracked_call(&vals, c.func.span(), op_text)
    }

    /// `Tensor::cat(&[…], axis)` and `Tensor::stack`, with the parts listed (`&[&a, &b]`,
    /// `vec![…]`) or repeated (`&vec![&x; n]`, `&[&x; n]`).
    fn cat(&mut self, c: &syn::ExprCall, stack: bool, op_text: Quote<'_>) -> Val {
        let axis_val = self.eval(&c.args[1]);
        let axis = axis_of(&c.args[1], Some(&axis_val));
        let at = || {
            let mut at = c.func.to_token_stream();
            c.paren_token.surround(&mut at, |t| c.args.to_tokens(t));
            at
        };
        let list = parts(strip_ref(&c.args[0]));
        let Some(axis) = axis else {
            self.eval(&c.args[0]);
            return Val::Tensor(None);
        };
        match list {
            Parts::List(exprs) => {
                let vals: Vec<Val> = exprs.iter().map(|e| self.eval(e)).collect();
                let texts: Vec<Quote<'_>> =
                    exprs.iter().map(|e| Quote::Expr(strip_ref(e))).collect();
                if vals.iter().any(|v| v.dims().is_none()) {
                    return Val::Tensor(None);
                }
                let operands: Vec<Operand<'_>> = vals
                    .iter()
                    .zip(&texts)
                    .filter_map(|(v, t)| {
                        Some(Operand {
                            text: *t,
                            dims: v.dims()?,
                        })
                    })
                    .collect();
                let rule = if stack {
                    ops::stack(&operands, axis, self.facts)
                } else {
                    ops::cat(&operands, axis, self.facts)
                };
                self.apply(rule, &at, op_text)
            }
            Parts::Repeat(repeat) => {
                let (e, n) = *repeat;
                let v = self.eval(&e);
                let count = match self.eval(&n) {
                    Val::Size(d) => d,
                    _ => None,
                };
                let (Some(dims), false) = (v.dims(), stack) else {
                    return Val::Tensor(None);
                };
                let text = Quote::Expr(strip_ref(&e));
                let rule = ops::cat_repeat(&Operand { text, dims }, &count, axis);
                self.apply(rule, &at, op_text)
            }
            Parts::Unknown => {
                self.eval(&c.args[0]);
                Val::Tensor(None)
            }
        }
    }
}

/// Whether a method name is in the vocabulary (its result on a tensor of unknown shape is a
/// tensor of unknown shape).
fn is_vocabulary(n: &str) -> bool {
    ELEMENTWISE.contains(&n)
        || BROADCASTING.contains(&n)
        || matches!(
            n,
            "matmul"
                | "broadcast_matmul"
                | "t"
                | "transpose"
                | "permute"
                | "reshape"
                | "broadcast_as"
                | "expand"
                | "flatten"
                | "flatten_all"
                | "flatten_from"
                | "flatten_to"
                | "squeeze"
                | "unsqueeze"
                | "narrow"
                | "index_select"
                | "sum_keepdim"
                | "mean_keepdim"
                | "max_keepdim"
                | "min_keepdim"
        )
}

pub(super) fn strip_ref(e: &Expr) -> &Expr {
    match e {
        Expr::Reference(r) => strip_ref(&r.expr),
        Expr::Paren(p) => strip_ref(&p.expr),
        Expr::Group(g) => strip_ref(&g.expr),
        other => other,
    }
}

/// The value of an integer literal.
fn lit_int(e: &Expr) -> Option<usize> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse().ok(),
        _ => None,
    }
}

/// An axis argument: a literal, a size local holding a literal, `D::Minus1`, `D::Minus2`,
/// `D::Minus(n)`, or burn's negative literal (`-1`).
fn axis_of(e: &Expr, val: Option<&Val>) -> Option<Axis> {
    let e = strip_ref(e);
    match e {
        // burn's negative axes: `swap_dims(1, -1)`.
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            return lit_int(&u.expr).filter(|n| *n >= 1).map(Axis::FromEnd);
        }
        Expr::Path(p) => {
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            match segs
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice()
            {
                [.., "D", "Minus1"] => return Some(Axis::FromEnd(1)),
                [.., "D", "Minus2"] => return Some(Axis::FromEnd(2)),
                _ => {}
            }
        }
        Expr::Call(c) => {
            if let Expr::Path(p) = &*c.func {
                let segs: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                if segs.ends_with(&["D".to_owned(), "Minus".to_owned()])
                    && c.args.len() == 1
                    && let Expr::Lit(syn::ExprLit {
                        lit: Lit::Int(i), ..
                    }) = &c.args[0]
                {
                    return i.base10_parse::<usize>().ok().map(Axis::FromEnd);
                }
            }
            return None;
        }
        _ => {}
    }
    match val {
        Some(Val::Size(Some(shapes_core::expr::DimExpr::Lit(n)))) => Some(Axis::Index(*n)),
        _ => None,
    }
}

/// The axes of `permute((…))` or `permute([…])`.
fn axes_of(e: &Expr) -> Option<Vec<Axis>> {
    let elems: Vec<&Expr> = match strip_ref(e) {
        Expr::Tuple(t) => t.elems.iter().collect(),
        Expr::Array(a) => a.elems.iter().collect(),
        _ => return None,
    };
    elems
        .into_iter()
        .map(|e| axis_of(e, lit_val(e).as_ref()))
        .collect()
}

fn lit_val(e: &Expr) -> Option<Val> {
    match strip_ref(e) {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => Some(Val::Size(
            i.base10_parse::<usize>()
                .ok()
                .map(shapes_core::expr::DimExpr::Lit),
        )),
        _ => None,
    }
}

/// The target of `reshape`: a tuple (where `()` is the hole), an array, or one size.
fn target_of(e: &Expr, val: Option<&Val>) -> Option<Vec<Target>> {
    let of = |v: &Val| match v {
        Val::Size(d) => Target::Dim(d.clone()),
        Val::Tuple(t) if t.is_empty() => Target::Hole,
        _ => Target::Dim(None),
    };
    match (strip_ref(e), val) {
        (Expr::Tuple(_), Some(Val::Tuple(vals))) => Some(vals.iter().map(of).collect()),
        // `[b, s, heads, head_dim]`, as burn (and candle's `&[…]`) write it: `-1` is burn's one
        // hole; a `0` (burn keeps that axis's size) is not read.
        (Expr::Array(a), Some(Val::Tuple(vals))) if a.elems.len() == vals.len() => Some(
            a.elems
                .iter()
                .zip(vals)
                .map(|(e, v)| match e {
                    Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match lit_int(&u.expr) {
                        Some(1) => Target::Hole,
                        _ => Target::Dim(None),
                    },
                    e if lit_int(e) == Some(0) => Target::Dim(None),
                    _ => of(v),
                })
                .collect(),
        ),
        (Expr::Array(_), _) => None,
        (_, Some(Val::Size(d))) => Some(vec![Target::Dim(d.clone())]),
        (_, Some(Val::Tuple(vals))) => Some(vals.iter().map(of).collect()),
        _ => None,
    }
}

/// The parts of a `cat` or `stack`.
enum Parts {
    List(Vec<Expr>),
    Repeat(Box<(Expr, Expr)>),
    Unknown,
}

fn parts(e: &Expr) -> Parts {
    match e {
        Expr::Array(a) => Parts::List(a.elems.iter().cloned().collect()),
        Expr::Repeat(r) => Parts::Repeat(Box::new(((*r.expr).clone(), (*r.len).clone()))),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let repeat = m.mac.parse_body_with(|input: ParseStream<'_>| {
                let e: Expr = input.parse()?;
                input.parse::<Token![;]>()?;
                let n: Expr = input.parse()?;
                Ok((e, n))
            });
            if let Ok((e, n)) = repeat {
                return Parts::Repeat(Box::new((e, n)));
            }
            match m
                .mac
                .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
            {
                Ok(list) => Parts::List(list.into_iter().collect()),
                Err(_) => Parts::Unknown,
            }
        }
        _ => Parts::Unknown,
    }
}
