//! The Python literal of a `.npy` header, read as numpy reads it: `ast.literal_eval` on the
//! header text (and, for format versions 1 and 2, Python 2's `3L` integers, which numpy's
//! header filter drops the `L` of).
//!
//! The subset a header can hold and still be read: dicts, tuples, lists and sets; `str`
//! literals in every quoting (single, double, triple, raw, `u` prefix, escapes, adjacent
//! literals joined); integers in every base with `_` separators and one sign; `True`, `False`,
//! `None`; comments and line continuations. Bytes, floats, complex numbers and f-strings are
//! read as [`Lit::Other`]: no header can use them (numpy refuses every such header later,
//! as this reader does), so their exact syntax does not matter. Anything else is a syntax
//! error, as it is for Python.

/// How deep containers may nest in a header (structured dtypes nest a little).
pub(super) const MAX_DEPTH: usize = 32;

/// A value of the header's literal.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Lit {
    Str(String),
    /// An integer; `None` when it does not fit `i128` (Python's are unbounded).
    Int(Option<i128>),
    Bool(bool),
    None,
    Tuple(Vec<Lit>),
    List(Vec<Lit>),
    /// Keys and values in order, duplicates kept (the last one wins, as in Python).
    Dict(Vec<(Lit, Lit)>),
    Set,
    /// Bytes, a float, a complex number or an f-string: a literal no header field takes.
    Other,
}

struct Parser<'a> {
    s: &'a [char],
    at: usize,
    /// Format versions 1 and 2: a `L` after an integer is dropped.
    python2: bool,
}

type R<T> = Result<T, String>;

/// Parses the whole header text as one literal, trailing blanks and comments allowed.
pub(super) fn parse(text: &[char], python2: bool) -> R<Lit> {
    let mut p = Parser {
        s: text,
        at: 0,
        python2,
    };
    let v = p.value(0)?;
    p.blank();
    if p.at < p.s.len() {
        return p.fail("text after the header's literal");
    }
    Ok(v)
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.s.get(self.at).copied()
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.s.get(self.at + k).copied()
    }

    fn fail<T>(&self, what: &str) -> R<T> {
        Err(format!("malformed npy header at char {}: {what}", self.at))
    }

    /// Skips whitespace, comments and backslash line continuations.
    fn blank(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\x0c' | '\n' | '\r' => self.at += 1,
                '#' => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.at += 1;
                    }
                }
                '\\' if matches!(self.peek_at(1), Some('\n')) => self.at += 2,
                '\\' if self.peek_at(1) == Some('\r') => {
                    self.at += 2;
                    if self.peek() == Some('\n') {
                        self.at += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.blank();
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> R<Lit> {
        if depth > MAX_DEPTH {
            return self.fail("nested too deep");
        }
        self.blank();
        let Some(c) = self.peek() else {
            return self.fail("unexpected end");
        };
        match c {
            '(' | '[' | '{' => self.container(c, depth),
            '-' | '+' => {
                self.at += 1;
                self.blank();
                match self.peek() {
                    Some(d) if d.is_ascii_digit() || d == '.' => match self.number()? {
                        Lit::Int(Some(n)) if c == '-' => Ok(Lit::Int(n.checked_neg())),
                        other => Ok(other),
                    },
                    _ => self.fail("a sign before something other than a number"),
                }
            }
            c if c.is_ascii_digit() => self.number(),
            '.' if self.peek_at(1).is_some_and(|d| d.is_ascii_digit()) => self.number(),
            c if c.is_alphabetic() || c == '_' || c == '\'' || c == '"' => self.word_or_string(),
            _ => self.fail("unexpected character"),
        }
    }

    fn container(&mut self, open: char, depth: usize) -> R<Lit> {
        self.at += 1;
        let close = match open {
            '(' => ')',
            '[' => ']',
            _ => '}',
        };
        let mut items = Vec::new();
        let mut pairs = Vec::new();
        let mut comma = false;
        let mut dict = None;
        loop {
            if self.eat(close) {
                break;
            }
            let item = self.value(depth + 1)?;
            if open == '{' {
                let is_pair = self.eat(':');
                match dict {
                    None => dict = Some(is_pair),
                    Some(d) if d != is_pair => return self.fail("a dict mixed with a set"),
                    Some(_) => {}
                }
                if is_pair {
                    pairs.push((item, self.value(depth + 1)?));
                } else {
                    items.push(item);
                }
            } else {
                items.push(item);
            }
            if self.eat(',') {
                comma = true;
            } else if self.eat(close) {
                break;
            } else {
                return self.fail("expected ',' or a closing bracket");
            }
        }
        Ok(match open {
            '(' if items.len() == 1 && !comma => items.pop().unwrap_or(Lit::None),
            '(' => Lit::Tuple(items),
            '[' => Lit::List(items),
            _ if dict == Some(false) => Lit::Set,
            _ => Lit::Dict(pairs),
        })
    }

    /// An integer in any base, with `_` between digits; a float or imaginary is `Other`.
    fn number(&mut self) -> R<Lit> {
        let start = self.at;
        let radix = match (self.peek(), self.peek_at(1)) {
            (Some('0'), Some('x' | 'X')) => 16,
            (Some('0'), Some('o' | 'O')) => 8,
            (Some('0'), Some('b' | 'B')) => 2,
            _ => 10,
        };
        if radix != 10 {
            self.at += 2;
        }
        let mut digits = String::new();
        let mut last_underscore = radix != 10; // `0x_1f` is fine, `1_` and `1__0` are not
        while let Some(c) = self.peek() {
            if c == '_' && !last_underscore {
                last_underscore = true;
            } else if c.is_digit(radix) {
                digits.push(c);
                last_underscore = false;
            } else {
                break;
            }
            self.at += 1;
        }
        if matches!(self.peek(), Some('.' | 'e' | 'E' | 'j' | 'J')) && radix == 10 {
            // A float or an imaginary: read loosely, as nothing in a header takes one.
            while self
                .peek()
                .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_'))
                || (matches!(self.peek(), Some('+' | '-'))
                    && matches!(self.s.get(self.at - 1), Some('e' | 'E')))
            {
                self.at += 1;
            }
            return Ok(Lit::Other);
        }
        if digits.is_empty() || last_underscore {
            return self.fail("a malformed number");
        }
        let leading_zero = radix == 10 && self.s.get(start) == Some(&'0');
        if leading_zero && digits.bytes().any(|b| b != b'0') {
            return self.fail("leading zeros in a decimal integer");
        }
        if self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            // `2L`: Python 2's long integers, filtered out of version 1 and 2 headers; `L`
            // alone, as Python's tokenizer would read it, or after spaces.
            self.blank();
            if !(self.python2 && self.word_is("L")) {
                return self.fail("a malformed number");
            }
            self.at += 1;
        } else if self.python2 {
            let before = self.at;
            self.blank();
            if self.word_is("L") {
                self.at += 1;
            } else {
                self.at = before;
            }
        }
        Ok(Lit::Int(i128::from_str_radix(&digits, radix).ok()))
    }

    /// Whether the identifier starting here is exactly `word`.
    fn word_is(&self, word: &str) -> bool {
        let n = word.chars().count();
        word.chars()
            .enumerate()
            .all(|(i, c)| self.peek_at(i) == Some(c))
            && !self
                .peek_at(n)
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
    }

    /// `True`, `False`, `None`, or one or more adjacent string literals.
    fn word_or_string(&mut self) -> R<Lit> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.at += 1;
        }
        let word: String = self
            .s
            .get(start..self.at)
            .unwrap_or_default()
            .iter()
            .collect();
        if matches!(self.peek(), Some('\'' | '"')) && word.len() <= 2 {
            self.at = start;
            return self.strings();
        }
        match word.as_str() {
            "True" => Ok(Lit::Bool(true)),
            "False" => Ok(Lit::Bool(false)),
            "None" => Ok(Lit::None),
            _ => {
                self.at = start;
                self.fail("a name, which is not a literal")
            }
        }
    }

    /// Adjacent string literals, joined; bytes or f-strings among them are `Other`.
    fn strings(&mut self) -> R<Lit> {
        let mut out = String::new();
        let mut kinds = (false, false); // (str, bytes or f-string)
        loop {
            self.blank();
            let start = self.at;
            while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
                self.at += 1;
            }
            let prefix: String = self
                .s
                .get(start..self.at)
                .unwrap_or_default()
                .iter()
                .collect();
            if !matches!(self.peek(), Some('\'' | '"')) {
                self.at = start;
                break;
            }
            let lower = prefix.to_ascii_lowercase();
            let (raw, other) = match lower.as_str() {
                "" | "u" => (false, false),
                "r" => (true, false),
                "b" | "f" => (false, true),
                "br" | "rb" | "fr" | "rf" => (true, true),
                _ => return self.fail("an unknown string prefix"),
            };
            if other {
                kinds.1 = true;
            } else {
                kinds.0 = true;
            }
            let body = self.string_body(raw, lower.contains('b'))?;
            out.push_str(&body);
        }
        match kinds {
            (true, false) => Ok(Lit::Str(out)),
            (false, true) => Ok(Lit::Other),
            _ => self.fail("str and bytes literals joined"),
        }
    }

    /// One quoted body, the quote at the cursor.
    fn string_body(&mut self, raw: bool, bytes: bool) -> R<String> {
        let Some(q) = self.peek() else {
            return self.fail("unexpected end");
        };
        let triple = self.peek_at(1) == Some(q) && self.peek_at(2) == Some(q);
        self.at += if triple { 3 } else { 1 };
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return self.fail("an unterminated string");
            };
            if c == q && (!triple || (self.peek_at(1) == Some(q) && self.peek_at(2) == Some(q))) {
                self.at += if triple { 3 } else { 1 };
                return Ok(out);
            }
            if c == '\n' && !triple {
                return self.fail("an unterminated string");
            }
            self.at += 1;
            if c != '\\' {
                out.push(c);
                continue;
            }
            let Some(e) = self.peek() else {
                return self.fail("an unterminated string");
            };
            self.at += 1;
            if raw {
                out.push('\\');
                out.push(e);
                continue;
            }
            match e {
                '\n' => {}
                '\\' | '\'' | '"' => out.push(e),
                'a' => out.push('\x07'),
                'b' => out.push('\x08'),
                'f' => out.push('\x0c'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                'v' => out.push('\x0b'),
                '0'..='7' => {
                    let mut n = e.to_digit(8).unwrap_or(0);
                    for _ in 0..2 {
                        match self.peek().and_then(|c| c.to_digit(8)) {
                            Some(d) => {
                                n = n * 8 + d;
                                self.at += 1;
                            }
                            None => break,
                        }
                    }
                    out.push(char::from_u32(n).unwrap_or('\u{fffd}'));
                }
                'x' => out.push(self.hex_escape(2)?),
                'u' if !bytes => out.push(self.hex_escape(4)?),
                'U' if !bytes => out.push(self.hex_escape(8)?),
                'N' if !bytes => return self.fail("a \\N{…} escape, which is not read"),
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
        }
    }

    fn hex_escape(&mut self, n: usize) -> R<char> {
        let mut v = 0u32;
        for _ in 0..n {
            let Some(d) = self.peek().and_then(|c| c.to_digit(16)) else {
                return self.fail("a truncated escape");
            };
            v = v.wrapping_mul(16).wrapping_add(d);
            self.at += 1;
        }
        match char::from_u32(v) {
            Some(c) => Ok(c),
            None => self.fail("an escape past Unicode"),
        }
    }
}
