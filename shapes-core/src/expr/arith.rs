//! The one table of size arithmetic: what each [`ArithOp`] computes, why it fails, how it is
//! undone for one unknown operand, and how it is written.
//!
//! Sizes are naturals, but the steps between them are computed over the integers ([`Int`]),
//! overflow-checked: `(h - k + 2*p) // s + 1` is fine with `h < k`, as it is on paper. Only a
//! dim's final value must be a size ([`natural`]); a variable solved for must be one too.
//!
//! The symbolic solver (`solve::arith`), the run-time checker (`verify::plan`) and the derive's
//! static analysis (which asks [`ArithOp::invertible`]) all read this table, so an operator is
//! taught to the library in one place and the three can never disagree about it.

use core::fmt;

use super::ast::ArithOp;

/// An intermediate value of size arithmetic: wide enough for any two sizes' sum, difference
/// or product, and signed, so a step may go below zero.
pub(crate) type Int = i128;

/// A size as an intermediate value (lossless: `usize` is at most 64 bits wide).
#[inline(always)]
pub(crate) const fn int(n: usize) -> Int {
    n as Int
}

/// Why an arithmetic step on sizes has no value.
///
/// ```
/// use shapes::{solve::{infer_app, InferErrorKind}, expr::{parse, ArithFailure}};
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
    /// A dim's final value (or a solved variable) would be negative. Steps in between may be.
    #[error("would be negative")]
    Negative,
    /// Division or remainder by zero.
    #[error("divides by zero")]
    DivisionByZero,
    /// An exact division `/` leaves a remainder.
    #[error("is not an exact division (use // to round down)")]
    Inexact,
    /// `c × x × … × x = t` (a power of one unknown) has no whole root.
    #[error("is not a whole power")]
    NoRoot,
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
    pub(crate) lhs: Int,
    pub(crate) rhs: Int,
}

impl fmt::Display for Step {
    /// `10 / 4 is not exact (remainder 2)`, `2 - 3 is below zero`, `7 is divided by zero`,
    /// `7 is taken modulo zero`, `… * … overflows usize`, `124 is not a whole cube`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Step { lhs, rhs, op, .. } = *self;
        let sym = op.symbol(true);
        match self.reason {
            ArithFailure::Inexact => match lhs.checked_rem(rhs) {
                Some(r) => write!(f, "{lhs} / {rhs} is not exact (remainder {r})"),
                None => write!(f, "{lhs} is divided by zero"),
            },
            ArithFailure::Negative => write!(f, "{lhs} {sym} {rhs} is below zero"),
            ArithFailure::Overflow => write!(f, "{lhs} {sym} {rhs} overflows usize"),
            ArithFailure::DivisionByZero if op == ArithOp::Rem => {
                write!(f, "{lhs} is taken modulo zero")
            }
            ArithFailure::DivisionByZero => write!(f, "{lhs} is divided by zero"),
            ArithFailure::NoRoot => match rhs {
                2 => write!(f, "{lhs} is not the square of a whole size"),
                3 => write!(f, "{lhs} is not the cube of a whole size"),
                n => write!(f, "{lhs} is not the power {n} of a whole size"),
            },
        }
    }
}

/// `value`, the result of `lhs op rhs`, as a size: what a dim's final value (or a solved
/// variable) must be. The failure quotes the step.
#[inline]
pub(crate) fn natural(value: Int, op: ArithOp, lhs: Int, rhs: Int) -> Result<usize, Step> {
    usize::try_from(value).map_err(|_| Step {
        reason: if value < 0 {
            ArithFailure::Negative
        } else {
            ArithFailure::Overflow
        },
        op,
        lhs,
        rhs,
    })
}

/// The outcome of undoing `x op k = t` (or `k op x = t`) for the unknown `x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inversion {
    /// Exactly this value of `x` gives `t`.
    Value(Int),
    /// Not decided by this step: many values may give `t` (`x // 2 = 3`, `0 * x = 0`,
    /// `x % 4 = 1`), or one or none, which only trying them would tell (`5 // x = 5`).
    Undecided,
    /// No whole value does (or, when a size was asked for, no size does): the step of the
    /// inverse computation that fails.
    NoWholeSolution(Step),
}

/// Floor division and its remainder, rounding toward minus infinity like Python (the
/// convolution formulas are written for it). Sizes take the unsigned fast path.
#[inline]
fn floor_div_rem(lhs: Int, rhs: Int) -> Option<(Int, Int)> {
    if let (Ok(a), Ok(b)) = (u64::try_from(lhs), u64::try_from(rhs)) {
        return Some((int_u64(a.checked_div(b)?), int_u64(a.checked_rem(b)?)));
    }
    let (q, r) = (lhs.checked_div(rhs)?, lhs.checked_rem(rhs)?);
    if r != 0 && ((r < 0) != (rhs < 0)) {
        Some((q - 1, r + rhs))
    } else {
        Some((q, r))
    }
}

#[inline(always)]
const fn int_u64(n: u64) -> Int {
    n as Int
}

/// The one natural `x` with `coef × xⁿ = t`, when there is one: a monomial in one unknown
/// has at most one natural solution (`n ≥ 1`). `0 × xⁿ = 0` holds for every `x`.
pub(crate) fn root(coef: Int, power: u32, t: Int) -> Inversion {
    let no = |reason, op, lhs, rhs| {
        Inversion::NoWholeSolution(Step {
            reason,
            op,
            lhs,
            rhs,
        })
    };
    if coef == 0 {
        return if t == 0 {
            Inversion::Undecided
        } else {
            no(ArithFailure::DivisionByZero, ArithOp::Div, t, 0)
        };
    }
    let r = match ArithOp::Div.step(t, coef) {
        Ok(r) => r,
        Err(step) => return Inversion::NoWholeSolution(step),
    };
    match power {
        0 => return Inversion::Undecided,
        1 if r >= 0 => return Inversion::Value(r),
        1 => return no(ArithFailure::Negative, ArithOp::Div, t, coef),
        _ => {}
    }
    let Ok(r) = u128::try_from(r) else {
        return no(ArithFailure::NoRoot, ArithOp::Mul, r, Int::from(power));
    };
    // The largest x with xⁿ ≤ r, by bisection on [0, r]: at most 128 halvings.
    let (mut lo, mut hi) = (0u128, r.min(1 << (128 / power).min(127)) + 1);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        match mid.checked_pow(power) {
            Some(p) if p <= r => lo = mid,
            _ => hi = mid,
        }
    }
    match (lo.checked_pow(power), Int::try_from(lo)) {
        (Some(p), Ok(x)) if p == r => Inversion::Value(x),
        _ => no(
            ArithFailure::NoRoot,
            ArithOp::Mul,
            Int::try_from(r).unwrap_or(Int::MAX),
            Int::from(power),
        ),
    }
}

impl ArithOp {
    /// Applies the operator to two sizes with overflow, underflow and exactness checks; `None`
    /// when the result is not a `usize` (or a `/` is not exact). Inside an expression, a step
    /// may go below zero: only the final value must be a size.
    ///
    /// ```
    /// use shapes::expr::ArithOp;
    /// assert_eq!(ArithOp::Div.apply(3072, 4), Some(768));
    /// assert_eq!(ArithOp::Div.apply(10, 4), None);
    /// assert_eq!(ArithOp::FloorDiv.apply(10, 4), Some(2));
    /// assert_eq!(ArithOp::Sub.apply(2, 3), None);
    /// assert_eq!(ArithOp::Mul.apply(usize::MAX, 2), None);
    /// ```
    #[inline]
    pub fn apply(self, lhs: usize, rhs: usize) -> Option<usize> {
        let (a, b) = (int(lhs), int(rhs));
        self.checked(a, b)
            .ok()
            .and_then(|v| natural(v, self, a, b).ok())
    }

    /// One step over the integers, with the reason when there is no value: overflow (past
    /// `i128`), division by zero, an inexact `/`.
    #[inline]
    pub(crate) fn checked(self, lhs: Int, rhs: Int) -> Result<Int, ArithFailure> {
        let value = match self {
            ArithOp::Add => lhs.checked_add(rhs),
            ArithOp::Sub => lhs.checked_sub(rhs),
            ArithOp::Mul => lhs.checked_mul(rhs),
            ArithOp::Div | ArithOp::FloorDiv | ArithOp::Rem if rhs == 0 => {
                return Err(ArithFailure::DivisionByZero);
            }
            ArithOp::Div => match floor_div_rem(lhs, rhs) {
                Some((q, 0)) => Some(q),
                Some(_) => return Err(ArithFailure::Inexact),
                None => None,
            },
            ArithOp::FloorDiv => floor_div_rem(lhs, rhs).map(|(q, _)| q),
            ArithOp::Rem => floor_div_rem(lhs, rhs).map(|(_, r)| r),
        };
        value.ok_or(ArithFailure::Overflow)
    }

    /// [`checked`](Self::checked), the failure quoting its operands.
    #[inline]
    pub(crate) fn step(self, lhs: Int, rhs: Int) -> Result<Int, Step> {
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
    /// use shapes::expr::ArithOp;
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
    /// use shapes::expr::ArithOp;
    /// use shapes::expr::Side;
    /// assert!(ArithOp::Mul.invertible(Side::Right));
    /// assert!(!ArithOp::FloorDiv.invertible(Side::Left));
    /// ```
    #[doc(hidden)]
    pub fn invertible(self, unknown: Side) -> bool {
        let _ = unknown;
        // Every operator listed, so that a new one is decided here, not defaulted.
        match self {
            ArithOp::Add | ArithOp::Sub | ArithOp::Mul | ArithOp::Div => true,
            ArithOp::FloorDiv | ArithOp::Rem => false,
        }
    }

    /// The size `x` with `x op k = t` (`unknown` [`Side::Left`]) or `k op x = t`, when one
    /// step of [`invert`](Self::invert) finds exactly one: what generated code solves a
    /// variable of a dim `l op r` with.
    #[inline(always)]
    pub(crate) fn undo_to_size(self, unknown: Side, k: Int, t: Int) -> Option<usize> {
        match self.invert(unknown, k, t, true) {
            Inversion::Value(x) => usize::try_from(x).ok(),
            Inversion::Undecided | Inversion::NoWholeSolution(_) => None,
        }
    }

    /// Undoes one step: the `x` with `x op k = t` (`unknown` is [`Side::Left`]) or
    /// `k op x = t` ([`Side::Right`]), over the integers; `size` asks for a natural `x` (the
    /// unknown is a variable, not a sub-expression), so a negative one is no solution.
    #[inline]
    pub(crate) fn invert(self, unknown: Side, k: Int, t: Int, size: bool) -> Inversion {
        use Inversion::{NoWholeSolution, Undecided, Value};
        let done = |op: ArithOp, a: Int, b: Int| match op.step(a, b) {
            Ok(v) if size => match natural(v, op, a, b) {
                Ok(_) => Value(v),
                Err(step) => NoWholeSolution(step),
            },
            Ok(v) => Value(v),
            Err(step) => NoWholeSolution(step),
        };
        let by_zero = |lhs: Int| {
            NoWholeSolution(Step {
                reason: ArithFailure::DivisionByZero,
                op: ArithOp::Div,
                lhs,
                rhs: 0,
            })
        };
        match (self, unknown) {
            // x + k = t, k + x = t: x = t - k.
            (ArithOp::Add, _) => done(ArithOp::Sub, t, k),
            // x - k = t: x = t + k.
            (ArithOp::Sub, Side::Left) => done(ArithOp::Add, t, k),
            // k - x = t: x = k - t.
            (ArithOp::Sub, Side::Right) => done(ArithOp::Sub, k, t),
            // x * k = t: every x when k = t = 0, none when only k is 0, else t / k exactly.
            (ArithOp::Mul, _) if k == 0 => {
                if t == 0 {
                    Undecided
                } else {
                    by_zero(t)
                }
            }
            (ArithOp::Mul, _) => done(ArithOp::Div, t, k),
            // x / k = t (exact): x = t * k (k = 0 has no value whatever x is).
            (ArithOp::Div, Side::Left) if k == 0 => by_zero(t),
            (ArithOp::Div, Side::Left) => done(ArithOp::Mul, t, k),
            // k / x = t (exact): x = k / t; every x ≠ 0 when k = t = 0.
            (ArithOp::Div, Side::Right) if t == 0 => {
                if k == 0 {
                    Undecided
                } else {
                    by_zero(k)
                }
            }
            // 0 / x = t ≠ 0: the only candidate, 0, divides by zero.
            (ArithOp::Div, Side::Right) if k == 0 => by_zero(k),
            (ArithOp::Div, Side::Right) => done(ArithOp::Div, k, t),
            // x // 1 = t: x = t. Any other floor division or remainder loses information.
            (ArithOp::FloorDiv, Side::Left) if k == 1 => done(ArithOp::Add, t, 0),
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

    /// `ArithOp::ALL` lists every variant once: the match below has no wildcard, so a new
    /// operator is a compile error here until it is given its place in the list.
    #[test]
    fn all_lists_every_operator_once() {
        let place = |op: ArithOp| match op {
            ArithOp::Add => 0,
            ArithOp::Sub => 1,
            ArithOp::Mul => 2,
            ArithOp::Div => 3,
            ArithOp::FloorDiv => 4,
            ArithOp::Rem => 5,
        };
        for (i, op) in ArithOp::ALL.into_iter().enumerate() {
            assert_eq!(place(op), i, "{op:?}");
        }
    }

    #[test]
    fn checked_names_each_failure() {
        assert_eq!(ArithOp::Sub.checked(2, 3), Ok(-1));
        assert_eq!(ArithOp::Sub.apply(2, 3), None);
        assert_eq!(
            ArithOp::Mul.checked(Int::MAX, 2),
            Err(ArithFailure::Overflow)
        );
        assert_eq!(ArithOp::Mul.apply(usize::MAX, 2), None);
        assert_eq!(ArithOp::Add.apply(usize::MAX, 1), None);
        assert_eq!(ArithOp::Div.checked(10, 4), Err(ArithFailure::Inexact));
        for op in [ArithOp::Div, ArithOp::FloorDiv, ArithOp::Rem] {
            assert_eq!(op.checked(7, 0), Err(ArithFailure::DivisionByZero));
        }
        assert_eq!(ArithOp::FloorDiv.checked(10, 4), Ok(2));
        assert_eq!(ArithOp::Rem.checked(10, 4), Ok(2));
    }

    /// Below zero, `//` and `%` round toward minus infinity, like Python: `-1 // 2 = -1`.
    #[test]
    fn floor_division_of_negative_intermediates_rounds_down() {
        assert_eq!(ArithOp::FloorDiv.checked(-1, 2), Ok(-1));
        assert_eq!(ArithOp::Rem.checked(-1, 2), Ok(1));
        assert_eq!(ArithOp::FloorDiv.checked(7, -2), Ok(-4));
        assert_eq!(ArithOp::Rem.checked(7, -2), Ok(-1));
        assert_eq!(ArithOp::Div.checked(-6, 3), Ok(-2));
        assert_eq!(ArithOp::Div.checked(-7, 3), Err(ArithFailure::Inexact));
        for a in -20..20 {
            for b in (-7..7).filter(|b| *b != 0) {
                let (q, r) = (
                    ArithOp::FloorDiv.checked(a, b).unwrap(),
                    ArithOp::Rem.checked(a, b).unwrap(),
                );
                assert_eq!(q * b + r, a, "{a} {b}");
                assert_eq!(q, (a as f64 / b as f64).floor() as Int, "{a} {b}");
            }
        }
    }

    #[test]
    fn only_the_final_value_must_be_a_size() {
        // (h - k + 2*p) // s + 1 with h = 2, k = 3, p = 1, s = 1.
        let d = ArithOp::Sub.checked(2, 3).unwrap();
        let d = ArithOp::Add.checked(d, 2).unwrap();
        let d = ArithOp::FloorDiv.checked(d, 1).unwrap();
        assert_eq!(ArithOp::Add.checked(d, 1), Ok(2));
        let step = natural(-1, ArithOp::Sub, 2, 3).unwrap_err();
        assert_eq!(step.to_string(), "2 - 3 is below zero");
        let big = int(usize::MAX) + 1;
        assert_eq!(
            natural(big, ArithOp::Add, int(usize::MAX), 1)
                .unwrap_err()
                .reason,
            ArithFailure::Overflow
        );
    }

    #[test]
    fn steps_quote_their_operands() {
        let text = |op: ArithOp, a, b| op.step(a, b).unwrap_err().to_string();
        assert_eq!(
            text(ArithOp::Div, 3070, 4),
            "3070 / 4 is not exact (remainder 2)"
        );
        assert_eq!(text(ArithOp::FloorDiv, 7, 0), "7 is divided by zero");
        assert_eq!(text(ArithOp::Div, 7, 0), "7 is divided by zero");
        assert_eq!(text(ArithOp::Rem, 7, 0), "7 is taken modulo zero");
        assert_eq!(
            text(ArithOp::Mul, Int::MAX, 2),
            format!("{} * 2 overflows usize", Int::MAX)
        );
    }

    /// Every inversion that gives a size is exact: applying the operator to it gives the
    /// target back. Every `NoWholeSolution` is right: no small size works.
    #[test]
    fn inversions_agree_with_application() {
        for op in ArithOp::ALL {
            for side in [Side::Left, Side::Right] {
                for k in -6..12 {
                    for t in -10..40 {
                        let apply = |x: Int| match side {
                            Side::Left => op.checked(x, k).ok(),
                            Side::Right => op.checked(k, x).ok(),
                        };
                        let solutions: Vec<Int> =
                            (0..1000).filter(|&x| apply(x) == Some(t)).collect();
                        match op.invert(side, k, t, true) {
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
        for op in ArithOp::ALL {
            for side in [Side::Left, Side::Right] {
                if !op.invertible(side) {
                    continue;
                }
                for k in 1..12 {
                    for t in 1..40 {
                        assert_ne!(
                            op.invert(side, k, t, true),
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
        let max = int(usize::MAX);
        assert_eq!(
            ArithOp::Sub.invert(Side::Left, 1, max, true),
            Inversion::NoWholeSolution(Step {
                reason: ArithFailure::Overflow,
                op: ArithOp::Add,
                lhs: max,
                rhs: 1
            })
        );
        // Not a variable: an intermediate may be past usize (the rest may bring it back).
        assert_eq!(
            ArithOp::Sub.invert(Side::Left, 1, max, false),
            Inversion::Value(max + 1)
        );
        assert_eq!(
            ArithOp::Add.invert(Side::Left, 10, 5, true),
            Inversion::NoWholeSolution(Step {
                reason: ArithFailure::Negative,
                op: ArithOp::Sub,
                lhs: 5,
                rhs: 10
            })
        );
        assert_eq!(
            ArithOp::Add.invert(Side::Left, 10, 5, false),
            Inversion::Value(-5)
        );
    }

    /// `c × xⁿ = t` has at most one natural solution, found exactly, even near the limits.
    #[test]
    fn roots_of_monomials() {
        assert_eq!(root(1, 3, 125), Inversion::Value(5));
        assert_eq!(root(2, 2, 50), Inversion::Value(5));
        assert_eq!(root(1, 2, 0), Inversion::Value(0));
        assert_eq!(root(1, 7, 1), Inversion::Value(1));
        assert_eq!(root(0, 2, 0), Inversion::Undecided);
        assert!(matches!(root(0, 2, 4), Inversion::NoWholeSolution(_)));
        assert!(matches!(root(3, 2, 50), Inversion::NoWholeSolution(_)));
        let Inversion::NoWholeSolution(step) = root(1, 3, 124) else {
            panic!("124 is no cube")
        };
        assert_eq!(step.to_string(), "124 is not the cube of a whole size");
        let m = Int::from(u32::MAX);
        assert_eq!(root(1, 2, m * m), Inversion::Value(m));
        assert!(matches!(
            root(1, 2, m * m - 1),
            Inversion::NoWholeSolution(_)
        ));
        assert_eq!(root(1, 64, 1 << 64), Inversion::Value(2));
        for x in 0..60i128 {
            for n in 1..5 {
                assert_eq!(root(3, n, 3 * x.pow(n)), Inversion::Value(x), "{x} {n}");
            }
        }
    }
}
