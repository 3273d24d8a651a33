//! [`infer_app`]: applying a function type to argument shapes.

use std::borrow::Cow;

use super::error::{InferError, InferErrorKind, err};
use super::eval::eval_expr;
use super::rename::rename_apart;
use super::size::check_pred;
use super::unify::Unifier;
use crate::expr::{Expr, Pred};

/// One step of peeling a function type.
enum Step<'a> {
    Arrow(Cow<'a, Expr>, Cow<'a, Expr>),
    Compound(Cow<'a, Expr>, Pred),
    Other(Cow<'a, Expr>),
}

fn split(e: Cow<'_, Expr>) -> Step<'_> {
    match e {
        Cow::Borrowed(e) => match e {
            Expr::Arrow(a, r) => Step::Arrow(Cow::Borrowed(a), Cow::Borrowed(r)),
            Expr::Compound(x, p) => Step::Compound(Cow::Borrowed(x), (**p).clone()),
            other => Step::Other(Cow::Borrowed(other)),
        },
        Cow::Owned(e) => match e {
            Expr::Arrow(a, r) => Step::Arrow(Cow::Owned(*a), Cow::Owned(*r)),
            Expr::Compound(x, p) => Step::Compound(Cow::Owned(*x), *p),
            other => Step::Other(Cow::Owned(other)),
        },
    }
}

/// Applies the function type `f` to `args`, one after the other, and returns the type of the
/// result: gorgonia's `InferApp`, without its bugs.
///
/// - `f`'s variables are its own: those that clash with an argument's variables are renamed
///   apart first (`a` → `a1`, …; names never run out);
/// - each argument is unified with its parameter under one idempotent substitution (variables
///   of the arguments may be bound too), with arithmetic inverted for one unknown
///   (`(4 × d,)` against `(3072,)` binds `d = 768`);
/// - constraints `{ e | p }` are checked as soon as they are closed (a false one is an
///   error) and carried on the result while open, as are equations between two symbolic
///   sizes;
/// - the result is evaluated: shape operations on known shapes are computed with numpy's
///   semantics, and whatever still depends on a variable stays symbolic;
/// - fewer arguments than arrows is partial application (the result is a function); more is
///   an error, as is applying something that is not an arrow. With no arguments, `f` is
///   returned unchanged;
/// - terms are limited as in [`unify`](crate::solve::unify): none grows past
///   [`Substitution::MAX_TERM_NODES`](crate::solve::Substitution::MAX_TERM_NODES) nodes or nests
///   deeper than [`Substitution::MAX_TERM_DEPTH`](crate::solve::Substitution::MAX_TERM_DEPTH).
///
/// ```
/// use shapes::{solve::infer_app, expr::parse};
/// let e = |s: &str| parse(s).unwrap();
///
/// let matmul = e("(a, b) -> (b, c) -> (a, c)");
/// assert_eq!(infer_app(&matmul, &[e("(2, 3)"), e("(3, 4)")]).unwrap().to_string(), "(2, 4)");
/// assert_eq!(infer_app(&matmul, &[e("(2, 3)")]).unwrap().to_string(), "(3, c) → (2, c)");
/// assert_eq!(infer_app(&matmul, &[e("(x, y)"), e("(y, 4)")]).unwrap().to_string(), "(x, 4)");
///
/// let reshape = e("{ a -> b -> b | (prod a = prod b) }");
/// assert_eq!(infer_app(&reshape, &[e("(2, 3)")]).unwrap().to_string(), "{ b → b | (Π (2, 3) = Π b) }");
/// assert!(infer_app(&reshape, &[e("(2, 3)"), e("(6, 2)")]).is_err());
///
/// let err = infer_app(&matmul, &[e("(2, 3)"), e("(4, 5)")]).unwrap_err();
/// assert_eq!(err.to_string(), "argument 2 `(4, 5)` does not fit parameter `(3, c)`: 3 ≠ 4");
/// ```
pub fn infer_app(f: &Expr, args: &[Expr]) -> Result<Expr, InferError> {
    if args.is_empty() {
        return Ok(f.clone());
    }
    let f = rename_apart(f, args);
    let mut u = Unifier::default();
    let mut cur: Cow<'_, Expr> = Cow::Borrowed(&*f);
    for (i, arg) in args.iter().enumerate() {
        let (param, ret) = loop {
            match split(cur) {
                Step::Arrow(p, r) => break (p, r),
                Step::Compound(e, p) => {
                    u.pending.push(p);
                    cur = e;
                }
                Step::Other(e) => {
                    if let Expr::Var(x) = &*e
                        && let Some(t) = u.subst.lookup(x)
                    {
                        cur = Cow::Owned(t.to_expr());
                        continue;
                    }
                    return err(if i == 0 {
                        InferErrorKind::NotAFunction {
                            expr: u.subst.show_expr(&e),
                        }
                    } else {
                        InferErrorKind::TooManyArguments {
                            arity: i,
                            given: args.len(),
                        }
                    });
                }
            }
        };
        if let Err(e) = u.unify(&param, arg) {
            return Err(e.in_argument(i, u.subst.show_expr(&param), arg.to_string()));
        }
        if let Err(e) = u.check_pending() {
            return Err(e.in_argument(i, param.to_string(), arg.to_string()));
        }
        cur = ret;
    }
    let result = eval_expr(&cur, &u.subst)?;
    if u.pending.is_empty() {
        return Ok(result);
    }
    for p in &u.pending {
        check_pred(p, &u.subst)?;
    }
    let mut open = u.pending.iter().map(|p| u.subst.subst_pred(p));
    // ok: `pending` is non-empty (checked just above) and `open` maps it one to one.
    let first = open.next().expect("pending is not empty");
    let mut pred = open.fold(first, |acc, p| Pred::And(Box::new(acc), Box::new(p)));
    Ok(match result {
        Expr::Compound(e, inner) => {
            pred = Pred::And(inner, Box::new(pred));
            Expr::Compound(e, Box::new(pred))
        }
        other => Expr::Compound(Box::new(other), Box::new(pred)),
    })
}

impl Expr {
    /// The same as [`infer_app`]`(self, args)`.
    ///
    /// ```
    /// use shapes::expr::parse;
    /// let add = parse("a -> a -> a").unwrap();
    /// let out = add.infer_app(&[parse("(2, 3)").unwrap(), parse("(2, 3)").unwrap()]).unwrap();
    /// assert_eq!(out.to_string(), "(2, 3)");
    /// ```
    pub fn infer_app(&self, args: &[Expr]) -> Result<Expr, InferError> {
        infer_app(self, args)
    }
}
