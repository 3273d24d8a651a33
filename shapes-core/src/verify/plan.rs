//! The static description of a derived struct's checks, built as constants by the derive.

use crate::expr::{
    ArithOp, SizeNode, SizeTree, Solution, Step, eval_size, for_each_var, solve, write,
};

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

/// The value of a [`SlotExpr`] against the current bindings: a dim's final value, or the
/// first unbound variable's slot.
pub(crate) type Eval = crate::expr::Eval<u8, usize>;

/// A slot tree is read by the one walk over size arithmetic (`expr::tree`): its evaluator,
/// solver, variable walk and printer are the language's.
impl SizeTree for SlotExpr {
    type Var<'a> = u8;

    #[inline(always)]
    fn node(&self) -> SizeNode<'_, Self> {
        match self {
            SlotExpr::Lit(n) => SizeNode::Lit(*n),
            SlotExpr::Var(v) => SizeNode::Var(*v),
            SlotExpr::Bin(op, l, r) => SizeNode::Bin(*op, l, r),
        }
    }
}

impl SlotExpr {
    /// Evaluates with `value(local)` giving a bound variable's value: a dim's final value,
    /// which must be a size (steps in between may go below zero).
    #[inline]
    pub(crate) fn eval(&self, value: &impl Fn(u8) -> Option<usize>) -> Eval {
        eval_size(self, value)
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
            Eval::Unknown { .. } | Eval::Opaque => Outcome::Wait,
        }
    }

    #[cold]
    fn solve(&self, target: usize, value: &impl Fn(u8) -> Option<usize>) -> Outcome {
        match solve(self, target, value) {
            Solution::Bound(local, value) => Outcome::Bind { local, value },
            Solution::NotWhole(step) => Outcome::NoWholeSolution(step),
            Solution::Stuck => Outcome::Wait,
        }
    }

    /// The distinct local variables, in order of first appearance.
    pub(crate) fn vars(&self, out: &mut Vec<u8>) {
        for_each_var(self, &mut |v| {
            if !out.contains(&v) {
                out.push(v);
            }
        });
    }

    /// Writes the expression with `leaf` printing each variable (its name or its value), with
    /// the fewest parentheses that keep the meaning.
    pub(crate) fn write(&self, f: &mut String, leaf: &impl Fn(u8) -> String) {
        // Writing to a `String` does not fail.
        let _ = write(self, f, true, &mut |f: &mut String, e: &SlotExpr| {
            if let SlotExpr::Var(v) = e {
                f.push_str(&leaf(*v));
            }
            Ok(())
        });
    }
}

/// A field's static facts: its name, its pattern as written, and where that pattern is
/// declared.
///
/// ```
/// use shapes::{__private::FieldInfo, verify::Place};
/// static W: FieldInfo = FieldInfo { name: "w", pattern: "(d,)", place: Place::at("model.toml", 4, 7) };
/// assert_eq!(W.place.to_string(), "model.toml:4:7");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldInfo {
    /// The field's name (or the tensor name for a header check).
    pub name: &'static str,
    /// The pattern string from the attribute.
    pub pattern: &'static str,
    /// Where the pattern is written: the `#[shape("…")]` string, a spec file's entry, a
    /// framework layer's declaration ([`Place::UNKNOWN`] when there is none to name).
    pub place: Place,
}

impl FieldInfo {
    /// The field `name` whose pattern `pattern` is written at `line`, `column` of `file`:
    /// what generated code writes.
    ///
    /// ```
    /// use shapes::{__private::FieldInfo, verify::Place};
    /// static W: FieldInfo = FieldInfo::at("w", "(d,)", "src/model.rs", 12, 13);
    /// assert_eq!(W.place, Place::at("src/model.rs", 12, 13));
    /// ```
    pub const fn at(
        name: &'static str,
        pattern: &'static str,
        file: &'static str,
        line: u32,
        column: u32,
    ) -> FieldInfo {
        FieldInfo {
            name,
            pattern,
            place: Place::at(file, line, column),
        }
    }
}

/// Where a pattern is declared: a file and a 1-based line and column. The derive and
/// `#[shapes::check]` write the place of the pattern's string literal, a spec file the place
/// of the entry's pattern; an error about the pattern names it
/// ([`ShapeErrorDetails::declared_at`](super::ShapeErrorDetails::declared_at)).
///
/// ```
/// use shapes::verify::Place;
/// let p = Place::at("src/model.rs", 12, 13);
/// assert_eq!(p.to_string(), "src/model.rs:12:13");
/// assert!(p.is_known() && !Place::UNKNOWN.is_known());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Place {
    /// The file, as the compiler or the spec's loader names it (`src/model.rs`, `llama.toml`).
    pub file: &'static str,
    /// The 1-based line; 0 when only the file is known.
    pub line: u32,
    /// The 1-based column, in characters; 0 when only the file is known.
    pub column: u32,
}

impl Place {
    /// No place: a pattern built at run time without one (`PlanNode::tensor`).
    pub const UNKNOWN: Place = Place {
        file: "",
        line: 0,
        column: 0,
    };

    /// Line `line`, column `column` of `file`.
    pub const fn at(file: &'static str, line: u32, column: u32) -> Place {
        Place { file, line, column }
    }

    /// Whether there is a place to name.
    pub const fn is_known(&self) -> bool {
        !self.file.is_empty()
    }
}

impl core::fmt::Display for Place {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match (self.line, self.column) {
            (0, _) => f.write_str(self.file),
            (line, 0) => write!(f, "{}:{line}", self.file),
            (line, column) => write!(f, "{}:{line}:{column}", self.file),
        }
    }
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
