//! The one table of size arithmetic: what each [`ArithOp`] computes, why it fails, how it is
//! undone for one unknown operand, and how it is written.
//!
//! The symbolic solver (`solve::arith`), the run-time checker (`verify::plan`) and the derive's
//! static analysis (which asks [`ArithOp::invertible`]) all read this table, so an operator is
//! taught to the library in one place and the three can never disagree about it.

use core::fmt;

use super::ast::ArithOp;

/// Why an arithmetic step on sizes has no value.
///
/// ```
/// use shapes::{infer_app, parse, ArithFailure, InferErrorKind};
///
/// let f = parse("(a, b) -> (a // b,)").unwrap();
/// let err = infer_app(&f, &[parse("(7, 0)").unwrap()]).unwrap_err();
/// assert!(matches!(
///     err.kind(),
///     InferErrorKind::Arithmetic { reason: ArithFailure::DivisionByZero, .. }
/// ));
/// assert_eq!(err.to_string(), "7 ÷ 0 divides by zero");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ArithFailure {
    /// The result does not fit in `usize`.
    #[error("overflows usize")]
    Overflow,
    /// A subtraction would be negative.
    #[error("would be negative")]
    Negative,
    /// Division or remainder by zero.
    #[error("divides by zero")]
    DivisionByZero,
    /// An exact division `/` leaves a remainder.
    #[error("is not an exact division (use // to round down)")]
    Inexact,
}

/// Which operand of `lhs op rhs` is the unknown one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub enum Side {
    /// `x op k`
    Left,
    /// `k op x`
    Right,
}

/// One failed step `lhs op rhs`, with its operands: what the run-time checker quotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Step {
    pub(crate) reason: ArithFailure,
    pub(crate) op: ArithOp,
    pub(crate) lhs: usize,
    pub(crate) rhs: usize,
}

impl fmt::Display for Step {
    /// `10 / 4 is not exact (remainder 2)`, `2 - 3 is below zero`, `7 is divided by zero`,
    /// `… * … overflows usize`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Step { lhs, rhs, .. } = *self;
        match self.reason {
            ArithFailure::Inexact => match lhs.checked_rem(rhs) {
                Some(r) => write!(f, "{lhs} / {rhs} is not exact (remainder {r})"),
                None => write!(f, "{lhs} is divided by zero"),
            },
            ArithFailure::Negative => write!(f, "{lhs} - {rhs} is below zero"),
            ArithFailure::Overflow => {
                write!(f, "{lhs} {} {rhs} overflows usize", self.op.symbol(true))
            }
            ArithFailure::DivisionByZero => write!(f, "{lhs} is divided by zero"),
        }
    }
}

/// The outcome of undoing `x op k = t` (or `k op x = t`) for the unknown `x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inversion {
    /// Exactly this value of `x` gives `t`.
    Value(usize),
    /// Not decided by this step: many values may give `t` (`x // 2 = 3`, `0 * x = 0`,
    /// `x % 4 = 1`), or one or none, which only trying them would tell (`5 // x = 5`).
    Undecided,
    /// No whole size does: the step of the inverse computation that fails.
    NoWholeSolution(Step),
}

impl ArithOp {
    /// Applies the operator with overflow, underflow and exactness checks; `None` when the
    /// result is not a `usize` (or a `/` is not exact).
    ///
    /// ```
    /// use shapes::ArithOp;
    /// assert_eq!(ArithOp::Div.apply(3072, 4), Some(768));
    /// assert_eq!(ArithOp::Div.apply(10, 4), None);
    /// assert_eq!(ArithOp::FloorDiv.apply(10, 4), Some(2));
    /// assert_eq!(ArithOp::Sub.apply(2, 3), None);
    /// assert_eq!(ArithOp::Mul.apply(usize::MAX, 2), None);
    /// ```
    #[inline]
    pub fn apply(self, lhs: usize, rhs: usize) -> Option<usize> {
        self.checked(lhs, rhs).ok()
    }

    /// [`apply`](Self::apply) with the reason when there is no value.
    #[inline]
    pub(crate) fn checked(self, lhs: usize, rhs: usize) -> Result<usize, ArithFailure> {
        let value = match self {
            ArithOp::Add => lhs.checked_add(rhs),
            ArithOp::Sub => return lhs.checked_sub(rhs).ok_or(ArithFailure::Negative),
            ArithOp::Mul => lhs.checked_mul(rhs),
            ArithOp::Div if rhs == 0 => return Err(ArithFailure::DivisionByZero),
            ArithOp::Div if !lhs.is_multiple_of(rhs) => return Err(ArithFailure::Inexact),
            ArithOp::Div | ArithOp::FloorDiv => {
                return lhs.checked_div(rhs).ok_or(ArithFailure::DivisionByZero);
            }
            ArithOp::Rem => return lhs.checked_rem(rhs).ok_or(ArithFailure::DivisionByZero),
        };
        value.ok_or(ArithFailure::Overflow)
    }

    /// [`checked`](Self::checked), the failure quoting its operands.
    #[inline]
    pub(crate) fn step(self, lhs: usize, rhs: usize) -> Result<usize, Step> {
        self.checked(lhs, rhs).map_err(|reason| Step {
            reason,
            op: self,
            lhs,
            rhs,
        })
    }

    /// The operator as written: `ascii` picks `*` and `//` over `×` and `÷`.
    ///
    /// ```
    /// use shapes::ArithOp;
    /// assert_eq!(ArithOp::Mul.symbol(false), "×");
    /// assert_eq!(ArithOp::FloorDiv.symbol(true), "//");
    /// ```
    pub fn symbol(self, ascii: bool) -> &'static str {
        match (self, ascii) {
            (ArithOp::Add, _) => "+",
            (ArithOp::Sub, _) => "-",
            (ArithOp::Mul, false) => "×",
            (ArithOp::Mul, true) => "*",
            (ArithOp::Div, _) => "/",
            (ArithOp::FloorDiv, false) => "÷",
            (ArithOp::FloorDiv, true) => "//",
            (ArithOp::Rem, _) => "%",
        }
    }

    /// Whether `x op k = t` (with `unknown` the side of `x`) can determine `x` uniquely for
    /// whatever `k` and `t` turn out to be, as far as can be known before `k` is: what the
    /// derive's static analysis asks. A floor division or a remainder loses information (but
    /// see [`invert`](Self::invert) for `x // 1`).
    ///
    /// ```
    /// use shapes::ArithOp;
    /// use shapes::__private::Side;
    /// assert!(ArithOp::Mul.invertible(Side::Right));
    /// assert!(!ArithOp::FloorDiv.invertible(Side::Left));
    /// ```
    #[doc(hidden)]
    pub fn invertible(self, unknown: Side) -> bool {
        let _ = unknown;
        !matches!(self, ArithOp::FloorDiv | ArithOp::Rem)
    }

    /// Undoes one step: the `x` with `x op k = t` (`unknown` is [`Side::Left`]) or
    /// `k op x = t` ([`Side::Right`]).
    pub(crate) fn invert(self, unknown: Side, k: usize, t: usize) -> Inversion {
        use Inversion::{NoWholeSolution, Undecided, Value};
        let done = |r: Result<usize, Step>| match r {
            Ok(v) => Value(v),
            Err(step) => NoWholeSolution(step),
        };
        match (self, unknown) {
            // x + k = t, k + x = t: x = t - k.
            (ArithOp::Add, _) => done(ArithOp::Sub.step(t, k)),
            // x - k = t: x = t + k.
            (ArithOp::Sub, Side::Left) => done(ArithOp::Add.step(t, k)),
            // k - x = t: x = k - t.
            (ArithOp::Sub, Side::Right) => done(ArithOp::Sub.step(k, t)),
            // x * k = t: every x when k = t = 0, none when only k is 0, else t / k exactly.
            (ArithOp::Mul, _) if k == 0 => {
                if t == 0 {
                    Undecided
                } else {
                    NoWholeSolution(Step {
                        reason: ArithFailure::DivisionByZero,
                        op: ArithOp::Div,
                        lhs: t,
                        rhs: 0,
                    })
                }
            }
            (ArithOp::Mul, _) => done(ArithOp::Div.step(t, k)),
            // x / k = t (exact): x = t * k (k = 0 has no value whatever x is).
            (ArithOp::Div, Side::Left) if k == 0 => NoWholeSolution(Step {
                reason: ArithFailure::DivisionByZero,
                op: ArithOp::Div,
                lhs: t,
                rhs: 0,
            }),
            (ArithOp::Div, Side::Left) => done(ArithOp::Mul.step(t, k)),
            // k / x = t (exact): x = k / t; every x ≠ 0 when k = t = 0.
            (ArithOp::Div, Side::Right) if t == 0 => {
                if k == 0 {
                    Undecided
                } else {
                    NoWholeSolution(Step {
                        reason: ArithFailure::DivisionByZero,
                        op: ArithOp::Div,
                        lhs: k,
                        rhs: 0,
                    })
                }
            }
            // 0 / x = t ≠ 0: the only candidate, 0, divides by zero.
            (ArithOp::Div, Side::Right) if k == 0 => NoWholeSolution(Step {
                reason: ArithFailure::DivisionByZero,
                op: ArithOp::Div,
                lhs: k,
                rhs: 0,
            }),
            (ArithOp::Div, Side::Right) => done(ArithOp::Div.step(k, t)),
            // x // 1 = t: x = t. Any other floor division or remainder loses information.
            (ArithOp::FloorDiv, Side::Left) if k == 1 => Value(t),
            (ArithOp::FloorDiv | ArithOp::Rem, _) => Undecided,
        }
    }
}

/// Reads like `Display`, so that `fn main() -> Result<(), Box<dyn Error>>` prints the message.
impl core::fmt::Debug for ArithFailure {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPS: [ArithOp; 6] = [
        ArithOp::Add,
        ArithOp::Sub,
        ArithOp::Mul,
        ArithOp::Div,
        ArithOp::FloorDiv,
        ArithOp::Rem,
    ];

    #[test]
    fn checked_names_each_failure() {
        assert_eq!(ArithOp::Sub.checked(2, 3), Err(ArithFailure::Negative));
        assert_eq!(
            ArithOp::Mul.checked(usize::MAX, 2),
            Err(ArithFailure::Overflow)
        );
        assert_eq!(
            ArithOp::Add.checked(usize::MAX, 1),
            Err(ArithFailure::Overflow)
        );
        assert_eq!(ArithOp::Div.checked(10, 4), Err(ArithFailure::Inexact));
        for op in [ArithOp::Div, ArithOp::FloorDiv, ArithOp::Rem] {
            assert_eq!(op.checked(7, 0), Err(ArithFailure::DivisionByZero));
        }
        assert_eq!(ArithOp::FloorDiv.checked(10, 4), Ok(2));
        assert_eq!(ArithOp::Rem.checked(10, 4), Ok(2));
    }

    #[test]
    fn steps_quote_their_operands() {
        let text = |op: ArithOp, a, b| op.step(a, b).unwrap_err().to_string();
        assert_eq!(
            text(ArithOp::Div, 3070, 4),
            "3070 / 4 is not exact (remainder 2)"
        );
        assert_eq!(text(ArithOp::Sub, 2, 3), "2 - 3 is below zero");
        assert_eq!(text(ArithOp::FloorDiv, 7, 0), "7 is divided by zero");
        assert_eq!(
            text(ArithOp::Mul, usize::MAX, 2),
            format!("{} * 2 overflows usize", usize::MAX)
        );
    }

    /// Every inversion that gives a value is exact: applying the operator to it gives the
    /// target back. Every `NoWholeSolution` is right: no small `x` works.
    #[test]
    fn inversions_agree_with_application() {
        for op in OPS {
            for side in [Side::Left, Side::Right] {
                for k in 0..12 {
                    for t in 0..40 {
                        let apply = |x: usize| match side {
                            Side::Left => op.apply(x, k),
                            Side::Right => op.apply(k, x),
                        };
                        let solutions: Vec<usize> =
                            (0..1000).filter(|&x| apply(x) == Some(t)).collect();
                        match op.invert(side, k, t) {
                            Inversion::Value(x) => {
                                assert_eq!(solutions, [x], "{op:?} {side:?} k={k} t={t}")
                            }
                            Inversion::NoWholeSolution(_) => {
                                assert!(solutions.is_empty(), "{op:?} {side:?} k={k} t={t}")
                            }
                            // Where an exact operator gives up, many values work.
                            Inversion::Undecided if op.invertible(side) => {
                                assert!(solutions.len() > 1, "{op:?} {side:?} k={k} t={t}")
                            }
                            Inversion::Undecided => {}
                        }
                    }
                }
            }
        }
    }

    /// What the derive is told is invertible always inverts to a value or to "no solution"
    /// once both known operands are ≥ 1 (so never leaves a determined variable unknown).
    #[test]
    fn invertible_means_decided() {
        for op in OPS {
            for side in [Side::Left, Side::Right] {
                if !op.invertible(side) {
                    continue;
                }
                for k in 1..12 {
                    for t in 1..40 {
                        assert_ne!(
                            op.invert(side, k, t),
                            Inversion::Undecided,
                            "{op:?} {side:?} k={k} t={t}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn inversion_overflow_is_reported() {
        assert_eq!(
            ArithOp::Sub.invert(Side::Left, 1, usize::MAX),
            Inversion::NoWholeSolution(Step {
                reason: ArithFailure::Overflow,
                op: ArithOp::Add,
                lhs: usize::MAX,
                rhs: 1
            })
        );
    }
}
