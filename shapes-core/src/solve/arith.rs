//! Arithmetic on symbolic sizes: constant folding with checked operations, and inversion of
//! an equation `e = n` with one unknown, one step at a time through the arithmetic table
//! (`expr::arith`) that the run-time checker uses too.

use super::error::{InferError, InferErrorKind, err};
use crate::expr::{ArithFailure, ArithOp, DimExpr, Inversion, Name, Side};

/// `lhs op rhs`, folded when both sides are literals (an error when the result is not a
/// size), simplified when one side is a neutral literal (`x + 0`, `x × 1`, …), otherwise
/// left as a symbolic `Bin`.
pub(crate) fn fold(op: ArithOp, lhs: DimExpr, rhs: DimExpr) -> Result<DimExpr, InferError> {
    use DimExpr::Lit;
    match (&lhs, &rhs) {
        (Lit(a), Lit(b)) => match op.checked(*a, *b) {
            Ok(v) => Ok(Lit(v)),
            Err(reason) => err(InferErrorKind::Arithmetic {
                expr: DimExpr::Bin(op, Box::new(lhs), Box::new(rhs)).to_string(),
                reason,
            }),
        },
        (_, Lit(0)) if matches!(op, ArithOp::Div | ArithOp::FloorDiv | ArithOp::Rem) => {
            err(InferErrorKind::Arithmetic {
                expr: DimExpr::Bin(op, Box::new(lhs), Box::new(rhs)).to_string(),
                reason: ArithFailure::DivisionByZero,
            })
        }
        (_, Lit(0)) if matches!(op, ArithOp::Add | ArithOp::Sub) => Ok(lhs),
        (Lit(0), _) if op == ArithOp::Add => Ok(rhs),
        (_, Lit(1)) if matches!(op, ArithOp::Mul | ArithOp::Div | ArithOp::FloorDiv) => Ok(lhs),
        (Lit(1), _) if op == ArithOp::Mul => Ok(rhs),
        _ => Ok(DimExpr::Bin(op, Box::new(lhs), Box::new(rhs))),
    }
}

/// The outcome of solving `e = n` for the single unknown of `e`.
#[derive(Debug)]
pub(crate) enum Solved {
    /// The unknown has exactly this value.
    Bound(Name, usize),
    /// Not solvable by inversion (more than one unknown, a floor division or remainder, a
    /// size function of an unknown shape, or infinitely many solutions): keep the equation.
    Stuck,
}

/// Solves `e = target`, where `e` is folded (no bound variables, literals combined).
/// An equation whose only solutions are not whole sizes is an error:
/// `4 × d = 3070`, `a + 10 = 5`.
pub(crate) fn solve(e: &DimExpr, target: usize) -> Result<Solved, InferError> {
    let no_solution = || {
        err(InferErrorKind::NoExactSolution {
            equation: format!("{e} = {target}"),
        })
    };
    let mut cur = e;
    let mut t = target;
    loop {
        let DimExpr::Bin(op, a, b) = cur else {
            return Ok(match cur {
                DimExpr::Var(n) => Solved::Bound(n.clone(), t),
                _ => Solved::Stuck,
            });
        };
        let (next, side, k) = match (&**a, &**b) {
            (x, DimExpr::Lit(k)) => (x, Side::Left, *k),
            (DimExpr::Lit(k), x) => (x, Side::Right, *k),
            _ => return Ok(Solved::Stuck),
        };
        match op.invert(side, k, t) {
            Inversion::Value(v) => {
                cur = next;
                t = v;
            }
            Inversion::Undecided => return Ok(Solved::Stuck),
            Inversion::NoWholeSolution(step) if step.reason == ArithFailure::Overflow => {
                return err(InferErrorKind::Arithmetic {
                    expr: format!("solving {e} = {target}"),
                    reason: ArithFailure::Overflow,
                });
            }
            Inversion::NoWholeSolution(_) => return no_solution(),
        }
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
            Solved::Stuck => None,
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
        assert!(
            fold(Mul, l(usize::MAX), l(2))
                .unwrap_err()
                .to_string()
                .contains("overflows")
        );
        assert!(
            fold(Sub, l(2), l(3))
                .unwrap_err()
                .to_string()
                .contains("negative")
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
