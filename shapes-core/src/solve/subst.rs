//! [`Substitution`]: what each variable stands for, kept idempotent.
//!
//! Invariant: no bound value mentions a bound variable. Binding `v := t` first resolves `t`
//! against the substitution, and then rewrites the values that mention `v`. So applying a
//! substitution once is the same as applying it any number of times (gorgonia's list of
//! substitutions loses this: `(a, a) → (a, b) → (b,)` applied to `(x, 3)` then `(5, 4)` gives
//! `(4,)` there, because `a ↦ x` is never updated when `x ↦ 3` arrives).
//!
//! Variables are looked up by name: the few variables of one application live in a small
//! inline vector, and comparing two names first compares their pointers. From
//! [`INDEXED_FROM`] bindings on, hash indexes sit beside the vector (where each variable is
//! bound, and which values mention a variable), so that binding thousands of variables stays
//! near-linear instead of quadratic.

use std::collections::HashMap;
use std::fmt;

use smallvec::SmallVec;

use super::size::{self, Size, Values};
use crate::expr::visit::visit_dim_vars;
pub(crate) use crate::expr::visit::{dim_mentions, expr_mentions, same, visit_expr_vars};
use crate::expr::{DimExpr, Expr, Item, Name, Operand, Pattern, Pred};

/// What a variable is bound to: one size, or a whole expression (a shape, an arrow, a list of
/// axes, slices).
///
/// A size used where a shape is expected is the rank-1 shape holding it, as in the grammar
/// (`a → Π a` returns `(Π a,)`).
///
/// ```
/// use shapes::{solve::{unify, Term}, expr::{parse, DimExpr}};
///
/// let s = unify(&parse("(a, b)").unwrap(), &parse("(2, (3, 4))").unwrap()).unwrap_err();
/// assert!(s.to_string().contains("2 dims"));
/// let s = unify(&parse("(a, b)").unwrap(), &parse("(2, 3)").unwrap()).unwrap();
/// assert_eq!(s.get("a"), Some(&Term::Dim(DimExpr::Lit(2))));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Term {
    /// One size: `a ↦ 3`, `a ↦ b × 2`.
    Dim(DimExpr),
    /// A whole expression: `a ↦ (2, 3)`, `f ↦ () → ()`, `*batch ↦ (4, 8)`.
    Expr(Expr),
}

impl Term {
    /// This term in a shape position: a size becomes the rank-1 shape holding it.
    ///
    /// ```
    /// use shapes::{expr::{DimExpr, Expr}, solve::Term};
    /// assert_eq!(Term::Dim(DimExpr::Lit(3)).to_expr(), Expr::shape(&[3]));
    /// ```
    pub fn to_expr(&self) -> Expr {
        match self {
            Term::Dim(d) => Expr::Pattern(Pattern::new(vec![Item::Dim(d.clone())])),
            Term::Expr(e) => e.clone(),
        }
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Dim(d) => fmt::Display::fmt(d, f),
            Term::Expr(e) => fmt::Display::fmt(e, f),
        }
    }
}

/// An idempotent substitution: variable names bound to [`Term`]s, none of which mentions a
/// bound variable.
///
/// Built by [`unify`](crate::solve::unify) (and internally by [`infer_app`](crate::solve::infer_app)).
///
/// ```
/// use shapes::{solve::{unify, Term}, expr::{parse, DimExpr}};
///
/// // gorgonia returns {c/b, b/a} here, which is not idempotent (a ↦ b while b ↦ c).
/// let s = unify(&parse("(a, b)").unwrap(), &parse("(b, c)").unwrap()).unwrap();
/// assert_eq!(s.to_string(), "{a ↦ c, b ↦ c}");
/// assert_eq!(s.apply(&parse("(a, b, c)").unwrap()).to_string(), "(c, c, c)");
/// ```
#[derive(Clone, Default)]
pub struct Substitution {
    entries: SmallVec<[(Name, Term); 8]>,
    /// The size of each entry's value, to predict the size of what substitution builds.
    sizes: SmallVec<[Size; 8]>,
    /// The most nodes a value has had: with values of one node, nothing can grow.
    widest: usize,
    /// How many values are not literal sizes (only those can mention a variable).
    symbolic: usize,
    /// Built once there are [`INDEXED_FROM`] entries; `None` below (scanning a few entries is
    /// faster than hashing).
    index: Option<Box<Index>>,
}

/// From this many bindings on, a [`Substitution`] keeps an [`Index`].
const INDEXED_FROM: usize = 16;

/// Hash indexes over a substitution's entries.
#[derive(Clone, Default)]
struct Index {
    /// Where each bound variable's entry is.
    position: HashMap<Name, usize>,
    /// For each variable, the entries whose value mentioned it when that value was set: a
    /// superset of the entries that mention it now (`dependents` filters it).
    mentioned_by: HashMap<Name, SmallVec<[usize; 2]>>,
}

impl Index {
    /// Records entry `i`, `name ↦ value`.
    fn add(&mut self, i: usize, name: &Name, value: &Term) {
        self.position.insert(name.clone(), i);
        self.mentions(i, value);
    }

    /// Records the variables that `value`, the value of entry `i`, mentions.
    fn mentions(&mut self, i: usize, value: &Term) {
        if is_literal(value) {
            return;
        }
        let mut add = |n: &Name| {
            let users = self.mentioned_by.entry(n.clone()).or_default();
            if users.last() != Some(&i) {
                users.push(i);
            }
        };
        match value {
            Term::Dim(d) => visit_dim_vars(d, &mut add),
            Term::Expr(e) => visit_expr_vars(e, &mut add),
        }
    }
}

/// Equal when the bindings are (the indexes only speed up lookups).
impl PartialEq for Substitution {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl Eq for Substitution {}

impl fmt::Debug for Substitution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Substitution")
            .field("entries", &self.entries)
            .field("symbolic", &self.symbolic)
            .finish()
    }
}

fn is_literal(t: &Term) -> bool {
    matches!(t, Term::Dim(DimExpr::Lit(_)))
}

impl Substitution {
    /// The most nodes (expressions, items, sizes, constraints) a term built by substitution
    /// may have: a variable's value, or an expression once the values of its variables are
    /// written in. Past it, [`unify`](crate::solve::unify), [`infer_app`](crate::solve::infer_app) and
    /// evaluation stop with [`InferErrorKind::TermTooLarge`](crate::solve::InferErrorKind) rather
    /// than build terms that grow exponentially (`(x0, …, x29)` against
    /// `(x1 + x1, …, x30 + x30)` doubles `x0`'s value thirty times). An expression already
    /// larger than this before anything is written in (a 30,000-dim pattern) may stay as
    /// large, but not grow.
    ///
    /// ```
    /// use shapes::{solve::{unify, InferErrorKind, Substitution}, expr::parse};
    ///
    /// let xs: Vec<String> = (0..30).map(|i| format!("x{i}")).collect();
    /// let ys: Vec<String> = (1..=30).map(|i| format!("x{i} + x{i}")).collect();
    /// let a = parse(&format!("({})", xs.join(", "))).unwrap();
    /// let b = parse(&format!("({})", ys.join(", "))).unwrap();
    /// let err = unify(&a, &b).unwrap_err();
    /// assert_eq!(err.kind(), &InferErrorKind::TermTooLarge { limit: Substitution::MAX_TERM_NODES });
    /// assert_eq!(err.to_string(), "the solution's terms grow past 4096 nodes");
    /// ```
    pub const MAX_TERM_NODES: usize = size::MAX_NODES;

    /// The deepest a term built by substitution may nest (expressions, sizes and constraints
    /// inside one another; a pattern's items are not a level): a variable's value, or an
    /// expression once the values of its variables are written in, or a product or sum of
    /// symbolic dims (`Π (a, b, c)` is `a × b × c`, three levels). Past it, solving stops
    /// with [`InferErrorKind::TermTooDeep`](crate::solve::InferErrorKind) rather than build terms
    /// whose recursive walks (evaluation, printing, `Drop`) could exhaust a thread's stack:
    /// `(x0, …, x49)` against `(x1 + 1 + … + 1, …)` nests `x0`'s value 100 levels deeper at
    /// each binding. Like the parser's nesting limit, this keeps the solver within a 2 MiB
    /// thread stack, debug builds included. An expression already deeper as written may stay
    /// as deep, but not grow.
    ///
    /// ```
    /// use shapes::{solve::{unify, InferErrorKind, Substitution}, expr::parse};
    ///
    /// let xs: Vec<String> = (0..50).map(|i| format!("x{i}")).collect();
    /// let ys: Vec<String> = (1..=50).map(|i| format!("x{i}{}", " + 1".repeat(100))).collect();
    /// let a = parse(&format!("({})", xs.join(", "))).unwrap();
    /// let b = parse(&format!("({})", ys.join(", "))).unwrap();
    /// let err = unify(&a, &b).unwrap_err();
    /// assert_eq!(err.kind(), &InferErrorKind::TermTooDeep { limit: Substitution::MAX_TERM_DEPTH });
    /// assert_eq!(err.to_string(), "the solution's terms nest deeper than 256 levels");
    /// ```
    pub const MAX_TERM_DEPTH: usize = size::MAX_DEPTH;

    /// The empty substitution.
    ///
    /// ```
    /// assert!(shapes::solve::Substitution::new().is_empty());
    /// ```
    pub fn new() -> Self {
        Substitution::default()
    }

    /// What `name` is bound to, if anything.
    ///
    /// ```
    /// use shapes::{solve::{unify, Term}, expr::parse};
    /// let s = unify(&parse("a").unwrap(), &parse("(2, 3)").unwrap()).unwrap();
    /// assert_eq!(s.get("a"), Some(&Term::Expr(parse("(2, 3)").unwrap())));
    /// assert_eq!(s.get("b"), None);
    /// ```
    pub fn get(&self, name: &str) -> Option<&Term> {
        if let Some(index) = &self.index {
            // ok: `position` only holds indices of `entries`, which only grows.
            return index.position.get(name).map(|&i| &self.entries[i].1);
        }
        self.entries
            .iter()
            .find(|(n, _)| n.as_str() == name)
            .map(|(_, t)| t)
    }

    #[inline]
    pub(crate) fn lookup(&self, name: &Name) -> Option<&Term> {
        self.position(name).map(|i| &self.entries[i].1) // ok: `position` is an index of `entries`.
    }

    /// What `name` is bound to, with that value's size.
    #[inline]
    pub(crate) fn lookup_sized(&self, name: &Name) -> Option<(&Term, Size)> {
        // ok: `position` is an index of `entries`, and `sizes` is as long as `entries`.
        self.position(name)
            .map(|i| (&self.entries[i].1, self.sizes[i]))
    }

    #[inline]
    fn position(&self, name: &Name) -> Option<usize> {
        if let Some(index) = &self.index {
            return index.position.get(name).copied();
        }
        self.entries.iter().position(|(n, _)| same(n, name))
    }

    /// How many variables are bound.
    ///
    /// ```
    /// use shapes::{solve::unify, expr::parse};
    /// assert_eq!(unify(&parse("(a, b)").unwrap(), &parse("(1, 2)").unwrap()).unwrap().len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is bound.
    ///
    /// ```
    /// use shapes::{solve::unify, expr::parse};
    /// assert!(unify(&parse("a").unwrap(), &parse("a").unwrap()).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The bindings, in the order they were made.
    ///
    /// ```
    /// use shapes::{solve::unify, expr::parse};
    /// let s = unify(&parse("(a, b)").unwrap(), &parse("(1, 2)").unwrap()).unwrap();
    /// let names: Vec<&str> = s.iter().map(|(n, _)| n.as_str()).collect();
    /// assert_eq!(names, ["a", "b"]);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Name, &Term)> + '_ {
        self.entries.iter().map(|(n, t)| (n, t))
    }

    /// Replaces every bound variable in `e` by its value (a bound `*name` is spliced into its
    /// pattern). Nothing is evaluated: `Π a` with `a ↦ (2, 3)` becomes `Π (2, 3)`; use
    /// [`Expr::eval`] to compute. Each value has at most [`MAX_TERM_NODES`](Self::MAX_TERM_NODES)
    /// nodes, and is written in once per occurrence of its variable.
    ///
    /// ```
    /// use shapes::{solve::unify, expr::parse};
    /// let s = unify(&parse("(*batch, d)").unwrap(), &parse("(4, 8, 16)").unwrap()).unwrap();
    /// assert_eq!(s.apply(&parse("(*batch, Π batch)").unwrap()).to_string(), "(4, 8, Π (4, 8))");
    /// ```
    pub fn apply(&self, e: &Expr) -> Expr {
        self.subst_expr(e)
    }

    /// Adds `name ↦ value`. The caller guarantees that `name` is unbound, that `value` is
    /// already resolved against this substitution and does not mention `name`. Values that
    /// mention `name` are rewritten (by `rewrite`, which evaluates them) to keep the
    /// substitution idempotent.
    pub(crate) fn push(&mut self, name: Name, value: Term) {
        self.symbolic += usize::from(!is_literal(&value));
        if let Some(index) = &mut self.index {
            index.add(self.entries.len(), &name, &value);
        }
        let size = term_size(&value);
        self.widest = self.widest.max(size.nodes);
        self.sizes.push(size);
        self.entries.push((name, value));
        if self.index.is_none() && self.entries.len() >= INDEXED_FROM {
            let mut index = Index::default();
            for (i, (n, t)) in self.entries.iter().enumerate() {
                index.add(i, n, t);
            }
            self.index = Some(Box::new(index));
        }
    }

    /// Whether some bound value is not a literal size (and so may need rewriting when a
    /// variable it mentions is bound).
    pub(crate) fn has_symbolic_values(&self) -> bool {
        self.symbolic > 0
    }

    /// Indices of the bindings (other than the last) whose value mentions `name`.
    pub(crate) fn dependents(&self, name: &Name) -> SmallVec<[usize; 4]> {
        let last = self.entries.len().saturating_sub(1);
        if let Some(index) = &self.index {
            let Some(users) = index.mentioned_by.get(name) else {
                return SmallVec::new();
            };
            // ok: `mentioned_by` only holds indices of `entries`.
            let mut found: SmallVec<[usize; 4]> = users
                .iter()
                .copied()
                .filter(|&i| i < last && term_mentions(&self.entries[i].1, name))
                .collect();
            found.sort_unstable();
            found.dedup();
            return found;
        }
        // ok: `last <= self.entries.len()`.
        self.entries[..last]
            .iter()
            .enumerate()
            .filter(|(_, (_, t))| term_mentions(t, name))
            .map(|(i, _)| i)
            .collect()
    }

    // ok (here and in `set_value`): the one caller passes an index from `dependents`, and
    // `entries` only ever grows, so the index stays in bounds.
    pub(crate) fn value(&self, i: usize) -> &Term {
        &self.entries[i].1
    }

    pub(crate) fn set_value(&mut self, i: usize, t: Term) {
        let was = is_literal(&self.entries[i].1);
        let now = is_literal(&t);
        self.symbolic = self.symbolic + usize::from(was && !now) - usize::from(!was && now);
        if let Some(index) = &mut self.index {
            index.mentions(i, &t);
        }
        let size = term_size(&t);
        self.widest = self.widest.max(size.nodes);
        self.sizes[i] = size;
        self.entries[i].1 = t;
    }

    /// `e` with the values written in, printed for an error message; as written when that
    /// would build a term past the limits.
    pub(crate) fn show_expr(&self, e: &Expr) -> String {
        match size::check_expr(e, self) {
            Ok(()) => self.subst_expr(e).to_string(),
            Err(_) => e.to_string(),
        }
    }

    /// [`show_expr`](Self::show_expr) for a pattern.
    pub(crate) fn show_pattern(&self, p: &Pattern) -> String {
        match size::check_pattern(p, self) {
            Ok(()) => self.subst_pattern(p).to_string(),
            Err(_) => p.to_string(),
        }
    }

    // ---- pure substitution (no evaluation) ----

    pub(crate) fn subst_expr(&self, e: &Expr) -> Expr {
        if self.entries.is_empty() {
            return e.clone();
        }
        match e {
            Expr::Var(n) => match self.lookup(n) {
                Some(t) => t.to_expr(),
                None => e.clone(),
            },
            Expr::Pattern(p) => Expr::Pattern(self.subst_pattern(p)),
            Expr::Arrow(a, b) => Expr::arrow(self.subst_expr(a), self.subst_expr(b)),
            Expr::Compound(a, p) => {
                Expr::Compound(Box::new(self.subst_expr(a)), Box::new(self.subst_pred(p)))
            }
            Expr::Axes(_) | Expr::Sizes(_) | Expr::Slices(_) => e.clone(),
            Expr::Slice(a, b) => {
                Expr::Slice(Box::new(self.subst_expr(a)), Box::new(self.subst_expr(b)))
            }
            Expr::Transpose(ax, a) => Expr::Transpose(ax.clone(), Box::new(self.subst_expr(a))),
            Expr::Reduce(ax, a) => Expr::Reduce(*ax, Box::new(self.subst_expr(a))),
            Expr::Broadcast(a, b) => {
                Expr::Broadcast(Box::new(self.subst_expr(a)), Box::new(self.subst_expr(b)))
            }
            Expr::Repeat(ax, r, a) => Expr::Repeat(*ax, r.clone(), Box::new(self.subst_expr(a))),
            Expr::Concat(ax, a, b) => Expr::Concat(
                *ax,
                Box::new(self.subst_expr(a)),
                Box::new(self.subst_expr(b)),
            ),
        }
    }

    pub(crate) fn subst_pattern(&self, p: &Pattern) -> Pattern {
        let mut items = Vec::with_capacity(p.items.len());
        for item in &p.items {
            match item {
                Item::Dim(d) => items.push(Item::Dim(self.subst_dim(d))),
                Item::Broadcast(d) => items.push(Item::Broadcast(self.subst_dim(d))),
                Item::Any | Item::Ellipsis => items.push(item.clone()),
                Item::Variadic(n) => match self.lookup(n) {
                    Some(Term::Expr(Expr::Pattern(q))) => items.extend(q.items.iter().cloned()),
                    Some(Term::Expr(Expr::Var(m))) => items.push(Item::Variadic(m.clone())),
                    // A variadic bound to a size covers one dim; to anything else (a kind
                    // error caught by the unifier), it stays as written.
                    Some(Term::Dim(d)) => items.push(Item::Dim(d.clone())),
                    _ => items.push(item.clone()),
                },
            }
        }
        Pattern::new(items)
    }

    pub(crate) fn subst_dim(&self, d: &DimExpr) -> DimExpr {
        match d {
            DimExpr::Lit(_) => d.clone(),
            DimExpr::Var(n) => match self.lookup(n) {
                Some(Term::Dim(v)) => v.clone(),
                // A shape in a dim position is a kind error, reported by evaluation; left
                // unsubstituted here.
                _ => d.clone(),
            },
            DimExpr::Bin(op, a, b) => DimExpr::Bin(
                *op,
                Box::new(self.subst_dim(a)),
                Box::new(self.subst_dim(b)),
            ),
            DimExpr::Rank(e) => DimExpr::Rank(Box::new(self.subst_expr(e))),
            DimExpr::Prod(e) => DimExpr::Prod(Box::new(self.subst_expr(e))),
            DimExpr::Sum(e) => DimExpr::Sum(Box::new(self.subst_expr(e))),
            DimExpr::Index(e, i) => {
                let e = self.subst_expr(e);
                // An axis of a list of sizes or axes is a literal: written in, since
                // `Sz[…][i]` has no spelling of its own (only a name or a pattern is indexed).
                if let Expr::Sizes(v) | Expr::Axes(v) = &e {
                    let j = if *i < 0 {
                        v.len().checked_sub(i.unsigned_abs())
                    } else {
                        Some(i.unsigned_abs())
                    };
                    if let Some(&n) = j.and_then(|j| v.get(j)) {
                        return DimExpr::Lit(n);
                    }
                }
                DimExpr::Index(Box::new(e), *i)
            }
        }
    }

    pub(crate) fn subst_pred(&self, p: &Pred) -> Pred {
        let operand = |o: &Operand| match o {
            Operand::Size(d) => Operand::Size(self.subst_dim(d)),
            Operand::ForAll(e) => Operand::ForAll(self.subst_expr(e)),
        };
        match p {
            Pred::Cmp(op, a, b) => Pred::Cmp(*op, operand(a), operand(b)),
            Pred::Broadcastable(a, b) => {
                Pred::Broadcastable(self.subst_expr(a), self.subst_expr(b))
            }
            Pred::And(a, b) => {
                Pred::And(Box::new(self.subst_pred(a)), Box::new(self.subst_pred(b)))
            }
            Pred::Or(a, b) => Pred::Or(Box::new(self.subst_pred(a)), Box::new(self.subst_pred(b))),
        }
    }
}

impl fmt::Display for Substitution {
    /// `{a ↦ 2, b ↦ (3, 4)}`, in binding order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, (n, t)) in self.entries.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{n} ↦ {t}")?;
        }
        f.write_str("}")
    }
}

// ---- variable occurrence ----

pub(crate) fn term_mentions(t: &Term, v: &Name) -> bool {
    match t {
        Term::Dim(d) => dim_mentions(d, v),
        Term::Expr(e) => expr_mentions(e, v),
    }
}

impl Values for Substitution {
    fn value_size(&self, name: &Name) -> Option<(Size, bool)> {
        self.lookup_sized(name)
            .map(|(t, size)| (size, matches!(t, Term::Dim(_))))
    }

    /// Whether some value has had more than one node.
    fn may_grow_terms(&self) -> bool {
        self.widest > 1
    }
}

/// The size of a bound value.
fn term_size(t: &Term) -> Size {
    match t {
        Term::Dim(d) => Size::of_dim(d),
        Term::Expr(e) => Size::of_expr(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::parse;
    use crate::solve::{infer_app, unify};

    fn list(f: impl Fn(usize) -> String, range: std::ops::Range<usize>) -> String {
        let v: Vec<String> = range.map(f).collect();
        format!("({})", v.join(", "))
    }

    /// No bound value mentions a bound variable, and every binding is found by `get`, by
    /// `lookup` and by a scan alike.
    fn assert_consistent(s: &Substitution) {
        for (n, t) in s.iter() {
            assert_eq!(s.get(n.as_str()), Some(t), "{n}");
            assert_eq!(s.lookup(n), Some(t), "{n}");
            let mut bound_var = None;
            let mut check = |m: &Name| {
                if s.entries.iter().any(|(b, _)| b == m) {
                    bound_var = Some(m.clone());
                }
            };
            match t {
                Term::Dim(d) => visit_dim_vars(d, &mut check),
                Term::Expr(e) => visit_expr_vars(e, &mut check),
            }
            assert_eq!(bound_var, None, "{n} ↦ {t} mentions a bound variable");
        }
        assert_eq!(s.get("unbound"), None);
    }

    /// Below, at and above the size where the indexes are built, with values rewritten when a
    /// variable they mention is bound.
    #[test]
    fn indexed_bindings_match_scanned_ones() {
        for n in [3, 14, 15, 16, 17, 40, 300] {
            // a0 ↦ a1, then a1 ↦ a2 rewrites a0, …: everything ends bound to a{n}.
            let a = list(|i| format!("a{i}"), 0..n);
            let b = list(|i| format!("a{}", i + 1), 0..n);
            let s = unify(&parse(&a).unwrap(), &parse(&b).unwrap()).unwrap();
            assert_eq!(s.len(), n);
            let last = Term::Dim(DimExpr::Var(Name::new(&format!("a{n}"))));
            assert!(s.iter().all(|(_, t)| *t == last), "{s}");
            assert_consistent(&s);
            // Every x{i} ↦ x{n} × (i + 1) + w, then x{n} and w bound: every value folds.
            let x = list(|i| format!("x{i}"), 0..n + 2).replace(&format!("x{}", n + 1), "w");
            let y = format!(
                "{}, 7, 3)",
                list(|i| format!("x{n} * {} + w", i + 1), 0..n).trim_end_matches(')')
            );
            let s = unify(&parse(&x).unwrap(), &parse(&y).unwrap()).unwrap();
            assert_consistent(&s);
            for i in 0..n {
                let want = Term::Dim(DimExpr::Lit(7 * (i + 1) + 3));
                assert_eq!(s.get(&format!("x{i}")), Some(&want));
            }
        }
    }

    /// Issue reproducer: 30,000 symbolic dims took 6.9 s, every lookup and every search for
    /// the values to rewrite scanning all bindings.
    #[test]
    fn thirty_thousand_symbolic_dims_finish() {
        let n = 30_000;
        let d = list(|i| format!("d{i}"), 0..n);
        let s = list(|i| format!("s{i}"), 0..n);
        let f = parse(&format!("{d} -> {d}")).unwrap();
        let start = std::time::Instant::now();
        let arg = parse(&s).unwrap();
        assert_eq!(infer_app(&f, std::slice::from_ref(&arg)).unwrap(), arg);
        let dims: Vec<usize> = (0..n).collect();
        let arg = Expr::shape(&dims);
        assert_eq!(infer_app(&f, std::slice::from_ref(&arg)).unwrap(), arg);
        let sub = unify(&parse(&d).unwrap(), &parse(&s).unwrap()).unwrap();
        assert_eq!(sub.len(), n);
        assert_eq!(sub.get("d29999").unwrap().to_string(), "s29999");
        // Generous for a debug build on a loaded machine; the quadratic version took minutes.
        assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    }
}
