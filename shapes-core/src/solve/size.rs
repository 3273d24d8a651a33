//! How big a term is, and the limits on how big substitution may make one.
//!
//! Binding a variable writes its value into every value that mentions it, and evaluating an
//! expression writes in the values of its variables. Without limits, a few hundred bytes of
//! input make terms grow exponentially (`(x0, …, x29)` against `(x1 + x1, …, x30 + x30)`
//! doubles `x0`'s value thirty times) or nest deeper than any stack allows (`(x0, …, x49)`
//! against `(x1 + 1 + … + 1, …)` nests `x0`'s value 100 levels deeper at each binding). So
//! before anything is written in, the size and depth of the result are computed from those of
//! the values (each binding keeps its value's [`Size`]), and a result past
//! `Substitution::MAX_TERM_DEPTH` or `Substitution::MAX_TERM_NODES` is an error, unless
//! the expression was already that large as written (a 30,000-dim pattern stays fine).
//!
//! The walks here recurse as deep as the term they measure: an input as the parser builds it,
//! or a value within the limits.

use super::error::{InferError, InferErrorKind, err};
use crate::expr::{DimExpr, Expr, Item, Name, Operand, Pattern, Pred};

/// The most nodes a term built by substitution may have (`Substitution::MAX_TERM_NODES`).
pub(crate) const MAX_NODES: usize = 4096;

/// The deepest a term built by substitution may nest (`Substitution::MAX_TERM_DEPTH`).
pub(crate) const MAX_DEPTH: usize = 256;

/// What measuring a term needs from the values about to be written into it: the substitution,
/// seen from here without this module depending on it.
pub(crate) trait Values {
    /// The size of `name`'s value, and whether that value is a size (rather than a shape), when
    /// `name` is bound.
    fn value_size(&self, name: &Name) -> Option<(Size, bool)>;

    /// Whether writing the values in may make a term grow (some value has more than one node).
    fn may_grow_terms(&self) -> bool;
}

/// The size of a term: its nodes (every expression, item, size and constraint in it) and its
/// depth (the most expressions, sizes and constraints nested in one another; a pattern's
/// items are not a level of their own).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Size {
    pub(crate) nodes: usize,
    pub(crate) depth: usize,
}

impl Size {
    /// One node: a literal, a variable.
    pub(crate) const LEAF: Size = Size { nodes: 1, depth: 1 };

    /// The size of a shape expression as written.
    pub(crate) fn of_expr(e: &Expr) -> Size {
        let mut w = Walk::new(None);
        w.expr(e, 1);
        w.own
    }

    /// The size of a size expression as written.
    pub(crate) fn of_dim(d: &DimExpr) -> Size {
        if let DimExpr::Lit(_) | DimExpr::Var(_) = d {
            return Size::LEAF;
        }
        let mut w = Walk::new(None);
        w.dim(d, 1);
        w.own
    }
}

/// Measures a term as written (`own`) and once the substitution's values are written in
/// (`new`), without writing anything. `level` is the depth of the node being visited (the
/// root is at 1).
struct Walk<'s> {
    s: Option<&'s dyn Values>,
    own: Size,
    new: Size,
}

impl<'s> Walk<'s> {
    fn new(s: Option<&'s dyn Values>) -> Self {
        Walk {
            s,
            own: Size::default(),
            new: Size::default(),
        }
    }

    fn node(&mut self, level: usize) {
        self.own.nodes = self.own.nodes.saturating_add(1);
        self.new.nodes = self.new.nodes.saturating_add(1);
        self.own.depth = self.own.depth.max(level);
        self.new.depth = self.new.depth.max(level);
    }

    /// A variable at `level` (already counted as one node): what replaces it, if it is
    /// bound. A size written where a shape is expected becomes a one-dim pattern, two nodes
    /// and one level more. (A bound `*name` is spliced into its pattern: at most its value's
    /// size, counted from the items' level.)
    fn var(&mut self, n: &Name, level: usize, shape_position: bool) {
        let Some((size, is_size)) = self.s.and_then(|s| s.value_size(n)) else {
            return;
        };
        let wrapper = usize::from(shape_position && is_size);
        self.new.nodes = (self.new.nodes.saturating_sub(1))
            .saturating_add(size.nodes)
            .saturating_add(2 * wrapper);
        let depth = (level - 1)
            .saturating_add(size.depth)
            .saturating_add(wrapper);
        self.new.depth = self.new.depth.max(depth);
    }

    fn expr(&mut self, e: &Expr, level: usize) {
        self.node(level);
        let next = level + 1;
        match e {
            Expr::Var(n) => self.var(n, level, true),
            Expr::Pattern(p) => self.pattern(p, next),
            Expr::Arrow(a, b)
            | Expr::Slice(a, b)
            | Expr::Broadcast(a, b)
            | Expr::Concat(_, a, b) => {
                self.expr(a, next);
                self.expr(b, next);
            }
            Expr::Compound(a, p) => {
                self.expr(a, next);
                self.pred(p, next);
            }
            Expr::Axes(_) | Expr::Sizes(_) | Expr::Slices(_) => {}
            Expr::Transpose(_, a) | Expr::Reduce(_, a) | Expr::Repeat(_, _, a) => {
                self.expr(a, next)
            }
        }
    }

    /// The items of a pattern, whose contents are at `level`.
    fn pattern(&mut self, p: &Pattern, level: usize) {
        for item in &p.items {
            // An item is a node, but not a level: count it at its pattern's level.
            self.node(level - 1);
            match item {
                Item::Dim(d) | Item::Broadcast(d) => self.dim(d, level),
                Item::Variadic(n) => self.var(n, level, false),
                Item::Any | Item::Ellipsis => {}
            }
        }
    }

    fn dim(&mut self, d: &DimExpr, level: usize) {
        self.node(level);
        let next = level + 1;
        match d {
            DimExpr::Lit(_) => {}
            DimExpr::Var(n) => self.var(n, level, false),
            DimExpr::Bin(_, a, b) => {
                self.dim(a, next);
                self.dim(b, next);
            }
            DimExpr::Rank(e) | DimExpr::Prod(e) | DimExpr::Sum(e) | DimExpr::Index(e, _) => {
                self.expr(e, next)
            }
        }
    }

    fn operand(&mut self, o: &Operand, level: usize) {
        match o {
            Operand::Size(d) => self.dim(d, level),
            Operand::ForAll(e) => self.expr(e, level),
        }
    }

    fn pred(&mut self, p: &Pred, level: usize) {
        self.node(level);
        let next = level + 1;
        match p {
            Pred::Cmp(_, a, b) => {
                self.operand(a, next);
                self.operand(b, next);
            }
            Pred::Broadcastable(a, b) => {
                self.expr(a, next);
                self.expr(b, next);
            }
            Pred::And(a, b) | Pred::Or(a, b) => {
                self.pred(a, next);
                self.pred(b, next);
            }
        }
    }

    /// An error when writing the values in would take the term past a limit (and it was
    /// not already past it as written).
    fn check(self) -> Result<(), InferError> {
        let limit = MAX_DEPTH;
        if self.new.depth > limit.max(self.own.depth) {
            return err(InferErrorKind::TermTooDeep { limit });
        }
        let limit = MAX_NODES;
        if self.new.nodes > limit.max(self.own.nodes) {
            return err(InferErrorKind::TermTooLarge { limit });
        }
        Ok(())
    }
}

/// Whether `s` may be written into the expression without building a term past the limits.
/// Values of one node (literals, variables) cannot make a term grow, but for a size written
/// where a shape is expected becoming a one-dim pattern, so nothing is walked then: the
/// common case, concrete shapes or variables renamed to variables, pays nothing.
pub(crate) fn check_expr(e: &Expr, s: &dyn Values) -> Result<(), InferError> {
    if !s.may_grow_terms() {
        return Ok(());
    }
    let mut w = Walk::new(Some(s));
    w.expr(e, 1);
    w.check()
}

/// [`check_expr`] for a pattern.
pub(crate) fn check_pattern(p: &Pattern, s: &dyn Values) -> Result<(), InferError> {
    if !s.may_grow_terms() {
        return Ok(());
    }
    let mut w = Walk::new(Some(s));
    w.pattern(p, 2);
    w.check()
}

/// [`check_expr`] for a size.
pub(crate) fn check_dim(d: &DimExpr, s: &dyn Values) -> Result<(), InferError> {
    if !s.may_grow_terms() || matches!(d, DimExpr::Lit(_)) {
        return Ok(());
    }
    let mut w = Walk::new(Some(s));
    w.dim(d, 1);
    w.check()
}

/// [`check_expr`] for a constraint.
pub(crate) fn check_pred(p: &Pred, s: &dyn Values) -> Result<(), InferError> {
    if !s.may_grow_terms() {
        return Ok(());
    }
    let mut w = Walk::new(Some(s));
    w.pred(p, 1);
    w.check()
}
