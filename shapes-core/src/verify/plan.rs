//! The static description of a derived struct's checks, built as constants by the derive.

use crate::expr::{ArithFailure, ArithOp, Int, Inversion, Side, Step, int, natural, root};

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
    /// Every variable is bound, but the arithmetic fails (or the value is not a size).
    Fails(Step),
    /// The one unknown, at local index `local`, is `value`.
    Bind { local: u8, value: usize },
    /// No whole size of the one unknown solves it: the step that fails.
    NoWholeSolution(Step),
    /// Unknowns that cannot be solved for yet.
    Wait,
}

/// The outcome of evaluating a [`SlotExpr`] against the current bindings: `V` is `usize`
/// for a dim's final value, [`Int`] for an intermediate one (which may be below zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Eval<V = usize> {
    /// Every variable is bound: the value.
    Value(V),
    /// Some variable is unbound: one of them (the first met) and how many unbound occurrences;
    /// `distinct` when no unknown occurs twice, `single` when every occurrence is `slot`.
    Unknown {
        slot: u8,
        occurrences: u32,
        distinct: bool,
        single: bool,
    },
    /// Every variable is bound, but the arithmetic fails.
    Failed(Step),
}

impl SlotExpr {
    /// Evaluates with `value(local)` giving a bound variable's value: a dim's final value,
    /// which must be a size (steps in between may go below zero).
    #[inline]
    pub(crate) fn eval(&self, value: &impl Fn(u8) -> Option<usize>) -> Eval {
        match self.eval_int(value) {
            Eval::Value(v) => match usize::try_from(v) {
                Ok(n) => Eval::Value(n),
                Err(_) => Eval::Failed(self.final_step(v, value)),
            },
            Eval::Unknown {
                slot,
                occurrences,
                distinct,
                single,
            } => Eval::Unknown {
                slot,
                occurrences,
                distinct,
                single,
            },
            Eval::Failed(e) => Eval::Failed(e),
        }
    }

    /// Why `v`, this expression's value, is not a size: its last step, quoted.
    #[cold]
    fn final_step(&self, v: Int, value: &impl Fn(u8) -> Option<usize>) -> Step {
        let (op, lhs, rhs) = match self {
            SlotExpr::Bin(op, l, r) => match (l.eval_int(value), r.eval_int(value)) {
                (Eval::Value(a), Eval::Value(b)) => (*op, a, b),
                _ => (ArithOp::Add, v, 0),
            },
            // A literal or a variable is a size.
            _ => (ArithOp::Add, v, 0),
        };
        match natural(v, op, lhs, rhs) {
            Err(step) => step,
            Ok(_) => Step {
                reason: ArithFailure::Overflow,
                op,
                lhs,
                rhs,
            },
        }
    }

    /// Evaluates over the integers.
    pub(crate) fn eval_int(&self, value: &impl Fn(u8) -> Option<usize>) -> Eval<Int> {
        match self {
            SlotExpr::Lit(n) => Eval::Value(int(*n)),
            SlotExpr::Var(v) => match value(*v) {
                Some(n) => Eval::Value(int(n)),
                None => Eval::Unknown {
                    slot: *v,
                    occurrences: 1,
                    distinct: true,
                    single: true,
                },
            },
            SlotExpr::Bin(op, l, r) => match (l.eval_int(value), r.eval_int(value)) {
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
                        single,
                    },
                    Eval::Unknown {
                        slot: s2,
                        occurrences: o2,
                        distinct: d2,
                        single: g2,
                    },
                ) => Eval::Unknown {
                    slot,
                    occurrences: occurrences.saturating_add(o2),
                    distinct: distinct && d2 && slot != s2,
                    single: single && g2 && slot == s2,
                },
                (u @ Eval::Unknown { .. }, _) | (_, u @ Eval::Unknown { .. }) => u,
            },
        }
    }

    /// What `self = target` tells, given the variables bound so far: it holds, it fails, or it
    /// binds its one unknown (occurring once, undone through the arithmetic table, or as a
    /// power, by its whole root), or it has to wait for more variables. The one sequence both
    /// checkers react to.
    #[inline]
    pub(crate) fn step(&self, target: usize, value: &impl Fn(u8) -> Option<usize>) -> Outcome {
        match self.eval(value) {
            Eval::Value(v) if v == target => Outcome::Holds,
            Eval::Value(v) => Outcome::Differs(v),
            Eval::Failed(f) => Outcome::Fails(f),
            Eval::Unknown {
                distinct, single, ..
            } if distinct || single => self.solve(target, value),
            Eval::Unknown { .. } => Outcome::Wait,
        }
    }

    /// Solves `self = target` for its one unknown, undoing one operator at a time, or taking
    /// the whole root of a power of it.
    #[cold]
    fn solve(&self, target: usize, value: &impl Fn(u8) -> Option<usize>) -> Outcome {
        let (mut cur, mut t) = (self, int(target));
        loop {
            let (op, next, side, k) = match cur {
                SlotExpr::Var(local) => {
                    let local = *local;
                    return match usize::try_from(t) {
                        Ok(value) => Outcome::Bind { local, value },
                        // Only reached for a bare variable, whose target is a size.
                        Err(_) => Outcome::Wait,
                    };
                }
                SlotExpr::Lit(_) => return Outcome::Wait,
                SlotExpr::Bin(op, l, r) => match (l.eval_int(value), r.eval_int(value)) {
                    (Eval::Unknown { .. }, Eval::Value(k)) => (*op, *l, Side::Left, k),
                    (Eval::Value(k), Eval::Unknown { .. }) => (*op, *r, Side::Right, k),
                    (Eval::Unknown { .. }, Eval::Unknown { .. }) => {
                        return cur.solve_power(t, value);
                    }
                    _ => return Outcome::Wait,
                },
            };
            let size = matches!(next, SlotExpr::Var(_));
            match op.invert(side, k, t, size) {
                Inversion::Value(v) => (cur, t) = (next, v),
                Inversion::Undecided => return Outcome::Wait,
                Inversion::NoWholeSolution(step) => return Outcome::NoWholeSolution(step),
            }
        }
    }

    /// `self = t` where `self` is a product of the one unknown (at least twice) and bound
    /// values: `coef × xⁿ = t` has at most one natural solution, its whole root.
    fn solve_power(&self, t: Int, value: &impl Fn(u8) -> Option<usize>) -> Outcome {
        let Some((Some(local), coef, power)) = self.monomial(value) else {
            return Outcome::Wait;
        };
        match root(coef, power, t) {
            Inversion::Value(x) => match usize::try_from(x) {
                Ok(value) => Outcome::Bind { local, value },
                Err(_) => Outcome::Wait,
            },
            Inversion::Undecided => Outcome::Wait,
            Inversion::NoWholeSolution(step) => Outcome::NoWholeSolution(step),
        }
    }

    /// `self` as `coef × xⁿ` for one unknown `x` (`None` as the unknown when there is none),
    /// when it is a product of bound values and that unknown.
    fn monomial(&self, value: &impl Fn(u8) -> Option<usize>) -> Option<(Option<u8>, Int, u32)> {
        match self.eval_int(value) {
            Eval::Value(v) => return Some((None, v, 0)),
            Eval::Failed(_) => return None,
            Eval::Unknown { .. } => {}
        }
        match self {
            SlotExpr::Var(l) => Some((Some(*l), 1, 1)),
            SlotExpr::Bin(ArithOp::Mul, a, b) => {
                let (va, ca, pa) = a.monomial(value)?;
                let (vb, cb, pb) = b.monomial(value)?;
                if let (Some(x), Some(y)) = (va, vb)
                    && x != y
                {
                    return None;
                }
                Some((va.or(vb), ca.checked_mul(cb)?, pa.checked_add(pb)?))
            }
            _ => None,
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

    /// `(h - k + 2*p) // s + 1`: below zero in between is fine; only the dim must be a size.
    #[test]
    fn intermediates_may_go_below_zero() {
        static H: SlotExpr = SlotExpr::Var(0);
        static K: SlotExpr = SlotExpr::Var(1);
        static TWO: SlotExpr = SlotExpr::Lit(2);
        static H_K: SlotExpr = SlotExpr::Bin(ArithOp::Sub, &H, &K);
        static PAD: SlotExpr = SlotExpr::Bin(ArithOp::Add, &H_K, &TWO);
        static DIV: SlotExpr = SlotExpr::Bin(ArithOp::FloorDiv, &PAD, &ONE);
        static CONV: SlotExpr = SlotExpr::Bin(ArithOp::Add, &DIV, &ONE);
        let bound = |v: u8| [Some(2), Some(3)][usize::from(v)];
        assert_eq!(CONV.step(2, &bound), Outcome::Holds);
        let Eval::Failed(step) = H_K.eval(&bound) else {
            panic!("2 - 3 is no size")
        };
        assert_eq!(step.to_string(), "2 - 3 is below zero");
        // h unknown: solved through the negative intermediate.
        let k_only = |v: u8| [None, Some(3)][usize::from(v)];
        assert_eq!(CONV.step(2, &k_only), Outcome::Bind { local: 0, value: 2 });
        // h - k + 2 = -1 has h = 0; h - k = -4 has no size.
        assert_eq!(PAD.step(1, &k_only), Outcome::Bind { local: 0, value: 2 });
        assert_eq!(H_K.step(0, &k_only), Outcome::Bind { local: 0, value: 3 });
        static K_H: SlotExpr = SlotExpr::Bin(ArithOp::Sub, &K, &H);
        let Outcome::NoWholeSolution(step) = K_H.step(5, &k_only) else {
            panic!("3 - h = 5 has no size h")
        };
        assert_eq!(step.to_string(), "3 - 5 is below zero");
    }

    #[test]
    fn powers_of_one_unknown_are_solved_by_their_root() {
        static ZZ: SlotExpr = SlotExpr::Bin(ArithOp::Mul, &D, &D);
        static ZZZ: SlotExpr = SlotExpr::Bin(ArithOp::Mul, &ZZ, &D);
        static FOUR_ZZ_1: SlotExpr = SlotExpr::Bin(ArithOp::Add, &FOUR_ZZ, &ONE);
        static FOUR_ZZ: SlotExpr = SlotExpr::Bin(ArithOp::Mul, &FOUR, &ZZ);
        let none = |_| None;
        assert_eq!(ZZZ.step(125, &none), Outcome::Bind { local: 0, value: 5 });
        assert_eq!(
            FOUR_ZZ_1.step(101, &none),
            Outcome::Bind { local: 0, value: 5 }
        );
        let Outcome::NoWholeSolution(step) = ZZZ.step(124, &none) else {
            panic!("124 is no cube")
        };
        assert_eq!(step.to_string(), "124 is not the cube of a whole size");
        // Two unknowns: wait.
        static E: SlotExpr = SlotExpr::Var(1);
        static DE: SlotExpr = SlotExpr::Bin(ArithOp::Mul, &D, &E);
        assert_eq!(DE.step(6, &none), Outcome::Wait);
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
