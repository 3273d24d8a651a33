//! Constraints: the predicate after `|` in `{ expr | predicate }`.

use super::{Constraint, PResult, Parser, furthest};
use crate::expr::{CmpOp, DimExpr, Operand, Pred};
use crate::parse::lexer::Tok;

impl<'a> Parser<'a> {
    /// `pred = conj { ( "||" | "∨" ) conj }`.
    pub(super) fn pred(&mut self) -> PResult<Pred> {
        let base = self.depth;
        self.enter_nesting()?;
        let mut lhs = self.conj()?;
        while matches!(self.peek(), Tok::OrOr | Tok::Vee) {
            self.enter_nesting()?;
            self.advance();
            let rhs = self.conj()?;
            lhs = Pred::Or(Box::new(lhs), Box::new(rhs));
        }
        self.depth = base;
        Ok(lhs)
    }

    /// `conj = cmp { ( "&&" | "∧" ) cmp }`.
    fn conj(&mut self) -> PResult<Pred> {
        let base = self.depth;
        self.enter_nesting()?;
        let mut lhs = self.cmp()?;
        while self.peek() == Tok::And {
            self.enter_nesting()?;
            self.advance();
            let rhs = self.cmp()?;
            lhs = Pred::And(Box::new(lhs), Box::new(rhs));
        }
        self.depth = base;
        Ok(lhs)
    }

    /// `cmp = "(" pred ")" | "K" prefix_expr ( "~" | "⚟" ) "K" prefix_expr
    ///      | operand cmp_op operand`.
    fn cmp(&mut self) -> PResult<Pred> {
        self.enter_nesting()?;
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
                        self.comparison().map_err(|f| furthest(as_pred, f))?
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
        self.leave_nesting();
        Ok(out)
    }

    fn paren_pred(&mut self) -> PResult<Pred> {
        self.expect(Tok::LParen, "'('")?;
        let p = self.pred()?;
        self.expect(Tok::RParen, "')'")?;
        Ok(p)
    }

    /// `operand cmp_op operand`.
    fn comparison(&mut self) -> PResult<Pred> {
        let lhs = self.operand()?;
        let op = self.cmp_op()?;
        let rhs = self.operand()?;
        Ok(Pred::Cmp(op, lhs, rhs))
    }

    /// `dim cmp_op dim`, with the byte offset of the operator: the equation of a derive's
    /// `where` clause (`heads * head_dim = d_model`).
    pub(super) fn equation(&mut self) -> PResult<(DimExpr, CmpOp, DimExpr, usize)> {
        let lhs = self.dim()?;
        let at = self.nth(0).start;
        let op = self.cmp_op()?;
        let rhs = self.dim()?;
        Ok((lhs, op, rhs, at))
    }

    /// `constraints = equation { ( "," | "&&" | "∧" ) equation }`: the comparisons of a
    /// `where` clause or a spec file, all of which must hold (the `∧` of predicates, written
    /// with the dim grammar on both sides).
    pub(super) fn constraints(&mut self) -> PResult<Vec<Constraint>> {
        let mut out = vec![self.equation()?];
        while matches!(self.peek(), Tok::Comma | Tok::And) {
            self.advance();
            out.push(self.equation()?);
        }
        Ok(out)
    }

    /// `cmp_op = "=" | "==" | "≠" | "!=" | "<" | "<=" | "≤" | ">" | ">=" | "≥"`.
    fn cmp_op(&mut self) -> PResult<CmpOp> {
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
        Ok(op)
    }

    /// `operand = ( "∀" | "all" ) prefix_expr | dim`.
    fn operand(&mut self) -> PResult<Operand> {
        if self.peek() == Tok::ForAll || (self.is_ident(0, "all") && self.starts_operand(1)) {
            self.advance();
            Ok(Operand::ForAll(self.prefix_nested()?))
        } else {
            Ok(Operand::Size(self.dim()?))
        }
    }
}
