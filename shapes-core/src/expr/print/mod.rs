//! `Display` for the syntax tree: `{}` writes gorgonia's Unicode notation, `{:#}` the ASCII
//! spelling. Either parses back to the same tree (`parse(&e.to_string()) == Ok(e)`) for every
//! tree the parser produces.
//!
//! Parentheses are minimal: arrows are right-associative (a left operand that is an arrow is
//! parenthesised), arithmetic follows precedence and left-associativity (a right operand of
//! equal precedence is parenthesised so the tree round-trips exactly), and every constraint is
//! parenthesised as gorgonia prints it: `(D a = 2)`, `((D a = 2) ∧ (Π a > 1))`.
//!
//! Differences from gorgonia's printer: a rank-1 pattern is `(5,)`, not `(5)` (which parses as
//! the same pattern here but reads like grouping), and slices print as numpy writes them
//! (`a[0:4:2]`, where gorgonia writes `a[0:4~:2]`).

use std::fmt::{self, Display, Formatter};

use super::ast::{Axis, DimExpr, Expr, Item, Operand, Pattern, Pred, SliceSpec};
use super::tree::write_within;

/// Binding strength of an expression form, loosest first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Arrow,
    Concat,
    Prefix,
    Postfix,
    Atom,
}

fn level(e: &Expr) -> Level {
    match e {
        Expr::Arrow(..) => Level::Arrow,
        Expr::Concat(..) => Level::Concat,
        Expr::Transpose(..) | Expr::Reduce(..) | Expr::Repeat(..) => Level::Prefix,
        Expr::Slice(..) => Level::Postfix,
        Expr::Pattern(_)
        | Expr::Var(_)
        | Expr::Compound(..)
        | Expr::Axes(_)
        | Expr::Sizes(_)
        | Expr::Slices(_)
        | Expr::Broadcast(..) => Level::Atom,
    }
}

/// Superscript digits for the Unicode axis notation: `12` → `¹²`.
fn superscript(n: usize) -> String {
    n.to_string()
        .chars()
        .map(|c| match c {
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            _ => '⁹',
        })
        .collect()
}

fn join(f: &mut Formatter<'_>, xs: &[usize], sep: &str) -> fmt::Result {
    for (i, x) in xs.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        write!(f, "{x}")?;
    }
    Ok(())
}

/// The printer state: only which spelling to use.
#[derive(Clone, Copy)]
struct Printer {
    ascii: bool,
}

impl Printer {
    fn pick(self, unicode: &'static str, ascii: &'static str) -> &'static str {
        if self.ascii { ascii } else { unicode }
    }

    /// `e`, parenthesised when it binds looser than `min`.
    fn expr(self, f: &mut Formatter<'_>, e: &Expr, min: Level) -> fmt::Result {
        if level(e) < min {
            f.write_str("(")?;
            self.expr(f, e, Level::Arrow)?;
            return f.write_str(")");
        }
        match e {
            Expr::Pattern(p) => self.pattern(f, p),
            Expr::Var(n) => write!(f, "{n}"),
            Expr::Arrow(from, to) => {
                self.expr(f, from, Level::Concat)?;
                f.write_str(self.pick(" → ", " -> "))?;
                self.expr(f, to, Level::Arrow)
            }
            Expr::Compound(e, p) => {
                f.write_str("{ ")?;
                self.expr(f, e, Level::Arrow)?;
                f.write_str(" | ")?;
                self.pred(f, p)?;
                f.write_str(" }")
            }
            Expr::Axes(axes) => {
                f.write_str("X[")?;
                join(f, axes, " ")?;
                f.write_str("]")
            }
            Expr::Sizes(sizes) => {
                f.write_str("Sz[")?;
                join(f, sizes, " ")?;
                f.write_str("]")
            }
            Expr::Slices(specs) => self.slices(f, specs),
            Expr::Slice(e, index) => {
                self.expr(f, e, Level::Postfix)?;
                match &**index {
                    Expr::Slices(specs) => self.slices(f, specs),
                    Expr::Var(n) => write!(f, "[{n}]"),
                    // Not produced by the parser; printed as readably as possible.
                    other => {
                        f.write_str("[")?;
                        self.expr(f, other, Level::Arrow)?;
                        f.write_str("]")
                    }
                }
            }
            Expr::Transpose(axes, e) => {
                if self.ascii {
                    f.write_str("T^(")?;
                    join(f, axes, " ")?;
                    f.write_str(") ")?;
                } else {
                    f.write_str("T⁽")?;
                    for (i, a) in axes.iter().enumerate() {
                        if i > 0 {
                            f.write_str(" ")?;
                        }
                        f.write_str(&superscript(*a))?;
                    }
                    f.write_str("⁾ ")?;
                }
                self.expr(f, e, Level::Prefix)
            }
            Expr::Reduce(axis, e) => {
                f.write_str("/")?;
                self.axis(f, *axis)?;
                if self.ascii {
                    f.write_str(" ")?;
                }
                self.expr(f, e, Level::Prefix)
            }
            Expr::Broadcast(a, b) => {
                f.write_str("(")?;
                self.expr(f, a, Level::Arrow)?;
                f.write_str(self.pick("||", " || "))?;
                self.expr(f, b, Level::Arrow)?;
                f.write_str(")")
            }
            Expr::Repeat(axis, repeats, e) => {
                f.write_str("Repeat")?;
                self.axis(f, *axis)?;
                f.write_str("{[")?;
                join(f, repeats, " ")?;
                f.write_str("]} ")?;
                self.expr(f, e, Level::Prefix)
            }
            Expr::Concat(axis, a, b) => {
                self.expr(f, a, Level::Concat)?;
                write!(f, " :{{{axis}}}: ")?;
                self.expr(f, b, Level::Prefix)
            }
        }
    }

    /// The operand of a keyword operator (`D`, `Π`, `Σ`, `∀`, `K`): a prefix expression,
    /// parenthesised when it starts with `[` (after an ASCII keyword, `D [0]` reads as the
    /// dim `D` indexed).
    fn keyword_operand(self, f: &mut Formatter<'_>, e: &Expr) -> fmt::Result {
        fn starts_with_bracket(e: &Expr) -> bool {
            match e {
                Expr::Slices(_) => true,
                Expr::Slice(base, _) => starts_with_bracket(base),
                _ => false,
            }
        }
        if starts_with_bracket(e) {
            f.write_str("(")?;
            self.expr(f, e, Level::Arrow)?;
            f.write_str(")")
        } else if let Expr::Pattern(p) = e
            && let [Item::Dim(d @ (DimExpr::Rank(_) | DimExpr::Prod(_) | DimExpr::Sum(_)))] =
                p.items.as_slice()
        {
            // `D D a`: a size function's operand is the rank-1 shape `(D a,)`, which is how
            // the parser reads `D a` in that position. Written bare, a chain of them nests as
            // little as the input did.
            self.dim(f, d, 0)
        } else {
            self.expr(f, e, Level::Prefix)
        }
    }

    fn axis(self, f: &mut Formatter<'_>, axis: Axis) -> fmt::Result {
        match (axis, self.ascii) {
            (Axis::One(n), false) => f.write_str(&superscript(n)),
            (Axis::One(n), true) => write!(f, "^{n}"),
            (Axis::All, false) => f.write_str("⁼"),
            (Axis::All, true) => f.write_str("^="),
        }
    }

    fn slices(self, f: &mut Formatter<'_>, specs: &[SliceSpec]) -> fmt::Result {
        f.write_str("[")?;
        for (i, s) in specs.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{s}")?;
        }
        f.write_str("]")
    }

    fn pattern(self, f: &mut Formatter<'_>, p: &Pattern) -> fmt::Result {
        f.write_str("(")?;
        for (i, item) in p.items.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            self.item(f, item)?;
        }
        if p.items.len() == 1 {
            f.write_str(",")?;
        }
        f.write_str(")")
    }

    fn item(self, f: &mut Formatter<'_>, item: &Item) -> fmt::Result {
        match item {
            Item::Dim(d) => self.dim(f, d, 0),
            Item::Any => f.write_str("_"),
            Item::Ellipsis => f.write_str(self.pick("…", "...")),
            Item::Variadic(n) => write!(f, "*{n}"),
            Item::Broadcast(d @ (DimExpr::Var(_) | DimExpr::Lit(_))) => {
                f.write_str("#")?;
                self.dim(f, d, 0)
            }
            // `#(h × 2)`: what a substitution makes of `#n`.
            Item::Broadcast(d) => {
                f.write_str("#(")?;
                self.dim(f, d, 0)?;
                f.write_str(")")
            }
        }
    }

    /// A size, parenthesised when its operator binds looser than `min` (a precedence from
    /// [`ArithOp::precedence`](super::ast::ArithOp::precedence); 0 means never).
    fn dim(self, f: &mut Formatter<'_>, d: &DimExpr, min: u8) -> fmt::Result {
        write_within(d, f, self.ascii, &mut |f, leaf| self.leaf(f, leaf), min)
    }

    /// A variable, or a size of a shape: what the arithmetic walk leaves to the printer.
    fn leaf(self, f: &mut Formatter<'_>, d: &DimExpr) -> fmt::Result {
        match d {
            DimExpr::Var(n) => write!(f, "{n}"),
            // The walk writes these itself.
            DimExpr::Lit(_) | DimExpr::Bin(..) => self.dim(f, d, 0),
            DimExpr::Rank(e) => {
                f.write_str("D ")?;
                self.keyword_operand(f, e)
            }
            DimExpr::Prod(e) => {
                f.write_str(self.pick("Π ", "prod "))?;
                self.keyword_operand(f, e)
            }
            DimExpr::Sum(e) => {
                f.write_str(self.pick("Σ ", "sum "))?;
                self.keyword_operand(f, e)
            }
            DimExpr::Index(e, i) => {
                match &**e {
                    Expr::Var(n) => write!(f, "{n}")?,
                    Expr::Pattern(p) => self.pattern(f, p)?,
                    // Not produced by the parser (only a name or a pattern is indexed).
                    other => {
                        f.write_str("(")?;
                        self.expr(f, other, Level::Arrow)?;
                        f.write_str(")")?;
                    }
                }
                write!(f, "[{i}]")
            }
        }
    }

    fn pred(self, f: &mut Formatter<'_>, p: &Pred) -> fmt::Result {
        f.write_str("(")?;
        match p {
            Pred::Cmp(op, lhs, rhs) => {
                self.operand(f, lhs)?;
                write!(f, " {} ", op.symbol(self.ascii))?;
                self.operand(f, rhs)?;
            }
            Pred::Broadcastable(a, b) => {
                f.write_str("K ")?;
                self.keyword_operand(f, a)?;
                f.write_str(self.pick(" ⚟ K ", " ~ K "))?;
                self.keyword_operand(f, b)?;
            }
            Pred::And(..) | Pred::Or(..) => self.chain(f, p)?,
        }
        f.write_str(")")
    }

    /// `p ∧ q ∧ r` inside one pair of parentheses: the parser reads a chain of one operator
    /// left-associatively, so a left operand of the same operator needs none of its own (and
    /// a long chain nests no deeper printed than it was written).
    fn chain(self, f: &mut Formatter<'_>, p: &Pred) -> fmt::Result {
        let (a, b, op) = match p {
            Pred::And(a, b) => (a, b, self.pick(" ∧ ", " && ")),
            Pred::Or(a, b) => (a, b, self.pick(" ∨ ", " || ")),
            _ => return self.pred(f, p),
        };
        if std::mem::discriminant(&**a) == std::mem::discriminant(p) {
            self.chain(f, a)?;
        } else {
            self.pred(f, a)?;
        }
        f.write_str(op)?;
        self.pred(f, b)
    }

    fn operand(self, f: &mut Formatter<'_>, o: &Operand) -> fmt::Result {
        match o {
            Operand::Size(d) => self.dim(f, d, 0),
            Operand::ForAll(e) => {
                f.write_str(self.pick("∀ ", "all "))?;
                self.keyword_operand(f, e)
            }
        }
    }
}

fn printer(f: &Formatter<'_>) -> Printer {
    Printer {
        ascii: f.alternate(),
    }
}

/// `{}`: `(a, b) → (b, c) → (a, c)`; `{:#}`: `(a, b) -> (b, c) -> (a, c)`.
///
/// ```
/// let e = shapes::expr::parse("{ a -> b | (prod a = prod b) }").unwrap();
/// assert_eq!(e.to_string(), "{ a → b | (Π a = Π b) }");
/// assert_eq!(format!("{e:#}"), "{ a -> b | (prod a = prod b) }");
/// ```
impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        printer(f).expr(f, self, Level::Arrow)
    }
}

/// `(a, 2, heads × head_dim)`; rank 1 is `(5,)`, a scalar `()`.
///
/// ```
/// let p = shapes::expr::parse_pattern("(#b, h * d, ...)").unwrap();
/// assert_eq!(p.to_string(), "(#b, h × d, …)");
/// assert_eq!(format!("{p:#}"), "(#b, h * d, ...)");
/// ```
impl Display for Pattern {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        printer(f).pattern(f, self)
    }
}

/// One item as it appears in a pattern: `heads × head_dim`, `_`, `…`, `*batch`, `#n`.
///
/// ```
/// assert_eq!(shapes::expr::Item::Ellipsis.to_string(), "…");
/// assert_eq!(format!("{:#}", shapes::expr::Item::Ellipsis), "...");
/// ```
impl Display for Item {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        printer(f).item(f, self)
    }
}

/// A size with minimal parentheses: `(h + 2 × p - k) ÷ s + 1`.
///
/// ```
/// let p = shapes::expr::parse_pattern("((h + 2*p - k) // s + 1)").unwrap();
/// assert_eq!(p.items[0].to_string(), "(h + 2 × p - k) ÷ s + 1");
/// assert_eq!(format!("{:#}", p.items[0]), "(h + 2 * p - k) // s + 1");
/// ```
impl Display for DimExpr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        printer(f).dim(f, self, 0)
    }
}

/// A constraint, parenthesised like gorgonia: `((D a = D b) ∧ (∀ b < ∀ a))`.
///
/// ```
/// let e = shapes::expr::parse("{ a -> b | D a == D b && all b < all a }").unwrap();
/// let shapes::expr::Expr::Compound(_, p) = e else { unreachable!() };
/// assert_eq!(p.to_string(), "((D a = D b) ∧ (∀ b < ∀ a))");
/// assert_eq!(format!("{p:#}"), "((D a = D b) && (all b < all a))");
/// ```
impl Display for Pred {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        printer(f).pred(f, self)
    }
}

/// One side of a comparison: a size, or `∀ e` (ASCII `all e`).
///
/// ```
/// use shapes::expr::{Expr, Name, Operand};
/// let o = Operand::ForAll(Expr::Var(Name::new("a")));
/// assert_eq!(o.to_string(), "∀ a");
/// assert_eq!(format!("{o:#}"), "all a");
/// ```
impl Display for Operand {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        printer(f).operand(f, self)
    }
}

/// numpy's notation: `3`, `-1`, `0:2`, `::2`, `:`.
///
/// ```
/// use shapes::expr::SliceSpec;
/// assert_eq!(SliceSpec::Index(-1).to_string(), "-1");
/// let r = SliceSpec::Range { start: Some(0), end: None, step: Some(2) };
/// assert_eq!(r.to_string(), "0::2");
/// ```
impl Display for SliceSpec {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match *self {
            SliceSpec::Index(i) => write!(f, "{i}"),
            SliceSpec::Range { start, end, step } => {
                if let Some(s) = start {
                    write!(f, "{s}")?;
                }
                f.write_str(":")?;
                if let Some(e) = end {
                    write!(f, "{e}")?;
                }
                if let Some(st) = step {
                    write!(f, ":{st}")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests;
