//! Unification: making two expressions equal by binding variables, with an idempotent
//! [`Substitution`], kinds respected (an arrow never unifies with a shape), arithmetic
//! inverted for one unknown, and equations that cannot be decided yet kept as constraints.

use std::borrow::Cow;

use super::arith::{Solved, solve};
use super::error::{InferError, InferErrorKind, err};
use super::eval::{Truth, eval_dim, eval_expr, eval_pattern, eval_pred};
use super::subst::{Substitution, Term, dim_mentions, expr_mentions, same, term_mentions};
use crate::expr::{CmpOp, DimExpr, Expr, Item, Name, Operand, Pattern, Pred};

/// The state of one solving session: the substitution, and the constraints not decided yet
/// (from `{ e | p }` and from equations between two symbolic sizes).
#[derive(Debug, Default)]
pub(crate) struct Unifier {
    pub(crate) subst: Substitution,
    pub(crate) pending: Vec<Pred>,
}

fn is_variadic(i: &Item) -> bool {
    matches!(i, Item::Ellipsis | Item::Variadic(_))
}

impl Unifier {
    /// Binds `n := t`, where `t` is evaluated under the current substitution, and keeps the
    /// substitution idempotent by re-evaluating the values that mention `n`.
    fn bind(&mut self, n: &Name, t: Term) -> Result<(), InferError> {
        if term_mentions(&t, n) {
            return err(InferErrorKind::Recursive {
                var: n.clone(),
                expr: t.to_string(),
            });
        }
        self.subst.push(n.clone(), t);
        if !self.subst.has_symbolic_values() {
            return Ok(());
        }
        for i in self.subst.dependents(n) {
            let nv = match self.subst.value(i) {
                Term::Dim(d) => Term::Dim(eval_dim(d, &self.subst)?),
                Term::Expr(e) => Term::Expr(eval_expr(e, &self.subst)?),
            };
            self.subst.set_value(i, nv);
        }
        Ok(())
    }

    /// Records an equation that cannot be decided yet.
    fn defer(&mut self, p: Pred) {
        self.pending.push(p);
    }

    /// Re-checks the pending constraints: a false one is an error, a true one is dropped.
    ///
    /// An open equation between two sizes is also solved when it has come down to one
    /// unknown (`heads × head_dim = 3072` once `heads = 4`), which may bind variables; then
    /// the pass is repeated until nothing more is learned.
    pub(crate) fn check_pending(&mut self) -> Result<(), InferError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        loop {
            let bound_before = self.subst.len();
            for p in std::mem::take(&mut self.pending) {
                match eval_pred(&p, &self.subst)? {
                    Truth::True => {}
                    Truth::False => {
                        return err(InferErrorKind::ConstraintFailed {
                            pred: self.subst.subst_pred(&p).to_string(),
                        });
                    }
                    Truth::Open => match &p {
                        Pred::Cmp(CmpOp::Eq, Operand::Size(a), Operand::Size(b)) => {
                            let (kept, bound) = (self.pending.len(), self.subst.len());
                            self.unify_dims(a, b)?;
                            if self.subst.len() == bound {
                                // nothing learned: keep the constraint as written
                                self.pending.truncate(kept);
                                self.pending.push(p);
                            }
                        }
                        _ => self.pending.push(p),
                    },
                }
            }
            if self.subst.len() == bound_before {
                return Ok(());
            }
        }
    }

    pub(crate) fn unify(&mut self, a: &Expr, b: &Expr) -> Result<(), InferError> {
        match (a, b) {
            (Expr::Var(x), Expr::Var(y)) if same(x, y) => Ok(()),
            (Expr::Var(x), _) => match self.subst.lookup(x) {
                Some(t) => {
                    let t = t.to_expr();
                    self.unify(&t, b)
                }
                None => self.bind_expr(x, b),
            },
            (_, Expr::Var(y)) => match self.subst.lookup(y) {
                Some(t) => {
                    let t = t.to_expr();
                    self.unify(a, &t)
                }
                None => self.bind_expr(y, a),
            },
            (Expr::Compound(e, p), _) => {
                self.pending.push((**p).clone());
                self.unify(e, b)
            }
            (_, Expr::Compound(e, p)) => {
                self.pending.push((**p).clone());
                self.unify(a, e)
            }
            (Expr::Pattern(p), Expr::Pattern(q)) => self.unify_patterns(p, q),
            (Expr::Arrow(a1, r1), Expr::Arrow(a2, r2)) => {
                self.unify(a1, a2)?;
                self.unify(r1, r2)
            }
            (Expr::Axes(x), Expr::Axes(y)) if x == y => Ok(()),
            (Expr::Sizes(x), Expr::Sizes(y)) if x == y => Ok(()),
            (Expr::Slices(x), Expr::Slices(y)) if x == y => Ok(()),
            (Expr::Axes(_), Expr::Axes(_))
            | (Expr::Sizes(_), Expr::Sizes(_))
            | (Expr::Slices(_), Expr::Slices(_)) => err(InferErrorKind::Mismatch {
                left: a.to_string(),
                right: b.to_string(),
            }),
            _ if is_operation(a) || is_operation(b) => self.unify_operations(a, b),
            _ => err(InferErrorKind::KindMismatch {
                left: self.subst.show_expr(a),
                right: self.subst.show_expr(b),
            }),
        }
    }

    fn bind_expr(&mut self, x: &Name, other: &Expr) -> Result<(), InferError> {
        let v = eval_expr(other, &self.subst)?;
        if let Expr::Var(y) = &v
            && same(x, y)
        {
            return Ok(());
        }
        if expr_mentions(&v, x) {
            return err(InferErrorKind::Recursive {
                var: x.clone(),
                expr: v.to_string(),
            });
        }
        self.bind(x, Term::Expr(v))
    }

    /// A shape operation on one side: evaluate both sides; if that removed the operations,
    /// unify the results; if both are the same, fine; otherwise keep `∀ a = ∀ b` (same rank,
    /// same dims) as a constraint to check once the operands are known.
    fn unify_operations(&mut self, a: &Expr, b: &Expr) -> Result<(), InferError> {
        let ea = eval_expr(a, &self.subst)?;
        let eb = eval_expr(b, &self.subst)?;
        if !is_operation(&ea) && !is_operation(&eb) {
            return self.unify(&ea, &eb);
        }
        if ea == eb {
            return Ok(());
        }
        if matches!(ea, Expr::Arrow(..)) || matches!(eb, Expr::Arrow(..)) {
            return err(InferErrorKind::KindMismatch {
                left: ea.to_string(),
                right: eb.to_string(),
            });
        }
        self.defer(Pred::Cmp(
            CmpOp::Eq,
            Operand::ForAll(ea),
            Operand::ForAll(eb),
        ));
        Ok(())
    }

    /// Expands bound variadics (`*batch` ↦ its dims) so the items can be matched one by one.
    fn expand<'p>(&self, p: &'p Pattern) -> Result<Cow<'p, [Item]>, InferError> {
        let bound = p.items.iter().any(|i| match i {
            Item::Variadic(n) => self.subst.lookup(n).is_some(),
            _ => false,
        });
        Ok(if bound {
            Cow::Owned(eval_pattern(p, &self.subst)?.items)
        } else {
            Cow::Borrowed(&p.items)
        })
    }

    fn unify_patterns(&mut self, p: &Pattern, q: &Pattern) -> Result<(), InferError> {
        let ps = self.expand(p)?;
        let qs = self.expand(q)?;
        let vp = ps.iter().position(is_variadic);
        let vq = qs.iter().position(is_variadic);
        let rank_mismatch = |this: &Self, at_least: usize| {
            err(InferErrorKind::RankMismatch {
                left: this.subst.show_pattern(p),
                right: this.subst.show_pattern(q),
                left_rank: at_least,
                right_rank: qs.len(),
            })
        };
        match (vp, vq) {
            (None, None) => {
                if ps.len() != qs.len() {
                    return rank_mismatch(self, ps.len());
                }
                for (x, y) in ps.iter().zip(qs.iter()) {
                    self.unify_items(x, y)?;
                }
                Ok(())
            }
            (Some(i), None) => {
                let fixed = ps.len() - 1;
                if qs.len() < fixed {
                    return rank_mismatch(self, fixed);
                }
                let suffix = ps.len() - i - 1;
                self.unify_ends(&ps, &qs, i, suffix)?;
                // ok: `i < ps.len()` (a position), and `qs.len() >= ps.len() - 1 == i + suffix`.
                self.bind_variadic(&ps[i], &qs[i..qs.len() - suffix])
            }
            (None, Some(j)) => {
                let fixed = qs.len() - 1;
                if ps.len() < fixed {
                    return err(InferErrorKind::RankMismatch {
                        left: self.subst.show_pattern(p),
                        right: self.subst.show_pattern(q),
                        left_rank: ps.len(),
                        right_rank: fixed,
                    });
                }
                let suffix = qs.len() - j - 1;
                self.unify_ends(&ps, &qs, j, suffix)?;
                // ok: `j < qs.len()` (a position), and `ps.len() >= qs.len() - 1 == j + suffix`.
                self.bind_variadic(&qs[j], &ps[j..ps.len() - suffix])
            }
            (Some(i), Some(j)) => {
                let prefix = i.min(j);
                let suffix = (ps.len() - i - 1).min(qs.len() - j - 1);
                self.unify_ends(&ps, &qs, prefix, suffix)?;
                // ok: `prefix <= i` and `suffix <= ps.len() - i - 1`, so
                // `prefix + suffix < ps.len()`; the same with `j` for `qs`.
                let rp = &ps[prefix..ps.len() - suffix];
                let rq = &qs[prefix..qs.len() - suffix];
                match (rp, rq) {
                    ([x], [y]) if x == y => Ok(()),
                    ([v], rest) => self.bind_variadic(v, rest),
                    (rest, [v]) => self.bind_variadic(v, rest),
                    _ => err(InferErrorKind::AmbiguousVariadic {
                        left: self.subst.show_pattern(p),
                        right: self.subst.show_pattern(q),
                    }),
                }
            }
        }
    }

    fn unify_ends(
        &mut self,
        ps: &[Item],
        qs: &[Item],
        prefix: usize,
        suffix: usize,
    ) -> Result<(), InferError> {
        // ok: every caller (`unify_patterns`) has `prefix + suffix <= len` for both `ps` and
        // `qs`, so `k < prefix` and `len - k` for `1 <= k <= suffix` are in bounds.
        for k in 0..prefix {
            self.unify_items(&ps[k], &qs[k])?;
        }
        for k in 1..=suffix {
            self.unify_items(&ps[ps.len() - k], &qs[qs.len() - k])?;
        }
        Ok(())
    }

    fn bind_variadic(&mut self, v: &Item, covered: &[Item]) -> Result<(), InferError> {
        match v {
            Item::Variadic(n) => {
                let value = eval_pattern(&Pattern::new(covered.to_vec()), &self.subst)?;
                if let [Item::Variadic(m)] = value.items.as_slice() {
                    if same(n, m) {
                        return Ok(());
                    }
                    return self.bind(n, Term::Expr(Expr::Var(m.clone())));
                }
                self.bind(n, Term::Expr(Expr::Pattern(value)))
            }
            _ => Ok(()),
        }
    }

    fn unify_items(&mut self, x: &Item, y: &Item) -> Result<(), InferError> {
        match (x, y) {
            (Item::Dim(a), Item::Dim(b)) => self.unify_dims(a, b),
            (Item::Any, _) | (_, Item::Any) => Ok(()),
            (Item::Broadcast(b), Item::Dim(d)) | (Item::Dim(d), Item::Broadcast(b)) => {
                self.unify_broadcastable(b, d)
            }
            (Item::Broadcast(a), Item::Broadcast(b)) => {
                let a = eval_dim(a, &self.subst)?;
                let b = eval_dim(b, &self.subst)?;
                match (&a, &b) {
                    (DimExpr::Lit(m), DimExpr::Lit(n)) if m != n && *m != 1 && *n != 1 => {
                        err(InferErrorKind::Mismatch {
                            left: a.to_string(),
                            right: b.to_string(),
                        })
                    }
                    _ => Ok(()),
                }
            }
            // variadics are matched by `unify_patterns`
            _ => Ok(()),
        }
    }

    /// `#b` against a dim `d`: a size of 1 is always accepted and binds nothing; otherwise
    /// `d` must equal `b`.
    fn unify_broadcastable(&mut self, b: &DimExpr, d: &DimExpr) -> Result<(), InferError> {
        let dv = eval_dim(d, &self.subst)?;
        if dv == DimExpr::Lit(1) {
            return Ok(());
        }
        if let DimExpr::Lit(_) = dv {
            return self.unify_dims(b, &dv);
        }
        let bv = eval_dim(b, &self.subst)?;
        if bv == dv {
            return Ok(());
        }
        // d unknown: it is b, or 1
        self.defer(Pred::Or(
            Box::new(Pred::Cmp(
                CmpOp::Eq,
                Operand::Size(dv.clone()),
                Operand::Size(bv),
            )),
            Box::new(Pred::Cmp(
                CmpOp::Eq,
                Operand::Size(dv),
                Operand::Size(DimExpr::Lit(1)),
            )),
        ));
        Ok(())
    }

    /// A dim seen through the substitution without evaluating or cloning anything.
    fn shallow<'d>(&self, d: &'d DimExpr) -> Shallow<'d> {
        match d {
            DimExpr::Lit(n) => Shallow::Lit(*n),
            DimExpr::Var(x) => match self.subst.lookup(x) {
                None => Shallow::Unbound(x),
                Some(Term::Dim(DimExpr::Lit(n))) => Shallow::Lit(*n),
                Some(_) => Shallow::Other,
            },
            _ => Shallow::Other,
        }
    }

    pub(crate) fn unify_dims(&mut self, a: &DimExpr, b: &DimExpr) -> Result<(), InferError> {
        // Fast path: literals and variables bound to literals or unbound, the common case,
        // need no evaluation and no clone.
        match (self.shallow(a), self.shallow(b)) {
            (Shallow::Lit(x), Shallow::Lit(y)) => {
                return if x == y {
                    Ok(())
                } else {
                    err(InferErrorKind::Mismatch {
                        left: x.to_string(),
                        right: y.to_string(),
                    })
                };
            }
            (Shallow::Unbound(x), Shallow::Lit(n)) | (Shallow::Lit(n), Shallow::Unbound(x)) => {
                return self.bind(x, Term::Dim(DimExpr::Lit(n)));
            }
            (Shallow::Unbound(x), Shallow::Unbound(y)) => {
                return if same(x, y) {
                    Ok(())
                } else {
                    self.bind(x, Term::Dim(DimExpr::Var(y.clone())))
                };
            }
            _ => {}
        }
        let a = match a {
            DimExpr::Lit(_) => Cow::Borrowed(a),
            _ => Cow::Owned(eval_dim(a, &self.subst)?),
        };
        let b = match b {
            DimExpr::Lit(_) => Cow::Borrowed(b),
            _ => Cow::Owned(eval_dim(b, &self.subst)?),
        };
        match (&*a, &*b) {
            (DimExpr::Lit(x), DimExpr::Lit(y)) => {
                if x == y {
                    Ok(())
                } else {
                    err(InferErrorKind::Mismatch {
                        left: x.to_string(),
                        right: y.to_string(),
                    })
                }
            }
            (DimExpr::Var(x), DimExpr::Var(y)) if same(x, y) => Ok(()),
            (DimExpr::Var(x), other) | (other, DimExpr::Var(x)) => {
                if dim_mentions(other, x) {
                    return err(InferErrorKind::Recursive {
                        var: x.clone(),
                        expr: other.to_string(),
                    });
                }
                self.bind(x, Term::Dim(other.clone()))
            }
            (DimExpr::Lit(n), e) | (e, DimExpr::Lit(n)) => match solve(e, *n)? {
                Solved::Bound(x, v) => self.bind(&x, Term::Dim(DimExpr::Lit(v))),
                Solved::Holds => Ok(()),
                Solved::Stuck => {
                    self.defer(eq(a.into_owned(), b.into_owned()));
                    Ok(())
                }
            },
            (x, y) if x == y => Ok(()),
            _ => {
                self.defer(eq(a.into_owned(), b.into_owned()));
                Ok(())
            }
        }
    }
}

/// See [`Unifier::shallow`].
enum Shallow<'d> {
    Lit(usize),
    Unbound(&'d Name),
    Other,
}

fn eq(a: DimExpr, b: DimExpr) -> Pred {
    Pred::Cmp(CmpOp::Eq, Operand::Size(a), Operand::Size(b))
}

fn is_operation(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Slice(..)
            | Expr::Transpose(..)
            | Expr::Reduce(..)
            | Expr::Broadcast(..)
            | Expr::Repeat(..)
            | Expr::Concat(..)
    )
}

/// Unifies two expressions: the most general idempotent substitution that makes them equal.
///
/// Variables of both sides may be bound (this is unification, not matching). Sizes with one
/// unknown are solved by inverting the arithmetic (`(a + 1,)` against `(5,)` binds `a = 4`);
/// and so are powers of one unknown (`(z × z × z,)` against `(125,)` binds `z = 5`); an
/// equation with no whole-size solution is an error. Kinds are respected: an arrow never
/// unifies with a shape. A constraint or equation that cannot be decided from the two sides
/// alone (`(a × b,)` against `(6,)`, `(h // 2,)` against `(5,)`) is an error,
/// [`InferErrorKind::Undecided`](crate::solve::InferErrorKind), naming it: a caller using `unify` as
/// a matcher never gets a false accept. [`unify_partial`] returns them instead.
///
/// Limits: no term the solution builds (a variable's value, or an expression with the values
/// of its variables written in) grows past
/// [`Substitution::MAX_TERM_NODES`](crate::solve::Substitution::MAX_TERM_NODES) nodes or nests
/// deeper than [`Substitution::MAX_TERM_DEPTH`](crate::solve::Substitution::MAX_TERM_DEPTH) levels;
/// equations whose solutions would are an error
/// ([`InferErrorKind::TermTooLarge`](crate::solve::InferErrorKind),
/// [`InferErrorKind::TermTooDeep`](crate::solve::InferErrorKind)). With those limits, and input as
/// the parser builds it, solving needs well under a 2 MiB thread stack, debug builds
/// included.
///
/// ```
/// use shapes::{solve::{unify, Term}, expr::{parse, DimExpr}};
///
/// let s = unify(&parse("(4 * d,)").unwrap(), &parse("(3072,)").unwrap()).unwrap();
/// assert_eq!(s.get("d"), Some(&Term::Dim(DimExpr::Lit(768))));
/// assert!(unify(&parse("(4 * d,)").unwrap(), &parse("(3070,)").unwrap()).is_err());
/// assert!(unify(&parse("a").unwrap(), &parse("a").unwrap()).unwrap().is_empty());
/// assert!(unify(&parse("a -> b").unwrap(), &parse("(2, 3)").unwrap()).is_err());
/// assert!(unify(&parse("a").unwrap(), &parse("(a, 2)").unwrap()).is_err());
/// let s = unify(&parse("(a * a * a,)").unwrap(), &parse("(125,)").unwrap()).unwrap();
/// assert_eq!(s.get("a"), Some(&Term::Dim(DimExpr::Lit(5))));
/// let err = unify(&parse("(h // 2,)").unwrap(), &parse("(5,)").unwrap()).unwrap_err();
/// assert_eq!(err.to_string(), "cannot decide (h ÷ 2 = 5) from the two sides alone");
/// ```
pub fn unify(a: &Expr, b: &Expr) -> Result<Substitution, InferError> {
    let (subst, open) = unify_partial(a, b)?;
    if open.is_empty() {
        return Ok(subst);
    }
    let constraints: Vec<String> = open.iter().map(ToString::to_string).collect();
    err(InferErrorKind::Undecided {
        constraints: constraints.join(", "),
    })
}

/// [`unify`], returning the constraints it cannot decide from the two sides alone with the
/// substitution, rather than failing on them: what a caller that learns more later (or
/// decides them another way) uses. Each is written with the substitution applied.
///
/// ```
/// use shapes::{solve::{unify_partial, Term}, expr::{parse, DimExpr}};
///
/// let (s, open) = unify_partial(&parse("(n, a * b)").unwrap(), &parse("(2, 6)").unwrap()).unwrap();
/// assert_eq!(s.get("n"), Some(&Term::Dim(DimExpr::Lit(2))));
/// assert_eq!(open.len(), 1);
/// assert_eq!(open[0].to_string(), "(a × b = 6)");
/// ```
pub fn unify_partial(a: &Expr, b: &Expr) -> Result<(Substitution, Vec<Pred>), InferError> {
    let mut u = Unifier::default();
    u.unify(a, b)?;
    u.check_pending()?;
    let open = u.pending.iter().map(|p| u.subst.subst_pred(p)).collect();
    Ok((u.subst, open))
}

#[cfg(test)]
mod tests;
