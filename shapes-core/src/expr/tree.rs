//! The one walk over size arithmetic, for both forms a size expression takes: [`DimExpr`]
//! (names, `Box` children: the language) and the checker's slot trees (`verify::plan`'s
//! `SlotExpr`: variables as indices, `&'static` children, so the derive can emit them as
//! constants). Each form is read through [`SizeTree::node`], and everything done with the
//! arithmetic is written here once: the value ([`eval`]), the variables ([`for_each_var`]),
//! the solution of `e = t` for one unknown ([`solve`], undoing one operator at a time along
//! [`undo_path`], or taking the whole root of a power of it), and the text ([`write`]).
//!
//! An operator is taught to the library in `expr/arith.rs` (its step, failure, inversion and
//! symbol); nothing here names one operator but `×`, whose powers of one unknown are solved
//! by their root.
//!
//! [`DimExpr`]: super::DimExpr

use core::fmt;

use super::arith::{Int, Inversion, Side, Step, int, natural, root};
use super::ast::{ArithOp, DimExpr, Name};

/// One node of a size expression, as [`SizeTree::node`] shows it.
#[derive(Debug)]
pub(crate) enum SizeNode<'a, T: SizeTree + ?Sized + 'a> {
    /// A literal size.
    Lit(usize),
    /// A variable.
    Var(T::Var<'a>),
    /// `lhs op rhs`.
    Bin(ArithOp, &'a T, &'a T),
    /// A size of a shape (`D e`, `Π e`, `Σ e`, `e[i]`): it has no value without that shape,
    /// and nothing is solved through it.
    Opaque,
}

/// A size expression the arithmetic walks read: each node a literal, a variable, an operator
/// between two sub-expressions, or a size the arithmetic cannot see into.
pub(crate) trait SizeTree {
    /// How a variable is named: a [`Name`] in the language, a slot in the checker.
    type Var<'a>: Copy + PartialEq
    where
        Self: 'a;

    /// This node.
    fn node(&self) -> SizeNode<'_, Self>;
}

impl SizeTree for DimExpr {
    type Var<'a> = &'a Name;

    #[inline]
    fn node(&self) -> SizeNode<'_, Self> {
        match self {
            DimExpr::Lit(n) => SizeNode::Lit(*n),
            DimExpr::Var(n) => SizeNode::Var(n),
            DimExpr::Bin(op, l, r) => SizeNode::Bin(*op, l, r),
            DimExpr::Rank(_) | DimExpr::Prod(_) | DimExpr::Sum(_) | DimExpr::Index(..) => {
                SizeNode::Opaque
            }
        }
    }
}

/// The value of a size expression given the variables bound so far (see [`eval`]): `N` is
/// [`i128`] for an intermediate value (which may be below zero), `usize` for a dim's final
/// value ([`eval_size`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Eval<V, N = i128> {
    /// Every variable is bound: the value.
    Value(N),
    /// Some variable is unbound: one of them (the first met) and how many unbound
    /// occurrences; `distinct` when no unknown occurs twice, `single` when every occurrence
    /// is `var`.
    Unknown {
        /// The first unbound variable met.
        var: V,
        /// How many unbound occurrences.
        occurrences: u32,
        /// No unknown occurs twice.
        distinct: bool,
        /// Every unknown occurrence is `var`.
        single: bool,
    },
    /// A size of a shape, which has no value here.
    Opaque,
    /// Every variable is bound, but the arithmetic fails: the step that does.
    Failed(Step),
}

/// Evaluates `e` over the integers, `value` giving each bound variable's value.
#[inline]
pub(crate) fn eval<'a, T: SizeTree + ?Sized>(
    e: &'a T,
    value: &impl Fn(T::Var<'a>) -> Option<usize>,
) -> Eval<T::Var<'a>> {
    match e.node() {
        SizeNode::Lit(n) => Eval::Value(int(n)),
        SizeNode::Var(v) => match value(v) {
            Some(n) => Eval::Value(int(n)),
            None => Eval::Unknown {
                var: v,
                occurrences: 1,
                distinct: true,
                single: true,
            },
        },
        SizeNode::Opaque => Eval::Opaque,
        SizeNode::Bin(op, l, r) => match (eval(l, value), eval(r, value)) {
            (Eval::Value(a), Eval::Value(b)) => match op.step(a, b) {
                Ok(v) => Eval::Value(v),
                Err(e) => Eval::Failed(e),
            },
            (Eval::Failed(e), _) | (_, Eval::Failed(e)) => Eval::Failed(e),
            (Eval::Opaque, _) | (_, Eval::Opaque) => Eval::Opaque,
            (
                Eval::Unknown {
                    var,
                    occurrences,
                    distinct,
                    single,
                },
                Eval::Unknown {
                    var: v2,
                    occurrences: o2,
                    distinct: d2,
                    single: g2,
                },
            ) => Eval::Unknown {
                var,
                occurrences: occurrences.saturating_add(o2),
                distinct: distinct && d2 && var != v2,
                single: single && g2 && var == v2,
            },
            (u @ Eval::Unknown { .. }, _) | (_, u @ Eval::Unknown { .. }) => u,
        },
    }
}

/// [`eval`] for a dim's final value, which must be a size: a value below zero (or past
/// `usize`) fails, quoting the last step.
#[inline]
pub(crate) fn eval_size<'a, T: SizeTree + ?Sized>(
    e: &'a T,
    value: &impl Fn(T::Var<'a>) -> Option<usize>,
) -> Eval<T::Var<'a>, usize> {
    match eval(e, value) {
        Eval::Value(v) => match usize::try_from(v) {
            Ok(n) => Eval::Value(n),
            Err(_) => Eval::Failed(final_step(e, v, value)),
        },
        Eval::Unknown {
            var,
            occurrences,
            distinct,
            single,
        } => Eval::Unknown {
            var,
            occurrences,
            distinct,
            single,
        },
        Eval::Opaque => Eval::Opaque,
        Eval::Failed(e) => Eval::Failed(e),
    }
}

/// Why `v`, `e`'s value, is not a size: its last step, quoted.
#[cold]
fn final_step<'a, T: SizeTree + ?Sized>(
    e: &'a T,
    v: Int,
    value: &impl Fn(T::Var<'a>) -> Option<usize>,
) -> Step {
    let (op, lhs, rhs) = match e.node() {
        SizeNode::Bin(op, l, r) => match (eval(l, value), eval(r, value)) {
            (Eval::Value(a), Eval::Value(b)) => (op, a, b),
            _ => (ArithOp::Add, v, 0),
        },
        // A literal or a variable is a size.
        _ => (ArithOp::Add, v, 0),
    };
    match natural(v, op, lhs, rhs) {
        Err(step) => step,
        Ok(_) => Step {
            reason: super::ArithFailure::Overflow,
            op,
            lhs,
            rhs,
        },
    }
}

/// Calls `f` on each variable occurrence of `e`'s arithmetic, left to right; `false` when `e`
/// holds a size of a shape ([`SizeNode::Opaque`]), whose variables are not visited.
pub(crate) fn for_each_var<'a, T: SizeTree + ?Sized>(
    e: &'a T,
    f: &mut impl FnMut(T::Var<'a>),
) -> bool {
    match e.node() {
        SizeNode::Lit(_) => true,
        SizeNode::Var(v) => {
            f(v);
            true
        }
        SizeNode::Bin(_, l, r) => for_each_var(l, f) & for_each_var(r, f),
        SizeNode::Opaque => false,
    }
}

/// One operator undone on the way from the top of `e = t` down to its unknown: `t` becomes
/// the `x` of `x op k = t` (`side` [`Side::Left`]) or of `k op x = t`, where `k` is `known`'s
/// value; the walk goes on in `next`.
#[derive(Debug)]
pub(crate) struct Undo<'a, T: ?Sized> {
    /// The operator.
    pub(crate) op: ArithOp,
    /// Which operand holds the unknown.
    pub(crate) side: Side,
    /// The other operand.
    pub(crate) known: &'a T,
    /// The operand holding the unknown.
    pub(crate) next: &'a T,
}

impl<T: SizeTree + ?Sized> Undo<'_, T> {
    /// Whether `next` is a variable: the value found for it must then be a size.
    pub(crate) fn size(&self) -> bool {
        matches!(self.next.node(), SizeNode::Var(_))
    }
}

/// The operators undone from the top of `e` down to its unknown, where `known(operand)` says
/// whether an operand has a value: the walk takes the one operand without one at each
/// operator, and stops at a node that is not an operator, or whose operands both have a value
/// or both lack one ([`UndoPath::rest`]).
pub(crate) fn undo_path<'a, T: SizeTree + ?Sized, F: FnMut(&'a T) -> bool>(
    e: &'a T,
    known: F,
) -> UndoPath<'a, T, F> {
    UndoPath { cur: e, known }
}

/// The iterator of [`undo_path`].
#[derive(Debug)]
pub(crate) struct UndoPath<'a, T: ?Sized, F> {
    cur: &'a T,
    known: F,
}

impl<'a, T: SizeTree + ?Sized, F: FnMut(&'a T) -> bool> UndoPath<'a, T, F> {
    /// Where the walk stopped (or stands).
    pub(crate) fn rest(&self) -> &'a T {
        self.cur
    }
}

impl<'a, T: SizeTree + ?Sized, F: FnMut(&'a T) -> bool> Iterator for UndoPath<'a, T, F> {
    type Item = Undo<'a, T>;

    fn next(&mut self) -> Option<Undo<'a, T>> {
        let SizeNode::Bin(op, l, r) = self.cur.node() else {
            return None;
        };
        let (side, next, known) = match ((self.known)(l), (self.known)(r)) {
            (false, true) => (Side::Left, l, r),
            (true, false) => (Side::Right, r, l),
            _ => return None,
        };
        self.cur = next;
        Some(Undo {
            op,
            side,
            known,
            next,
        })
    }
}

/// What solving `e = t` for its one unknown found (see [`solve`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Solution<V> {
    /// The unknown has exactly this value.
    Bound(V, usize),
    /// No whole size of the unknown does: the step of the inverse computation that fails.
    NotWhole(Step),
    /// Not decided: more than one unknown, a floor division or remainder, a size of a shape,
    /// or infinitely many solutions.
    Stuck,
}

/// Solves `e = target` for its one unknown, `value` giving the bound variables: undoing one
/// operator at a time through the arithmetic table along [`undo_path`], or, where the unknown
/// occurs more than once, taking the whole root of a power of it (`z × z × z = 125`).
pub(crate) fn solve<'a, T: SizeTree + ?Sized>(
    e: &'a T,
    target: usize,
    value: &impl Fn(T::Var<'a>) -> Option<usize>,
) -> Solution<T::Var<'a>> {
    let mut t = int(target);
    let mut path = undo_path(e, |d| matches!(eval(d, value), Eval::Value(_)));
    for step in path.by_ref() {
        let Eval::Value(k) = eval(step.known, value) else {
            return Solution::Stuck;
        };
        match step.op.invert(step.side, k, t, step.size()) {
            Inversion::Value(v) => t = v,
            Inversion::Undecided => return Solution::Stuck,
            Inversion::NoWholeSolution(step) => return Solution::NotWhole(step),
        }
    }
    let rest = path.rest();
    let (var, coef, power) = match rest.node() {
        SizeNode::Var(v) => (v, 1, 1),
        SizeNode::Bin(..) => match monomial(rest, value) {
            Some((Some(v), coef, power)) => (v, coef, power),
            _ => return Solution::Stuck,
        },
        SizeNode::Lit(_) | SizeNode::Opaque => return Solution::Stuck,
    };
    match root(coef, power, t) {
        Inversion::Value(x) => match usize::try_from(x) {
            Ok(x) => Solution::Bound(var, x),
            Err(_) => Solution::Stuck,
        },
        Inversion::Undecided => Solution::Stuck,
        Inversion::NoWholeSolution(step) => Solution::NotWhole(step),
    }
}

/// `e` as `coef × xⁿ` for one unknown `x` (`None` as the unknown when there is none), when it
/// is a product of bound values and that unknown.
fn monomial<'a, T: SizeTree + ?Sized>(
    e: &'a T,
    value: &impl Fn(T::Var<'a>) -> Option<usize>,
) -> Option<(Option<T::Var<'a>>, Int, u32)> {
    match eval(e, value) {
        Eval::Value(v) => return Some((None, v, 0)),
        Eval::Failed(_) | Eval::Opaque => return None,
        Eval::Unknown { .. } => {}
    }
    match e.node() {
        SizeNode::Var(v) => Some((Some(v), 1, 1)),
        SizeNode::Bin(ArithOp::Mul, a, b) => {
            let (va, ca, pa) = monomial(a, value)?;
            let (vb, cb, pb) = monomial(b, value)?;
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

/// Writes `e` with the fewest parentheses that keep its meaning (all operators are
/// left-associative), operators in ASCII when `ascii`; `leaf` writes each variable and each
/// size of a shape.
pub(crate) fn write<T: SizeTree + ?Sized, W: fmt::Write + ?Sized>(
    e: &T,
    f: &mut W,
    ascii: bool,
    leaf: &mut impl FnMut(&mut W, &T) -> fmt::Result,
) -> fmt::Result {
    write_within(e, f, ascii, leaf, 0)
}

/// [`write`], parenthesised when `e`'s operator binds looser than `min` (a precedence from
/// [`ArithOp::precedence`]; 0 means never).
pub(crate) fn write_within<T: SizeTree + ?Sized, W: fmt::Write + ?Sized>(
    e: &T,
    f: &mut W,
    ascii: bool,
    leaf: &mut impl FnMut(&mut W, &T) -> fmt::Result,
    min: u8,
) -> fmt::Result {
    match e.node() {
        SizeNode::Lit(n) => write!(f, "{n}"),
        SizeNode::Var(_) | SizeNode::Opaque => leaf(f, e),
        SizeNode::Bin(op, l, r) => {
            let prec = op.precedence();
            let paren = prec < min;
            if paren {
                f.write_str("(")?;
            }
            write_within(l, f, ascii, leaf, prec)?;
            write!(f, " {} ", op.symbol(ascii))?;
            // Left-associative: an equal-precedence right operand needs parentheses.
            write_within(r, f, ascii, leaf, prec + 1)?;
            if paren {
                f.write_str(")")?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::SlotExpr;

    /// A xorshift generator: the same cases on every run.
    struct Gen(u64);

    impl Gen {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    const NAMES: [&str; 3] = ["a", "b", "c"];

    /// The same random expression in both forms: names, and slots (their index in `NAMES`).
    fn both(g: &mut Gen, depth: u32) -> (DimExpr, &'static SlotExpr) {
        let leaf = depth == 0 || g.below(3) == 0;
        let (d, s) = if leaf && g.below(2) == 0 {
            let n = g.below(6) as usize;
            (DimExpr::Lit(n), SlotExpr::Lit(n))
        } else if leaf {
            let v = g.below(3) as u8;
            (
                DimExpr::Var(Name::new(NAMES[usize::from(v)])),
                SlotExpr::Var(v),
            )
        } else {
            let op = ArithOp::ALL[g.below(ArithOp::ALL.len() as u64) as usize];
            let (dl, sl) = both(g, depth - 1);
            let (dr, sr) = both(g, depth - 1);
            (
                DimExpr::Bin(op, Box::new(dl), Box::new(dr)),
                SlotExpr::Bin(op, sl, sr),
            )
        };
        (d, Box::leak(Box::new(s)))
    }

    fn slot_of(n: &Name) -> u8 {
        NAMES.iter().position(|x| *x == n.as_str()).unwrap() as u8
    }

    fn text<T: SizeTree + ?Sized>(e: &T, leaf: impl Fn(&T) -> String) -> String {
        let mut s = String::new();
        write(e, &mut s, true, &mut |s: &mut String, d: &T| {
            s.push_str(&leaf(d));
            Ok(())
        })
        .unwrap();
        s
    }

    fn dim(text: &str) -> DimExpr {
        match crate::parse::parse_pattern(&format!("({text},)"))
            .unwrap()
            .items
            .remove(0)
        {
            crate::expr::Item::Dim(d) => d,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_conv_size_evaluates_and_solves() {
        let e = dim("(h + 2*p - k) // s + 1");
        let v = |n: &Name| match n.as_str() {
            "h" => Some(32),
            "p" => Some(1),
            "k" => Some(3),
            "s" => Some(2),
            _ => None,
        };
        assert_eq!(eval(&e, &v), Eval::Value(16));
        let e = dim("heads * head_dim");
        let v = |n: &Name| (n.as_str() == "heads").then_some(12);
        assert!(matches!(solve(&e, 768, &v), Solution::Bound(n, 64) if n.as_str() == "head_dim"));
        // A negative final value is no size, quoting the step.
        let e = dim("a - b");
        let v = |n: &Name| Some(if n.as_str() == "a" { 2 } else { 3 });
        let Eval::Failed(step) = eval_size(&e, &v) else {
            panic!("2 - 3 is no size")
        };
        assert_eq!(step.to_string(), "2 - 3 is below zero");
    }

    #[test]
    fn the_undo_path_leads_to_the_unknown() {
        let e = dim("2 * (x + 1)");
        let mut path = undo_path(&e, |d: &DimExpr| !d.to_string().contains('x'));
        let ops: Vec<ArithOp> = path.by_ref().map(|u| u.op).collect();
        assert_eq!(ops, [ArithOp::Mul, ArithOp::Add]);
        assert_eq!(path.rest().to_string(), "x");
        let mut seen = Vec::new();
        assert!(for_each_var(&dim("a * b + a"), &mut |v| seen.push(v.to_string())));
        assert_eq!(seen, ["a", "b", "a"]);
        assert!(!for_each_var(&dim("D x + a"), &mut |_| {}));
    }

    /// Both forms of an expression go through one walk: the same value, the same unknowns,
    /// the same solution and the same text, for 20,000 random expressions and bindings.
    #[test]
    fn both_forms_evaluate_solve_and_print_alike() {
        let mut g = Gen(0x9E37_79B9_7F4A_7C15);
        for _ in 0..20_000 {
            let (d, s) = both(&mut g, 4);
            let values: Vec<Option<usize>> = (0..3)
                .map(|_| (g.below(3) != 0).then(|| g.below(9) as usize))
                .collect();
            let by_slot = |v: u8| values[usize::from(v)];
            let by_name = |n: &Name| by_slot(slot_of(n));
            let named = |e: Eval<&Name>| match e {
                Eval::Unknown {
                    var,
                    occurrences,
                    distinct,
                    single,
                } => Eval::Unknown {
                    var: slot_of(var),
                    occurrences,
                    distinct,
                    single,
                },
                Eval::Value(v) => Eval::Value(v),
                Eval::Opaque => Eval::Opaque,
                Eval::Failed(f) => Eval::Failed(f),
            };
            assert_eq!(named(eval(&d, &by_name)), eval(s, &by_slot), "{d}");
            let target = g.below(40) as usize;
            let solved = match solve(&d, target, &by_name) {
                Solution::Bound(n, v) => Solution::Bound(slot_of(n), v),
                Solution::NotWhole(f) => Solution::NotWhole(f),
                Solution::Stuck => Solution::Stuck,
            };
            assert_eq!(solved, solve(s, target, &by_slot), "{d} = {target}");
            // A solution solves.
            if let Solution::Bound(x, v) = solved {
                let with = |y: u8| if y == x { Some(v) } else { by_slot(y) };
                assert_eq!(eval_size(s, &with), Eval::Value(target), "{d} = {target}");
            }
            let names = text(&d, |e| e.to_string());
            let slots = text(s, |e| match e {
                SlotExpr::Var(v) => NAMES[usize::from(*v)].to_string(),
                _ => unreachable!("the walk writes literals and operators"),
            });
            assert_eq!(names, slots);
        }
    }

    /// One unknown written once, under operators the table can undo, is always found.
    #[test]
    fn one_unknown_under_invertible_operators_is_found() {
        let mut g = Gen(7);
        let mut found = 0;
        for _ in 0..20_000 {
            let (d, _) = both(&mut g, 4);
            let mut uses = [0; 3];
            for_each_var(&d, &mut |n| uses[usize::from(slot_of(n))] += 1);
            let Some(x) = (0..3).find(|x| uses[*x] == 1) else {
                continue;
            };
            let values = [2, 3, 5];
            let all = |n: &Name| Some(values[usize::from(slot_of(n))]);
            let Eval::Value(t) = eval(&d, &all) else {
                continue;
            };
            let Ok(target) = usize::try_from(t) else {
                continue;
            };
            let mut path = undo_path(&d, |e| {
                let mut has = false;
                for_each_var(e, &mut |n| has |= usize::from(slot_of(n)) == x);
                !has
            });
            let undoable = path.by_ref().all(|u| match (u.op, eval(u.known, &all)) {
                (ArithOp::Add | ArithOp::Sub, _) => true,
                (ArithOp::Mul | ArithOp::Div, Eval::Value(k)) => k != 0,
                _ => false,
            });
            if !undoable {
                continue;
            }
            let others = |n: &Name| (usize::from(slot_of(n)) != x).then(|| all(n)).flatten();
            match solve(&d, target, &others) {
                Solution::Bound(n, v) => {
                    assert_eq!(
                        (usize::from(slot_of(n)), v),
                        (x, values[x]),
                        "{d} = {target}"
                    )
                }
                other => panic!("{d} = {target}: {other:?}"),
            }
            found += 1;
        }
        assert!(found > 1_000, "{found}");
    }
}
