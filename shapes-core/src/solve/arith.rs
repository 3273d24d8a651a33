//! Arithmetic on symbolic sizes: constant folding with checked operations, and inversion of
//! an equation `e = n` with one unknown, one step at a time through the arithmetic table
//! (`expr::arith`) that the run-time checker uses too.
//!
//! Steps are computed over the integers: a closed sub-expression whose value is not a size
//! (`2 - 3` in `(2 - 3 + 2) // 1 + 1`) is kept as written until the expression around it
//! brings the value back; only a dim's final value must be a size ([`natural_dim`]).

use super::error::{InferError, InferErrorKind, err};
use crate::expr::{
    ArithFailure, ArithOp, DimExpr, Eval, Int, Name, Solution, Step, eval, int, solve as tree_solve,
};

/// The value of a closed expression (literals and arithmetic only), over the integers;
/// `None` when it has a variable or a size function.
pub(crate) fn closed(e: &DimExpr) -> Option<Result<Int, Step>> {
    match eval(e, &|_| None) {
        Eval::Value(v) => Some(Ok(v)),
        Eval::Failed(step) => Some(Err(step)),
        Eval::Unknown { .. } | Eval::Opaque => None,
    }
}

fn arith_err<T>(
    op: ArithOp,
    lhs: DimExpr,
    rhs: DimExpr,
    reason: ArithFailure,
) -> Result<T, InferError> {
    err(InferErrorKind::Arithmetic {
        expr: DimExpr::Bin(op, Box::new(lhs), Box::new(rhs)).to_string(),
        reason,
    })
}

/// `lhs op rhs`, folded when both sides are closed and the result is a size (an error when
/// the step itself fails), simplified when one side is a neutral literal (`x + 0`, `x × 1`,
/// …), otherwise left as a symbolic `Bin`.
pub(crate) fn fold(op: ArithOp, lhs: DimExpr, rhs: DimExpr) -> Result<DimExpr, InferError> {
    use DimExpr::Lit;
    if let (Some(a), Some(b)) = (closed(&lhs), closed(&rhs)) {
        let value = a.and_then(|a| b.and_then(|b| op.step(a, b)));
        return match value {
            Ok(v) => Ok(match usize::try_from(v) {
                Ok(n) => Lit(n),
                // Below zero (or past usize) for now: kept until the expression around it
                // brings it back, or the dim it is turns out not to be a size.
                Err(_) => DimExpr::Bin(op, Box::new(lhs), Box::new(rhs)),
            }),
            Err(step) => arith_err(op, lhs, rhs, step.reason),
        };
    }
    match (&lhs, &rhs) {
        (_, Lit(0)) if matches!(op, ArithOp::Div | ArithOp::FloorDiv | ArithOp::Rem) => {
            arith_err(op, lhs, rhs, ArithFailure::DivisionByZero)
        }
        (_, Lit(0)) if matches!(op, ArithOp::Add | ArithOp::Sub) => Ok(lhs),
        (Lit(0), _) if op == ArithOp::Add => Ok(rhs),
        (_, Lit(1)) if matches!(op, ArithOp::Mul | ArithOp::Div | ArithOp::FloorDiv) => Ok(lhs),
        (Lit(1), _) if op == ArithOp::Mul => Ok(rhs),
        _ => Ok(DimExpr::Bin(op, Box::new(lhs), Box::new(rhs))),
    }
}

/// A dim's final value: a closed expression left unfolded by [`fold`] is not a size, which is
/// an error here (`(a, b) → (a - b,)` applied to `(2, 3)`).
pub(crate) fn natural_dim(d: DimExpr) -> Result<DimExpr, InferError> {
    match (&d, closed(&d)) {
        (DimExpr::Bin(..), Some(Ok(v))) if usize::try_from(v).is_err() => {
            err(InferErrorKind::Arithmetic {
                expr: d.to_string(),
                reason: if v < 0 {
                    ArithFailure::Negative
                } else {
                    ArithFailure::Overflow
                },
            })
        }
        _ => Ok(d),
    }
}

/// The outcome of solving `e = n` for the single unknown of `e`.
#[derive(Debug)]
pub(crate) enum Solved {
    /// The unknown has exactly this value.
    Bound(Name, usize),
    /// The equation has no unknown and holds.
    Holds,
    /// Not solvable by inversion (more than one unknown, a floor division or remainder, a
    /// size function of an unknown shape, or infinitely many solutions): keep the equation.
    Stuck,
}

/// Solves `e = target`, where `e` is folded (no bound variables, literals combined), for its
/// one unknown (occurring once, or as a power: `z × z × z = 125`), through the one solver of
/// size arithmetic (`expr::tree`). An equation whose only solutions are not whole sizes is an
/// error: `4 × d = 3070`, `a + 10 = 5`, `z × z = 8`.
pub(crate) fn solve(e: &DimExpr, target: usize) -> Result<Solved, InferError> {
    if let Some(v) = closed(e) {
        return match v {
            Ok(v) if v == int(target) => Ok(Solved::Holds),
            _ => err(InferErrorKind::Mismatch {
                left: e.to_string(),
                right: target.to_string(),
            }),
        };
    }
    match tree_solve(e, target, &|_| None) {
        Solution::Bound(name, v) => Ok(Solved::Bound(name.clone(), v)),
        Solution::Stuck => Ok(Solved::Stuck),
        Solution::NotWhole(step) if step.reason == ArithFailure::Overflow => {
            err(InferErrorKind::Arithmetic {
                expr: format!("solving {e} = {target}"),
                reason: ArithFailure::Overflow,
            })
        }
        Solution::NotWhole(_) => err(InferErrorKind::NoExactSolution {
            equation: format!("{e} = {target}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(n: &str) -> DimExpr {
        DimExpr::Var(Name::new(n))
    }
    fn bin(op: ArithOp, a: DimExpr, b: DimExpr) -> DimExpr {
        DimExpr::Bin(op, Box::new(a), Box::new(b))
    }
    fn bound(e: &DimExpr, t: usize) -> Option<usize> {
        match solve(e, t).unwrap() {
            Solved::Bound(_, v) => Some(v),
            Solved::Stuck | Solved::Holds => None,
        }
    }

    #[test]
    fn inverts_each_operator() {
        use ArithOp::*;
        let l = DimExpr::Lit;
        assert_eq!(bound(&bin(Add, v("a"), l(1)), 5), Some(4));
        assert_eq!(bound(&bin(Add, l(1), v("a")), 5), Some(4));
        assert_eq!(bound(&bin(Sub, v("a"), l(1)), 5), Some(6));
        assert_eq!(bound(&bin(Sub, l(10), v("a")), 4), Some(6));
        assert_eq!(bound(&bin(Mul, l(4), v("d")), 3072), Some(768));
        assert_eq!(bound(&bin(Div, v("v"), l(4)), 8), Some(32));
        assert_eq!(bound(&bin(Div, l(12), v("x")), 4), Some(3));
        assert_eq!(bound(&bin(FloorDiv, v("x"), l(1)), 4), Some(4));
        assert_eq!(bound(&bin(FloorDiv, v("x"), l(2)), 4), None);
        assert_eq!(bound(&bin(Rem, v("x"), l(2)), 1), None);
        assert_eq!(bound(&bin(Mul, v("x"), v("y")), 6), None);
        // powers of one unknown: their whole root
        assert_eq!(
            bound(&bin(Mul, bin(Mul, v("z"), v("z")), v("z")), 125),
            Some(5)
        );
        assert_eq!(
            bound(
                &bin(Add, bin(Mul, l(2), bin(Mul, v("z"), v("z"))), l(1)),
                51
            ),
            Some(5)
        );
        assert!(solve(&bin(Mul, v("z"), v("z")), 8).is_err());
        assert_eq!(bound(&bin(Mul, v("z"), v("y")), 8), None);
        // below zero in between: (h - 3 + 2) // 1 + 1 = 2 -> h = 2
        let conv = bin(
            Add,
            bin(FloorDiv, bin(Add, bin(Sub, v("h"), l(3)), l(2)), l(1)),
            l(1),
        );
        assert_eq!(bound(&conv, 2), Some(2));
        assert!(solve(&bin(Sub, l(2), l(3)), 5).is_err());
        assert!(matches!(
            solve(&bin(Add, bin(Sub, l(2), l(3)), l(6)), 5),
            Ok(Solved::Holds)
        ));
        // nested: (h + 2*1 - 3) // 1 + 1 = 90 -> h = 90
        let conv = bin(Add, bin(Sub, bin(Add, v("h"), l(2)), l(3)), l(1));
        assert_eq!(bound(&conv, 90), Some(90));
    }

    #[test]
    fn inexact_solutions_are_errors() {
        use ArithOp::*;
        let l = DimExpr::Lit;
        let e = solve(&bin(Mul, l(4), v("d")), 3070).unwrap_err();
        assert_eq!(
            e.to_string(),
            "4 × d = 3070 has no exact solution in whole sizes"
        );
        assert!(solve(&bin(Add, v("a"), l(10)), 5).is_err());
        assert!(solve(&bin(Sub, l(3), v("a")), 5).is_err());
        assert!(solve(&bin(Div, l(10), v("a")), 4).is_err());
        assert!(solve(&bin(Sub, v("a"), l(1)), usize::MAX).is_err());
    }

    #[test]
    fn folding_checks_every_operation() {
        use ArithOp::*;
        let l = DimExpr::Lit;
        assert_eq!(fold(Add, l(2), l(3)).unwrap(), l(5));
        // Past usize or below zero, a step is kept until the dim's final value is asked for.
        let over = fold(Mul, l(usize::MAX), l(2)).unwrap();
        assert_eq!(fold(FloorDiv, over.clone(), l(2)).unwrap(), l(usize::MAX));
        let e = natural_dim(over).unwrap_err().to_string();
        assert!(e.contains("overflows"), "{e}");
        let below = fold(Sub, l(2), l(3)).unwrap();
        assert_eq!(below, bin(Sub, l(2), l(3)));
        let e = natural_dim(below.clone()).unwrap_err().to_string();
        assert_eq!(e, "2 - 3 would be negative");
        // (h - k + 2*p) // s + 1 with h = 2, k = 3, p = 1, s = 1: the convolution formula.
        let conv = fold(Add, below, l(2)).unwrap();
        let conv = fold(FloorDiv, conv, l(1)).unwrap();
        assert_eq!(fold(Add, conv, l(1)).unwrap(), l(2));
        assert_eq!(
            fold(Mul, fold(Sub, l(2), l(3)).unwrap(), l(usize::MAX)).unwrap(),
            bin(Mul, bin(Sub, l(2), l(3)), l(usize::MAX))
        );
        assert!(
            fold(FloorDiv, l(7), l(0))
                .unwrap_err()
                .to_string()
                .contains("divides by zero")
        );
        assert!(
            fold(Div, v("a"), l(0))
                .unwrap_err()
                .to_string()
                .contains("divides by zero")
        );
        assert!(
            fold(Div, l(7), l(2))
                .unwrap_err()
                .to_string()
                .contains("exact")
        );
        assert_eq!(fold(Mul, v("a"), l(1)).unwrap(), v("a"));
        assert_eq!(fold(Add, l(0), v("a")).unwrap(), v("a"));
        assert_eq!(fold(Add, v("a"), l(3)).unwrap(), bin(Add, v("a"), l(3)));
    }
}
