//! Tokens of the shape-expression language (see `GRAMMAR.md`, "Lexical structure").
//!
//! Every construct with two spellings (ASCII and Unicode) lexes to one token kind, except
//! where the grammar tells them apart: `*` (a variadic at the start of an item) vs `×`, `||`
//! (broadcast inside parentheses) vs `∨`, and `/` (reduce or exact division) vs `//` / `÷`.

use super::error::ParseError;

/// A token kind. Identifiers carry no text: it is read back from the span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tok {
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `|`
    Pipe,
    /// `||`
    OrOr,
    /// `∨`
    Vee,
    /// `&&` or `∧`
    And,
    /// `->` or `→`
    Arrow,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `×`
    Times,
    /// `/`
    Slash,
    /// `//` or `÷`
    FloorDiv,
    /// `%`
    Percent,
    /// `=` or `==`
    Eq,
    /// `!=` or `≠`
    Ne,
    /// `<`
    Lt,
    /// `<=` or `≤`
    Le,
    /// `>`
    Gt,
    /// `>=` or `≥`
    Ge,
    /// `~` or `⚟`
    Tilde,
    /// `#`
    Hash,
    /// `...` or `…`
    Ellipsis,
    /// `^`
    Caret,
    /// A run of superscript digits: `¹`, `¹⁰`.
    Sup(usize),
    /// `⁼`
    SupEq,
    /// `⁽`
    SupLParen,
    /// `⁾`
    SupRParen,
    /// `Π`
    Pi,
    /// `Σ`
    Sigma,
    /// `∀`
    ForAll,
    /// A name (or a keyword, which the parser recognises by position).
    Ident,
    /// A run of ASCII digits.
    Int(usize),
    /// The end of the input (always the last token).
    Eof,
}

/// A token and its byte span in the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

/// The value of a superscript digit.
fn superscript_digit(c: char) -> Option<usize> {
    Some(match c {
        '⁰' => 0,
        '¹' => 1,
        '²' => 2,
        '³' => 3,
        '⁴' => 4,
        '⁵' => 5,
        '⁶' => 6,
        '⁷' => 7,
        '⁸' => 8,
        '⁹' => 9,
        _ => return None,
    })
}

/// `Π` and `Σ` are letters to Unicode but operators here, never part of a name.
fn is_ident_start(c: char) -> bool {
    c == '_' || (c.is_alphabetic() && c != 'Π' && c != 'Σ')
}

fn is_ident_continue(c: char) -> bool {
    is_ident_start(c) || c.is_ascii_digit()
}

/// Splits `input` into tokens, ending with [`Tok::Eof`]. Unknown characters and numbers that
/// overflow `usize` are errors at their byte offset.
///
/// ASCII, which is nearly all real input, is read a byte at a time; a non-ASCII byte starts a
/// UTF-8 sequence, which is decoded into its `char` (the input is a `&str`, so it is valid).
pub(crate) fn lex(input: &str) -> Result<Vec<Token>, ParseError> {
    // A token is at least one byte (plus the end token): one allocation for any
    // signature-sized input.
    let mut tokens = Vec::with_capacity(input.len().min(1024) + 1);
    let bytes = input.as_bytes();
    let mut start = 0;
    while let Some(&b) = bytes.get(start) {
        // Whether the byte after this one is `want` (every two-char operator is ASCII).
        let next_is = |want: u8| bytes.get(start + 1) == Some(&want);
        // The common one-byte tokens, by byte (a jump table); everything else below.
        let ascii = match b {
            b' ' | b'\t' | b'\n' | b'\r' => {
                start += 1;
                continue;
            }
            b'(' => Some(Tok::LParen),
            b')' => Some(Tok::RParen),
            b',' => Some(Tok::Comma),
            b'*' => Some(Tok::Star),
            b'+' => Some(Tok::Plus),
            b'-' if !next_is(b'>') => Some(Tok::Minus),
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let end = ident_end(input, start + 1);
                tokens.push(Token {
                    tok: Tok::Ident,
                    start,
                    end,
                });
                start = end;
                continue;
            }
            _ => None,
        };
        if let Some(tok) = ascii {
            tokens.push(Token {
                tok,
                start,
                end: start + 1,
            });
            start += 1;
            continue;
        }
        let c = if b.is_ascii() {
            char::from(b)
        } else {
            match input.get(start..).and_then(|rest| rest.chars().next()) {
                Some(c) => c,
                // Unreachable for a `&str` (a non-ASCII byte where a char starts is the
                // lead byte of a valid sequence); stop rather than loop.
                None => break,
            }
        };
        let len = c.len_utf8();
        if c.is_whitespace() {
            start += len;
            continue;
        }
        let (tok, len) = match c {
            '(' => (Tok::LParen, 1),
            ')' => (Tok::RParen, 1),
            '{' => (Tok::LBrace, 1),
            '}' => (Tok::RBrace, 1),
            '[' => (Tok::LBracket, 1),
            ']' => (Tok::RBracket, 1),
            ',' => (Tok::Comma, 1),
            ':' => (Tok::Colon, 1),
            '|' if next_is(b'|') => (Tok::OrOr, 2),
            '|' => (Tok::Pipe, 1),
            '∨' => (Tok::Vee, len),
            '&' if next_is(b'&') => (Tok::And, 2),
            '∧' => (Tok::And, len),
            '-' if next_is(b'>') => (Tok::Arrow, 2),
            '→' => (Tok::Arrow, len),
            '+' => (Tok::Plus, 1),
            '-' => (Tok::Minus, 1),
            '*' => (Tok::Star, 1),
            '×' => (Tok::Times, len),
            '/' if next_is(b'/') => (Tok::FloorDiv, 2),
            '/' => (Tok::Slash, 1),
            '÷' => (Tok::FloorDiv, len),
            '%' => (Tok::Percent, 1),
            '=' if next_is(b'=') => (Tok::Eq, 2),
            '=' => (Tok::Eq, 1),
            '!' if next_is(b'=') => (Tok::Ne, 2),
            '≠' => (Tok::Ne, len),
            '<' if next_is(b'=') => (Tok::Le, 2),
            '<' => (Tok::Lt, 1),
            '≤' => (Tok::Le, len),
            '>' if next_is(b'=') => (Tok::Ge, 2),
            '>' => (Tok::Gt, 1),
            '≥' => (Tok::Ge, len),
            '~' | '⚟' => (Tok::Tilde, len),
            '#' => (Tok::Hash, 1),
            '.' if bytes.get(start..start + 3) == Some(b"...") => (Tok::Ellipsis, 3),
            '…' => (Tok::Ellipsis, len),
            '^' => (Tok::Caret, 1),
            '⁼' => (Tok::SupEq, len),
            '⁽' => (Tok::SupLParen, len),
            '⁾' => (Tok::SupRParen, len),
            'Π' => (Tok::Pi, len),
            'Σ' => (Tok::Sigma, len),
            '∀' => (Tok::ForAll, len),
            '0'..='9' => {
                let digits = bytes.get(start..).map_or(0, |rest| {
                    rest.iter().take_while(|b| b.is_ascii_digit()).count()
                });
                let end = start + digits;
                let value = bytes.get(start..end).and_then(|run| {
                    run.iter().try_fold(0usize, |v, &d| {
                        v.checked_mul(10)?.checked_add(usize::from(d - b'0'))
                    })
                });
                tokens.push(number(input, start, end, value, Tok::Int)?);
                start = end;
                continue;
            }
            c if superscript_digit(c).is_some() => {
                let mut value = Some(0usize);
                let mut end = start;
                for d in input.get(start..).unwrap_or("").chars() {
                    let Some(digit) = superscript_digit(d) else {
                        break;
                    };
                    value = value.and_then(|v| v.checked_mul(10)?.checked_add(digit));
                    end += d.len_utf8();
                }
                tokens.push(number(input, start, end, value, Tok::Sup)?);
                start = end;
                continue;
            }
            c if is_ident_start(c) => {
                let end = ident_end(input, start + len);
                tokens.push(Token {
                    tok: Tok::Ident,
                    start,
                    end,
                });
                start = end;
                continue;
            }
            c => {
                return Err(ParseError::new(
                    input,
                    start,
                    format!("'{}'", c.escape_debug()),
                    "a name, a number, a bracket or an operator".into(),
                ));
            }
        };
        let end = start + len;
        tokens.push(Token { tok, start, end });
        start = end;
    }
    tokens.push(Token {
        tok: Tok::Eof,
        start: input.len(),
        end: input.len(),
    });
    Ok(tokens)
}

/// The token for the digits `input[start..end]` whose value is `value` (`None` on overflow,
/// an error at the number).
fn number(
    input: &str,
    start: usize,
    end: usize,
    value: Option<usize>,
    tok: fn(usize) -> Tok,
) -> Result<Token, ParseError> {
    match value {
        Some(value) => Ok(Token {
            tok: tok(value),
            start,
            end,
        }),
        None => Err(ParseError::new(
            input,
            start,
            format!("'{}'", input.get(start..end).unwrap_or("")),
            format!("a number that fits in usize (at most {})", usize::MAX),
        )),
    }
}

/// The end of the name whose characters continue at byte `from`.
fn ident_end(input: &str, from: usize) -> usize {
    let bytes = input.as_bytes();
    let mut end = from;
    while let Some(&b) = bytes.get(end) {
        if b.is_ascii() {
            if !(b.is_ascii_alphanumeric() || b == b'_') {
                break;
            }
            end += 1;
        } else {
            match input.get(end..).and_then(|rest| rest.chars().next()) {
                Some(c) if is_ident_continue(c) => end += c.len_utf8(),
                _ => break,
            }
        }
    }
    end
}

#[cfg(test)]
mod tests;
