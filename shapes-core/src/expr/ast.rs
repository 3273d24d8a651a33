//! The syntax tree of the shape-expression language (see `GRAMMAR.md`).
//!
//! Two levels share one grammar:
//! - a [`Pattern`] describes one tensor's shape: `(batch, heads * head_dim, *rest)`;
//! - an [`Expr`] is gorgonia's shape algebra over patterns: variables standing for whole
//!   shapes, arrows (function types), constraints, and shape operations.
//!
//! Sizes (a single dim's value) are [`DimExpr`]s, which may refer back to shapes: `D a` (rank),
//! `Π a` (element count), `Σ a` (sum of dims), `a[i]` (one dim).

use std::sync::Arc;

/// A variable's name: a dim variable (`d_model`) or a shape variable (`a`).
///
/// Cheap to clone (a shared string), compared by content.
///
/// ```
/// use shapes::expr::Name;
/// let n = Name::new("d_model");
/// assert_eq!(n.as_str(), "d_model");
/// assert_eq!(n.to_string(), "d_model");
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Name(Arc<str>);

impl Name {
    /// A name from a string. The parser guarantees names it produces are identifiers; a name
    /// built by hand is printed as given.
    ///
    /// ```
    /// assert_eq!(shapes::expr::Name::new("x").as_str(), "x");
    /// ```
    pub fn new(name: &str) -> Self {
        Name(Arc::from(name))
    }

    /// The name as a string slice.
    ///
    /// ```
    /// assert_eq!(shapes::expr::Name::new("heads").as_str(), "heads");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Name::new(s)
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// A name hashes and compares as its string, so a map keyed by names can be searched with a
/// `&str`.
impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

/// An arithmetic operator between two sizes. All arithmetic is on `usize` and checked:
/// overflow, a negative difference, division by zero and an inexact `/` are errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArithOp {
    /// `+`
    Add,
    /// `-` (an error when the result would be negative)
    Sub,
    /// `*` or `×`
    Mul,
    /// `/`: exact division, an error when the division leaves a remainder (head splits,
    /// tensor-parallel shards: `vocab / tp`).
    Div,
    /// `//` or `÷`: floor division (convolution sizes: `(h + 2*p - k) // s + 1`).
    FloorDiv,
    /// `%`: remainder.
    Rem,
}

impl ArithOp {
    /// Every operator, each once: what random tests of the arithmetic draw from, so that a
    /// new operator is drawn too (a test in `expr/arith.rs` matches every variant against
    /// this list, so the compiler points at it).
    ///
    /// ```
    /// use shapes::expr::ArithOp;
    /// assert!(ArithOp::ALL.contains(&ArithOp::FloorDiv));
    /// ```
    pub const ALL: [ArithOp; 6] = [
        ArithOp::Add,
        ArithOp::Sub,
        ArithOp::Mul,
        ArithOp::Div,
        ArithOp::FloorDiv,
        ArithOp::Rem,
    ];

    /// Binding strength: `+ -` are 1, `* / // %` are 2. All are left-associative.
    ///
    /// ```
    /// use shapes::expr::ArithOp;
    /// assert!(ArithOp::Mul.precedence() > ArithOp::Add.precedence());
    /// ```
    pub fn precedence(self) -> u8 {
        match self {
            ArithOp::Add | ArithOp::Sub => 1,
            ArithOp::Mul | ArithOp::Div | ArithOp::FloorDiv | ArithOp::Rem => 2,
        }
    }
}

/// A size-valued expression: one dim of a pattern, or an operand of a constraint.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DimExpr {
    /// A literal size: `3`.
    Lit(usize),
    /// A dim variable: `d_model`. The same name means the same size everywhere in one scope.
    Var(Name),
    /// Arithmetic: `heads * head_dim`, `(h + 2*p - k) // s + 1`.
    Bin(ArithOp, Box<DimExpr>, Box<DimExpr>),
    /// `D e`: the rank of shape `e`.
    Rank(Box<Expr>),
    /// `Π e` (also `P e`, `prod e`): the product of `e`'s dims (its element count).
    Prod(Box<Expr>),
    /// `Σ e` (also `S e`, `sum e`): the sum of `e`'s dims.
    Sum(Box<Expr>),
    /// `e[i]` in a size position: the size of axis `i` of shape `e` (negative counts from the
    /// end). In a shape position, `e[i]` is numpy indexing instead (see [`Expr::Slice`]).
    Index(Box<Expr>, isize),
}

/// One item of a [`Pattern`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Item {
    /// One dim whose size is given by an expression: `3`, `d_model`, `heads * head_dim`.
    Dim(DimExpr),
    /// `_`: exactly one dim of any size; binds nothing.
    Any,
    /// `...` (or `…`): any number of dims (zero included); binds nothing.
    Ellipsis,
    /// `*name`: any number of dims, bound to `name` as a sub-shape (`(*batch, seq, d)`).
    Variadic(Name),
    /// `#name` or `#3`: a broadcastable dim; a size of 1 is accepted and binds nothing,
    /// as in jaxtyping. The inner expression is a variable or a literal.
    Broadcast(DimExpr),
}

/// A shape pattern: `( item, item, … )`. `()` is a scalar. At most one of `...` / `*name`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Pattern {
    /// The items, outermost dim first.
    pub items: Vec<Item>,
}

impl Pattern {
    /// A pattern of the given items.
    ///
    /// ```
    /// use shapes::expr::{Item, Pattern, DimExpr};
    /// let p = Pattern::new(vec![Item::Dim(DimExpr::Lit(2)), Item::Any]);
    /// assert_eq!(p.items.len(), 2);
    /// ```
    pub fn new(items: Vec<Item>) -> Self {
        Pattern { items }
    }

    /// The concrete shape, when every item is a literal dim.
    ///
    /// ```
    /// use shapes::{Shape, expr::{DimExpr, Item, Name, Pattern}};
    /// let p = Pattern::from(&[2usize, 3][..]);
    /// assert_eq!(p.as_concrete(), Some(Shape::from([2, 3])));
    /// let q = Pattern::new(vec![Item::Dim(DimExpr::Var(Name::new("n")))]);
    /// assert_eq!(q.as_concrete(), None);
    /// ```
    pub fn as_concrete(&self) -> Option<crate::shape::Shape> {
        self.items
            .iter()
            .map(|item| match item {
                Item::Dim(DimExpr::Lit(n)) => Some(*n),
                _ => None,
            })
            .collect()
    }
}

impl From<&[usize]> for Pattern {
    fn from(dims: &[usize]) -> Self {
        Pattern::new(dims.iter().map(|&d| Item::Dim(DimExpr::Lit(d))).collect())
    }
}

impl From<crate::shape::Shape> for Pattern {
    fn from(shape: crate::shape::Shape) -> Self {
        Pattern::from(shape.dims())
    }
}

/// One entry of a slice list `[0:2, 3, ::2]`, with numpy's semantics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SliceSpec {
    /// `i`: picks one index and drops the axis (negative counts from the end).
    Index(isize),
    /// `start:end:step`, each part optional; `step` is never 0.
    Range {
        /// First index (default: the start, or the end for a negative step).
        start: Option<isize>,
        /// One past the last index (default: the end, or before the start for a negative step).
        end: Option<isize>,
        /// Stride (default 1).
        step: Option<isize>,
    },
}

/// Which axis an axis-taking operation works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Axis {
    /// One axis.
    One(usize),
    /// Every axis (printed `⁼`, ASCII `=`).
    All,
}

/// A comparison between two sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `=` (also `==`)
    Eq,
    /// `≠` (also `!=`)
    Ne,
    /// `<`
    Lt,
    /// `≤` (also `<=`)
    Le,
    /// `>`
    Gt,
    /// `≥` (also `>=`)
    Ge,
}

impl CmpOp {
    /// The operator as written: `ascii` picks `!=`, `<=` and `>=` over `≠`, `≤` and `≥`.
    ///
    /// ```
    /// use shapes::expr::CmpOp;
    /// assert_eq!(CmpOp::Le.symbol(false), "≤");
    /// assert_eq!(CmpOp::Le.symbol(true), "<=");
    /// assert_eq!(CmpOp::Eq.symbol(true), "=");
    /// ```
    pub fn symbol(self, ascii: bool) -> &'static str {
        match (self, ascii) {
            (CmpOp::Eq, _) => "=",
            (CmpOp::Ne, false) => "≠",
            (CmpOp::Ne, true) => "!=",
            (CmpOp::Lt, _) => "<",
            (CmpOp::Le, false) => "≤",
            (CmpOp::Le, true) => "<=",
            (CmpOp::Gt, _) => ">",
            (CmpOp::Ge, false) => "≥",
            (CmpOp::Ge, true) => ">=",
        }
    }

    /// Whether `a op b` holds.
    ///
    /// ```
    /// use shapes::expr::CmpOp;
    /// assert!(CmpOp::Le.holds(3, 3));
    /// assert!(!CmpOp::Ne.holds(3, 3));
    /// ```
    pub fn holds(self, a: usize, b: usize) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}

/// One side of a comparison.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A size.
    Size(DimExpr),
    /// `∀ e` (also `all e`): every dim of `e`; the comparison holds for each, pairwise when
    /// both sides are `∀` (and then both must have the same rank).
    ForAll(Expr),
}

/// A constraint: the part after `|` in `{ expr | predicate }`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Pred {
    /// `lhs op rhs`: `D a = D b`, `a[0] ≥ 2`, `∀ b < ∀ a`.
    Cmp(CmpOp, Operand, Operand),
    /// `K a ⚟ K b` (ASCII `K a ~ K b`): the two shapes broadcast together (numpy rules).
    Broadcastable(Expr, Expr),
    /// `p ∧ q` (also `&&`).
    And(Box<Pred>, Box<Pred>),
    /// `p ∨ q` (also `||`).
    Or(Box<Pred>, Box<Pred>),
}

/// An expression of the shape algebra.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Expr {
    /// A shape pattern `(a, 2, heads * head_dim)`; a concrete shape when all dims are literals.
    Pattern(Pattern),
    /// A variable standing for a whole shape (or any value an arrow accepts): `a`.
    Var(Name),
    /// `a → b` (also `->`): a function from `a` to `b`. Right-associative:
    /// `a → b → c` is `a → (b → c)`.
    Arrow(Box<Expr>, Box<Expr>),
    /// `{ e | p }`: `e` subject to the constraint `p`.
    Compound(Box<Expr>, Box<Pred>),
    /// `X[0 1 3 2]`: a list of axes (a transpose's argument).
    Axes(Vec<usize>),
    /// `Sz[0 0 1 0]`: a list of sizes (an index's argument).
    Sizes(Vec<usize>),
    /// `[0:2, 3]`: slices as a value (an argument to an arrow).
    Slices(Vec<SliceSpec>),
    /// `e[0:2, 3]` in a shape position: numpy basic indexing of an array of shape `e`; an
    /// integer index drops its axis. The second expression is [`Expr::Slices`] or a variable
    /// (`a[b]`, with `b` bound to slices later).
    Slice(Box<Expr>, Box<Expr>),
    /// `T⁽¹ ⁰⁾ e` (ASCII `T^(1 0) e`, also `T X[1 0] e`): permutes `e`'s axes.
    Transpose(Vec<usize>, Box<Expr>),
    /// `/¹e` (ASCII `/^1 e`), `/⁼e` (ASCII `/^= e`): removes an axis (or all) by reduction.
    Reduce(Axis, Box<Expr>),
    /// `(a||b)`: numpy broadcast of two shapes.
    Broadcast(Box<Expr>, Box<Expr>),
    /// `Repeat⁰{[3]} e` (ASCII `Repeat^0{[3]} e`): numpy `repeat` along an axis (or all axes,
    /// flattening), one repeat count broadcast over the axis or one per element.
    Repeat(Axis, Vec<usize>, Box<Expr>),
    /// `a :{1}: b`: concatenation along an axis.
    Concat(usize, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// An arrow `from → to`.
    ///
    /// ```
    /// use shapes::expr::{Expr, Name};
    /// let f = Expr::arrow(Expr::Var(Name::new("a")), Expr::Var(Name::new("a")));
    /// assert!(matches!(f, Expr::Arrow(..)));
    /// ```
    pub fn arrow(from: Expr, to: Expr) -> Expr {
        Expr::Arrow(Box::new(from), Box::new(to))
    }

    /// A concrete shape as an expression.
    ///
    /// ```
    /// let e = shapes::expr::Expr::shape(&[2, 3]);
    /// assert_eq!(e.as_shape(), Some(shapes::Shape::from([2, 3])));
    /// ```
    pub fn shape(dims: &[usize]) -> Expr {
        Expr::Pattern(Pattern::from(dims))
    }

    /// The concrete shape, when this is a pattern of literal dims.
    ///
    /// ```
    /// assert_eq!(shapes::expr::Expr::shape(&[4]).as_shape(), Some(shapes::Shape::from([4])));
    /// ```
    pub fn as_shape(&self) -> Option<crate::shape::Shape> {
        match self {
            Expr::Pattern(p) => p.as_concrete(),
            _ => None,
        }
    }
}

impl From<crate::shape::Shape> for Expr {
    fn from(shape: crate::shape::Shape) -> Self {
        Expr::Pattern(Pattern::from(shape))
    }
}

impl From<&[usize]> for Expr {
    fn from(dims: &[usize]) -> Self {
        Expr::shape(dims)
    }
}

impl<const N: usize> From<[usize; N]> for Expr {
    fn from(dims: [usize; N]) -> Self {
        Expr::shape(&dims)
    }
}
