//! The walk over a function body: the value of each local (a tracked tensor, a size, a tuple
//! of them, or something else), statement by statement, with `let` shadowing, block scopes,
//! branches merged and loops and closures forgetting what they may change.
//!
//! It never guesses: what the vocabulary (`ops` and [`Walker::method`]) does not cover gives
//! an untracked value, and only a rule of `ops` (or the `ret` and `#[shape]` comparisons here)
//! reports an error.

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Block, Expr, Lit, Local, Pat, Stmt, Token};

use super::diag::{Gap, render, render_short};
use super::dims::{Cmp, Dim, Facts, compare, show_dim, show_shape};
use super::ops::{self, Axis, Operand, Rule, Target};

/// What a local (or an expression) is known to hold.
#[derive(Clone, PartialEq, Debug)]
pub enum Val {
    /// A tensor (or a `Result` of one): its dims when its rank is known.
    Tensor(Option<Vec<Dim>>),
    /// An integer size: `b` of `let (b, s, _) = x.dims3()?`.
    Size(Dim),
    /// A tuple of values: what `dims3()` returns.
    Tuple(Vec<Val>),
    /// Anything else, or a value nothing is known about.
    Other,
}

impl Val {
    fn dims(&self) -> Option<&[Dim]> {
        match self {
            Val::Tensor(Some(d)) => Some(d),
            _ => None,
        }
    }

    fn is_tracked(&self) -> bool {
        self.dims().is_some()
    }
}

/// Macros of the standard library that read their arguments and assign nothing.
const STD_MACROS: &[&str] = &[
    "println",
    "print",
    "eprintln",
    "eprint",
    "format",
    "format_args",
    "write",
    "writeln",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "panic",
    "unreachable",
    "vec",
    "dbg",
    "matches",
];

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
    "dropout",
];

/// The walk's state: the facts, the locals in scope, and what it found.
pub struct Walker<'a> {
    facts: &'a Facts,
    /// The return value's dims, when `ret` has a fixed rank.
    ret: Option<&'a [Dim]>,
    /// The locals in scope, innermost last (a `let` pushes; a block pops what it pushed).
    env: Vec<(String, Val)>,
    /// Inside a closure or an async block: `return` leaves it, not the function.
    nested: usize,
    pub errors: Vec<syn::Error>,
    pub gaps: Vec<Gap>,
}

impl<'a> Walker<'a> {
    pub fn new(facts: &'a Facts, ret: Option<&'a [Dim]>) -> Self {
        Walker {
            facts,
            ret,
            env: Vec::new(),
            nested: 0,
            errors: Vec::new(),
            gaps: Vec::new(),
        }
    }

    /// Declares a parameter.
    pub fn bind_param(&mut self, name: &str, val: Val) {
        self.env.push((name.to_owned(), val));
    }

    /// Walks the function's body, then checks its value against `ret`.
    pub fn walk_fn_body(&mut self, block: &Block) {
        let value = self.walk_block(block);
        if let Some(Stmt::Expr(tail, None)) = block.stmts.last() {
            self.check_ret(&value, tail);
        }
    }

    fn lookup(&self, name: &str) -> Val {
        self.env
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map_or(Val::Other, |(_, v)| v.clone())
    }

    fn set(&mut self, name: &str, val: Val) {
        if let Some((_, v)) = self.env.iter_mut().rev().find(|(n, _)| n == name) {
            *v = val;
        }
    }

    fn error(&mut self, tokens: impl ToTokens, message: String) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    fn gap(&mut self, span: Span, message: String) {
        self.gaps.push(Gap { span, message });
    }

    /// Forgets `name`'s value (it may be changed where the walk cannot follow).
    fn forget(&mut self, name: &str, span: Span, why: &str) {
        let Some((_, v)) = self.env.iter_mut().rev().find(|(n, _)| n == name) else {
            return;
        };
        let was_tracked = v.is_tracked();
        *v = match v {
            Val::Tensor(_) => Val::Tensor(None),
            _ => Val::Other,
        };
        if was_tracked {
            self.gap(
                span,
                format!("`{name}` {why}; its shape is unknown from here"),
            );
        }
    }

    fn walk_block(&mut self, block: &Block) -> Val {
        let mark = self.env.len();
        let mut last = Val::Other;
        let n = block.stmts.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            last = Val::Other;
            match stmt {
                Stmt::Local(l) => {
                    self.local(l);
                }
                Stmt::Expr(e, semi) => {
                    let v = self.eval(e);
                    if semi.is_none() && i + 1 == n {
                        last = v;
                    }
                }
                Stmt::Item(_) => {}
                Stmt::Macro(m) => {
                    self.mac(&m.mac);
                }
            }
        }
        self.env.truncate(mark);
        last
    }

    fn local(&mut self, l: &Local) {
        let ann = super::lets::annotation(&l.attrs);
        let mut val = match &l.init {
            Some(init) => {
                let v = self.eval(&init.expr);
                if let Some((_, diverge)) = &init.diverge {
                    let saved = self.env.clone();
                    self.eval(diverge);
                    self.env = saved;
                }
                v
            }
            None => Val::Other,
        };
        if let Some((lit, want)) = ann {
            if let (Some(have), Some(want), Some(init)) = (val.dims(), &want, &l.init)
                && let Some(detail) = differs(have, want, self.facts)
            {
                let msg = format!(
                    "#[shape(\"{}\")] contradicts the value: `{}` is {} ({detail})",
                    lit.value(),
                    render_short(&init.expr),
                    show_shape(have),
                );
                self.errors.push(syn::Error::new(lit.span(), msg));
            }
            val = Val::Tensor(want);
        }
        self.bind(&l.pat, val);
    }

    /// Binds the names of `pat` to (parts of) `val`; names it cannot match get nothing known.
    fn bind(&mut self, pat: &Pat, val: Val) {
        match pat {
            Pat::Ident(pi) if pi.subpat.is_none() => {
                self.env.push((pi.ident.to_string(), val));
            }
            Pat::Type(pt) => self.bind(&pt.pat, val),
            Pat::Paren(p) => self.bind(&p.pat, val),
            Pat::Wild(_) => {}
            Pat::Tuple(pt) => {
                let has_rest = pt.elems.iter().any(|p| matches!(p, Pat::Rest(_)));
                match val {
                    Val::Tuple(vals) if !has_rest && vals.len() == pt.elems.len() => {
                        for (p, v) in pt.elems.iter().zip(vals) {
                            self.bind(p, v);
                        }
                    }
                    _ => {
                        for p in &pt.elems {
                            self.bind(p, Val::Other);
                        }
                    }
                }
            }
            other => self.bind_unknown(other.to_token_stream()),
        }
    }

    /// Every identifier of a pattern this walk does not read gets nothing known (over-broad:
    /// a path segment is harmless).
    fn bind_unknown(&mut self, tokens: TokenStream) {
        for tt in tokens {
            match tt {
                TokenTree::Ident(i) => self.env.push((i.to_string(), Val::Other)),
                TokenTree::Group(g) => self.bind_unknown(g.stream()),
                _ => {}
            }
        }
    }

    /// Forgets every local that `tokens` may assign (`x = …`, `x += …`, `&mut x`), or, with
    /// `all`, every local it names (a macro the walk does not know).
    fn forget_assigned(&mut self, tokens: TokenStream, all: bool, why: &str) {
        let mut names: Vec<(String, Span)> = Vec::new();
        assigned(tokens, all, &mut names);
        for (n, span) in names {
            self.forget(&n, span, why);
        }
    }

    fn mac(&mut self, mac: &syn::Macro) -> Val {
        let known = mac
            .path
            .segments
            .last()
            .is_some_and(|s| STD_MACROS.contains(&s.ident.to_string().as_str()));
        self.forget_assigned(
            mac.tokens.clone(),
            !known,
            "is passed to a macro that may change it",
        );
        Val::Other
    }

    pub fn eval(&mut self, e: &Expr) -> Val {
        match e {
            Expr::Path(p) if p.qself.is_none() => match p.path.get_ident() {
                Some(id) => self.lookup(&id.to_string()),
                None => Val::Other,
            },
            Expr::Reference(r) => self.eval(&r.expr),
            Expr::Paren(p) => self.eval(&p.expr),
            Expr::Group(g) => self.eval(&g.expr),
            Expr::Try(t) => self.eval(&t.expr),
            Expr::Unary(u) => {
                let v = self.eval(&u.expr);
                match (u.op, v) {
                    (syn::UnOp::Deref(_), v) => v,
                    (syn::UnOp::Neg(_), v @ Val::Tensor(_)) => v,
                    _ => Val::Other,
                }
            }
            Expr::Lit(l) => match &l.lit {
                Lit::Int(i) => Val::Size(
                    i.base10_parse::<usize>()
                        .ok()
                        .map(shapes_core::expr::DimExpr::Lit),
                ),
                _ => Val::Other,
            },
            Expr::Cast(c) => match self.eval(&c.expr) {
                v @ Val::Size(_) => v,
                _ => Val::Other,
            },
            Expr::Tuple(t) => Val::Tuple(t.elems.iter().map(|e| self.eval(e)).collect()),
            Expr::Binary(b) => self.binary(b),
            Expr::Assign(a) => {
                let v = self.eval(&a.right);
                match &*a.left {
                    Expr::Path(p) if p.path.get_ident().is_some() => {
                        let name = p.path.segments[0].ident.to_string();
                        self.set(&name, v);
                    }
                    other => self.forget_assigned(
                        quote::quote!(#other = ()),
                        false,
                        "is assigned through a place the walk does not follow",
                    ),
                }
                Val::Other
            }
            Expr::MethodCall(m) => self.method(m),
            Expr::Call(c) => self.call(c),
            Expr::Block(b) => self.walk_block(&b.block),
            Expr::Unsafe(u) => self.walk_block(&u.block),
            Expr::If(i) => self.if_expr(i),
            Expr::Match(m) => self.match_expr(m),
            Expr::ForLoop(f) => {
                self.eval(&f.expr);
                self.in_loop(f.body.to_token_stream(), |w| {
                    w.bind(&f.pat, Val::Other);
                    w.walk_block(&f.body);
                });
                Val::Other
            }
            Expr::While(wh) => {
                let tokens = quote::quote!(#wh);
                self.in_loop(tokens, |w| {
                    w.eval(&wh.cond);
                    w.walk_block(&wh.body);
                });
                Val::Other
            }
            Expr::Loop(l) => {
                self.in_loop(l.body.to_token_stream(), |w| {
                    w.walk_block(&l.body);
                });
                Val::Other
            }
            Expr::Closure(c) => {
                self.forget_assigned(
                    c.body.to_token_stream(),
                    false,
                    "may be changed by a closure",
                );
                Val::Other
            }
            Expr::Async(a) => {
                self.forget_assigned(
                    a.block.to_token_stream(),
                    false,
                    "may be changed by an async block",
                );
                Val::Other
            }
            Expr::Return(r) => {
                if let Some(e) = &r.expr {
                    let v = self.eval(e);
                    if self.nested == 0 {
                        self.check_ret(&v, e);
                    }
                }
                Val::Other
            }
            Expr::Macro(m) => self.mac(&m.mac),
            Expr::Let(l) => {
                self.eval(&l.expr);
                self.bind(&l.pat, Val::Other);
                Val::Other
            }
            other => {
                self.forget_assigned(
                    other.to_token_stream(),
                    false,
                    "is assigned where the walk does not follow",
                );
                Val::Other
            }
        }
    }

    /// A loop: what its body may assign is forgotten before it (the body may run many times),
    /// then the body is walked for errors, and its own changes are dropped after it.
    fn in_loop(&mut self, body: TokenStream, walk: impl FnOnce(&mut Self)) {
        self.forget_assigned(body, false, "may be changed by a loop");
        let saved = self.env.clone();
        walk(self);
        self.env = saved;
    }

    /// Merges the environments (and values) of the branches of an `if` or a `match`: a local
    /// keeps its value only when every branch leaves the same.
    fn merge(
        &mut self,
        span: Span,
        before: &[(String, Val)],
        branches: Vec<(Vec<(String, Val)>, Val)>,
    ) -> Val {
        let mut env = before.to_vec();
        for (i, (name, v)) in env.iter_mut().enumerate() {
            let first = branches.first().and_then(|(e, _)| e.get(i)).map(|(_, b)| b);
            let same = branches
                .iter()
                .all(|(e, _)| e.get(i).map(|(_, b)| b) == first);
            if same {
                if let Some((_, b)) = branches.first().and_then(|(e, _)| e.get(i)) {
                    *v = b.clone();
                }
            } else {
                if branches
                    .iter()
                    .any(|(e, _)| e.get(i).is_some_and(|(_, b)| b.is_tracked()))
                {
                    self.gaps.push(Gap {
                        span,
                        message: format!("the branches leave `{name}` with different shapes; its shape is unknown from here"),
                    });
                }
                *v = match v {
                    Val::Tensor(_) => Val::Tensor(None),
                    _ => Val::Other,
                };
            }
        }
        self.env = env;
        let first = branches
            .first()
            .map(|(_, v)| v.clone())
            .unwrap_or(Val::Other);
        if branches.iter().all(|(_, v)| *v == first) {
            first
        } else if branches.iter().all(|(_, v)| matches!(v, Val::Tensor(_))) {
            if branches.iter().any(|(_, v)| v.is_tracked()) {
                self.gap(
                    span,
                    "the branches give values of different shapes; the value's shape is unknown"
                        .into(),
                );
            }
            Val::Tensor(None)
        } else {
            Val::Other
        }
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> Val {
        self.eval(&i.cond);
        let before = self.env.clone();
        let then_val = self.walk_block(&i.then_branch);
        let then_env = std::mem::replace(&mut self.env, before.clone());
        let (else_val, else_env) = match &i.else_branch {
            Some((_, e)) => {
                let v = self.eval(e);
                (v, std::mem::replace(&mut self.env, before.clone()))
            }
            None => (Val::Other, before.clone()),
        };
        let span = i.if_token.span;
        self.merge(
            span,
            &before,
            vec![(then_env, then_val), (else_env, else_val)],
        )
    }

    fn match_expr(&mut self, m: &syn::ExprMatch) -> Val {
        self.eval(&m.expr);
        let before = self.env.clone();
        let mut branches = Vec::new();
        for arm in &m.arms {
            match &arm.pat {
                Pat::Guard(g) => {
                    self.bind(&g.pat, Val::Other);
                    self.eval(&g.guard);
                }
                p => self.bind(p, Val::Other),
            }
            let v = self.eval(&arm.body);
            self.env.truncate(before.len());
            branches.push((std::mem::replace(&mut self.env, before.clone()), v));
        }
        if branches.is_empty() {
            return Val::Other;
        }
        self.merge(m.match_token.span, &before, branches)
    }

    /// Checks a value the function returns against `ret`.
    fn check_ret(&mut self, v: &Val, e: &Expr) {
        let (Some(want), Some(have)) = (self.ret, v.dims()) else {
            return;
        };
        if let Some(detail) = differs(have, want, self.facts) {
            let msg = format!(
                "the return value `{}` is {}, but `ret` is {} ({detail})",
                render_short(e),
                show_shape(have),
                show_shape(want)
            );
            self.error(e, msg);
        }
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Val {
        use shapes_core::expr::ArithOp;
        use syn::BinOp;
        let l = self.eval(&b.left);
        let r = self.eval(&b.right);
        let (op, assign) = match b.op {
            BinOp::Add(_) => (Some(ArithOp::Add), false),
            BinOp::Sub(_) => (Some(ArithOp::Sub), false),
            BinOp::Mul(_) => (Some(ArithOp::Mul), false),
            BinOp::Div(_) => (Some(ArithOp::FloorDiv), false),
            BinOp::Rem(_) => (Some(ArithOp::Rem), false),
            BinOp::AddAssign(_) => (Some(ArithOp::Add), true),
            BinOp::SubAssign(_) => (Some(ArithOp::Sub), true),
            BinOp::MulAssign(_) => (Some(ArithOp::Mul), true),
            BinOp::DivAssign(_) => (Some(ArithOp::FloorDiv), true),
            BinOp::RemAssign(_) => (Some(ArithOp::Rem), true),
            _ => (None, false),
        };
        let Some(op) = op else {
            if matches!(
                b.op,
                BinOp::BitAndAssign(_)
                    | BinOp::BitOrAssign(_)
                    | BinOp::BitXorAssign(_)
                    | BinOp::ShlAssign(_)
                    | BinOp::ShrAssign(_)
            ) {
                self.assign_to(&b.left, Val::Other);
            }
            return Val::Other;
        };
        let out = match (&l, &r) {
            (Val::Tensor(Some(x)), Val::Tensor(Some(y))) => {
                let (lt, rt) = (render_short(&b.left), render_short(&b.right));
                let rule = ops::elementwise(
                    &Operand { text: &lt, dims: x },
                    &Operand { text: &rt, dims: y },
                    self.facts,
                );
                self.apply(rule, b, &render_short(&Expr::Binary(b.clone())))
            }
            (Val::Tensor(x), Val::Tensor(y)) => Val::Tensor(x.clone().or_else(|| y.clone())),
            (Val::Tensor(x), _) | (_, Val::Tensor(x)) => Val::Tensor(x.clone()),
            (Val::Size(x), Val::Size(y)) => Val::Size(size_op(op, x, y, self.facts)),
            _ => Val::Other,
        };
        if assign {
            self.assign_to(&b.left, out);
            return Val::Other;
        }
        out
    }

    fn assign_to(&mut self, place: &Expr, v: Val) {
        match place {
            Expr::Path(p) if p.path.get_ident().is_some() => {
                let name = p.path.segments[0].ident.to_string();
                self.set(&name, v);
            }
            other => self.forget_assigned(
                quote::quote!(#other = ()),
                false,
                "is assigned through a place the walk does not follow",
            ),
        }
    }

    /// A rule's outcome as a value: an error is reported at `at` (the op) and gives an
    /// unknown shape, so one mistake is reported once.
    fn apply(&mut self, rule: Rule, at: impl ToTokens, op: &str) -> Val {
        match rule {
            Ok(Some(d)) => Val::Tensor(Some(d)),
            Ok(None) => {
                let span = at
                    .to_token_stream()
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
                self.error(at, format!("`{op}`: {detail}"));
                Val::Tensor(None)
            }
        }
    }

    fn method(&mut self, m: &syn::ExprMethodCall) -> Val {
        let recv = self.eval(&m.receiver);
        let args: Vec<Val> = m.args.iter().map(|a| self.eval(a)).collect();
        let name = m.method.to_string();
        let name = name.as_str();
        let arg_exprs: Vec<&Expr> = m.args.iter().collect();
        let recv_text = render_short(&m.receiver);
        let arg_text = |i: usize| {
            arg_exprs
                .get(i)
                .map(|e| render_short(strip_ref(e)))
                .unwrap_or_default()
        };
        let op_text = {
            let args: Vec<String> = arg_exprs.iter().map(|e| render(e)).collect();
            // A long receiver (a chain of ops) is elided: the message quotes it with its shape.
            let recv = if recv_text.chars().count() > 24 {
                "…"
            } else {
                &recv_text
            };
            super::diag::shorten(&format!("{recv}.{name}({})", args.join(", ")))
        };
        // Where an error is reported: the method and its arguments.
        let mut at = m.method.to_token_stream();
        m.paren_token.surround(&mut at, |t| m.args.to_tokens(t));

        let Val::Tensor(shape) = &recv else {
            return self.untracked_call(&args, m.method.span(), &op_text);
        };
        let Some(a) = shape.as_deref() else {
            return match name {
                n if KEEP_SHAPE.contains(&n) || is_vocabulary(n) => Val::Tensor(None),
                n if n.starts_with("dims") => Val::Other,
                _ => Val::Other,
            };
        };
        let a = Operand {
            text: &recv_text,
            dims: a,
        };
        let axis = |i: usize| arg_exprs.get(i).and_then(|e| axis_of(e, args.get(i)));
        let size = |i: usize| match args.get(i) {
            Some(Val::Size(d)) => d.clone(),
            _ => None,
        };
        let rank = a.dims.len();
        let rule: Rule = match name {
            n if KEEP_SHAPE.contains(&n) => Ok(Some(a.dims.to_vec())),
            "matmul" | "broadcast_matmul" => match args.first() {
                Some(Val::Tensor(Some(b))) => {
                    let bt = arg_text(0);
                    let b = Operand { text: &bt, dims: b };
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
                    ops::elementwise(&a, &Operand { text: &bt, dims: b }, self.facts)
                }
                _ => Ok(Some(a.dims.to_vec())),
            },
            n if BROADCASTING.contains(&n) => match args.first() {
                Some(Val::Tensor(Some(b))) => {
                    let bt = arg_text(0);
                    ops::broadcast(&a, &Operand { text: &bt, dims: b }, self.facts)
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
                        ops::broadcast(
                            &a,
                            &Operand {
                                text: &text,
                                dims: &dims,
                            },
                            self.facts,
                        )
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
            "unsqueeze" => match axis(0) {
                Some(k) => ops::unsqueeze(&a, k),
                None => Ok(Some(vec![None; rank + 1])),
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
                        self.error(at, format!("`{op_text}`: {detail}"));
                        Val::Other
                    }
                };
            }
            "dim" => {
                return match axis(0).map(|k| ops::resolve(k, rank, a.text, false)) {
                    Some(Ok(k)) => Val::Size(a.dims[k].clone()),
                    Some(Err(detail)) => {
                        self.error(at, format!("`{op_text}`: {detail}"));
                        Val::Other
                    }
                    None => Val::Size(None),
                };
            }
            _ => return self.untracked_call(&[recv.clone()], m.method.span(), &op_text),
        };
        self.apply(rule, at, &op_text)
    }

    /// A call the vocabulary does not cover: untracked, and a gap when it takes a tracked
    /// tensor.
    fn untracked_call(&mut self, inputs: &[Val], span: Span, op: &str) -> Val {
        if inputs.iter().any(Val::is_tracked) {
            self.gap(span, format!("`{op}` is not in the vocabulary; put #[shape(\"…\")] on the `let` to give its result a shape"));
        }
        Val::Other
    }

    fn call(&mut self, c: &syn::ExprCall) -> Val {
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
        let op_text = render_short(&Expr::Call(c.clone()));
        match segs.as_slice() {
            ["Ok" | "Some"] | [.., "Ok"] if c.args.len() == 1 => {
                return self.eval(&c.args[0]);
            }
            [.., "Tensor", f @ ("cat" | "stack")] if c.args.len() == 2 => {
                return self.cat(c, f == &"stack", &op_text);
            }
            [.., "ops", f] | [.., "rotary_emb", f]
                if (NN_OPS_KEEP.contains(f) || f.starts_with("rope")) && !c.args.is_empty() =>
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
        self.untracked_call(&vals, c.func.span(), &op_text)
    }

    /// `Tensor::cat(&[…], axis)` and `Tensor::stack`, with the parts listed (`&[&a, &b]`,
    /// `vec![…]`) or repeated (`&vec![&x; n]`, `&[&x; n]`).
    fn cat(&mut self, c: &syn::ExprCall, stack: bool, op_text: &str) -> Val {
        let axis_val = self.eval(&c.args[1]);
        let axis = axis_of(&c.args[1], Some(&axis_val));
        let mut at = c.func.to_token_stream();
        c.paren_token.surround(&mut at, |t| c.args.to_tokens(t));
        let list = parts(strip_ref(&c.args[0]));
        let Some(axis) = axis else {
            self.eval(&c.args[0]);
            return Val::Tensor(None);
        };
        match list {
            Parts::List(exprs) => {
                let vals: Vec<Val> = exprs.iter().map(|e| self.eval(e)).collect();
                let texts: Vec<String> = exprs.iter().map(|e| render_short(strip_ref(e))).collect();
                if vals.iter().any(|v| v.dims().is_none()) {
                    return Val::Tensor(None);
                }
                let operands: Vec<Operand<'_>> = vals
                    .iter()
                    .zip(&texts)
                    .filter_map(|(v, t)| {
                        Some(Operand {
                            text: t,
                            dims: v.dims()?,
                        })
                    })
                    .collect();
                let rule = if stack {
                    ops::stack(&operands, axis, self.facts)
                } else {
                    ops::cat(&operands, axis, self.facts)
                };
                self.apply(rule, at, op_text)
            }
            Parts::Repeat(e, n) => {
                let v = self.eval(&e);
                let count = match self.eval(&n) {
                    Val::Size(d) => d,
                    _ => None,
                };
                let (Some(dims), false) = (v.dims(), stack) else {
                    return Val::Tensor(None);
                };
                let text = render_short(strip_ref(&e));
                let rule = ops::cat_repeat(&Operand { text: &text, dims }, &count, axis);
                self.apply(rule, at, op_text)
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
                | "sum_keepdim"
                | "mean_keepdim"
                | "max_keepdim"
                | "min_keepdim"
        )
}

/// `a op b` on sizes: an integer `/` is floor division, but exact when `b` divides `a` for
/// every assignment (`heads * head_dim / head_dim`, or `d_model / heads` with `where
/// d_model = heads * head_dim`). The result is written in its simplest form.
fn size_op(op: shapes_core::expr::ArithOp, a: &Dim, b: &Dim, facts: &Facts) -> Dim {
    use shapes_core::expr::ArithOp;
    let literal = matches!(
        (a, b),
        (
            Some(shapes_core::expr::DimExpr::Lit(_)),
            Some(shapes_core::expr::DimExpr::Lit(_))
        )
    );
    let op = if op == ArithOp::FloorDiv && !literal && super::dims::divides(a, b, facts) {
        ArithOp::Div
    } else {
        op
    };
    let d = super::dims::bin(op, a, b);
    // `d_model / heads` reads as `head_dim` when the `where` equations make it that.
    match super::dims::simplify_under(d.clone(), facts) {
        Some(e @ (shapes_core::expr::DimExpr::Var(_) | shapes_core::expr::DimExpr::Lit(_))) => {
            Some(e)
        }
        _ => super::dims::simplify(d),
    }
}

/// Why two shapes differ provably (`None` when they may agree).
pub fn differs(have: &[Dim], want: &[Dim], facts: &Facts) -> Option<String> {
    if have.len() != want.len() {
        return Some(format!("rank {} vs {}", have.len(), want.len()));
    }
    have.iter()
        .zip(want)
        .enumerate()
        .find(|(_, (h, w))| compare(h, w, facts) == Cmp::Differ)
        .map(|(i, (h, w))| format!("axis {i}: {} vs {}", show_dim(h), show_dim(w)))
}

fn strip_ref(e: &Expr) -> &Expr {
    match e {
        Expr::Reference(r) => strip_ref(&r.expr),
        Expr::Paren(p) => strip_ref(&p.expr),
        Expr::Group(g) => strip_ref(&g.expr),
        other => other,
    }
}

/// An axis argument: a literal, a size local holding a literal, `D::Minus1`, `D::Minus2`,
/// `D::Minus(n)`.
fn axis_of(e: &Expr, val: Option<&Val>) -> Option<Axis> {
    let e = strip_ref(e);
    match e {
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
        (Expr::Array(_), _) => None,
        (_, Some(Val::Size(d))) => Some(vec![Target::Dim(d.clone())]),
        (_, Some(Val::Tuple(vals))) => Some(vals.iter().map(of).collect()),
        _ => None,
    }
}

/// The parts of a `cat` or `stack`.
enum Parts {
    List(Vec<Expr>),
    Repeat(Expr, Expr),
    Unknown,
}

fn parts(e: &Expr) -> Parts {
    match e {
        Expr::Array(a) => Parts::List(a.elems.iter().cloned().collect()),
        Expr::Repeat(r) => Parts::Repeat((*r.expr).clone(), (*r.len).clone()),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let repeat = m.mac.parse_body_with(|input: ParseStream<'_>| {
                let e: Expr = input.parse()?;
                input.parse::<Token![;]>()?;
                let n: Expr = input.parse()?;
                Ok((e, n))
            });
            if let Ok((e, n)) = repeat {
                return Parts::Repeat(e, n);
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

/// The locals `tokens` may assign: an identifier followed by `=` or a compound assignment, or
/// after `&mut`; with `all`, every identifier.
fn assigned(tokens: TokenStream, all: bool, out: &mut Vec<(String, Span)>) {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => {
                if g.delimiter() != Delimiter::None || all {
                    assigned(g.stream(), all, out);
                } else {
                    assigned(g.stream(), all, out);
                }
            }
            TokenTree::Ident(id) => {
                let name = id.to_string();
                if name == "self" || name == "mut" {
                    continue;
                }
                let after_mut_ref = i >= 2
                    && matches!(&tts[i - 1], TokenTree::Ident(m) if m == "mut")
                    && matches!(&tts[i - 2], TokenTree::Punct(p) if p.as_char() == '&');
                if all || after_mut_ref || is_assignment(&tts[i + 1..]) {
                    out.push((name, id.span()));
                }
            }
            TokenTree::Punct(_) | TokenTree::Literal(_) => {}
        }
    }
}

/// Whether the tokens start with `=` (not `==` or `=>`) or a compound assignment operator.
fn is_assignment(rest: &[TokenTree]) -> bool {
    let punct = |k: usize| match rest.get(k) {
        Some(TokenTree::Punct(p)) => Some((p.as_char(), p.spacing())),
        _ => None,
    };
    match (punct(0), punct(1), punct(2)) {
        (Some(('=', Spacing::Alone)), _, _) => true,
        (
            Some(('+' | '-' | '*' | '/' | '%' | '^' | '&' | '|', Spacing::Joint)),
            Some(('=', _)),
            _,
        ) => true,
        (Some(('<', Spacing::Joint)), Some(('<', Spacing::Joint)), Some(('=', _))) => true,
        (Some(('>', Spacing::Joint)), Some(('>', Spacing::Joint)), Some(('=', _))) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::dims::shape_of;
    use super::*;

    /// Walks `body` with the given tensor parameters; the errors' and gaps' messages.
    fn walk(params: &[(&str, &str)], ret: Option<&str>, body: &str) -> (Vec<String>, Vec<String>) {
        let facts = Facts::default();
        let ret = ret.map(shape_of);
        let block: Block = syn::parse_str(&format!("{{ {body} }}")).expect("a block");
        let mut w = Walker::new(&facts, ret.as_deref());
        for (n, p) in params {
            w.bind_param(n, Val::Tensor(Some(shape_of(p))));
        }
        w.walk_fn_body(&block);
        (
            w.errors.iter().map(ToString::to_string).collect(),
            w.gaps.iter().map(|g| g.message.clone()).collect(),
        )
    }

    #[test]
    fn attention_without_transpose_is_an_error() {
        let (errors, _) = walk(
            &[
                ("q", "(b, heads, s, head_dim)"),
                ("k", "(b, heads, s, head_dim)"),
            ],
            None,
            "let att = q.matmul(&k)?; att",
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with("`q.matmul(&k)`: inner dims differ"),
            "{errors:?}"
        );
        let (errors, _) = walk(
            &[
                ("q", "(b, heads, s, head_dim)"),
                ("k", "(b, heads, s, head_dim)"),
            ],
            None,
            "let att = q.matmul(&k.t()?)?; att",
        );
        assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn dims_locals_feed_reshape() {
        let (errors, _) = walk(
            &[("x", "(b, s, d)")],
            Some("(b, s, d)"),
            "let (b, s, d) = x.dims3()?; let y = x.reshape((b, s, 2, d / 2))?; y.reshape((b, s, d))",
        );
        assert!(errors.is_empty(), "{errors:?}");
        let (errors, _) = walk(
            &[("x", "(b, s, d)")],
            None,
            "let (b, s, d) = x.dims3()?; x.reshape((b, s, s))",
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
    }

    #[test]
    fn the_return_value_is_checked() {
        let (errors, _) = walk(
            &[("x", "(b, heads, s, head_dim)")],
            Some("(b, s, d_model)"),
            "Ok(x.contiguous()?)",
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("rank 4 vs 3"), "{errors:?}");
        let (errors, _) = walk(
            &[("x", "(b, s)")],
            Some("(b, s)"),
            "if true { return Ok(x.t()?); } Ok(x)",
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
    }

    #[test]
    fn shadowing_and_scopes() {
        let (errors, _) = walk(
            &[("x", "(a, b)"), ("y", "(b, c)")],
            None,
            "let x = x.t()?; { let x = y.t()?; let _ = x.matmul(&y)?; } let z = x.matmul(&y)?; let x = foo(); x.matmul(&y)",
        );
        // `x` is (b, a) after the first let, (c, b) inside the block; `x.matmul(&y)` in the
        // block is (c, b)@(b, c): fine; after the block `x` is (b, a) again: a ≠ b.
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].starts_with("`x.matmul(&y)`"), "{errors:?}");
    }

    #[test]
    fn unknown_code_is_never_an_error() {
        let (errors, gaps) = walk(
            &[("x", "(a, b)"), ("y", "(a, b)")],
            None,
            "let h = self.proj.forward(&x)?; let g = helper(&y); h.matmul(&g)?; let mut z = x.clone(); for _ in 0..2 { z = z.t()?; } z.matmul(&y)",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert!(
            gaps.iter().any(|g| g.contains("self.proj.forward(&x)")),
            "{gaps:?}"
        );
        assert!(
            gaps.iter()
                .any(|g| g.contains("`z` may be changed by a loop")),
            "{gaps:?}"
        );
    }

    #[test]
    fn branches_that_disagree_forget() {
        let (errors, gaps) = walk(
            &[("x", "(a, b)"), ("y", "(a, b)")],
            None,
            "let mut z = x.clone(); if c { z = z.t()?; } z.matmul(&y)",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(gaps.len(), 1, "{gaps:?}");
        let (errors, _) = walk(
            &[("x", "(a, b)"), ("y", "(a, b)")],
            None,
            "let z = if c { x.clone() } else { y.clone() }; z.matmul(&y)",
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
    }

    #[test]
    fn closures_and_macros_forget_what_they_may_assign() {
        let (errors, _) = walk(
            &[("x", "(a, b)"), ("y", "(a, b)")],
            None,
            "let mut z = x.clone(); let mut f = || { z = z.t().unwrap(); }; f(); z.matmul(&y)",
        );
        assert!(errors.is_empty(), "{errors:?}");
        let (errors, _) = walk(
            &[("x", "(a, b)"), ("y", "(a, b)")],
            None,
            "let mut z = x.clone(); my_macro!(z); z.matmul(&y)",
        );
        assert!(errors.is_empty(), "{errors:?}");
        let (errors, _) = walk(
            &[("x", "(a, b)"), ("y", "(a, b)")],
            None,
            "let z = x.clone(); println!(\"{z:?}\"); z.matmul(&y)",
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
    }

    #[test]
    fn cat_and_repeat() {
        let (errors, _) = walk(
            &[("k", "(b, kv, s, d)"), ("q", "(b, h, s, d)")],
            Some("(b, kv, s * 2, d)"),
            "let (b, kv, s, d) = k.dims4()?; let n = 2; let r = Tensor::cat(&vec![&k; n], 2)?; r",
        );
        assert!(errors.is_empty(), "{errors:?}");
        let (errors, _) = walk(
            &[("k", "(b, kv, s, d)"), ("v", "(b, kv, s, e)")],
            None,
            "Tensor::cat(&[&k, &v], 2)",
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
    }

    #[test]
    fn integer_division_is_exact_only_for_a_factor() {
        let (errors, _) = walk(
            &[("w", "(heads * head_dim, d)"), ("c", "(s, head_dim)")],
            Some("(heads,)"),
            "let hd = c.dim(1)?; let heads = w.dim(0)? / hd; let r = w.narrow(0, 0, heads)?.narrow(0, 0, heads + 1)?; Ok(r)",
        );
        // `heads + 1` is not past `heads`' start at 0 … only past the first narrow's `heads`.
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("narrows past the end"), "{errors:?}");
    }

    #[test]
    fn assignments_are_found_in_tokens() {
        let mut out = Vec::new();
        let ts: TokenStream =
            syn::parse_str("{ a = 1; b += 2; c == d; e => f; swap(&mut g, &h); i <<= 1; }")
                .expect("tokens");
        assigned(ts, false, &mut out);
        let names: Vec<&str> = out.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a", "b", "g", "i"]);
    }
}
