//! The static description of a derived struct's checks, built as constants by the derive.

use core::fmt;

use crate::expr::ArithOp;

/// A dim expression compiled for the checker: variables are indices into the struct's
/// [`VarTable`](super::VarTable). The derive emits these as `static` trees.
#[derive(Debug)]
pub enum SlotExpr {
    /// A literal size.
    Lit(usize),
    /// A variable, by its index in the struct's table.
    Var(u8),
    /// Arithmetic.
    Bin(ArithOp, &'static SlotExpr, &'static SlotExpr),
}

/// Why a dim expression has no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArithFailure {
    /// `a / b` with a remainder.
    Inexact { lhs: usize, rhs: usize },
    /// `a - b` below zero.
    Negative { lhs: usize, rhs: usize },
    /// The result does not fit in `usize`.
    Overflow { op: ArithOp, lhs: usize, rhs: usize },
    /// Division or remainder by zero.
    DivByZero { lhs: usize },
}

impl fmt::Display for ArithFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ArithFailure::Inexact { lhs, rhs } => {
                write!(f, "{lhs} / {rhs} is not exact (remainder {})", lhs % rhs)
            }
            ArithFailure::Negative { lhs, rhs } => write!(f, "{lhs} - {rhs} is below zero"),
            ArithFailure::Overflow { op, lhs, rhs } => {
                write!(f, "{lhs} {} {rhs} overflows usize", op_str(op))
            }
            ArithFailure::DivByZero { lhs } => write!(f, "{lhs} is divided by zero"),
        }
    }
}

pub(crate) fn op_str(op: ArithOp) -> &'static str {
    match op {
        ArithOp::Add => "+",
        ArithOp::Sub => "-",
        ArithOp::Mul => "*",
        ArithOp::Div => "/",
        ArithOp::FloorDiv => "//",
        ArithOp::Rem => "%",
    }
}

pub(crate) fn apply(op: ArithOp, lhs: usize, rhs: usize) -> Result<usize, ArithFailure> {
    match op.apply(lhs, rhs) {
        Some(v) => Ok(v),
        None => Err(match op {
            ArithOp::Div | ArithOp::FloorDiv | ArithOp::Rem if rhs == 0 => {
                ArithFailure::DivByZero { lhs }
            }
            ArithOp::Div => ArithFailure::Inexact { lhs, rhs },
            ArithOp::Sub => ArithFailure::Negative { lhs, rhs },
            _ => ArithFailure::Overflow { op, lhs, rhs },
        }),
    }
}

/// The outcome of evaluating a [`SlotExpr`] against the current bindings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Eval {
    /// Every variable is bound: the value.
    Value(usize),
    /// Some variable is unbound: one of them (the first met) and how many unbound occurrences.
    Unknown {
        slot: u8,
        occurrences: u32,
        distinct: bool,
    },
    /// Every variable is bound, but the arithmetic fails.
    Failed(ArithFailure),
}

impl SlotExpr {
    /// Evaluates with `value(local)` giving a bound variable's value.
    pub(crate) fn eval(&self, value: &impl Fn(u8) -> Option<usize>) -> Eval {
        match self {
            SlotExpr::Lit(n) => Eval::Value(*n),
            SlotExpr::Var(v) => match value(*v) {
                Some(n) => Eval::Value(n),
                None => Eval::Unknown {
                    slot: *v,
                    occurrences: 1,
                    distinct: true,
                },
            },
            SlotExpr::Bin(op, l, r) => match (l.eval(value), r.eval(value)) {
                (Eval::Value(a), Eval::Value(b)) => match apply(*op, a, b) {
                    Ok(v) => Eval::Value(v),
                    Err(e) => Eval::Failed(e),
                },
                (Eval::Failed(e), _) | (_, Eval::Failed(e)) => Eval::Failed(e),
                (
                    Eval::Unknown {
                        slot,
                        occurrences,
                        distinct,
                    },
                    Eval::Unknown {
                        slot: s2,
                        occurrences: o2,
                        distinct: d2,
                    },
                ) => Eval::Unknown {
                    slot,
                    occurrences: occurrences + o2,
                    distinct: distinct && d2 && slot != s2,
                },
                (u @ Eval::Unknown { .. }, _) | (_, u @ Eval::Unknown { .. }) => u,
            },
        }
    }

    /// Solves `self = target` for its one unknown variable, which must occur once. `Ok(None)`
    /// when the expression cannot be inverted to a unique value (floor division, remainder, a
    /// product with zero); `Err` when no whole value solves it.
    pub(crate) fn solve(
        &self,
        target: usize,
        value: &impl Fn(u8) -> Option<usize>,
    ) -> Result<Option<(u8, usize)>, ArithFailure> {
        match self {
            SlotExpr::Lit(_) => Ok(None),
            SlotExpr::Var(v) => Ok(Some((*v, target))),
            SlotExpr::Bin(op, l, r) => {
                let (lv, rv) = (l.eval(value), r.eval(value));
                match (lv, rv) {
                    // Unknown on the right: target = a op r.
                    (Eval::Value(a), Eval::Unknown { .. }) => {
                        let r_target = match op {
                            ArithOp::Add => target.checked_sub(a),
                            ArithOp::Sub => a.checked_sub(target),
                            ArithOp::Mul if a == 0 => return Ok(None),
                            ArithOp::Mul => {
                                if !target.is_multiple_of(a) {
                                    return Err(ArithFailure::Inexact {
                                        lhs: target,
                                        rhs: a,
                                    });
                                }
                                Some(target / a)
                            }
                            ArithOp::Div => {
                                // a / r = target exactly: r = a / target, exact both ways.
                                if target == 0 || !a.is_multiple_of(target) {
                                    return Err(ArithFailure::Inexact {
                                        lhs: a,
                                        rhs: target,
                                    });
                                }
                                Some(a / target)
                            }
                            ArithOp::FloorDiv | ArithOp::Rem => return Ok(None),
                        };
                        match r_target {
                            Some(t) => r.solve(t, value),
                            None => Err(ArithFailure::Negative {
                                lhs: target,
                                rhs: a,
                            }),
                        }
                    }
                    // Unknown on the left: target = l op b.
                    (Eval::Unknown { .. }, Eval::Value(b)) => {
                        let l_target = match op {
                            ArithOp::Add => target.checked_sub(b),
                            ArithOp::Sub => target.checked_add(b),
                            ArithOp::Mul if b == 0 => return Ok(None),
                            ArithOp::Mul => {
                                if !target.is_multiple_of(b) {
                                    return Err(ArithFailure::Inexact {
                                        lhs: target,
                                        rhs: b,
                                    });
                                }
                                Some(target / b)
                            }
                            ArithOp::Div => match target.checked_mul(b) {
                                Some(t) => Some(t),
                                None => {
                                    return Err(ArithFailure::Overflow {
                                        op: ArithOp::Mul,
                                        lhs: target,
                                        rhs: b,
                                    });
                                }
                            },
                            ArithOp::FloorDiv | ArithOp::Rem => return Ok(None),
                        };
                        match l_target {
                            Some(t) => l.solve(t, value),
                            None => Err(ArithFailure::Negative {
                                lhs: target,
                                rhs: b,
                            }),
                        }
                    }
                    _ => Ok(None),
                }
            }
        }
    }

    /// The distinct local variables, in order of first appearance.
    pub(crate) fn vars(&self, out: &mut Vec<u8>) {
        match self {
            SlotExpr::Lit(_) => {}
            SlotExpr::Var(v) => {
                if !out.contains(v) {
                    out.push(*v);
                }
            }
            SlotExpr::Bin(_, l, r) => {
                l.vars(out);
                r.vars(out);
            }
        }
    }

    /// Writes the expression with `leaf` printing each variable (its name or its value), with
    /// the fewest parentheses that keep the meaning.
    pub(crate) fn write(&self, f: &mut String, leaf: &impl Fn(u8) -> String) {
        self.write_prec(f, leaf, 0);
    }

    fn write_prec(&self, f: &mut String, leaf: &impl Fn(u8) -> String, outer: u8) {
        match self {
            SlotExpr::Lit(n) => f.push_str(&n.to_string()),
            SlotExpr::Var(v) => f.push_str(&leaf(*v)),
            SlotExpr::Bin(op, l, r) => {
                let p = op.precedence();
                let paren = p < outer;
                if paren {
                    f.push('(');
                }
                l.write_prec(f, leaf, p);
                f.push(' ');
                f.push_str(op_str(*op));
                f.push(' ');
                // Left-associative: a right operand of the same precedence needs parentheses.
                r.write_prec(f, leaf, p + 1);
                if paren {
                    f.push(')');
                }
            }
        }
    }
}

/// A field's static facts: its name and its pattern as written.
#[derive(Debug, PartialEq, Eq)]
pub struct FieldInfo {
    /// The field's name (or the tensor name for a header check).
    pub name: &'static str,
    /// The pattern string from the attribute.
    pub pattern: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    static D: SlotExpr = SlotExpr::Var(0);
    static FOUR: SlotExpr = SlotExpr::Lit(4);
    static FOUR_D: SlotExpr = SlotExpr::Bin(ArithOp::Mul, &FOUR, &D);
    static ONE: SlotExpr = SlotExpr::Lit(1);
    static D_PLUS_1: SlotExpr = SlotExpr::Bin(ArithOp::Add, &D, &ONE);

    #[test]
    fn inverts_one_unknown() {
        let none = |_| None;
        assert_eq!(FOUR_D.solve(3072, &none), Ok(Some((0, 768))));
        assert!(FOUR_D.solve(3070, &none).is_err());
        assert_eq!(D_PLUS_1.solve(5, &none), Ok(Some((0, 4))));
        assert!(D_PLUS_1.solve(0, &none).is_err());
    }

    #[test]
    fn prints_with_minimal_parentheses() {
        static SUM: SlotExpr = SlotExpr::Bin(ArithOp::Add, &D, &ONE);
        static PROD: SlotExpr = SlotExpr::Bin(ArithOp::Mul, &SUM, &FOUR);
        let mut s = String::new();
        PROD.write(&mut s, &|_| "d".to_string());
        assert_eq!(s, "(d + 1) * 4");
    }
}
