//! The walk over a function body: the value of each local (a tracked tensor, a size, a tuple
//! of them, or something else), statement by statement, with `let` shadowing, block scopes,
//! branches merged and loops and closures forgetting what they may change.
//!
//! It never guesses: what the vocabulary (`vocab`, on the rules of `ops`; `contracts`, the
//! calls read by a callee's contract) does not cover gives an untracked value, and only a rule
//! of `ops` (or the `ret` and `#[shape]` comparisons here) reports an error. `effects` finds
//! what code the walk does not follow may assign.

mod burn;
mod contracts;
mod effects;
mod vocab;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::{Block, Expr, Lit, Local, Pat, Stmt};

use super::diag::{Gap, Quote, render_short};
use super::dims::{Cmp, Dim, Facts, compare, show_dim, show_shape};
use super::fields::SelfFacts;
use super::neighbours::Neighbours;
use super::ops::{self, Operand};
use super::origins::Origins;
pub use super::val::Val;

/// The walk's state: the facts, the locals in scope, and what it found.
pub struct Walker<'a> {
    facts: &'a Facts,
    /// The return value's dims, when `ret` has a fixed rank.
    ret: Option<&'a [Dim]>,
    /// `self`'s fields, for a method that shares its struct's variables.
    fields: Option<&'a SelfFacts>,
    /// The checked items beside the function in its module, whose contracts its calls read.
    pub neighbours: Option<&'a Neighbours>,
    /// The names a call may mean instead of an item beside this one: every parameter, and
    /// every item (`fn`, `struct`, …) declared in the body.
    pub shadowing: Vec<String>,
    /// The struct `Self` names, for a method of an `impl` block under `#[shapes::check]`.
    pub self_type: Option<String>,
    /// Whether the body's tensors are burn's (a parameter's `Tensor` has generic arguments):
    /// the one name whose meaning differs is read burn's way (see `burn`).
    pub burn: bool,
    /// The locals in scope, innermost last (a `let` pushes; a block pops what it pushed).
    /// Closures and async blocks are not walked, so a `return` met is the function's.
    env: Vec<(String, Val)>,
    pub errors: Vec<syn::Error>,
    pub gaps: Vec<Gap>,
    /// Each unannotated `let` of a plain name whose value's shape is tracked: the `Local`
    /// (by address, for `lets::annotate`) and the shape.
    pub tracked_lets: Vec<(usize, Vec<Dim>)>,
    /// Where each variable comes from, for the errors.
    pub origins: Origins,
    /// Whether `self`'s fields were handed over but are not read (a method without `self`).
    pub fields_unread: bool,
    /// The fields of `self` the body may assign: their shapes are not known.
    fields_assigned: Vec<String>,
}

impl<'a> Walker<'a> {
    pub fn new(facts: &'a Facts, ret: Option<&'a [Dim]>, fields: Option<&'a SelfFacts>) -> Self {
        Walker {
            facts,
            ret,
            fields,
            neighbours: None,
            shadowing: Vec::new(),
            self_type: None,
            burn: false,
            env: Vec::new(),
            errors: Vec::new(),
            gaps: Vec::new(),
            tracked_lets: Vec::new(),
            origins: Origins::default(),
            fields_unread: false,
            fields_assigned: Vec::new(),
        }
    }

    /// Declares a parameter.
    pub fn bind_param(&mut self, name: &str, val: Val) {
        self.env.push((name.to_owned(), val));
    }

    /// Walks the function's body, then checks its value against `ret`.
    pub fn walk_fn_body(&mut self, block: &Block) {
        effects::fields_assigned(block.to_token_stream(), &mut self.fields_assigned);
        let value = self.walk_block(block);
        if let Some(Stmt::Expr(tail, None)) = block.stmts.last() {
            self.check_ret(&value, tail);
        }
    }

    /// Whether `name` in a call is a local, a parameter or an item of the body rather than an
    /// item beside this one.
    fn shadowed(&self, name: &str) -> bool {
        self.env.iter().any(|(n, _)| n == name) || self.shadowing.iter().any(|n| n == name)
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

    /// An error at `tokens`, followed by where the variables it names come from.
    fn error(&mut self, tokens: impl ToTokens, message: String) {
        let message = format!("{message}{}", self.origins.explain(&message));
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
        // Under an annotation, nothing of the value's shape is lost: no gap.
        let gaps = self.gaps.len();
        let mut val = match &l.init {
            Some(init) => {
                let v = self.eval(&init.expr);
                if ann.is_some() {
                    self.gaps.truncate(gaps);
                }
                if let Some((_, diverge)) = &init.diverge {
                    let saved = self.env.clone();
                    self.eval(diverge);
                    self.env = saved;
                }
                v
            }
            None => Val::Other,
        };
        if ann.is_none()
            && super::lets::is_plain_name(&l.pat)
            && let Some(dims) = val.dims()
            && dims.iter().any(Option::is_some)
        {
            self.tracked_lets
                .push((std::ptr::from_ref(l) as usize, dims.to_vec()));
        }
        if let Some((lit, want)) = ann {
            if let Ok(p) = shapes_core::expr::parse_pattern(&lit.value()) {
                let name = l.pat.to_token_stream().to_string();
                self.origins
                    .note_pattern(&p, &format!("the #[shape] of `let {name}`"));
            }
            if let (Some(have), Some(want), Some(init)) = (val.dims(), &want, &l.init)
                && let Some(detail) = differs(have, want, self.facts)
            {
                let msg = format!(
                    "#[shape(\"{}\")] contradicts the value: `{}` is {} ({detail})",
                    lit.value(),
                    render_short(&init.expr),
                    show_shape(have),
                );
                let msg = format!("{msg}{}", self.origins.explain(&msg));
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
            // `let [b, s, _] = x.dims();`: burn's dims are an array.
            Pat::Slice(ps) => {
                let tuple = syn::PatTuple {
                    attrs: Vec::new(),
                    paren_token: Default::default(),
                    elems: ps.elems.clone(),
                };
                self.bind(&Pat::Tuple(tuple), val);
            }
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
            // `Some(m)` of an optional tensor, `Ok(t)` of a tensor.
            Pat::TupleStruct(ts) if ts.elems.len() == 1 => {
                let variant = ts.path.segments.last().map(|s| s.ident.to_string());
                match (variant.as_deref(), val) {
                    (Some("Some"), Val::Some(inner)) => self.bind(&ts.elems[0], *inner),
                    (Some("Ok"), v @ Val::Tensor(_)) => self.bind(&ts.elems[0], v),
                    _ => self.bind_unknown(ts.to_token_stream()),
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

    pub fn eval(&mut self, e: &Expr) -> Val {
        match e {
            Expr::Path(p) if p.qself.is_none() => match p.path.get_ident() {
                Some(id) => self.lookup(&id.to_string()),
                None => Val::Other,
            },
            Expr::Reference(r) => self.eval(&r.expr),
            Expr::Paren(p) => self.eval(&p.expr),
            // `pieces[0]`: one of `chunk`'s pieces.
            Expr::Index(i) => match (self.eval(&i.expr), self.eval(&i.index)) {
                (Val::Pieces(piece), _) => *piece,
                _ => Val::Other,
            },
            Expr::Group(g) => self.eval(&g.expr),
            Expr::Try(t) => match self.eval(&t.expr) {
                Val::Some(inner) => *inner,
                v => v,
            },
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
            // `[b, s, heads, head_dim]`: a shape as burn writes it (read like a tuple).
            Expr::Array(a) => Val::Tuple(a.elems.iter().map(|e| self.eval(e)).collect()),
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
            Expr::Field(f) if is_self(&f.base) => match (&f.member, self.fields) {
                (member, Some(_))
                    if self
                        .fields_assigned
                        .contains(&member.to_token_stream().to_string()) =>
                {
                    let member = member.to_token_stream();
                    self.gap(
                        syn::spanned::Spanned::span(&f.member),
                        format!("`self.{member}` is assigned in the body; its shape is not taken from the struct"),
                    );
                    Val::Other
                }
                (syn::Member::Named(id), Some(fields)) => {
                    fields.field(&id.to_string()).cloned().unwrap_or(Val::Other)
                }
                (syn::Member::Unnamed(i), Some(fields)) => fields
                    .field(&i.index.to_string())
                    .cloned()
                    .unwrap_or(Val::Other),
                (member, None) if self.fields_unread => {
                    let member = member.to_token_stream();
                    self.gap(
                        syn::spanned::Spanned::span(&f.member),
                        format!("`self.{member}` is not read: only a method with `self` (#[shapes::check(self, …)]) shares its struct's variables and reads its fields"),
                    );
                    Val::Other
                }
                _ => Val::Other,
            },
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
                    self.check_ret(&v, e);
                }
                Val::Other
            }
            Expr::Macro(m) => self.mac(&m.mac),
            Expr::Let(l) => {
                let v = self.eval(&l.expr);
                self.bind(&l.pat, v);
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
        // What `if let` binds is seen by the branches only.
        let mark = self.env.len();
        let v = self.if_branches(i);
        self.env.truncate(mark);
        v
    }

    fn if_branches(&mut self, i: &syn::ExprIf) -> Val {
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
        let scrutinee = self.eval(&m.expr);
        let before = self.env.clone();
        let mut branches = Vec::new();
        for arm in &m.arms {
            match &arm.pat {
                Pat::Guard(g) => {
                    self.bind(&g.pat, scrutinee.clone());
                    self.eval(&g.guard);
                }
                p => self.bind(p, scrutinee.clone()),
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
                let rule = ops::elementwise(
                    &Operand {
                        text: Quote::Expr(&b.left),
                        dims: x,
                    },
                    &Operand {
                        text: Quote::Expr(&b.right),
                        dims: y,
                    },
                    self.facts,
                );
                self.apply(rule, &|| b.to_token_stream(), Quote::Binary(b))
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
}

/// `a op b` on sizes: an integer `/` is floor division, but exact when `b` divides `a` for
/// every assignment (`heads * head_dim / head_dim`, or `d_model / heads` with `where
/// d_model = heads * head_dim`). The result is written in its simplest form.
pub(super) fn size_op(op: shapes_core::expr::ArithOp, a: &Dim, b: &Dim, facts: &Facts) -> Dim {
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

/// Whether `e` is `self`.
fn is_self(e: &Expr) -> bool {
    matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.is_ident("self"))
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

#[cfg(test)]
mod tests;
