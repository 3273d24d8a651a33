//! Recursive descent over the tokens of [`lexer`](super::lexer), following `GRAMMAR.md`.
//!
//! This module holds the [`Parser`] itself: its cursor over the tokens, failures, the nesting
//! guard, the memo, and the look-ahead predicates and small pieces the rules share. The rules
//! are `impl Parser` blocks in one file per family: [`expr`] (arrows, concatenation, prefix
//! operators, slicing, atoms), [`pattern`] (patterns and the sizes inside them) and [`pred`]
//! (constraints). The families call each other, as the grammar does.
//!
//! Two places need more than one token of look-ahead and backtrack instead:
//!
//! - `(` in a shape position: a pattern when an item list follows (`(a)`, `(a, b)`, `()`),
//!   else a parenthesised expression (`(a → b)`) or a broadcast (`(a || b)`). The pattern is
//!   tried first; on failure the parser rewinds and tries the expression.
//! - `(` at the start of a comparison: a parenthesised predicate (`(D a = 2)`) or a size that
//!   starts with a parenthesis (`(a + b) * 2 = c`).
//!
//! Atoms starting with `(` or `{` that are parsed inside a first alternative are memoised by
//! position, so that the second alternative takes each atom the first one parsed as it is
//! (otherwise each level of nested backtracking points would parse everything inside it
//! again: twice the work per level); input that never backtracks builds no memo. An entry
//! records how many levels of nesting the atom's parse went below its own, so it is reused
//! from any depth at which those levels stay within [`MAX_DEPTH`] (the only way its result
//! could differ is hitting the cap). A finished atom's entry replaces those of the atoms
//! inside it, so the memo holds disjoint spans and its memory stays linear in the input.
//! Nesting is capped at [`MAX_DEPTH`] so that no input can exhaust the stack.
//!
//! When both alternatives fail, the error that got further wins (the first on a tie), which
//! is what a reader of the input expects to see.
//!
//! Speed: the rules on the hot path of a signature (`concat` down to `paren`, and
//! `enter_nesting`) are `#[inline(always)]` in optimised builds only, because unoptimised
//! frames that large would not fit [`MAX_DEPTH`] levels of nesting in a 2 MiB stack; the
//! parse benchmark in `benches/solver.rs` explains why and measures it.

mod expr;
mod pattern;
mod pred;

use std::collections::BTreeMap;

use smallvec::SmallVec;

use super::error::ParseError;
use super::lexer::{Tok, Token, lex};
use crate::expr::{CmpOp, DimExpr, Expr, Name, Pattern};

/// How deeply constructs may nest (parentheses, prefix operators, operator chains). Deep
/// enough for any real signature, shallow enough that the recursive parser, printer and
/// `Drop` stay far from the end of a 2 MiB thread stack.
pub(crate) const MAX_DEPTH: usize = 128;

/// A failed parse, before the input is attached. It holds offsets and a literal only, so a
/// failed alternative at a backtracking point allocates nothing; the text of what was found is
/// read from the input when the [`ParseError`] is built.
#[derive(Debug, Clone, Copy)]
struct Failure {
    offset: usize,
    found: Found,
    expected: &'static str,
    /// Too deep: no alternative can do better, so backtracking stops.
    fatal: bool,
}

/// What a [`Failure`] found at its offset.
#[derive(Debug, Clone, Copy)]
enum Found {
    /// The end of the input.
    EndOfInput,
    /// The input from the failure's offset up to the byte `end`, shown quoted.
    Text { end: usize },
}

impl Failure {
    fn into_error(self, input: &str) -> ParseError {
        let found = match self.found {
            Found::EndOfInput => "end of input".to_owned(),
            Found::Text { end } => format!("'{}'", input.get(self.offset..end).unwrap_or("")),
        };
        ParseError::new(input, self.offset, found, self.expected.to_owned())
    }
}

/// What a rule returns: its result, or how it failed.
type PResult<T> = Result<T, Failure>;

/// `lhs op rhs` with the byte offset of `op`: one comparison of a `where` clause.
pub(crate) type Constraint = (DimExpr, CmpOp, DimExpr, usize);

/// Of two failed alternatives, the one that got further (the first on a tie); a fatal one
/// always wins.
fn furthest(first: Failure, second: Failure) -> Failure {
    if first.fatal {
        first
    } else if second.fatal || second.offset > first.offset {
        second
    } else {
        first
    }
}

/// `D`, `Π`/`P`/`prod`, `Σ`/`S`/`sum`.
#[derive(Clone, Copy)]
enum SizeFn {
    Rank,
    Prod,
    Sum,
}

impl SizeFn {
    fn apply(self, e: Expr) -> DimExpr {
        let e = Box::new(e);
        match self {
            SizeFn::Rank => DimExpr::Rank(e),
            SizeFn::Prod => DimExpr::Prod(e),
            SizeFn::Sum => DimExpr::Sum(e),
        }
    }
}

/// A parsed `( … )` list with what the callers need to tell its uses apart.
struct ParsedPattern {
    pattern: Pattern,
    /// The span of its `...` or `*name`, if any (after splicing nested patterns).
    variadic: Option<(usize, usize)>,
    /// Whether a comma appeared (`(a,)` is a pattern even where `(a)` is grouping).
    comma: bool,
}

/// A memoised atom: how its parse ended (the tree and the position after it, or the
/// failure), and how many levels of nesting below its own the parse reached.
struct MemoEntry {
    result: PResult<(Expr, usize)>,
    below: usize,
}

/// Keyed by token position, ordered, so that the entries inside a finished atom's span can be
/// found and dropped (see `Parser::atom`).
type Memo = BTreeMap<usize, MemoEntry>;

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
    /// The deepest nesting reached since the innermost memoised atom being parsed began (what
    /// its [`MemoEntry::below`] is taken from).
    reach: usize,
    /// The offset of the first token reached past [`PRINT_CHECK_DEPTH`] levels of nesting.
    deepest: Option<usize>,
    memo: Memo,
    /// How many first alternatives of a backtracking point enclose the current position.
    /// Only atoms parsed inside one can be parsed again (after a rewind), so only those are
    /// memoised: an input with no backtracking pays for no memo entry and no tree clone.
    tentative: usize,
    /// Names already built in this parse, reused so a repeated name shares one allocation
    /// (bounded, so a long input with many names stays linear; the first few inline, so a
    /// signature's names cost no allocation beyond their own).
    names: SmallVec<[Name; 8]>,
    /// Tokens consumed, rewinds included: the work of the parse, which the tests hold to the
    /// input's length.
    #[cfg(test)]
    consumed: usize,
}

/// How many distinct names [`Parser::intern`] remembers.
const NAME_CACHE: usize = 16;

/// Nesting past which a parse is checked to print back (see [`prints_back`]). Real
/// signatures nest a few levels; the printer's spelling of a tree nests at most about four
/// times as deeply as the tersest input of that tree, so below this depth the printed form
/// always fits [`MAX_DEPTH`].
const PRINT_CHECK_DEPTH: usize = MAX_DEPTH / 4;

/// Parses a whole expression (see [`crate::expr::parse()`]).
pub(crate) fn parse_expr(input: &str) -> Result<Expr, ParseError> {
    let (e, deepest) = parse_expr_unchecked(input)?;
    if let Some(offset) = deepest {
        let printed_parses =
            |text: String| parse_expr_unchecked(&text).is_ok_and(|(back, _)| back == e);
        if !(printed_parses(e.to_string()) && printed_parses(format!("{e:#}"))) {
            return Err(too_deep_to_print(input, offset));
        }
    }
    Ok(e)
}

/// The expression, and the offset of its deepest point when it nests past
/// [`PRINT_CHECK_DEPTH`].
fn parse_expr_unchecked(input: &str) -> Result<(Expr, Option<usize>), ParseError> {
    let mut p = Parser::new(input)?;
    let out = p.expr().and_then(|e| p.end().map(|()| e));
    let e = out.map_err(|f| f.into_error(input))?;
    Ok((e, p.deepest))
}

/// Parses a whole pattern (see [`crate::expr::parse_pattern`]).
pub(crate) fn parse_pattern(input: &str) -> Result<Pattern, ParseError> {
    let (pattern, deepest) = parse_pattern_unchecked(input)?;
    if let Some(offset) = deepest {
        let printed_parses =
            |text: String| parse_pattern_unchecked(&text).is_ok_and(|(back, _)| back == pattern);
        if !(printed_parses(pattern.to_string()) && printed_parses(format!("{pattern:#}"))) {
            return Err(too_deep_to_print(input, offset));
        }
    }
    Ok(pattern)
}

fn parse_pattern_unchecked(input: &str) -> Result<(Pattern, Option<usize>), ParseError> {
    let mut p = Parser::new(input)?;
    let out = if p.peek() == Tok::LParen {
        p.pattern()
            .and_then(|parsed| p.end().map(|()| parsed.pattern))
    } else {
        Err(p.fail("a pattern '( … )'"))
    };
    let pattern = out.map_err(|f| f.into_error(input))?;
    Ok((pattern, p.deepest))
}

/// The error of an input that parses, but whose printed form would nest past [`MAX_DEPTH`]:
/// refused, so that every tree the parser returns prints to text that parses back to it.
/// Only inputs nesting past [`PRINT_CHECK_DEPTH`] are checked (and pay for the check).
#[cold]
fn too_deep_to_print(input: &str, offset: usize) -> ParseError {
    Failure {
        offset,
        found: if offset >= input.len() {
            Found::EndOfInput
        } else {
            Found::Text {
                end: input
                    .get(offset..)
                    .and_then(|rest| rest.chars().next())
                    .map_or(offset, |c| offset + c.len_utf8()),
            }
        },
        expected: "less deeply nested input (its printed form would nest too deeply to parse back)",
        fatal: true,
    }
    .into_error(input)
}

/// Parses `dim cmp_op dim` (see [`crate::parse::parse_equation`]).
pub(crate) fn parse_equation(input: &str) -> Result<(DimExpr, CmpOp, DimExpr, usize), ParseError> {
    let mut p = Parser::new(input)?;
    let out = p.equation().and_then(|eq| p.end().map(|()| eq));
    out.map_err(|f| f.into_error(input))
}

/// Parses `equation { ( "," | "&&" | "∧" ) equation }` (see
/// [`crate::parse::parse_constraints`]).
pub(crate) fn parse_constraints(input: &str) -> Result<Vec<Constraint>, ParseError> {
    let mut p = Parser::new(input)?;
    let out = p.constraints().and_then(|eqs| p.end().map(|()| eqs));
    out.map_err(|f| f.into_error(input))
}

/// Whether `s` is exactly one name (see [`crate::parse::is_identifier`]).
pub(crate) fn is_identifier(s: &str) -> bool {
    match lex(s).as_deref() {
        Ok([name, end]) => {
            name.tok == Tok::Ident
                && name.start == 0
                && name.end == s.len()
                && s != "_"
                && end.tok == Tok::Eof
        }
        _ => false,
    }
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Result<Self, ParseError> {
        Ok(Parser {
            src,
            toks: lex(src)?,
            pos: 0,
            depth: 0,
            reach: 0,
            deepest: None,
            memo: Memo::default(),
            tentative: 0,
            names: SmallVec::new(),
            #[cfg(test)]
            consumed: 0,
        })
    }

    // ----- tokens ---------------------------------------------------------------------------

    /// The token `k` places ahead (the end-of-input token past the end).
    fn nth(&self, k: usize) -> Token {
        self.pos
            .checked_add(k)
            .and_then(|i| self.toks.get(i))
            .copied()
            .unwrap_or(Token {
                tok: Tok::Eof,
                start: self.src.len(),
                end: self.src.len(),
            })
    }

    fn peek(&self) -> Tok {
        self.nth(0).tok
    }

    fn advance(&mut self) {
        if self.peek() != Tok::Eof {
            self.pos += 1;
            #[cfg(test)]
            {
                self.consumed += 1;
            }
        }
    }

    fn text(&self, t: Token) -> &'a str {
        self.src.get(t.start..t.end).unwrap_or("")
    }

    /// The name spelled by `text`, sharing the allocation of an earlier equal name.
    fn intern(&mut self, text: &str) -> Name {
        // `bytes().eq` rather than `==`: names are a few bytes long, too short for the call to
        // `memcmp` that `==` makes to pay off (`cargo bench --bench solver -- parse`).
        if let Some(n) = self
            .names
            .iter()
            .find(|n| n.as_str().bytes().eq(text.bytes()))
        {
            return n.clone();
        }
        let n = Name::new(text);
        if self.names.len() < NAME_CACHE {
            self.names.push(n.clone());
        }
        n
    }

    /// Whether the token `k` ahead is the identifier `name`.
    fn is_ident(&self, k: usize, name: &str) -> bool {
        let t = self.nth(k);
        t.tok == Tok::Ident && self.text(t) == name
    }

    /// The end of the last consumed token.
    fn prev_end(&self) -> usize {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.toks.get(i))
            .map_or(0, |t| t.end)
    }

    /// A failure at the current token.
    fn fail(&self, expected: &'static str) -> Failure {
        let t = self.nth(0);
        Failure {
            offset: t.start,
            found: if t.tok == Tok::Eof {
                Found::EndOfInput
            } else {
                Found::Text { end: t.end }
            },
            expected,
            fatal: false,
        }
    }

    /// A failure about the input between `start` and the end of the last consumed token.
    fn fail_span(&self, start: usize, expected: &'static str) -> Failure {
        Failure {
            offset: start,
            found: Found::Text {
                end: self.prev_end(),
            },
            expected,
            fatal: false,
        }
    }

    fn expect(&mut self, tok: Tok, expected: &'static str) -> PResult<()> {
        if self.peek() == tok {
            self.advance();
            Ok(())
        } else {
            Err(self.fail(expected))
        }
    }

    fn end(&self) -> PResult<()> {
        if self.peek() == Tok::Eof {
            Ok(())
        } else {
            Err(self.fail("end of input"))
        }
    }

    /// Enters one level of nesting. Every rule that calls this calls
    /// [`leave_nesting`](Self::leave_nesting) before returning `Ok`; on `Err`, the backtracking
    /// point restores the depth.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn enter_nesting(&mut self) -> PResult<()> {
        self.depth += 1;
        self.reach = self.reach.max(self.depth);
        if self.depth > PRINT_CHECK_DEPTH {
            return self.deep();
        }
        Ok(())
    }

    /// Past [`PRINT_CHECK_DEPTH`]: the cap, and where the parse went deep.
    #[cold]
    #[inline(never)]
    fn deep(&mut self) -> PResult<()> {
        if self.depth > MAX_DEPTH {
            return Err(self.too_deep());
        }
        if self.deepest.is_none() {
            self.deepest = Some(self.nth(0).start);
        }
        Ok(())
    }

    #[cold]
    fn too_deep(&self) -> Failure {
        let mut fail = self.fail("less deeply nested input");
        fail.fatal = true;
        fail
    }

    fn leave_nesting(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    // ----- look-ahead predicates ------------------------------------------------------------

    /// Whether the token `k` ahead can start the operand of a keyword operator (`D a`,
    /// `K a`, `all a`). `[` does not, so that a dim named `D` can be indexed: `D[0]`.
    fn starts_operand(&self, k: usize) -> bool {
        match self.nth(k).tok {
            Tok::Ident | Tok::Int(_) | Tok::LParen | Tok::LBrace | Tok::Pi | Tok::Sigma => true,
            Tok::Slash => self.starts_axis(k + 1),
            _ => false,
        }
    }

    /// `^`, a superscript number or `⁼`: an axis after `/` or `Repeat`.
    fn starts_axis(&self, k: usize) -> bool {
        matches!(self.nth(k).tok, Tok::Caret | Tok::Sup(_) | Tok::SupEq)
    }

    /// `X[`, `^` or `⁽`: the axes after `T`.
    fn starts_axes_arg(&self, k: usize) -> bool {
        (self.is_ident(k, "X") && self.nth(k + 1).tok == Tok::LBracket)
            || matches!(self.nth(k).tok, Tok::Caret | Tok::SupLParen)
    }

    /// The size function at the token `k` ahead: `Π`/`Σ` always, the ASCII keywords only
    /// when an operand follows (elsewhere they are names).
    fn size_fn(&self, k: usize) -> Option<SizeFn> {
        let t = self.nth(k);
        match t.tok {
            Tok::Pi => Some(SizeFn::Prod),
            Tok::Sigma => Some(SizeFn::Sum),
            Tok::Ident => match self.text(t) {
                "D" => Some(SizeFn::Rank),
                "P" | "prod" => Some(SizeFn::Prod),
                "S" | "sum" => Some(SizeFn::Sum),
                _ => None,
            }
            .filter(|_| self.starts_operand(k + 1)),
            _ => None,
        }
    }

    fn starts_signed(&self) -> bool {
        matches!(self.peek(), Tok::Minus | Tok::Int(_))
    }

    // ----- small pieces -----------------------------------------------------------------------

    /// A name (an identifier other than `_`).
    fn name(&mut self, expected: &'static str) -> PResult<Name> {
        let t = self.nth(0);
        if t.tok == Tok::Ident && self.text(t) != "_" {
            self.advance();
            Ok(self.intern(self.text(t)))
        } else {
            Err(self.fail(expected))
        }
    }

    /// Integers up to `close`: `X[0 1 3 2]`, `^(1 0)`, `{[1 2]}`.
    fn int_list(&mut self, close: Tok, expected: &'static str) -> PResult<Vec<usize>> {
        let mut out = Vec::new();
        loop {
            match self.peek() {
                Tok::Int(n) => {
                    self.advance();
                    out.push(n);
                }
                t if t == close => {
                    self.advance();
                    return Ok(out);
                }
                _ => return Err(self.fail(expected)),
            }
        }
    }

    /// `signed = [ "-" ] int`, as an `isize`.
    fn signed(&mut self) -> PResult<isize> {
        let start = self.nth(0).start;
        let negative = self.peek() == Tok::Minus;
        if negative {
            self.advance();
        }
        let Tok::Int(n) = self.peek() else {
            return Err(self.fail("an integer"));
        };
        self.advance();
        let value = if negative {
            0isize.checked_sub_unsigned(n)
        } else {
            isize::try_from(n).ok()
        };
        value.ok_or_else(|| self.fail_span(start, "an index that fits in isize"))
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_limits;
