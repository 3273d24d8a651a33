//! [`Substitution`]: what each variable stands for, kept idempotent.
//!
//! Invariant: no bound value mentions a bound variable. Binding `v := t` first resolves `t`
//! against the substitution, and then rewrites the values that mention `v`. So applying a
//! substitution once is the same as applying it any number of times (gorgonia's list of
//! substitutions loses this: `(a, a) → (a, b) → (b,)` applied to `(x, 3)` then `(5, 4)` gives
//! `(4,)` there, because `a ↦ x` is never updated when `x ↦ 3` arrives).
//!
//! Variables are looked up by name: the few variables of one application live in a small
//! inline vector, and comparing two names first compares their pointers.

use std::fmt;

use smallvec::SmallVec;

use crate::expr::{DimExpr, Expr, Item, Name, Operand, Pattern, Pred};

/// What a variable is bound to: one size, or a whole expression (a shape, an arrow, a list of
/// axes, slices).
///
/// A size used where a shape is expected is the rank-1 shape holding it, as in the grammar
/// (`a → Π a` returns `(Π a,)`).
///
/// ```
/// use shapes::{unify, parse, DimExpr, Term};
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
    /// use shapes::{DimExpr, Expr, Term};
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
/// Built by [`unify`](crate::unify) (and internally by [`infer_app`](crate::infer_app)).
///
/// ```
/// use shapes::{unify, parse, DimExpr, Term};
///
/// // gorgonia returns {c/b, b/a} here, which is not idempotent (a ↦ b while b ↦ c).
/// let s = unify(&parse("(a, b)").unwrap(), &parse("(b, c)").unwrap()).unwrap();
/// assert_eq!(s.to_string(), "{a ↦ c, b ↦ c}");
/// assert_eq!(s.apply(&parse("(a, b, c)").unwrap()).to_string(), "(c, c, c)");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Substitution {
    entries: SmallVec<[(Name, Term); 8]>,
    /// How many values are not literal sizes (only those can mention a variable).
    symbolic: usize,
}

fn is_literal(t: &Term) -> bool {
    matches!(t, Term::Dim(DimExpr::Lit(_)))
}

/// Same variable? Pointer equality first (names cloned from one parse share it).
#[inline]
pub(crate) fn same(a: &Name, b: &Name) -> bool {
    name_ptr_eq(a, b) || a.as_str() == b.as_str()
}

#[inline]
fn name_ptr_eq(a: &Name, b: &Name) -> bool {
    std::ptr::eq(a.as_str().as_ptr(), b.as_str().as_ptr()) && a.as_str().len() == b.as_str().len()
}

impl Substitution {
    /// The empty substitution.
    ///
    /// ```
    /// assert!(shapes::Substitution::new().is_empty());
    /// ```
    pub fn new() -> Self {
        Substitution::default()
    }

    /// What `name` is bound to, if anything.
    ///
    /// ```
    /// use shapes::{unify, parse, Term};
    /// let s = unify(&parse("a").unwrap(), &parse("(2, 3)").unwrap()).unwrap();
    /// assert_eq!(s.get("a"), Some(&Term::Expr(parse("(2, 3)").unwrap())));
    /// assert_eq!(s.get("b"), None);
    /// ```
    pub fn get(&self, name: &str) -> Option<&Term> {
        self.entries
            .iter()
            .find(|(n, _)| n.as_str() == name)
            .map(|(_, t)| t)
    }

    #[inline]
    pub(crate) fn lookup(&self, name: &Name) -> Option<&Term> {
        self.entries
            .iter()
            .find(|(n, _)| same(n, name))
            .map(|(_, t)| t)
    }

    /// How many variables are bound.
    ///
    /// ```
    /// use shapes::{unify, parse};
    /// assert_eq!(unify(&parse("(a, b)").unwrap(), &parse("(1, 2)").unwrap()).unwrap().len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is bound.
    ///
    /// ```
    /// use shapes::{unify, parse};
    /// assert!(unify(&parse("a").unwrap(), &parse("a").unwrap()).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The bindings, in the order they were made.
    ///
    /// ```
    /// use shapes::{unify, parse};
    /// let s = unify(&parse("(a, b)").unwrap(), &parse("(1, 2)").unwrap()).unwrap();
    /// let names: Vec<&str> = s.iter().map(|(n, _)| n.as_str()).collect();
    /// assert_eq!(names, ["a", "b"]);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Name, &Term)> + '_ {
        self.entries.iter().map(|(n, t)| (n, t))
    }

    /// Replaces every bound variable in `e` by its value (a bound `*name` is spliced into its
    /// pattern). Nothing is evaluated: `Π a` with `a ↦ (2, 3)` becomes `Π (2, 3)`; use
    /// [`Expr::eval`] to compute.
    ///
    /// ```
    /// use shapes::{unify, parse};
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
        self.entries.push((name, value));
    }

    /// Whether some bound value is not a literal size (and so may need rewriting when a
    /// variable it mentions is bound).
    pub(crate) fn has_symbolic_values(&self) -> bool {
        self.symbolic > 0
    }

    /// Indices of the bindings (other than the last) whose value mentions `name`.
    pub(crate) fn dependents(&self, name: &Name) -> SmallVec<[usize; 4]> {
        let last = self.entries.len().saturating_sub(1);
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
        self.entries[i].1 = t;
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
            DimExpr::Index(e, i) => DimExpr::Index(Box::new(self.subst_expr(e)), *i),
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

pub(crate) fn expr_mentions(e: &Expr, v: &Name) -> bool {
    let mut found = false;
    visit_expr_vars(e, &mut |n| found |= same(n, v));
    found
}

pub(crate) fn dim_mentions(d: &DimExpr, v: &Name) -> bool {
    let mut found = false;
    visit_dim_vars(d, &mut |n| found |= same(n, v));
    found
}

/// Calls `f` on every variable occurrence in `e` (shape, dim and variadic variables alike).
pub(crate) fn visit_expr_vars(e: &Expr, f: &mut dyn FnMut(&Name)) {
    match e {
        Expr::Var(n) => f(n),
        Expr::Pattern(p) => visit_pattern_vars(p, f),
        Expr::Arrow(a, b) | Expr::Slice(a, b) | Expr::Broadcast(a, b) | Expr::Concat(_, a, b) => {
            visit_expr_vars(a, f);
            visit_expr_vars(b, f);
        }
        Expr::Compound(a, p) => {
            visit_expr_vars(a, f);
            visit_pred_vars(p, f);
        }
        Expr::Axes(_) | Expr::Sizes(_) | Expr::Slices(_) => {}
        Expr::Transpose(_, a) | Expr::Reduce(_, a) | Expr::Repeat(_, _, a) => visit_expr_vars(a, f),
    }
}

pub(crate) fn visit_pattern_vars(p: &Pattern, f: &mut dyn FnMut(&Name)) {
    for item in &p.items {
        match item {
            Item::Dim(d) | Item::Broadcast(d) => visit_dim_vars(d, f),
            Item::Variadic(n) => f(n),
            Item::Any | Item::Ellipsis => {}
        }
    }
}

pub(crate) fn visit_dim_vars(d: &DimExpr, f: &mut dyn FnMut(&Name)) {
    match d {
        DimExpr::Lit(_) => {}
        DimExpr::Var(n) => f(n),
        DimExpr::Bin(_, a, b) => {
            visit_dim_vars(a, f);
            visit_dim_vars(b, f);
        }
        DimExpr::Rank(e) | DimExpr::Prod(e) | DimExpr::Sum(e) | DimExpr::Index(e, _) => {
            visit_expr_vars(e, f)
        }
    }
}

pub(crate) fn visit_pred_vars(p: &Pred, f: &mut dyn FnMut(&Name)) {
    let operand = |o: &Operand, f: &mut dyn FnMut(&Name)| match o {
        Operand::Size(d) => visit_dim_vars(d, f),
        Operand::ForAll(e) => visit_expr_vars(e, f),
    };
    match p {
        Pred::Cmp(_, a, b) => {
            operand(a, f);
            operand(b, f);
        }
        Pred::Broadcastable(a, b) => {
            visit_expr_vars(a, f);
            visit_expr_vars(b, f);
        }
        Pred::And(a, b) | Pred::Or(a, b) => {
            visit_pred_vars(a, f);
            visit_pred_vars(b, f);
        }
    }
}
