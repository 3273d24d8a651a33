//! Expressions: arrows, concatenation, prefix operators, slicing and atoms.

use smallvec::SmallVec;

use super::{MAX_DEPTH, MemoEntry, PRINT_CHECK_DEPTH, PResult, Parser, furthest};
use crate::expr::{Axis, Expr, Item, Pattern, SliceSpec};
use crate::parse::lexer::Tok;

impl<'a> Parser<'a> {
    /// `expr = unary_expr [ arrow expr ]` (right-associative).
    ///
    /// The chain `a → b → c` is read in a loop and folded from the right, which builds the
    /// same tree as the recursion the rule describes, with one level of nesting per arrow.
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        let base = self.depth;
        self.enter_nesting()?;
        let mut last = self.concat()?;
        // The operands before the last arrow, outermost first.
        let mut lhs: SmallVec<[Expr; 4]> = SmallVec::new();
        while self.peek() == Tok::Arrow {
            self.advance();
            self.enter_nesting()?;
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
    fn concat(&mut self) -> PResult<Expr> {
        let base = self.depth;
        let mut lhs = self.prefix()?;
        while self.peek() == Tok::Colon && self.nth(1).tok == Tok::LBrace {
            self.enter_nesting()?;
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
    pub(super) fn prefix_nested(&mut self) -> PResult<Expr> {
        self.prefix()
    }

    /// `prefix_expr`: transpose, reduce, repeat, a size function, or a postfix expression.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn prefix(&mut self) -> PResult<Expr> {
        self.enter_nesting()?;
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
        self.leave_nesting();
        Ok(out)
    }

    /// `postfix_expr = atom { "[" index_list "]" }`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn postfix(&mut self) -> PResult<Expr> {
        let base = self.depth;
        let mut e = self.atom()?;
        while self.peek() == Tok::LBracket {
            self.enter_nesting()?;
            let index = self.slices(true)?;
            e = Expr::Slice(Box::new(e), Box::new(index));
        }
        self.depth = base;
        Ok(e)
    }

    /// `[ index_list ]` at the `[`: [`Expr::Slices`], or with `allow_name` a name (`a[b]`).
    fn slices(&mut self, allow_name: bool) -> PResult<Expr> {
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
    fn slice_spec(&mut self, expected: &'static str) -> PResult<SliceSpec> {
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
    fn atom(&mut self) -> PResult<Expr> {
        if !matches!(self.peek(), Tok::LParen | Tok::LBrace) {
            return self.atom_uncached();
        }
        let key = self.pos;
        if let Some(hit) = self.memo.get(&key)
            && self.depth + hit.below <= MAX_DEPTH
        {
            let (result, below) = (hit.result.clone(), hit.below);
            self.reached(self.depth + below);
            return result.map(|(e, end)| {
                self.pos = end;
                e
            });
        }
        // Not memoised, or memoised from a shallower depth and too deep to reuse here: the
        // parse below reaches the cap and fails with its error.
        let (depth, outer_reach) = (self.depth, self.reach);
        self.reach = depth;
        let out = self.atom_uncached();
        let below = self.reach.saturating_sub(depth);
        self.reach = self.reach.max(outer_reach);
        if self.tentative == 0 {
            return out;
        }
        let result = match &out {
            Ok(e) => {
                // Whoever comes back to this atom takes the entry above; the entries of the
                // atoms inside it are of no more use. Dropping them keeps the memo to
                // disjoint spans, so its clones add up to the input's size, not to the input's
                // size times its nesting depth.
                let inner: SmallVec<[usize; 8]> = self
                    .memo
                    .range(key + 1..self.pos)
                    .map(|(k, _)| *k)
                    .collect();
                for k in inner {
                    self.memo.remove(&k);
                }
                Ok((e.clone(), self.pos))
            }
            // The cap's error ends the whole parse: nothing comes back to this atom.
            Err(f) if f.fatal => return out,
            Err(f) => Err(*f),
        };
        self.memo.insert(key, MemoEntry { result, below });
        out
    }

    /// What parsing a memoised atom again would have done to the nesting bookkeeping: reach
    /// `level`, and note where the parse went past [`PRINT_CHECK_DEPTH`] (at the atom, the
    /// offset of its first token) if it did.
    fn reached(&mut self, level: usize) {
        self.reach = self.reach.max(level);
        if level > PRINT_CHECK_DEPTH && self.deepest.is_none() {
            self.deepest = Some(self.nth(0).start);
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn atom_uncached(&mut self) -> PResult<Expr> {
        let t = self.nth(0);
        let out = match t.tok {
            Tok::LParen => {
                self.enter_nesting()?;
                self.paren()?
            }
            Tok::LBrace => {
                self.enter_nesting()?;
                self.advance();
                let e = self.expr()?;
                self.expect(Tok::Pipe, "'|' (a constraint is '{ expr | predicate }')")?;
                let p = self.pred()?;
                self.expect(Tok::RBrace, "'}'")?;
                Expr::Compound(Box::new(e), Box::new(p))
            }
            Tok::LBracket => {
                self.enter_nesting()?;
                self.slices(false)?
            }
            Tok::Ident => {
                let name = self.text(t);
                if (name == "X" || name == "Sz") && self.nth(1).tok == Tok::LBracket {
                    self.enter_nesting()?;
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
        self.leave_nesting();
        Ok(out)
    }

    /// `(` in a shape position: a pattern, else `( expr )` or `( expr || expr )`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn paren(&mut self) -> PResult<Expr> {
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
        self.paren_expr().map_err(|f| furthest(as_pattern, f))
    }

    fn paren_expr(&mut self) -> PResult<Expr> {
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

    /// `axis = "^" ( int | "=" ) | sup_int | "⁼"`.
    fn axis(&mut self) -> PResult<Axis> {
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
    fn axes_arg(&mut self) -> PResult<Vec<usize>> {
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
}
