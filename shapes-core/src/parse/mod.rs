//! The parser of the shape-expression language (`GRAMMAR.md` is its specification).
//!
//! - [`lexer`]: characters to tokens with byte spans (ASCII and Unicode spellings, superscripts);
//! - [`parser`]: recursive descent with the backtracking the grammar's disambiguation needs;
//! - [`error`]: [`ParseError`], with the byte offset, what was found and what was expected.

mod error;
mod lexer;
mod parser;

use std::str::FromStr;

pub use error::{ParseError, caret};

use crate::expr::{CmpOp, DimExpr, Expr, Pattern};

/// Parses a shape expression: a pattern, an arrow, a constraint, a shape operation.
///
/// Both spellings of every operator are accepted (`->` / `→`, `*` / `×`, `prod` / `Π`, …), and
/// the whole input must be one expression: trailing input is an error.
///
/// ```
/// use shapes::expr::{parse, Expr, Name, Pattern, Item, DimExpr};
///
/// let matmul = parse("(a, b) -> (b, c) -> (a, c)").unwrap();
/// assert_eq!(matmul.to_string(), "(a, b) → (b, c) → (a, c)");
/// let Expr::Arrow(from, _) = &matmul else { panic!("an arrow") };
/// let a = || Item::Dim(DimExpr::Var(Name::new("a")));
/// let b = || Item::Dim(DimExpr::Var(Name::new("b")));
/// assert_eq!(**from, Expr::Pattern(Pattern::new(vec![a(), b()])));
///
/// let err = parse("(a, b) x").unwrap_err();
/// assert_eq!(err.message(), "expected end of input, found 'x' at byte 7");
/// ```
pub fn parse(input: &str) -> Result<Expr, ParseError> {
    parser::parse_expr(input)
}

/// Parses a pattern `( item, … )` and nothing else: what `#[shape("…")]` accepts.
///
/// ```
/// use shapes::expr::{parse_pattern, Item, Name};
///
/// let p = parse_pattern("(*batch, seq, heads * head_dim)").unwrap();
/// assert_eq!(p.items.len(), 3);
/// assert_eq!(p.items[0], Item::Variadic(Name::new("batch")));
/// assert_eq!(p.to_string(), "(*batch, seq, heads × head_dim)");
/// assert_eq!(parse_pattern("(5)").unwrap().to_string(), "(5,)");
///
/// assert!(parse_pattern("a -> a").is_err());
/// assert_eq!(parse_pattern("(*a, *b)").unwrap_err().offset(), 5);
/// ```
pub fn parse_pattern(input: &str) -> Result<Pattern, ParseError> {
    parser::parse_pattern(input)
}

/// Parses `lhs cmp_op rhs`, two sizes and a comparison between them, and returns both sides,
/// the operator and the byte offset of the operator in `input`. The sizes follow the same
/// grammar as a size inside a pattern (`heads * head_dim`, `(h + 2*p - k) // s + 1`), and the
/// whole input must be the one comparison: trailing input is an error, and an error's offset
/// is a byte offset in `input`. For the derive's `where` clauses; not a public API.
///
/// ```
/// use shapes::expr::CmpOp;
/// use shapes::__testing::parse_equation;
///
/// let (lhs, op, rhs, at) = parse_equation("heads * head_dim = d_model").unwrap();
/// assert_eq!(lhs.to_string(), "heads × head_dim");
/// assert_eq!((op, rhs.to_string(), at), (CmpOp::Eq, "d_model".to_owned(), 17));
///
/// let (_, op, _, at) = parse_equation("(h + 2*p - k) // s + 1 <= h").unwrap();
/// assert_eq!((op, at), (CmpOp::Le, 23));
///
/// let err = parse_equation("a = b c").unwrap_err();
/// assert_eq!(err.message(), "expected end of input, found 'c' at byte 6");
/// ```
#[doc(hidden)]
pub fn parse_equation(input: &str) -> Result<(DimExpr, CmpOp, DimExpr, usize), ParseError> {
    parser::parse_equation(input)
}

/// Parses the comparisons of a derive's `where` clause or a spec file's constraint: one or
/// more `dim cmp_op dim`, separated by `,` or `&&` (`∧`), each with the byte offset of its
/// operator. The same comparison grammar as a `{ e | pred }` predicate. For the derive; not a
/// public API.
///
/// ```
/// use shapes::__private::{parse_constraints, CmpOp};
///
/// let all = parse_constraints("heads % kv_heads = 0, head_dim <= 256 && d_model != 0").unwrap();
/// let ops: Vec<CmpOp> = all.iter().map(|c| c.1).collect();
/// assert_eq!(ops, [CmpOp::Eq, CmpOp::Le, CmpOp::Ne]);
/// assert_eq!(all[1].0.to_string(), "head_dim");
/// assert!(parse_constraints("a = b,").is_err());
/// ```
#[doc(hidden)]
#[allow(clippy::type_complexity)]
pub fn parse_constraints(input: &str) -> Result<Vec<(DimExpr, CmpOp, DimExpr, usize)>, ParseError> {
    parser::parse_constraints(input)
}

/// Whether `s` is exactly one variable name of the grammar (`n_layers`, `α`, and also words
/// that are keywords only in other positions, such as `D`), with nothing around it. For the
/// derive; not a public API.
///
/// ```
/// use shapes::__private::is_identifier;
///
/// assert!(is_identifier("n_layers"));
/// assert!(!is_identifier("n layers"));
/// assert!(!is_identifier(" n"));
/// assert!(!is_identifier("3"));
/// assert!(!is_identifier("a*b"));
/// assert!(!is_identifier("_"));
/// assert!(!is_identifier(""));
/// ```
#[doc(hidden)]
pub fn is_identifier(s: &str) -> bool {
    parser::is_identifier(s)
}

impl FromStr for Expr {
    type Err = ParseError;

    /// The same as [`parse`].
    ///
    /// ```
    /// let e: shapes::expr::Expr = "{ a -> b -> b | (prod a = prod b) }".parse().unwrap();
    /// assert_eq!(e.to_string(), "{ a → b → b | (Π a = Π b) }");
    /// ```
    fn from_str(input: &str) -> Result<Self, Self::Err> {
        parse(input)
    }
}

impl FromStr for Pattern {
    type Err = ParseError;

    /// The same as [`parse_pattern`].
    ///
    /// ```
    /// let p: shapes::expr::Pattern = "(a, #b, ...)".parse().unwrap();
    /// assert_eq!(format!("{p:#}"), "(a, #b, ...)");
    /// ```
    fn from_str(input: &str) -> Result<Self, Self::Err> {
        parse_pattern(input)
    }
}
