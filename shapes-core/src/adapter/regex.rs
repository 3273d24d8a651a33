//! The subset of Python's `re` that PEFT's module patterns use (a string `target_modules`,
//! the keys of `rank_pattern`): literals, `.`, escapes (`\.`, `\d`, `\w`, `\s`), classes
//! (`[0-9]`, `[^.]`), groups with alternation (`(q_proj|v_proj)`, `(?:…)`), the quantifiers
//! `*`, `+`, `?`, and `^`/`$` at either end. Anything else (lookaround, backreferences,
//! counted repetition `{m,n}`) is refused with [`Unsupported`], so a pattern is never
//! matched differently from PEFT in silence.
//!
//! Matching simulates the pattern's automaton over the name, one set of states per char:
//! time linear in the name's length times the pattern's, whatever the pattern.

/// A pattern this subset does not read: the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unsupported(pub(crate) String);

/// What one state of the automaton matches.
#[derive(Debug, Clone)]
enum Test {
    Char(char),
    Any,
    Class {
        ranges: Vec<(char, char)>,
        negated: bool,
    },
}

impl Test {
    fn matches(&self, c: char) -> bool {
        match self {
            Test::Char(x) => *x == c,
            Test::Any => c != '\n',
            Test::Class { ranges, negated } => {
                ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c)) != *negated
            }
        }
    }
}

#[derive(Debug, Clone)]
enum State {
    /// Consume a char passing the test, go to the next state.
    Step(Test, usize),
    /// Go to both states without consuming.
    Split(usize, usize),
    /// Go to the state without consuming.
    Jump(usize),
    Match,
}

/// A compiled pattern, matched against a whole name (`re.fullmatch`).
#[derive(Debug, Clone)]
pub(crate) struct Regex {
    states: Vec<State>,
    start: usize,
}

/// The most chars a pattern may have: a config file's pattern is a few dozen.
const MAX_PATTERN: usize = 4096;

/// A parsed pattern, before it becomes states.
#[derive(Debug, Clone)]
enum Node {
    Test(Test),
    Seq(Vec<Node>),
    Alt(Vec<Node>),
    Star(Box<Node>),
    Plus(Box<Node>),
    Opt(Box<Node>),
}

struct Parser<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    depth: usize,
}

fn unsupported(what: &str) -> Unsupported {
    Unsupported(what.to_owned())
}

impl Parser<'_> {
    fn alt(&mut self) -> Result<Node, Unsupported> {
        let mut arms = vec![self.seq()?];
        while self.chars.peek() == Some(&'|') {
            self.chars.next();
            arms.push(self.seq()?);
        }
        Ok(if arms.len() == 1 {
            arms.pop().unwrap_or(Node::Seq(Vec::new()))
        } else {
            Node::Alt(arms)
        })
    }

    fn seq(&mut self) -> Result<Node, Unsupported> {
        let mut items = Vec::new();
        while let Some(&c) = self.chars.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            let atom = match self.chars.peek() {
                Some('*') => Node::Star(Box::new(atom)),
                Some('+') => Node::Plus(Box::new(atom)),
                Some('?') => Node::Opt(Box::new(atom)),
                Some('{') => return Err(unsupported("counted repetition `{m,n}`")),
                _ => {
                    items.push(atom);
                    continue;
                }
            };
            self.chars.next();
            if matches!(self.chars.peek(), Some('?' | '+')) {
                // Lazy and possessive quantifiers match the same names in a full match.
                self.chars.next();
            }
            items.push(atom);
        }
        Ok(Node::Seq(items))
    }

    fn atom(&mut self) -> Result<Node, Unsupported> {
        let Some(c) = self.chars.next() else {
            return Err(unsupported("a pattern that ends early"));
        };
        Ok(match c {
            '.' => Node::Test(Test::Any),
            '\\' => Node::Test(self.escape()?),
            '[' => Node::Test(self.class()?),
            '(' => {
                if self.chars.peek() == Some(&'?') {
                    self.chars.next();
                    if self.chars.next() != Some(':') {
                        return Err(unsupported("lookaround or a group flag `(?…)`"));
                    }
                }
                self.depth += 1;
                if self.depth > 64 {
                    return Err(unsupported("groups nested more than 64 deep"));
                }
                let inner = self.alt()?;
                self.depth -= 1;
                if self.chars.next() != Some(')') {
                    return Err(unsupported("an unclosed group"));
                }
                inner
            }
            '*' | '+' | '?' => return Err(unsupported("a quantifier with nothing before it")),
            '^' | '$' => return Err(unsupported("`^` or `$` inside the pattern")),
            '{' | '}' | ']' => return Err(unsupported("a stray bracket")),
            c => Node::Test(Test::Char(c)),
        })
    }

    fn escape(&mut self) -> Result<Test, Unsupported> {
        let class = |ranges: &[(char, char)], negated| Test::Class {
            ranges: ranges.to_vec(),
            negated,
        };
        const DIGIT: &[(char, char)] = &[('0', '9')];
        const WORD: &[(char, char)] = &[('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')];
        const SPACE: &[(char, char)] = &[(' ', ' '), ('\t', '\r')];
        Ok(match self.chars.next() {
            Some('d') => class(DIGIT, false),
            Some('D') => class(DIGIT, true),
            Some('w') => class(WORD, false),
            Some('W') => class(WORD, true),
            Some('s') => class(SPACE, false),
            Some('S') => class(SPACE, true),
            Some(c) if c.is_ascii_punctuation() => Test::Char(c),
            Some(c) => return Err(Unsupported(format!("the escape `\\{c}`"))),
            None => return Err(unsupported("a pattern that ends with `\\`")),
        })
    }

    fn class(&mut self) -> Result<Test, Unsupported> {
        let negated = self.chars.peek() == Some(&'^');
        if negated {
            self.chars.next();
        }
        let mut ranges = Vec::new();
        let mut first = true;
        loop {
            let c = match self.chars.next() {
                None => return Err(unsupported("an unclosed `[`")),
                Some(']') if !first => break,
                Some('\\') => match self.escape()? {
                    Test::Char(c) => c,
                    Test::Class {
                        ranges: r,
                        negated: false,
                    } => {
                        ranges.extend(r);
                        first = false;
                        continue;
                    }
                    _ => return Err(unsupported("a negated escape inside `[…]`")),
                },
                Some(c) => c,
            };
            first = false;
            let mut ahead = self.chars.clone();
            if ahead.next() == Some('-') && ahead.peek().is_some_and(|n| *n != ']') {
                self.chars.next();
                let hi = self.chars.next().unwrap_or(c);
                ranges.push((c, hi));
            } else {
                ranges.push((c, c));
            }
        }
        Ok(Test::Class { ranges, negated })
    }
}

impl Regex {
    /// Compiles `pattern`, or says what in it this subset does not read.
    pub(crate) fn new(pattern: &str) -> Result<Regex, Unsupported> {
        if pattern.len() > MAX_PATTERN {
            return Err(unsupported("a pattern longer than 4096 bytes"));
        }
        // `^` and `$` at the ends change nothing in a full match.
        let body = pattern.strip_prefix('^').unwrap_or(pattern);
        let body = match body.strip_suffix('$') {
            Some(b) if !b.ends_with('\\') => b,
            _ => body,
        };
        let mut p = Parser {
            chars: body.chars().peekable(),
            depth: 0,
        };
        let node = p.alt()?;
        if p.chars.next().is_some() {
            return Err(unsupported("an unmatched `)`"));
        }
        let mut states = vec![State::Match];
        let start = compile(&node, 0, &mut states);
        Ok(Regex { states, start })
    }

    /// Whether the whole of `text` matches.
    pub(crate) fn full_match(&self, text: &str) -> bool {
        let mut current = vec![false; self.states.len()];
        let mut next = vec![false; self.states.len()];
        let mut stack = Vec::new();
        self.close(self.start, &mut current, &mut stack);
        for c in text.chars() {
            next.iter_mut().for_each(|x| *x = false);
            let mut any = false;
            for (i, on) in current.iter().enumerate() {
                if let (true, Some(State::Step(test, to))) = (*on, self.states.get(i))
                    && test.matches(c)
                {
                    self.close(*to, &mut next, &mut stack);
                    any = true;
                }
            }
            if !any {
                return false;
            }
            std::mem::swap(&mut current, &mut next);
        }
        current.first().copied().unwrap_or(false)
    }

    /// Marks `from` and every state reachable from it without consuming a char.
    fn close(&self, from: usize, set: &mut [bool], stack: &mut Vec<usize>) {
        stack.push(from);
        while let Some(s) = stack.pop() {
            match set.get_mut(s) {
                Some(on) if !*on => *on = true,
                _ => continue,
            }
            match self.states.get(s) {
                Some(State::Split(a, b)) => stack.extend([*a, *b]),
                Some(State::Jump(a)) => stack.push(*a),
                _ => {}
            }
        }
    }
}

/// Adds the states of `node`, continuing to `next`; returns its first state.
fn compile(node: &Node, next: usize, states: &mut Vec<State>) -> usize {
    let push = |states: &mut Vec<State>, s: State| {
        states.push(s);
        states.len() - 1
    };
    match node {
        Node::Test(t) => push(states, State::Step(t.clone(), next)),
        Node::Seq(items) => items
            .iter()
            .rev()
            .fold(next, |to, item| compile(item, to, states)),
        Node::Alt(arms) => {
            let firsts: Vec<usize> = arms.iter().map(|a| compile(a, next, states)).collect();
            firsts
                .into_iter()
                .reduce(|a, b| push(states, State::Split(a, b)))
                .unwrap_or(next)
        }
        Node::Opt(inner) => {
            let first = compile(inner, next, states);
            push(states, State::Split(first, next))
        }
        Node::Star(inner) | Node::Plus(inner) => {
            // A loop: a split whose first arm runs `inner` and jumps back to the split.
            let jump = push(states, State::Jump(0));
            let body = compile(inner, jump, states);
            let split = push(states, State::Split(body, next));
            if let Some(State::Jump(to)) = states.get_mut(jump) {
                *to = split;
            }
            if matches!(node, Node::Plus(_)) {
                body
            } else {
                split
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Regex;

    fn m(pattern: &str, text: &str) -> bool {
        Regex::new(pattern).expect(pattern).full_match(text)
    }

    #[test]
    fn peft_patterns_match_as_python_does() {
        let name = "model.layers.0.self_attn.q_proj";
        assert!(m(r".*\.(q_proj|v_proj)", name));
        assert!(m(r"^.*(q_proj|v_proj)$", name));
        assert!(m(r"model\.layers\.\d+\.self_attn\.(q|k|v)_proj", name));
        assert!(m(r"model.layers.[0-9]+.self_attn.[qkv]_proj", name));
        assert!(m(r"(?:.*\.)?(q_proj)", name));
        assert!(!m(r".*\.(k_proj|v_proj)", name));
        assert!(!m("q_proj", name));
        assert!(m("q_proj", "q_proj"));
        assert!(m(r"[^.]+", "embed_tokens"));
        assert!(!m(r"[^.]+", "model.embed_tokens"));
        assert!(m("a?b*c+", "c"));
        assert!(!m("a?b*c+", "ab"));
        assert!(m("(ab)*", ""));
        assert!(m("(a|)x", "x"));
    }

    #[test]
    fn what_the_subset_does_not_read_is_refused() {
        for p in [
            r"^(?!.*vision).*q_proj",
            r"a{2}",
            r"(a",
            r"a)",
            r"\bq",
            "*a",
            r"(a)\1",
        ] {
            assert!(Regex::new(p).is_err(), "{p}");
        }
    }

    #[test]
    fn matching_is_linear_on_a_pattern_that_backtracks_exponentially() {
        let p = "(a*)*b";
        let text = "a".repeat(10_000);
        let start = std::time::Instant::now();
        assert!(!m(p, &text));
        assert!(start.elapsed().as_secs() < 10);
    }
}
