//! How big a term is, and the limit on how big substitution may make one.
//!
//! Binding a variable writes its value into every value that mentions it, and evaluating an
//! expression writes in the values of its variables. Without a limit, a few hundred bytes of
//! input make terms grow exponentially: `(x0, …, x29)` against `(x1 + x1, …, x30 + x30)`
//! doubles `x0`'s value thirty times. So before anything is written in, the size of the
//! result is computed from the sizes of the values (each binding keeps its value's size), and
//! a result past [`Substitution::MAX_TERM_NODES`] is an error, unless the expression was
//! already that large before anything was written in (a 30,000-dim pattern stays fine).

use super::error::{InferError, InferErrorKind, err};
use super::subst::{Substitution, Term};
use crate::expr::{DimExpr, Expr, Item, Name, Operand, Pattern, Pred};

/// The size of a term: its nodes (every expression, item, size and constraint in it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Size {
    pub(crate) nodes: usize,
}

impl Size {
    /// One node: a literal, a variable.
    pub(crate) const LEAF: Size = Size { nodes: 1 };

    /// The size of a bound value.
    pub(crate) fn of_term(t: &Term) -> Size {
        let mut w = Walk::new(None);
        match t {
            Term::Dim(DimExpr::Lit(_)) => return Size::LEAF,
            Term::Dim(d) => w.dim(d),
            Term::Expr(e) => w.expr(e),
        }
        w.own
    }
}

/// Counts a term's nodes as written (`own`) and once the substitution's values are written
/// in (`new`), without writing anything.
struct Walk<'s> {
    s: Option<&'s Substitution>,
    own: Size,
    new: Size,
}

impl<'s> Walk<'s> {
    fn new(s: Option<&'s Substitution>) -> Self {
        Walk {
            s,
            own: Size::default(),
            new: Size::default(),
        }
    }

    fn node(&mut self) {
        self.own.nodes = self.own.nodes.saturating_add(1);
        self.new.nodes = self.new.nodes.saturating_add(1);
    }

    /// A variable (already counted as one node): what replaces it, if it is bound. A size
    /// written where a shape is expected becomes a one-dim pattern, two nodes more.
    fn var(&mut self, n: &Name, shape_position: bool) {
        let Some((t, size)) = self.s.and_then(|s| s.lookup_sized(n)) else {
            return;
        };
        let wrapper = if shape_position && matches!(t, Term::Dim(_)) {
            2
        } else {
            0
        };
        self.new.nodes = (self.new.nodes.saturating_sub(1))
            .saturating_add(size.nodes)
            .saturating_add(wrapper);
    }

    fn expr(&mut self, e: &Expr) {
        self.node();
        match e {
            Expr::Var(n) => self.var(n, true),
            Expr::Pattern(p) => self.pattern(p),
            Expr::Arrow(a, b)
            | Expr::Slice(a, b)
            | Expr::Broadcast(a, b)
            | Expr::Concat(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            Expr::Compound(a, p) => {
                self.expr(a);
                self.pred(p);
            }
            Expr::Axes(_) | Expr::Sizes(_) | Expr::Slices(_) => {}
            Expr::Transpose(_, a) | Expr::Reduce(_, a) | Expr::Repeat(_, _, a) => self.expr(a),
        }
    }

    fn pattern(&mut self, p: &Pattern) {
        for item in &p.items {
            self.node();
            match item {
                Item::Dim(d) | Item::Broadcast(d) => self.dim(d),
                Item::Variadic(n) => self.var(n, false),
                Item::Any | Item::Ellipsis => {}
            }
        }
    }

    fn dim(&mut self, d: &DimExpr) {
        self.node();
        match d {
            DimExpr::Lit(_) => {}
            DimExpr::Var(n) => self.var(n, false),
            DimExpr::Bin(_, a, b) => {
                self.dim(a);
                self.dim(b);
            }
            DimExpr::Rank(e) | DimExpr::Prod(e) | DimExpr::Sum(e) | DimExpr::Index(e, _) => {
                self.expr(e)
            }
        }
    }

    fn operand(&mut self, o: &Operand) {
        match o {
            Operand::Size(d) => self.dim(d),
            Operand::ForAll(e) => self.expr(e),
        }
    }

    fn pred(&mut self, p: &Pred) {
        self.node();
        match p {
            Pred::Cmp(_, a, b) => {
                self.operand(a);
                self.operand(b);
            }
            Pred::Broadcastable(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            Pred::And(a, b) | Pred::Or(a, b) => {
                self.pred(a);
                self.pred(b);
            }
        }
    }

    /// An error when writing the values in would take the term past the limit (and it was
    /// not already past it as written).
    fn check(self) -> Result<(), InferError> {
        let limit = Substitution::MAX_TERM_NODES;
        if self.new.nodes > limit.max(self.own.nodes) {
            return err(InferErrorKind::TermTooLarge { limit });
        }
        Ok(())
    }
}

/// Whether `s` may be written into the expression without building a term past the limits.
/// Values that are all literal sizes cannot make a term grow (a variable becomes one literal,
/// or a one-dim pattern), so nothing is walked then.
pub(crate) fn check_expr(e: &Expr, s: &Substitution) -> Result<(), InferError> {
    if !s.has_symbolic_values() {
        return Ok(());
    }
    let mut w = Walk::new(Some(s));
    w.expr(e);
    w.check()
}

/// [`check_expr`] for a pattern.
pub(crate) fn check_pattern(p: &Pattern, s: &Substitution) -> Result<(), InferError> {
    if !s.has_symbolic_values() {
        return Ok(());
    }
    let mut w = Walk::new(Some(s));
    w.pattern(p);
    w.check()
}

/// [`check_expr`] for a size.
pub(crate) fn check_dim(d: &DimExpr, s: &Substitution) -> Result<(), InferError> {
    if !s.has_symbolic_values() || matches!(d, DimExpr::Lit(_)) {
        return Ok(());
    }
    let mut w = Walk::new(Some(s));
    w.dim(d);
    w.check()
}

/// [`check_expr`] for a constraint.
pub(crate) fn check_pred(p: &Pred, s: &Substitution) -> Result<(), InferError> {
    if !s.has_symbolic_values() {
        return Ok(());
    }
    let mut w = Walk::new(Some(s));
    w.pred(p);
    w.check()
}
