//! Patterns `( item, … )` and the sizes inside them.

use super::{Failure, Found, PResult, ParsedPattern, Parser};
use crate::expr::{ArithOp, DimExpr, Expr, Item, Pattern};
use crate::parse::lexer::Tok;

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

impl<'a> Parser<'a> {
    /// `pattern = "(" [ item { "," item } [ "," ] ] ")"`, splicing nested patterns and
    /// allowing one `...` / `*name`.
    pub(super) fn pattern(&mut self) -> PResult<ParsedPattern> {
        self.enter_nesting()?;
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
        self.leave_nesting();
        Ok(ParsedPattern {
            pattern: Pattern::new(items),
            variadic,
            comma,
        })
    }

    /// Records a `...` / `*name` at `span`; a second one in the same pattern is an error there.
    fn one_variadic(&self, seen: &mut Option<(usize, usize)>, span: (usize, usize)) -> PResult<()> {
        if seen.is_some() {
            return Err(Failure {
                offset: span.0,
                found: Found::Text { end: span.1 },
                expected: "at most one '...' or '*name' per pattern",
                fatal: false,
            });
        }
        *seen = Some(span);
        Ok(())
    }

    /// One pattern item.
    fn item(&mut self) -> PResult<ItemOut> {
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
                    // `#(h * 2)`: any size, as the printer writes a broadcastable dim that a
                    // substitution made more than a name.
                    Tok::LParen => {
                        let inner = self.pattern()?;
                        match self.paren_use(inner)? {
                            ParenUse::Dim(d) => Item::Broadcast(d),
                            ParenUse::Shape(_) => {
                                return Err(self.fail("one size in the parentheses after '#'"));
                            }
                        }
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
    fn paren_use(&mut self, mut inner: ParsedPattern) -> PResult<ParenUse> {
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
    pub(super) fn dim(&mut self) -> PResult<DimExpr> {
        let first = self.factor()?;
        self.dim_rest(first)
    }

    /// The rest of a dim whose first factor is already parsed.
    fn dim_rest(&mut self, first: DimExpr) -> PResult<DimExpr> {
        let base = self.depth;
        let mut lhs = self.term_rest(first)?;
        loop {
            let op = match self.peek() {
                Tok::Plus => ArithOp::Add,
                Tok::Minus => ArithOp::Sub,
                _ => break,
            };
            self.enter_nesting()?;
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
    fn term_rest(&mut self, first: DimExpr) -> PResult<DimExpr> {
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
            self.enter_nesting()?;
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
    fn factor(&mut self) -> PResult<DimExpr> {
        let t = self.nth(0);
        if let Some(f) = self.size_fn(0) {
            self.enter_nesting()?;
            self.advance();
            let e = self.prefix_nested()?;
            self.leave_nesting();
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
}
