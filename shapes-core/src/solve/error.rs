//! [`InferError`]: why a unification, an evaluation or an application failed.
//!
//! Expressions inside errors are stored printed (gorgonia's notation), so an error is
//! self-contained, cheap to keep, and only costs anything when something went wrong.

use std::fmt;

use crate::expr::{ArithFailure, Name};

/// What went wrong, without the argument context (see [`InferError`]).
///
/// ```
/// use shapes::{solve::{infer_app, InferErrorKind}, expr::parse};
///
/// let matmul = parse("(a, b) -> (b, c) -> (a, c)").unwrap();
/// let err = infer_app(&matmul, &[parse("(2, 3)").unwrap(), parse("(4, 5)").unwrap()]).unwrap_err();
/// assert!(matches!(err.kind(), InferErrorKind::Mismatch { .. }));
/// ```
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InferErrorKind {
    /// Two sizes or two values that must be equal are not: `3` against `4`, `X[0 1]` against
    /// `X[1 0]`.
    #[error("{left} ≠ {right}")]
    Mismatch {
        /// The left side (the function's side in an application).
        left: String,
        /// The right side (the argument's side).
        right: String,
    },
    /// Two shapes of different ranks: `(a, b)` against `(2, 3, 4)`.
    #[error("{left} has {left_rank} dims but {right} has {right_rank}")]
    RankMismatch {
        /// The left shape.
        left: String,
        /// The right shape.
        right: String,
        /// The number of dims the left side has (at least this many with a variadic).
        left_rank: usize,
        /// The number of dims the right side has.
        right_rank: usize,
    },
    /// Two expressions of different kinds: an arrow against a shape, a shape against a list
    /// of axes.
    #[error("{left} and {right} are different kinds of expression and never unify")]
    KindMismatch {
        /// The left side.
        left: String,
        /// The right side.
        right: String,
    },
    /// A variable bound to a whole shape is used where one dim is expected.
    #[error("`{var}` is bound to {value}, a whole shape, but is used as a single dim")]
    NotADim {
        /// The variable.
        var: Name,
        /// What it is bound to.
        value: String,
    },
    /// A variable would have to contain itself: `a ~ (a, 2)`.
    #[error("`{var}` would have to contain itself: {var} = {expr}")]
    Recursive {
        /// The variable.
        var: Name,
        /// The expression containing it.
        expr: String,
    },
    /// [`unify`](crate::solve::unify) cannot decide these constraints from the two sides alone:
    /// more than one unknown (`a × b = 6`) or a rounding operator (`h // 2 = 5`). Bind more
    /// variables, or take them with [`unify_partial`](crate::solve::unify_partial).
    #[error("cannot decide {constraints} from the two sides alone")]
    Undecided {
        /// The constraints, printed, joined by `, `.
        constraints: String,
    },
    /// An equation with one unknown has no exact solution: `4 × d = 3070`.
    #[error("{equation} has no exact solution in whole sizes")]
    NoExactSolution {
        /// The equation, printed.
        equation: String,
    },
    /// Arithmetic on sizes failed: overflow, a negative difference, division by zero, an
    /// inexact `/`.
    #[error("{expr} {reason}")]
    Arithmetic {
        /// The expression being evaluated, printed.
        expr: String,
        /// Why it failed.
        reason: ArithFailure,
    },
    /// A constraint `{ e | p }` evaluated to false.
    #[error("constraint {pred} is false")]
    ConstraintFailed {
        /// The constraint, with the substitution applied.
        pred: String,
    },
    /// An axis is out of range for the shape it applies to.
    #[error("{op}: axis {axis} is out of range for a shape of rank {rank}")]
    AxisOutOfRange {
        /// The operation (`transpose`, `reduce`, `index`, …).
        op: &'static str,
        /// The axis.
        axis: isize,
        /// The rank of the shape.
        rank: usize,
    },
    /// A shape operation cannot apply to its operand (a permutation that is not one, too many
    /// indices, repeats that do not fit, shapes that cannot be concatenated or broadcast).
    #[error("{op}: {detail}")]
    BadOperation {
        /// The operation.
        op: &'static str,
        /// What is wrong, in words.
        detail: String,
    },
    /// Two patterns with variadics that cannot be matched without guessing: `(*x, 3)` against
    /// `(2, *y)`.
    #[error(
        "{left} and {right} both have a variadic and cannot be matched without guessing how many dims each covers"
    )]
    AmbiguousVariadic {
        /// The left pattern.
        left: String,
        /// The right pattern.
        right: String,
    },
    /// Solving would build a term (a variable's value, or an expression with the values of
    /// its variables written in) of more than
    /// [`Substitution::MAX_TERM_NODES`](crate::solve::Substitution::MAX_TERM_NODES) nodes, as
    /// equations whose solutions grow exponentially do.
    #[error("the solution's terms grow past {limit} nodes")]
    TermTooLarge {
        /// The limit: [`Substitution::MAX_TERM_NODES`](crate::solve::Substitution::MAX_TERM_NODES).
        limit: usize,
    },
    /// Solving would build a term nested more than
    /// [`Substitution::MAX_TERM_DEPTH`](crate::solve::Substitution::MAX_TERM_DEPTH) levels deep, as
    /// chains of equations each defining a variable by the next do. The recursive walks over
    /// terms (evaluation, printing, `Drop`) stay far from the end of a thread's stack.
    #[error("the solution's terms nest deeper than {limit} levels")]
    TermTooDeep {
        /// The limit: [`Substitution::MAX_TERM_DEPTH`](crate::solve::Substitution::MAX_TERM_DEPTH).
        limit: usize,
    },
    /// More arguments than the function has arrows.
    #[error("too many arguments: the function takes {arity} but {given} were given")]
    TooManyArguments {
        /// How many arguments the function takes.
        arity: usize,
        /// How many were given.
        given: usize,
    },
    /// The thing applied is not a function (not an arrow).
    #[error("{expr} is not a function (an arrow) and cannot be applied")]
    NotAFunction {
        /// It, printed.
        expr: String,
    },
}

/// The error of [`infer_app`](crate::solve::infer_app), [`unify`](crate::solve::unify) and
/// [`Expr::eval`](crate::expr::Expr::eval): what went wrong and, in an application, which argument
/// did not fit which parameter.
///
/// ```
/// use shapes::{solve::infer_app, expr::parse};
///
/// let add = parse("a -> a -> a").unwrap();
/// let err = infer_app(&add, &[parse("(2, 2)").unwrap(), parse("(2, 3)").unwrap()]).unwrap_err();
/// assert_eq!(err.argument(), Some(1));
/// assert_eq!(
///     err.to_string(),
///     "argument 2 `(2, 3)` does not fit parameter `(2, 2)`: 2 ≠ 3"
/// );
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct InferError {
    kind: InferErrorKind,
    context: Option<Box<ArgContext>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct ArgContext {
    index: usize,
    param: String,
    arg: String,
}

impl InferError {
    pub(crate) fn new(kind: InferErrorKind) -> Self {
        InferError {
            kind,
            context: None,
        }
    }

    pub(crate) fn in_argument(mut self, index: usize, param: String, arg: String) -> Self {
        if self.context.is_none() {
            self.context = Some(Box::new(ArgContext { index, param, arg }));
        }
        self
    }

    /// What went wrong.
    ///
    /// ```
    /// use shapes::{solve::{infer_app, InferErrorKind}, expr::parse};
    /// let err = infer_app(&parse("a -> a").unwrap(), &[parse("()").unwrap(), parse("()").unwrap()])
    ///     .unwrap_err();
    /// assert_eq!(err.kind(), &InferErrorKind::TooManyArguments { arity: 1, given: 2 });
    /// ```
    pub fn kind(&self) -> &InferErrorKind {
        &self.kind
    }

    /// The index (from 0) of the argument that did not fit, when the error arose while
    /// unifying an argument with its parameter or checking a constraint after it.
    ///
    /// ```
    /// use shapes::{solve::infer_app, expr::parse};
    /// let err = infer_app(&parse("(a, a) -> ()").unwrap(), &[parse("(3, 4)").unwrap()]).unwrap_err();
    /// assert_eq!(err.argument(), Some(0));
    /// ```
    pub fn argument(&self) -> Option<usize> {
        self.context.as_ref().map(|c| c.index)
    }
}

impl fmt::Display for InferError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(c) = &self.context {
            write!(
                f,
                "argument {} `{}` does not fit parameter `{}`: ",
                c.index + 1,
                c.arg,
                c.param
            )?;
        }
        fmt::Display::fmt(&self.kind, f)
    }
}

/// Reads like `Display`, so that `fn main() -> Result<(), Box<dyn Error>>` prints the message.
impl core::fmt::Debug for InferError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for InferError {}

/// Shorthand for building an [`InferError`] of a kind.
pub(crate) fn err<T>(kind: InferErrorKind) -> Result<T, InferError> {
    Err(InferError::new(kind))
}

pub(crate) fn bad_op<T>(op: &'static str, detail: String) -> Result<T, InferError> {
    err(InferErrorKind::BadOperation { op, detail })
}

/// Reads like `Display`, so that `fn main() -> Result<(), Box<dyn Error>>` prints the message.
impl core::fmt::Debug for InferErrorKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}
