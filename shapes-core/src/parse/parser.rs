//! Recursive descent over the tokens of [`lexer`](super::lexer), following `GRAMMAR.md`.
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
//! position (and nesting depth), so that backtracking over nested parentheses stays
//! polynomial; input that never backtracks builds no memo. Nesting is capped at [`MAX_DEPTH`]
//! so that no input can exhaust the stack.
//!
//! When both alternatives fail, the error that got further wins (the first on a tie), which
//! is what a reader of the input expects to see.
//!
//! Speed: the rules on the hot path of a signature (`concat`, `prefix`, `postfix`, `atom`,
//! `item`, `dim`, `factor`, …) are `#[inline(always)]` in optimised builds, and the arrow
//! chain is a loop. A rule's `Result` returned through memory and read back in wider loads
//! stalls store-to-load forwarding; inlining keeps it in registers. A lone name or number in
//! a pattern (`a` in `(a, b)`) takes a fast path. Parsing the matmul signature went from
//! ≈720 ns to ≈358 ns (`cargo bench --bench solver -- parse`). Recursion
//! goes through the out-of-line [`Parser::prefix_nested`], [`Parser::expr`] and
//! [`Parser::pattern`]. Debug builds do not inline: unoptimised, the inlined frames are so
//! large that [`MAX_DEPTH`] levels of nesting would need more than a 2 MiB thread stack.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, DefaultHasher};

use smallvec::SmallVec;

use super::error::ParseError;
use super::lexer::{Tok, Token, lex};
use crate::expr::{
    ArithOp, Axis, CmpOp, DimExpr, Expr, Item, Name, Operand, Pattern, Pred, SliceSpec,
};

/// How deeply constructs may nest (parentheses, prefix operators, operator chains). Deep
/// enough for any real signature, shallow enough that the recursive parser, printer and
/// `Drop` stay far from the end of a 2 MiB thread stack.
pub(crate) const MAX_DEPTH: usize = 128;

/// A failed parse, before the input is attached.
#[derive(Debug, Clone)]
struct Fail {
    offset: usize,
    found: String,
    expected: String,
    /// Too deep: no alternative can do better, so backtracking stops.
    fatal: bool,
}

impl Fail {
    fn into_error(self, input: &str) -> ParseError {
        ParseError::new(input, self.offset, self.found, self.expected)
    }
}

type R<T> = Result<T, Fail>;

/// Of two failed alternatives, the one that got further (the first on a tie); a fatal one
/// always wins.
fn further(first: Fail, second: Fail) -> Fail {
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

/// What a `( … )` inside a pattern or a size turned out to be.
enum ParenUse {
    /// A size: grouping `(h + 1)` or an axis of a shape `(a, b)[0]`.
    Dim(DimExpr),
    /// A shape, spliced into the enclosing pattern.
    Shape(ParsedPattern),
}

/// One parsed pattern item, or a nested pattern to splice.
enum ItemOut {
    One(Item),
    Splice(ParsedPattern),
}

/// Keyed by (token position, depth): small sequential integers no input can make collide, so
/// a fixed-key hasher does (and spares every parse `RandomState::new`).
type Memo = HashMap<(usize, usize), R<(Expr, usize)>, BuildHasherDefault<DefaultHasher>>;

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
    memo: Memo,
    /// How many first alternatives of a backtracking point enclose the current position.
    /// Only atoms parsed inside one can be parsed again (after a rewind), so only those are
    /// memoised: an input with no backtracking pays for no memo entry and no tree clone.
    tentative: usize,
    /// Names already built in this parse, reused so a repeated name shares one allocation
    /// (bounded, so a long input with many names stays linear; the first few inline, so a
    /// signature's names cost no allocation beyond their own).
    names: SmallVec<[Name; 8]>,
}

/// How many distinct names [`Parser::intern`] remembers.
const NAME_CACHE: usize = 16;

/// Parses a whole expression (see [`crate::parse`]).
pub(crate) fn parse_expr(input: &str) -> Result<Expr, ParseError> {
    let mut p = Parser::new(input)?;
    let out = p.expr().and_then(|e| p.end().map(|()| e));
    out.map_err(|f| f.into_error(input))
}

/// Parses a whole pattern (see [`crate::parse_pattern`]).
pub(crate) fn parse_pattern(input: &str) -> Result<Pattern, ParseError> {
    let mut p = Parser::new(input)?;
    let out = if p.peek() == Tok::LParen {
        p.pattern()
            .and_then(|parsed| p.end().map(|()| parsed.pattern))
    } else {
        Err(p.fail("a pattern '( … )'"))
    };
    out.map_err(|f| f.into_error(input))
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Result<Self, ParseError> {
        Ok(Parser {
            src,
            toks: lex(src)?,
            pos: 0,
            depth: 0,
            memo: Memo::default(),
            tentative: 0,
            names: SmallVec::new(),
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
        }
    }

    fn text(&self, t: Token) -> &'a str {
        self.src.get(t.start..t.end).unwrap_or("")
    }

    /// The name spelled by `text`, sharing the allocation of an earlier equal name.
    fn intern(&mut self, text: &str) -> Name {
        // Byte by byte: names are a few bytes long, and this spares a call to `memcmp` per
        // comparison.
        let same = |n: &&Name| {
            let n = n.as_str().as_bytes();
            n.len() == text.len() && n.iter().zip(text.as_bytes()).all(|(a, b)| a == b)
        };
        if let Some(n) = self.names.iter().find(same) {
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
    fn fail(&self, expected: &str) -> Fail {
        let t = self.nth(0);
        Fail {
            offset: t.start,
            found: if t.tok == Tok::Eof {
                "end of input".into()
            } else {
                format!("'{}'", self.text(t))
            },
            expected: expected.into(),
            fatal: false,
        }
    }

    /// A failure about the input between `start` and the end of the last consumed token.
    fn fail_span(&self, start: usize, expected: &str) -> Fail {
        let text = self.src.get(start..self.prev_end()).unwrap_or("");
        Fail {
            offset: start,
            found: format!("'{text}'"),
            expected: expected.into(),
            fatal: false,
        }
    }

    fn expect(&mut self, tok: Tok, expected: &str) -> R<()> {
        if self.peek() == tok {
            self.advance();
            Ok(())
        } else {
            Err(self.fail(expected))
        }
    }

    fn end(&self) -> R<()> {
        if self.peek() == Tok::Eof {
            Ok(())
        } else {
            Err(self.fail("end of input"))
        }
    }

    /// Enters one level of nesting. Every rule that calls this calls [`leave`](Self::leave)
    /// before returning `Ok`; on `Err`, the backtracking point restores the depth.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn bump(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.too_deep());
        }
        Ok(())
    }

    #[cold]
    fn too_deep(&self) -> Fail {
        let mut fail = self.fail("less deeply nested input");
        fail.fatal = true;
        fail
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn leave(&mut self) {
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
    fn name(&mut self, expected: &str) -> R<Name> {
        let t = self.nth(0);
        if t.tok == Tok::Ident && self.text(t) != "_" {
            self.advance();
            Ok(self.intern(self.text(t)))
        } else {
            Err(self.fail(expected))
        }
    }

    /// Integers up to `close`: `X[0 1 3 2]`, `^(1 0)`, `{[1 2]}`.
    fn int_list(&mut self, close: Tok, expected: &str) -> R<Vec<usize>> {
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
    fn signed(&mut self) -> R<isize> {
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

    /// `axis = "^" ( int | "=" ) | sup_int | "⁼"`.
    fn axis(&mut self) -> R<Axis> {
        match self.peek() {
            Tok::Caret => {
                self.advance();
                match self.peek() {
                    Tok::Int(n) => {
                        self.advance();
                        Ok(Axis::One(n))
                    }
                    Tok::Eq if self.text(self.nth(0)) == "=" => {
                        self.advance();
                        Ok(Axis::All)
                    }
                    _ => Err(self.fail("an axis number or '=' after '^'")),
                }
            }
            Tok::Sup(n) => {
                self.advance();
                Ok(Axis::One(n))
            }
            Tok::SupEq => {
                self.advance();
                Ok(Axis::All)
            }
            _ => Err(self.fail("an axis ('^1', '¹', '^=' or '⁼')")),
        }
    }

    /// `axes_arg = "X" "[" { int } "]" | "^(" { int } ")" | "⁽" { sup_int } "⁾"`.
    fn axes_arg(&mut self) -> R<Vec<usize>> {
        match self.peek() {
            Tok::Ident => {
                self.advance();
                self.expect(Tok::LBracket, "'['")?;
                self.int_list(Tok::RBracket, "an axis number or ']'")
            }
            Tok::Caret => {
                self.advance();
                self.expect(Tok::LParen, "'(' after '^'")?;
                self.int_list(Tok::RParen, "an axis number or ')'")
            }
            _ => {
                self.expect(Tok::SupLParen, "axes ('X[1 0]', '^(1 0)' or '⁽¹ ⁰⁾')")?;
                let mut out = Vec::new();
                loop {
                    match self.peek() {
                        Tok::Sup(n) => {
                            self.advance();
                            out.push(n);
                        }
                        Tok::SupRParen => {
                            self.advance();
                            return Ok(out);
                        }
                        _ => return Err(self.fail("a superscript axis number or '⁾'")),
                    }
                }
            }
        }
    }

    // ----- expressions ----------------------------------------------------------------------

    /// `expr = unary_expr [ arrow expr ]` (right-associative).
    ///
    /// The chain `a → b → c` is read in a loop and folded from the right, which builds the
    /// same tree as the recursion the rule describes, with one level of nesting per arrow.
    fn expr(&mut self) -> R<Expr> {
        let base = self.depth;
        self.bump()?;
        let mut last = self.concat()?;
        // The operands before the last arrow, outermost first.
        let mut lhs: SmallVec<[Expr; 4]> = SmallVec::new();
        while self.peek() == Tok::Arrow {
            self.advance();
            self.bump()?;
            let next = self.concat()?;
            lhs.push(std::mem::replace(&mut last, next));
        }
        while let Some(l) = lhs.pop() {
            last = Expr::arrow(l, last);
        }
        self.depth = base;
        Ok(last)
    }

    /// `concat_expr = prefix_expr { ":{" int "}:" prefix_expr }` (left-associative).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn concat(&mut self) -> R<Expr> {
        let base = self.depth;
        let mut lhs = self.prefix()?;
        while self.peek() == Tok::Colon && self.nth(1).tok == Tok::LBrace {
            self.bump()?;
            self.advance();
            self.advance();
            let Tok::Int(axis) = self.peek() else {
                return Err(self.fail("an axis number"));
            };
            self.advance();
            self.expect(Tok::RBrace, "'}'")?;
            self.expect(Tok::Colon, "':' (a concatenation is 'a :{1}: b')")?;
            let rhs = self.prefix_nested()?;
            lhs = Expr::Concat(axis, Box::new(lhs), Box::new(rhs));
        }
        self.depth = base;
        Ok(lhs)
    }

    /// [`prefix`](Self::prefix) where it recurses: kept out of line so that `prefix` itself can
    /// be inlined into its one hot caller ([`concat`](Self::concat)), whose result then stays
    /// in registers instead of making a round trip through memory.
    #[inline(never)]
    fn prefix_nested(&mut self) -> R<Expr> {
        self.prefix()
    }

    /// `prefix_expr`: transpose, reduce, repeat, a size function, or a postfix expression.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn prefix(&mut self) -> R<Expr> {
        self.bump()?;
        let out = if self.is_ident(0, "T") && self.starts_axes_arg(1) {
            self.advance();
            let axes = self.axes_arg()?;
            let e = self.prefix_nested()?;
            Expr::Transpose(axes, Box::new(e))
        } else if self.peek() == Tok::Slash && self.starts_axis(1) {
            self.advance();
            let axis = self.axis()?;
            let e = self.prefix_nested()?;
            Expr::Reduce(axis, Box::new(e))
        } else if self.is_ident(0, "Repeat") && self.starts_axis(1) {
            self.advance();
            let axis = self.axis()?;
            self.expect(Tok::LBrace, "'{' (a repeat is 'Repeat⁰{[3]} a')")?;
            self.expect(Tok::LBracket, "'['")?;
            let repeats = self.int_list(Tok::RBracket, "a repeat count or ']'")?;
            self.expect(Tok::RBrace, "'}'")?;
            let e = self.prefix_nested()?;
            Expr::Repeat(axis, repeats, Box::new(e))
        } else if let Some(f) = self.size_fn(0) {
            // A size in a shape position is the rank-1 shape `(Π a,)`.
            self.advance();
            let e = self.prefix_nested()?;
            Expr::Pattern(Pattern::new(vec![Item::Dim(f.apply(e))]))
        } else {
            self.postfix()?
        };
        self.leave();
        Ok(out)
    }

    /// `postfix_expr = atom { "[" index_list "]" }`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn postfix(&mut self) -> R<Expr> {
        let base = self.depth;
        let mut e = self.atom()?;
        while self.peek() == Tok::LBracket {
            self.bump()?;
            let index = self.slices(true)?;
            e = Expr::Slice(Box::new(e), Box::new(index));
        }
        self.depth = base;
        Ok(e)
    }

    /// `[ index_list ]` at the `[`: [`Expr::Slices`], or with `allow_name` a name (`a[b]`).
    fn slices(&mut self, allow_name: bool) -> R<Expr> {
        self.expect(Tok::LBracket, "'['")?;
        if allow_name && self.nth(1).tok == Tok::RBracket {
            let t = self.nth(0);
            if t.tok == Tok::Ident && self.text(t) != "_" {
                self.advance();
                self.advance();
                return Ok(Expr::Var(self.intern(self.text(t))));
            }
        }
        let mut specs = vec![self.slice_spec(if allow_name {
            "an index, a slice or a name"
        } else {
            "an index or a slice"
        })?];
        loop {
            match self.peek() {
                Tok::Comma => {
                    self.advance();
                    if self.peek() == Tok::RBracket {
                        self.advance();
                        break;
                    }
                    specs.push(self.slice_spec("an index, a slice or ']'")?);
                }
                Tok::RBracket => {
                    self.advance();
                    break;
                }
                _ => return Err(self.fail("',' or ']'")),
            }
        }
        Ok(Expr::Slices(specs))
    }

    /// `index = signed | [ signed ] ":" [ signed ] [ ":" [ signed ] ]`.
    fn slice_spec(&mut self, expected: &str) -> R<SliceSpec> {
        let start = if self.starts_signed() {
            Some(self.signed()?)
        } else {
            None
        };
        if self.peek() != Tok::Colon {
            return start
                .map(SliceSpec::Index)
                .ok_or_else(|| self.fail(expected));
        }
        self.advance();
        let end = if self.starts_signed() {
            Some(self.signed()?)
        } else {
            None
        };
        let mut step = None;
        if self.peek() == Tok::Colon {
            self.advance();
            if self.starts_signed() {
                let at = self.nth(0).start;
                let s = self.signed()?;
                if s == 0 {
                    return Err(self.fail_span(at, "a non-zero step"));
                }
                step = Some(s);
            }
        }
        Ok(SliceSpec::Range { start, end, step })
    }

    /// An atom, memoised when it starts with `(` or `{` (the only atoms whose parse
    /// backtracks inside).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn atom(&mut self) -> R<Expr> {
        if !matches!(self.peek(), Tok::LParen | Tok::LBrace) {
            return self.atom_uncached();
        }
        let key = (self.pos, self.depth);
        if let Some(hit) = self.memo.get(&key).cloned() {
            return hit.map(|(e, end)| {
                self.pos = end;
                e
            });
        }
        let out = self.atom_uncached();
        if self.tentative == 0 {
            return out;
        }
        let entry = match &out {
            Ok(e) => Ok((e.clone(), self.pos)),
            Err(f) => Err(f.clone()),
        };
        self.memo.insert(key, entry);
        out
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn atom_uncached(&mut self) -> R<Expr> {
        let t = self.nth(0);
        let out = match t.tok {
            Tok::LParen => {
                self.bump()?;
                self.paren()?
            }
            Tok::LBrace => {
                self.bump()?;
                self.advance();
                let e = self.expr()?;
                self.expect(Tok::Pipe, "'|' (a constraint is '{ expr | predicate }')")?;
                let p = self.pred()?;
                self.expect(Tok::RBrace, "'}'")?;
                Expr::Compound(Box::new(e), Box::new(p))
            }
            Tok::LBracket => {
                self.bump()?;
                self.slices(false)?
            }
            Tok::Ident => {
                let name = self.text(t);
                if (name == "X" || name == "Sz") && self.nth(1).tok == Tok::LBracket {
                    self.bump()?;
                    self.advance();
                    self.advance();
                    if name == "X" {
                        Expr::Axes(self.int_list(Tok::RBracket, "an axis number or ']'")?)
                    } else {
                        Expr::Sizes(self.int_list(Tok::RBracket, "a size or ']'")?)
                    }
                } else if name == "_" {
                    return Err(self.fail("an expression ('_' is a pattern item)"));
                } else {
                    self.advance();
                    return Ok(Expr::Var(self.intern(name)));
                }
            }
            Tok::Int(n) => {
                self.advance();
                return Ok(Expr::shape(&[n]));
            }
            _ => return Err(self.fail("an expression")),
        };
        self.leave();
        Ok(out)
    }

    /// `(` in a shape position: a pattern, else `( expr )` or `( expr || expr )`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn paren(&mut self) -> R<Expr> {
        let (pos, depth) = (self.pos, self.depth);
        self.tentative += 1;
        let first = self.pattern();
        self.tentative -= 1;
        let as_pattern = match first {
            Ok(parsed) => return Ok(Expr::Pattern(parsed.pattern)),
            Err(f) if f.fatal => return Err(f),
            Err(f) => f,
        };
        self.pos = pos;
        self.depth = depth;
        self.paren_expr().map_err(|f| further(as_pattern, f))
    }

    fn paren_expr(&mut self) -> R<Expr> {
        self.expect(Tok::LParen, "'('")?;
        let lhs = self.expr()?;
        if self.peek() == Tok::OrOr {
            self.advance();
            let rhs = self.expr()?;
            self.expect(Tok::RParen, "')'")?;
            Ok(Expr::Broadcast(Box::new(lhs), Box::new(rhs)))
        } else {
            self.expect(Tok::RParen, "'||' or ')'")?;
            Ok(lhs)
        }
    }

    // ----- patterns and sizes ---------------------------------------------------------------

    /// `pattern = "(" [ item { "," item } [ "," ] ] ")"`, splicing nested patterns and
    /// allowing one `...` / `*name`.
    fn pattern(&mut self) -> R<ParsedPattern> {
        self.bump()?;
        self.expect(Tok::LParen, "'('")?;
        let mut items = Vec::with_capacity(4);
        let mut variadic = None;
        let mut comma = false;
        loop {
            if self.peek() == Tok::RParen {
                self.advance();
                break;
            }
            // Fast path for the common item, a lone name or number (`a` in `(a, b)`): the
            // general rule would reach the same `Item::Dim` through size-function, term and
            // sum checks that cannot apply before a `,` or `)`.
            let t = self.nth(0);
            if matches!(self.nth(1).tok, Tok::Comma | Tok::RParen) {
                let simple = match t.tok {
                    Tok::Ident if self.text(t) != "_" => {
                        Some(DimExpr::Var(self.intern(self.text(t))))
                    }
                    Tok::Int(n) => Some(DimExpr::Lit(n)),
                    _ => None,
                };
                if let Some(d) = simple {
                    self.advance();
                    items.push(Item::Dim(d));
                    match self.peek() {
                        Tok::Comma => {
                            self.advance();
                            comma = true;
                            continue;
                        }
                        // `)`, the only other token the check above lets through.
                        _ => {
                            self.advance();
                            break;
                        }
                    }
                }
            }
            let start = t.start;
            match self.item()? {
                ItemOut::One(item) => {
                    if matches!(item, Item::Ellipsis | Item::Variadic(_)) {
                        self.one_variadic(&mut variadic, (start, self.prev_end()))?;
                    }
                    items.push(item);
                }
                ItemOut::Splice(inner) => {
                    if let Some(span) = inner.variadic {
                        self.one_variadic(&mut variadic, span)?;
                    }
                    items.extend(inner.pattern.items);
                }
            }
            match self.peek() {
                Tok::Comma => {
                    self.advance();
                    comma = true;
                }
                Tok::RParen => {
                    self.advance();
                    break;
                }
                _ => return Err(self.fail("',' or ')'")),
            }
        }
        self.leave();
        Ok(ParsedPattern {
            pattern: Pattern::new(items),
            variadic,
            comma,
        })
    }

    /// Records a `...` / `*name` at `span`; a second one in the same pattern is an error there.
    fn one_variadic(&self, seen: &mut Option<(usize, usize)>, span: (usize, usize)) -> R<()> {
        if seen.is_some() {
            let text = self.src.get(span.0..span.1).unwrap_or("");
            return Err(Fail {
                offset: span.0,
                found: format!("'{text}'"),
                expected: "at most one '...' or '*name' per pattern".into(),
                fatal: false,
            });
        }
        *seen = Some(span);
        Ok(())
    }

    /// One pattern item.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn item(&mut self) -> R<ItemOut> {
        let t = self.nth(0);
        let item = match t.tok {
            Tok::Ident if self.text(t) == "_" => {
                self.advance();
                Item::Any
            }
            Tok::Ellipsis => {
                self.advance();
                Item::Ellipsis
            }
            Tok::Star => {
                self.advance();
                Item::Variadic(self.name("a name after '*'")?)
            }
            Tok::Hash => {
                self.advance();
                match self.peek() {
                    Tok::Int(n) => {
                        self.advance();
                        Item::Broadcast(DimExpr::Lit(n))
                    }
                    _ => {
                        Item::Broadcast(DimExpr::Var(self.name("a name or an integer after '#'")?))
                    }
                }
            }
            Tok::LParen => {
                let inner = self.pattern()?;
                match self.paren_use(inner)? {
                    ParenUse::Dim(d) => Item::Dim(self.dim_rest(d)?),
                    ParenUse::Shape(p) => return Ok(ItemOut::Splice(p)),
                }
            }
            Tok::Int(_) | Tok::Ident | Tok::Pi | Tok::Sigma => Item::Dim(self.dim()?),
            _ => return Err(self.fail("a pattern item or ')'")),
        };
        Ok(ItemOut::One(item))
    }

    /// Decides what a just-parsed `( … )` inside a pattern or a size is: indexed
    /// (`(a, b)[0]`), grouping (one dim, no comma), or a shape.
    fn paren_use(&mut self, mut inner: ParsedPattern) -> R<ParenUse> {
        if self.peek() == Tok::LBracket {
            self.advance();
            let i = self.signed()?;
            self.expect(Tok::RBracket, "']'")?;
            return Ok(ParenUse::Dim(DimExpr::Index(
                Box::new(Expr::Pattern(inner.pattern)),
                i,
            )));
        }
        if !inner.comma
            && matches!(inner.pattern.items.as_slice(), [Item::Dim(_)])
            && let Some(Item::Dim(d)) = inner.pattern.items.pop()
        {
            return Ok(ParenUse::Dim(d));
        }
        Ok(ParenUse::Shape(inner))
    }

    /// `dim = term { ( "+" | "-" ) term }`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn dim(&mut self) -> R<DimExpr> {
        let first = self.factor()?;
        self.dim_rest(first)
    }

    /// The rest of a dim whose first factor is already parsed.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn dim_rest(&mut self, first: DimExpr) -> R<DimExpr> {
        let base = self.depth;
        let mut lhs = self.term_rest(first)?;
        loop {
            let op = match self.peek() {
                Tok::Plus => ArithOp::Add,
                Tok::Minus => ArithOp::Sub,
                _ => break,
            };
            self.bump()?;
            self.advance();
            let first = self.factor()?;
            let rhs = self.term_rest(first)?;
            lhs = DimExpr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
        self.depth = base;
        Ok(lhs)
    }

    /// `term = factor { ( "*" | "×" | "/" | "//" | "÷" | "%" ) factor }`, after its first
    /// factor. Dividing by a literal 0 is an error at the 0.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn term_rest(&mut self, first: DimExpr) -> R<DimExpr> {
        let base = self.depth;
        let mut lhs = first;
        loop {
            let op = match self.peek() {
                Tok::Star | Tok::Times => ArithOp::Mul,
                Tok::Slash => ArithOp::Div,
                Tok::FloorDiv => ArithOp::FloorDiv,
                Tok::Percent => ArithOp::Rem,
                _ => break,
            };
            self.bump()?;
            self.advance();
            let at = self.nth(0).start;
            let rhs = self.factor()?;
            if matches!(op, ArithOp::Div | ArithOp::FloorDiv | ArithOp::Rem)
                && rhs == DimExpr::Lit(0)
            {
                return Err(self.fail_span(at, "a non-zero divisor"));
            }
            lhs = DimExpr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
        self.depth = base;
        Ok(lhs)
    }

    /// `factor = int | ident [ "[" signed "]" ] | pattern "[" signed "]" | "(" dim ")"
    ///          | size_fn prefix_expr`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn factor(&mut self) -> R<DimExpr> {
        let t = self.nth(0);
        if let Some(f) = self.size_fn(0) {
            self.bump()?;
            self.advance();
            let e = self.prefix_nested()?;
            self.leave();
            return Ok(f.apply(e));
        }
        match t.tok {
            Tok::Int(n) => {
                self.advance();
                Ok(DimExpr::Lit(n))
            }
            Tok::Ident if self.text(t) != "_" => {
                self.advance();
                let name = self.intern(self.text(t));
                if self.peek() == Tok::LBracket {
                    self.advance();
                    let i = self.signed()?;
                    self.expect(Tok::RBracket, "']'")?;
                    Ok(DimExpr::Index(Box::new(Expr::Var(name)), i))
                } else {
                    Ok(DimExpr::Var(name))
                }
            }
            Tok::LParen => {
                let inner = self.pattern()?;
                match self.paren_use(inner)? {
                    ParenUse::Dim(d) => Ok(d),
                    ParenUse::Shape(_) => Err(self.fail_span(t.start, "a size")),
                }
            }
            _ => Err(self.fail("a size")),
        }
    }

    // ----- constraints ----------------------------------------------------------------------

    /// `pred = conj { ( "||" | "∨" ) conj }`.
    fn pred(&mut self) -> R<Pred> {
        let base = self.depth;
        self.bump()?;
        let mut lhs = self.conj()?;
        while matches!(self.peek(), Tok::OrOr | Tok::Vee) {
            self.bump()?;
            self.advance();
            let rhs = self.conj()?;
            lhs = Pred::Or(Box::new(lhs), Box::new(rhs));
        }
        self.depth = base;
        Ok(lhs)
    }

    /// `conj = cmp { ( "&&" | "∧" ) cmp }`.
    fn conj(&mut self) -> R<Pred> {
        let base = self.depth;
        self.bump()?;
        let mut lhs = self.cmp()?;
        while self.peek() == Tok::And {
            self.bump()?;
            self.advance();
            let rhs = self.cmp()?;
            lhs = Pred::And(Box::new(lhs), Box::new(rhs));
        }
        self.depth = base;
        Ok(lhs)
    }

    /// `cmp = "(" pred ")" | "K" prefix_expr ( "~" | "⚟" ) "K" prefix_expr
    ///      | operand cmp_op operand`.
    fn cmp(&mut self) -> R<Pred> {
        self.bump()?;
        let out = match self.peek() {
            Tok::LParen => {
                let (pos, depth) = (self.pos, self.depth);
                self.tentative += 1;
                let first = self.paren_pred();
                self.tentative -= 1;
                match first {
                    Ok(p) => p,
                    Err(f) if f.fatal => return Err(f),
                    Err(as_pred) => {
                        self.pos = pos;
                        self.depth = depth;
                        self.comparison().map_err(|f| further(as_pred, f))?
                    }
                }
            }
            Tok::Ident if self.is_ident(0, "K") && self.starts_operand(1) => {
                self.advance();
                let lhs = self.prefix_nested()?;
                self.expect(Tok::Tilde, "'⚟' or '~' (broadcastability is 'K a ⚟ K b')")?;
                if !self.is_ident(0, "K") {
                    return Err(self.fail("'K'"));
                }
                self.advance();
                let rhs = self.prefix_nested()?;
                Pred::Broadcastable(lhs, rhs)
            }
            Tok::Ident | Tok::Int(_) | Tok::Pi | Tok::Sigma | Tok::ForAll => self.comparison()?,
            _ => return Err(self.fail("a constraint such as '(D a = 2)'")),
        };
        self.leave();
        Ok(out)
    }

    fn paren_pred(&mut self) -> R<Pred> {
        self.expect(Tok::LParen, "'('")?;
        let p = self.pred()?;
        self.expect(Tok::RParen, "')'")?;
        Ok(p)
    }

    /// `operand cmp_op operand`.
    fn comparison(&mut self) -> R<Pred> {
        let lhs = self.operand()?;
        let op = match self.peek() {
            Tok::Eq => CmpOp::Eq,
            Tok::Ne => CmpOp::Ne,
            Tok::Lt => CmpOp::Lt,
            Tok::Le => CmpOp::Le,
            Tok::Gt => CmpOp::Gt,
            Tok::Ge => CmpOp::Ge,
            _ => return Err(self.fail("a comparison ('=', '≠', '<', '≤', '>' or '≥')")),
        };
        self.advance();
        let rhs = self.operand()?;
        Ok(Pred::Cmp(op, lhs, rhs))
    }

    /// `operand = ( "∀" | "all" ) prefix_expr | dim`.
    fn operand(&mut self) -> R<Operand> {
        if self.peek() == Tok::ForAll || (self.is_ident(0, "all") && self.starts_operand(1)) {
            self.advance();
            Ok(Operand::ForAll(self.prefix_nested()?))
        } else {
            Ok(Operand::Size(self.dim()?))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(n: &str) -> Expr {
        Expr::Var(Name::new(n))
    }
    fn dv(n: &str) -> DimExpr {
        DimExpr::Var(Name::new(n))
    }
    fn lit(n: usize) -> DimExpr {
        DimExpr::Lit(n)
    }
    fn bin(op: ArithOp, a: DimExpr, b: DimExpr) -> DimExpr {
        DimExpr::Bin(op, Box::new(a), Box::new(b))
    }
    fn pat(items: Vec<Item>) -> Expr {
        Expr::Pattern(Pattern::new(items))
    }
    fn dims(ds: Vec<DimExpr>) -> Expr {
        pat(ds.into_iter().map(Item::Dim).collect())
    }
    fn arrow(a: Expr, b: Expr) -> Expr {
        Expr::arrow(a, b)
    }
    fn ok(input: &str) -> Expr {
        parse_expr(input).unwrap_or_else(|e| panic!("{input:?} should parse:\n{e}"))
    }
    fn ok_pattern(input: &str) -> Pattern {
        super::parse_pattern(input).unwrap_or_else(|e| panic!("{input:?} should parse:\n{e}"))
    }
    /// (offset, found, expected)
    fn err(input: &str) -> (usize, String, String) {
        let e = parse_expr(input).expect_err(input);
        (e.offset(), e.found().to_owned(), e.expected().to_owned())
    }
    fn err_at(input: &str) -> usize {
        err(input).0
    }

    #[test]
    fn patterns() {
        assert_eq!(ok("()"), pat(vec![]));
        assert_eq!(ok("(1,)"), Expr::shape(&[1]));
        assert_eq!(ok("(a, 2)"), dims(vec![dv("a"), lit(2)]));
        assert_eq!(ok("(a,b,)"), dims(vec![dv("a"), dv("b")]));
        assert_eq!(
            ok("(_, ..., #n, #1)"),
            pat(vec![
                Item::Any,
                Item::Ellipsis,
                Item::Broadcast(dv("n")),
                Item::Broadcast(lit(1))
            ])
        );
        assert_eq!(ok("(…, d)").to_string(), "(…, d)");
        assert_eq!(
            ok("(*batch, d)"),
            pat(vec![Item::Variadic(Name::new("batch")), Item::Dim(dv("d"))])
        );
        assert_eq!(
            ok("(# n, * rest)"),
            pat(vec![
                Item::Broadcast(dv("n")),
                Item::Variadic(Name::new("rest"))
            ])
        );
    }

    #[test]
    fn a_parenthesised_single_item_is_a_rank_1_pattern() {
        assert_eq!(ok("(5)"), Expr::shape(&[5]));
        assert_eq!(ok("(a)"), dims(vec![dv("a")]));
        assert_eq!(
            ok("(a + 1)"),
            dims(vec![bin(ArithOp::Add, dv("a"), lit(1))])
        );
        assert_eq!(ok("((a))"), dims(vec![dv("a")]));
        // A bare integer in a shape position is the rank-1 shape too.
        assert_eq!(ok("5"), Expr::shape(&[5]));
    }

    #[test]
    fn nested_patterns_splice_and_single_dims_group() {
        assert_eq!(ok("((a, b), c)"), dims(vec![dv("a"), dv("b"), dv("c")]));
        assert_eq!(ok("((), a)"), dims(vec![dv("a")]));
        assert_eq!(ok("((1), (2))"), Expr::shape(&[1, 2]));
        assert_eq!(
            ok("((*a,), b)"),
            pat(vec![Item::Variadic(Name::new("a")), Item::Dim(dv("b"))])
        );
        assert_eq!(
            ok("((h + 2*p - k) // s + 1,)"),
            dims(vec![bin(
                ArithOp::Add,
                bin(
                    ArithOp::FloorDiv,
                    bin(
                        ArithOp::Sub,
                        bin(ArithOp::Add, dv("h"), bin(ArithOp::Mul, lit(2), dv("p"))),
                        dv("k")
                    ),
                    dv("s")
                ),
                lit(1)
            )])
        );
        // A pattern followed by an index is a size: axis 1 of (2, 3).
        assert_eq!(
            ok("((2, 3)[1] * 2,)"),
            dims(vec![bin(
                ArithOp::Mul,
                DimExpr::Index(Box::new(Expr::shape(&[2, 3])), 1),
                lit(2)
            )])
        );
    }

    #[test]
    fn arithmetic_precedence_and_associativity() {
        let e = ok("(a - b - c, a / b * c, a + b * c, a ÷ b % c)");
        assert_eq!(
            e,
            dims(vec![
                bin(ArithOp::Sub, bin(ArithOp::Sub, dv("a"), dv("b")), dv("c")),
                bin(ArithOp::Mul, bin(ArithOp::Div, dv("a"), dv("b")), dv("c")),
                bin(ArithOp::Add, dv("a"), bin(ArithOp::Mul, dv("b"), dv("c"))),
                bin(
                    ArithOp::Rem,
                    bin(ArithOp::FloorDiv, dv("a"), dv("b")),
                    dv("c")
                ),
            ])
        );
        assert_eq!(ok("(a × b, a * b)"), ok("(a*b, a*b)"));
        assert_eq!(ok("(a // b)"), ok("(a ÷ b)"));
    }

    #[test]
    fn arrows_are_right_associative() {
        assert_eq!(ok("a → b → c"), arrow(v("a"), arrow(v("b"), v("c"))));
        assert_eq!(ok("(a → b) → c"), arrow(arrow(v("a"), v("b")), v("c")));
        assert_eq!(ok("a -> (b -> c)"), ok("a → b → c"));
        let ab = dims(vec![dv("a"), dv("b")]);
        let bc = dims(vec![dv("b"), dv("c")]);
        let ac = dims(vec![dv("a"), dv("c")]);
        assert_eq!(ok("(a, b) → (b, c) → (a, c)"), arrow(ab, arrow(bc, ac)));
    }

    #[test]
    fn parenthesised_expressions_and_broadcast() {
        assert_eq!(ok("(a)"), dims(vec![dv("a")]));
        assert_eq!(ok("((a → b))"), arrow(v("a"), v("b")));
        assert_eq!(
            ok("(a||b)"),
            Expr::Broadcast(Box::new(v("a")), Box::new(v("b")))
        );
        assert_eq!(
            ok("((2, 3) || a)"),
            Expr::Broadcast(Box::new(Expr::shape(&[2, 3])), Box::new(v("a")))
        );
        assert_eq!(
            ok("(a → b || c)"),
            Expr::Broadcast(Box::new(arrow(v("a"), v("b"))), Box::new(v("c")))
        );
    }

    #[test]
    fn shape_operations() {
        assert_eq!(ok("X[0 1 3 2]"), Expr::Axes(vec![0, 1, 3, 2]));
        assert_eq!(ok("X[]"), Expr::Axes(vec![]));
        assert_eq!(ok("Sz[0 0 1 0]"), Expr::Sizes(vec![0, 0, 1, 0]));
        let t = Expr::Transpose(vec![1, 0], Box::new(v("a")));
        assert_eq!(ok("T X[1 0] a"), t);
        assert_eq!(ok("T^(1 0) a"), t);
        assert_eq!(ok("T⁽¹ ⁰⁾ a"), t);
        assert_eq!(ok("/¹a"), Expr::Reduce(Axis::One(1), Box::new(v("a"))));
        assert_eq!(ok("/^= a"), Expr::Reduce(Axis::All, Box::new(v("a"))));
        assert_eq!(
            ok("/⁰/¹a"),
            Expr::Reduce(
                Axis::One(0),
                Box::new(Expr::Reduce(Axis::One(1), Box::new(v("a"))))
            )
        );
        assert_eq!(
            ok("Repeat⁰{[3]} a"),
            Expr::Repeat(Axis::One(0), vec![3], Box::new(v("a")))
        );
        assert_eq!(
            ok("Repeat^={[1 2]} a"),
            Expr::Repeat(Axis::All, vec![1, 2], Box::new(v("a")))
        );
        assert_eq!(
            ok("a :{1}: b :{0}: c"),
            Expr::Concat(
                0,
                Box::new(Expr::Concat(1, Box::new(v("a")), Box::new(v("b")))),
                Box::new(v("c"))
            )
        );
        // Prefix operators bind tighter than concatenation, concatenation than arrows.
        assert_eq!(
            ok("T^(1 0) a :{0}: b -> c"),
            arrow(
                Expr::Concat(0, Box::new(t.clone()), Box::new(v("b"))),
                v("c")
            )
        );
    }

    #[test]
    fn slices_and_indexing() {
        let r = |start, end, step| SliceSpec::Range { start, end, step };
        assert_eq!(ok("[0:2]"), Expr::Slices(vec![r(Some(0), Some(2), None)]));
        assert_eq!(ok("[0]"), Expr::Slices(vec![SliceSpec::Index(0)]));
        assert_eq!(
            ok("a[::2, -1, 1:, :3, :, 0:4:2,]"),
            Expr::Slice(
                Box::new(v("a")),
                Box::new(Expr::Slices(vec![
                    r(None, None, Some(2)),
                    SliceSpec::Index(-1),
                    r(Some(1), None, None),
                    r(None, Some(3), None),
                    r(None, None, None),
                    r(Some(0), Some(4), Some(2)),
                ]))
            )
        );
        assert_eq!(ok("a[b]"), Expr::Slice(Box::new(v("a")), Box::new(v("b"))));
        // In a shape position `e[i]` indexes; in a size position it is the size of an axis.
        assert_eq!(
            ok("(a, b)[0]"),
            Expr::Slice(
                Box::new(dims(vec![dv("a"), dv("b")])),
                Box::new(Expr::Slices(vec![SliceSpec::Index(0)]))
            )
        );
        assert_eq!(
            ok("(a[-1],)"),
            dims(vec![DimExpr::Index(Box::new(v("a")), -1)])
        );
        assert_eq!(
            ok(&format!("a[{}]", isize::MIN)),
            Expr::Slice(
                Box::new(v("a")),
                Box::new(Expr::Slices(vec![SliceSpec::Index(isize::MIN)]))
            )
        );
    }

    #[test]
    fn size_functions() {
        let rank = |e| DimExpr::Rank(Box::new(e));
        let prod = |e| DimExpr::Prod(Box::new(e));
        let sum = |e| DimExpr::Sum(Box::new(e));
        assert_eq!(
            ok("(D a, Π a, P a, prod a, Σ a, S a, sum a)"),
            dims(vec![
                rank(v("a")),
                prod(v("a")),
                prod(v("a")),
                prod(v("a")),
                sum(v("a")),
                sum(v("a")),
                sum(v("a"))
            ])
        );
        // In a shape position a size is the rank-1 shape holding it.
        assert_eq!(ok("a → Π a"), arrow(v("a"), dims(vec![prod(v("a"))])));
        assert_eq!(ok("a → (Π a)"), ok("a → Π a"));
        assert_eq!(
            ok("(Π (a, b) + 1,)"),
            dims(vec![bin(
                ArithOp::Add,
                prod(dims(vec![dv("a"), dv("b")])),
                lit(1)
            )])
        );
        // The operand is a prefix expression: `D a[0]` is the rank of a sliced shape.
        assert_eq!(
            ok("(D a[0],)"),
            dims(vec![rank(Expr::Slice(
                Box::new(v("a")),
                Box::new(Expr::Slices(vec![SliceSpec::Index(0)]))
            ))])
        );
    }

    #[test]
    fn lone_names_and_numbers_take_the_fast_path_to_the_same_items() {
        // `pattern`'s fast path (a name or number before `,` or `)`) against the general rule,
        // reached through grouping parentheses.
        for (fast, general) in [
            ("(a, 3, _, b)", "((a), (3), _, (b))"),
            ("(D, P, prod, sum,)", "((D), (P), (prod), (sum),)"),
            ("(n)", "((n))"),
            ("(7)", "((7))"),
        ] {
            assert_eq!(ok_pattern(fast), ok_pattern(general), "{fast}");
            assert_eq!(ok(fast), ok(general), "{fast}");
        }
        assert_eq!(
            ok_pattern("(d_model,)").items,
            vec![Item::Dim(dv("d_model"))]
        );
        assert_eq!(ok_pattern("(12)").items, vec![Item::Dim(lit(12))]);
        assert_eq!(ok_pattern("(_,)").items, vec![Item::Any]);
    }

    #[test]
    fn keywords_are_names_elsewhere() {
        assert_eq!(
            ok("(D, P, S, K, T, X, Sz, all, prod, sum, Repeat)"),
            dims(
                [
                    "D", "P", "S", "K", "T", "X", "Sz", "all", "prod", "sum", "Repeat"
                ]
                .map(dv)
                .to_vec()
            )
        );
        assert_eq!(ok("D"), v("D"));
        assert_eq!(ok("T → X"), arrow(v("T"), v("X")));
        assert_eq!(
            ok("(D - 1, D[0], P * 2)"),
            dims(vec![
                bin(ArithOp::Sub, dv("D"), lit(1)),
                DimExpr::Index(Box::new(v("D")), 0),
                bin(ArithOp::Mul, dv("P"), lit(2)),
            ])
        );
        assert_eq!(ok("(D D,)"), dims(vec![DimExpr::Rank(Box::new(v("D")))]));
        assert_eq!(ok("{ a | K = 2 }").to_string(), "{ a | (K = 2) }");
    }

    #[test]
    fn constraints() {
        let rank = |n| Operand::Size(DimExpr::Rank(Box::new(v(n))));
        let cmp = |op, a, b| Pred::Cmp(op, a, b);
        let c = |e: Expr, p: Pred| Expr::Compound(Box::new(e), Box::new(p));
        let same_rank = cmp(CmpOp::Eq, rank("a"), rank("b"));
        assert_eq!(
            ok("{a -> b | (D a = D b)}"),
            c(arrow(v("a"), v("b")), same_rank.clone())
        );
        assert_eq!(ok("{a -> b | D a == D b}"), ok("{a -> b | (D a = D b)}"));
        let forall = |n| Operand::ForAll(v(n));
        let both = Pred::And(
            Box::new(same_rank.clone()),
            Box::new(cmp(CmpOp::Lt, forall("b"), forall("a"))),
        );
        assert_eq!(
            ok("{ a → b | ((D a = D b) ∧ (∀ b < ∀ a)) }"),
            c(arrow(v("a"), v("b")), both.clone())
        );
        assert_eq!(
            ok("{ a → b | D a = D b && all b < all a }"),
            c(arrow(v("a"), v("b")), both)
        );
        // ∧ binds tighter than ∨; both are left-associative.
        let p = |n: usize| cmp(CmpOp::Eq, Operand::Size(dv("a")), Operand::Size(lit(n)));
        assert_eq!(
            ok("{ a | a = 1 ∨ a = 2 ∧ a = 3 ∨ a = 4 }"),
            c(
                v("a"),
                Pred::Or(
                    Box::new(Pred::Or(
                        Box::new(p(1)),
                        Box::new(Pred::And(Box::new(p(2)), Box::new(p(3))))
                    )),
                    Box::new(p(4))
                )
            )
        );
        assert_eq!(ok("{ a | a = 1 || a = 2 }"), ok("{ a | a = 1 ∨ a = 2 }"));
        assert_eq!(
            ok("{ a → b → (a||b) | (K a ⚟ K b) }"),
            c(
                arrow(
                    v("a"),
                    arrow(v("b"), Expr::Broadcast(Box::new(v("a")), Box::new(v("b"))))
                ),
                Pred::Broadcastable(v("a"), v("b"))
            )
        );
        assert_eq!(ok("{ a | K a ~ K b }"), ok("{ a | (K a ⚟ K b) }"));
        for (s, op) in [
            ("≠", CmpOp::Ne),
            ("!=", CmpOp::Ne),
            ("<=", CmpOp::Le),
            ("≤", CmpOp::Le),
            (">=", CmpOp::Ge),
            ("≥", CmpOp::Ge),
            (">", CmpOp::Gt),
            ("<", CmpOp::Lt),
        ] {
            assert_eq!(
                ok(&format!("{{ a | a[0] {s} 2 }}")),
                c(
                    v("a"),
                    cmp(
                        op,
                        Operand::Size(DimExpr::Index(Box::new(v("a")), 0)),
                        Operand::Size(lit(2))
                    )
                )
            );
        }
        // A size that starts with a parenthesis, with and without the outer parentheses.
        let sized = c(
            v("a"),
            cmp(
                CmpOp::Eq,
                Operand::Size(bin(
                    ArithOp::Mul,
                    bin(ArithOp::Add, dv("a"), dv("b")),
                    lit(2),
                )),
                Operand::Size(dv("c")),
            ),
        );
        assert_eq!(ok("{ a | (a + b) * 2 = c }"), sized);
        assert_eq!(ok("{ a | ((a + b) * 2 = c) }"), sized);
        assert_eq!(ok("{ a | ((((a + b) * 2 = c))) }"), sized);
    }

    #[test]
    fn parse_pattern_accepts_only_a_pattern() {
        assert_eq!(
            ok_pattern(" ( a , b ) "),
            Pattern::new(vec![Item::Dim(dv("a")), Item::Dim(dv("b"))])
        );
        assert_eq!(ok_pattern("(5)"), Pattern::from(&[5usize][..]));
        assert_eq!(
            ok_pattern("((a, b))"),
            Pattern::new(vec![Item::Dim(dv("a")), Item::Dim(dv("b"))])
        );
        for bad in [
            "a",
            "5",
            "a -> a",
            "(a) -> a",
            "(a, b)[0]",
            "",
            "{ (a,) | a = 1 }",
        ] {
            assert!(super::parse_pattern(bad).is_err(), "{bad:?}");
        }
        let e = super::parse_pattern("a").unwrap_err();
        assert_eq!((e.offset(), e.expected()), (0, "a pattern '( … )'"));
        assert_eq!(super::parse_pattern("(a) b").unwrap_err().offset(), 4);
    }

    // ----- every error class, with its offset ---------------------------------------------

    #[test]
    fn trailing_input() {
        assert_eq!(err("(a, b) x"), (7, "'x'".into(), "end of input".into()));
        assert_eq!(err("(),(0)"), (2, "','".into(), "end of input".into()));
        assert_eq!(err_at("a b"), 2);
        assert_eq!(err_at("(a b)"), 3);
        assert_eq!(err_at("a → b c"), 8);
        assert_eq!(err_at("K a"), 2);
    }

    #[test]
    fn unknown_characters() {
        assert_eq!(
            err("(a @ b)"),
            (
                3,
                "'@'".into(),
                "a name, a number, a bracket or an operator".into()
            )
        );
        assert_eq!(err_at("a ⊕ b"), 2);
    }

    #[test]
    fn empty_dims() {
        assert_eq!(
            err("(a,,b)"),
            (3, "','".into(), "a pattern item or ')'".into())
        );
        assert_eq!(err_at("(,a)"), 1);
        assert_eq!(err_at("(,)"), 1);
        assert_eq!(err_at(","), 0);
    }

    #[test]
    fn two_variadics_report_the_second() {
        let expected = "at most one '...' or '*name' per pattern".to_owned();
        assert_eq!(err("(*a, ...)"), (5, "'...'".into(), expected.clone()));
        assert_eq!(err("(*a, *b)"), (5, "'*b'".into(), expected.clone()));
        assert_eq!(err("(…, x, …)"), (9, "'…'".into(), expected));
        assert_eq!(err_at("((*a,), *b)"), 8);
        assert_eq!(err_at("(..., (b, *c))"), 10);
        // In a pattern that is indexed rather than spliced, the variadic is its own.
        assert!(parse_expr("(*a, (*b, c)[0])").is_ok());
    }

    #[test]
    fn unbalanced_brackets() {
        assert_eq!(
            err("(a, b"),
            (5, "end of input".into(), "',' or ')'".into())
        );
        assert_eq!(err("a, b)"), (1, "','".into(), "end of input".into()));
        assert_eq!(
            err("((a, b)"),
            (7, "end of input".into(), "',' or ')'".into())
        );
        assert_eq!(err_at("(a, b))"), 6);
        assert_eq!(err_at("(a → b"), 8);
        assert_eq!(err_at("{ a | a = 1"), 11);
        assert_eq!(err_at("a[0"), 3);
        assert_eq!(err_at("X[0 1"), 5);
        assert_eq!(err_at("]"), 0);
    }

    #[test]
    fn numbers_that_overflow() {
        let input = format!("(a, {}0)", usize::MAX);
        let (offset, found, expected) = err(&input);
        assert_eq!(offset, 4);
        assert_eq!(found, format!("'{}0'", usize::MAX));
        assert!(expected.starts_with("a number that fits in usize"));
        // An index must fit in isize.
        assert_eq!(err(&format!("a[{}]", isize::MAX as usize + 1)).0, 2);
        assert_eq!(err(&format!("a[-{}]", isize::MAX as usize + 2)).0, 2);
    }

    #[test]
    fn division_by_a_literal_zero() {
        assert_eq!(
            err("(a / 0)"),
            (5, "'0'".into(), "a non-zero divisor".into())
        );
        assert_eq!(err_at("(a // 0)"), 6);
        assert_eq!(err_at("(a ÷ 0)"), 6);
        assert_eq!(err_at("(a % 0)"), 5);
        assert_eq!(err_at("{ a | D a / 0 = 1 }"), 12);
        assert!(parse_expr("(a * 0, a - 0, 0 / a, a / 00 + 1)").is_err());
        assert!(parse_expr("(a * 0, a - 0, 0 / a)").is_ok());
    }

    #[test]
    fn hash_and_star_need_a_name() {
        assert_eq!(
            err("(#)"),
            (2, "')'".into(), "a name or an integer after '#'".into())
        );
        assert_eq!(err_at("(#, a)"), 2);
        assert_eq!(err_at("(# -1)"), 3);
        assert_eq!(err_at("(#_)"), 2);
        assert_eq!(err("(*)"), (2, "')'".into(), "a name after '*'".into()));
        assert_eq!(err_at("(a, *3)"), 5);
        assert_eq!(err_at("(*_)"), 2);
        assert_eq!(err_at("(*(a))"), 2);
    }

    #[test]
    fn empty_input() {
        assert_eq!(err(""), (0, "end of input".into(), "an expression".into()));
        assert_eq!(
            err("  \n "),
            (4, "end of input".into(), "an expression".into())
        );
        assert_eq!(super::parse_pattern("").unwrap_err().offset(), 0);
    }

    #[test]
    fn other_errors() {
        assert_eq!(err_at("a[]"), 2);
        assert_eq!(err_at("a[::0]"), 4);
        assert_eq!(err_at("[b]"), 1);
        assert_eq!(err_at("_"), 0);
        assert_eq!(err_at("(_ + 1)"), 3);
        assert_eq!(err_at("∀ a"), 0);
        assert_eq!(err_at("a + b"), 2);
        assert_eq!(err_at("(2, -1)"), 4);
        assert_eq!(err_at("(a * (b, c))"), 5);
        assert_eq!(err_at("{ a | }"), 6);
        assert_eq!(err_at("{ a }"), 4);
        assert_eq!(err_at("{ a | K a = K b }"), 10);
        assert_eq!(err_at("T^(1, 0) a"), 4);
        assert_eq!(err_at("/^x a"), 2);
        assert_eq!(err_at("Repeat^0[3] a"), 8);
        assert_eq!(err_at("a :{b}: c"), 4);
        assert_eq!(err_at("a :{1} c"), 7);
        assert_eq!(err_at("a →"), 5);
        assert_eq!(err_at("→ a"), 0);
    }

    #[test]
    fn the_furthest_alternative_reports() {
        // `(` tries a pattern, then an expression: the error is the one that got further.
        assert_eq!(err("(a → b c)"), (9, "'c'".into(), "'||' or ')'".into()));
        assert_eq!(err("(a b)"), (3, "'b'".into(), "',' or ')'".into()));
        assert_eq!(err("{ a | (D a = 2 }"), (15, "'}'".into(), "')'".into()));
    }

    #[test]
    fn display_points_at_the_error() {
        let e = parse_expr("(a, b) x").unwrap_err();
        assert_eq!(
            e.to_string(),
            "expected end of input, found 'x' at byte 7\n  (a, b) x\n         ^"
        );
        let e = parse_expr("(α, β γ)").unwrap_err();
        assert_eq!(e.offset(), 8);
        assert_eq!(
            e.to_string(),
            "expected ',' or ')', found 'γ' at byte 8\n  (α, β γ)\n        ^"
        );
        assert_eq!(e.input(), "(α, β γ)");
    }

    /// Runs `f` on a thread with a small stack: deep inputs must fail cleanly, not overflow.
    fn on_small_stack(f: impl FnOnce() + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn nesting_is_capped() {
        on_small_stack(|| {
            let deep = |open: &str, mid: &str, close: &str, n: usize| {
                format!("{}{mid}{}", open.repeat(n), close.repeat(n))
            };
            let limit = "less deeply nested input";
            for input in [
                deep("(", "a", ")", 10_000),
                deep("(a → ", "a", ")", 10_000),
                deep("(D ", "a", ",)", 10_000),
                format!(
                    "{{ a | {}a = 1{} }}",
                    "(".repeat(10_000),
                    ")".repeat(10_000)
                ),
                deep("{ ", "a", " | a = 1 }", 10_000),
                deep("", "a", "", 0) + &" → a".repeat(10_000),
                format!("({},)", ["a"; 10_000].join(" + ")),
                "/¹".repeat(10_000) + "a",
                "T^(0) ".repeat(10_000) + "a",
                "a".to_owned() + &"[0]".repeat(10_000),
                format!("{{ a | {} }}", ["a = 1"; 10_000].join(" ∧ ")),
                deep("{ a | (D (", "a", ",) = 1) }", 10_000),
            ] {
                let e = parse_expr(&input).unwrap_err();
                assert_eq!(
                    e.expected(),
                    limit,
                    "{}",
                    input.chars().take(40).collect::<String>()
                );
            }
            // Just under the limit still parses, and prints and compares without trouble.
            for input in [
                deep("(", "a", ")", 60),
                deep("(D ", "a", ",)", 30),
                deep("{ ", "a", " | a = 1 }", 30),
                format!("{{ a | {}a = 1{} }}", "(".repeat(30), ")".repeat(30)),
            ] {
                let e = parse_expr(&input).unwrap();
                assert_eq!(parse_expr(&e.to_string()).unwrap(), e);
            }
        });
    }

    #[test]
    fn backtracking_stays_fast() {
        // Each `(` here is first tried as a pattern; memoisation keeps this polynomial.
        let n = 40;
        let inputs = [
            format!("{}a → b{}", "(".repeat(n), ")".repeat(n)),
            format!("{}a → b{}", "(D ".repeat(n / 2), ")".repeat(n / 2)),
            format!("{{ a | {}a{} = b }}", "(".repeat(n), ")".repeat(n)),
            format!("{}a → b", "(D {a | (D ".repeat(8)),
        ];
        let start = std::time::Instant::now();
        for input in &inputs {
            let _ = parse_expr(input);
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
    }
}
