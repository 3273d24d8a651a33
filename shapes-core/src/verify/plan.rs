//! The static description of a derived struct's checks, built as constants by the derive.

use crate::expr::{ArithOp, Inversion, Side, Step};

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

/// What checking `expr = target` found (see [`SlotExpr::step`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Every variable is bound and the equation holds.
    Holds,
    /// Every variable is bound and the expression is this value instead.
    Differs(usize),
    /// Every variable is bound, but the arithmetic fails.
    Fails(Step),
    /// The one unknown, at local index `local`, is `value`.
    Bind { local: u8, value: usize },
    /// No whole size of the one unknown solves it: the step that fails.
    NoWholeSolution(Step),
    /// Unknowns that cannot be solved for yet.
    Wait,
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
    Failed(Step),
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
                (Eval::Value(a), Eval::Value(b)) => match op.step(a, b) {
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

    /// What `self = target` tells, given the variables bound so far: it holds, it fails, or it
    /// binds its one unknown (occurring once, undone through the arithmetic table), or it has
    /// to wait for more variables. The one sequence both checkers react to.
    #[inline]
    pub(crate) fn step(&self, target: usize, value: &impl Fn(u8) -> Option<usize>) -> Outcome {
        match self.eval(value) {
            Eval::Value(v) if v == target => Outcome::Holds,
            Eval::Value(v) => Outcome::Differs(v),
            Eval::Failed(f) => Outcome::Fails(f),
            Eval::Unknown {
                occurrences: 1,
                distinct: true,
                ..
            } => self.solve(target, value),
            Eval::Unknown { .. } => Outcome::Wait,
        }
    }

    /// Solves `self = target` for its one unknown, undoing one operator at a time.
    fn solve(&self, target: usize, value: &impl Fn(u8) -> Option<usize>) -> Outcome {
        let (mut cur, mut t) = (self, target);
        loop {
            let (op, next, side, k) = match cur {
                SlotExpr::Var(local) => {
                    let local = *local;
                    // The table's inversions are exact: putting the value back gives the target.
                    debug_assert_eq!(
                        self.eval(&|v| if v == local { Some(t) } else { value(v) }),
                        Eval::Value(target),
                        "an inversion of the arithmetic table is not exact"
                    );
                    return Outcome::Bind { local, value: t };
                }
                SlotExpr::Lit(_) => return Outcome::Wait,
                SlotExpr::Bin(op, l, r) => match (l.eval(value), r.eval(value)) {
                    (Eval::Unknown { .. }, Eval::Value(k)) => (*op, *l, Side::Left, k),
                    (Eval::Value(k), Eval::Unknown { .. }) => (*op, *r, Side::Right, k),
                    _ => return Outcome::Wait,
                },
            };
            match op.invert(side, k, t) {
                Inversion::Value(v) => (cur, t) = (next, v),
                Inversion::Undecided => return Outcome::Wait,
                Inversion::NoWholeSolution(step) => return Outcome::NoWholeSolution(step),
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
                f.push_str(op.symbol(true));
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
        let bind = |value| Outcome::Bind { local: 0, value };
        assert_eq!(FOUR_D.step(3072, &none), bind(768));
        assert!(matches!(
            FOUR_D.step(3070, &none),
            Outcome::NoWholeSolution(_)
        ));
        assert_eq!(D_PLUS_1.step(5, &none), bind(4));
        assert!(matches!(
            D_PLUS_1.step(0, &none),
            Outcome::NoWholeSolution(_)
        ));
        assert_eq!(D_PLUS_1.step(5, &|_| Some(4)), Outcome::Holds);
        assert_eq!(D_PLUS_1.step(5, &|_| Some(3)), Outcome::Differs(4));
    }

    #[test]
    fn floor_division_by_one_is_solved_like_the_symbolic_solver_does() {
        static D_DIV_1: SlotExpr = SlotExpr::Bin(ArithOp::FloorDiv, &D, &ONE);
        static D_DIV_4: SlotExpr = SlotExpr::Bin(ArithOp::FloorDiv, &D, &FOUR);
        let none = |_| None;
        assert_eq!(D_DIV_1.step(7, &none), Outcome::Bind { local: 0, value: 7 });
        assert_eq!(D_DIV_4.step(7, &none), Outcome::Wait);
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
