use super::*;

/// The kinds and the source text of each token, without the final end of input.
fn lexed(input: &str) -> Vec<(Tok, &str)> {
    let tokens = lex(input).unwrap();
    assert_eq!(tokens.last().map(|t| t.tok), Some(Tok::Eof));
    tokens[..tokens.len() - 1]
        .iter()
        .map(|t| (t.tok, &input[t.start..t.end]))
        .collect()
}

fn kinds(input: &str) -> Vec<Tok> {
    lexed(input).into_iter().map(|(t, _)| t).collect()
}

fn lex_err(input: &str) -> (usize, String) {
    let e = lex(input).unwrap_err();
    (e.offset(), e.message())
}

#[test]
fn brackets_punctuation_and_spans() {
    use Tok::*;
    assert_eq!(
        lexed("(1, 2, 34)"),
        vec![
            (LParen, "("),
            (Int(1), "1"),
            (Comma, ","),
            (Int(2), "2"),
            (Comma, ","),
            (Int(34), "34"),
            (RParen, ")"),
        ]
    );
    let t = lex("  {a | b}").unwrap();
    assert_eq!((t[0].start, t[0].end), (2, 3));
    assert_eq!((t[1].start, t[1].end), (3, 4));
    assert_eq!(t.last().map(|t| (t.start, t.end)), Some((9, 9)));
    assert_eq!(
        kinds("{}[]:,#^~"),
        vec![
            LBrace, RBrace, LBracket, RBracket, Colon, Comma, Hash, Caret, Tilde
        ]
    );
}

#[test]
fn ascii_and_unicode_spellings_share_kinds() {
    use Tok::*;
    assert_eq!(kinds("-> →"), vec![Arrow, Arrow]);
    assert_eq!(kinds("&& ∧"), vec![And, And]);
    assert_eq!(kinds("// ÷"), vec![FloorDiv, FloorDiv]);
    assert_eq!(kinds("= =="), vec![Eq, Eq]);
    assert_eq!(kinds("!= ≠"), vec![Ne, Ne]);
    assert_eq!(kinds("<= ≤ < "), vec![Le, Le, Lt]);
    assert_eq!(kinds(">= ≥ >"), vec![Ge, Ge, Gt]);
    assert_eq!(kinds("~ ⚟"), vec![Tilde, Tilde]);
    assert_eq!(kinds("... …"), vec![Ellipsis, Ellipsis]);
    // The pairs the grammar tells apart stay apart.
    assert_eq!(kinds("* ×"), vec![Star, Times]);
    assert_eq!(kinds("|| ∨ |"), vec![OrOr, Vee, Pipe]);
    assert_eq!(kinds("/ // %"), vec![Slash, FloorDiv, Percent]);
    assert_eq!(kinds("a-1"), vec![Ident, Minus, Int(1)]);
    assert_eq!(kinds("a->b"), vec![Ident, Arrow, Ident]);
}

#[test]
fn operators_that_are_letters() {
    use Tok::*;
    assert_eq!(
        kinds("Π a Σ b ∀ c"),
        vec![Pi, Ident, Sigma, Ident, ForAll, Ident]
    );
    // Π and Σ never join a name, even without a space.
    assert_eq!(lexed("Πa"), vec![(Pi, "Π"), (Ident, "a")]);
    assert_eq!(lexed("aΣb"), vec![(Ident, "a"), (Sigma, "Σ"), (Ident, "b")]);
}

#[test]
fn names() {
    use Tok::*;
    assert_eq!(lexed("d_model"), vec![(Ident, "d_model")]);
    assert_eq!(
        lexed("n_layers2 _ _x"),
        vec![(Ident, "n_layers2"), (Ident, "_"), (Ident, "_x")]
    );
    assert_eq!(
        lexed("α β2 héads"),
        vec![(Ident, "α"), (Ident, "β2"), (Ident, "héads")]
    );
    // A name never starts with a digit: `1a` is a number and a name.
    assert_eq!(lexed("1a"), vec![(Int(1), "1"), (Ident, "a")]);
    // Multi-letter names are one token (gorgonia allows single letters only).
    assert_eq!(lexed("TX X1000"), vec![(Ident, "TX"), (Ident, "X1000")]);
}

#[test]
fn superscripts() {
    use Tok::*;
    assert_eq!(
        lexed("T⁽¹ ⁰⁾ a"),
        vec![
            (Ident, "T"),
            (SupLParen, "⁽"),
            (Sup(1), "¹"),
            (Sup(0), "⁰"),
            (SupRParen, "⁾"),
            (Ident, "a")
        ]
    );
    assert_eq!(
        lexed("/¹²a"),
        vec![(Slash, "/"), (Sup(12), "¹²"), (Ident, "a")]
    );
    assert_eq!(kinds("/⁼a"), vec![Slash, SupEq, Ident]);
    assert_eq!(kinds("⁰¹²³⁴⁵⁶⁷⁸⁹"), vec![Sup(123_456_789)]);
    // A superscript ends a name.
    assert_eq!(lexed("Repeat⁰"), vec![(Ident, "Repeat"), (Sup(0), "⁰")]);
    // Plain and superscript digits do not mix into one number.
    assert_eq!(kinds("1¹"), vec![Int(1), Sup(1)]);
}

#[test]
fn white_space_is_any_unicode_white_space() {
    use Tok::*;
    assert_eq!(
        kinds("\t(\u{a0}a\n,\u{2003}b )\r\n"),
        vec![LParen, Ident, Comma, Ident, RParen]
    );
    assert_eq!(kinds(""), vec![]);
    assert_eq!(kinds("   "), vec![]);
}

#[test]
fn numbers_up_to_usize_max() {
    let max = usize::MAX.to_string();
    assert_eq!(kinds(&max), vec![Tok::Int(usize::MAX)]);
    assert_eq!(kinds("007"), vec![Tok::Int(7)]);
}

#[test]
fn overflow_is_an_error_at_the_number() {
    let too_big = format!("(a, {}0)", usize::MAX);
    let (offset, message) = lex_err(&too_big);
    assert_eq!(offset, 4);
    assert!(
        message.starts_with("expected a number that fits in usize"),
        "{message}"
    );
    assert!(
        message.contains(&format!("found '{}0'", usize::MAX)),
        "{message}"
    );
    assert_eq!(lex_err("α ¹⁰⁰⁰⁰⁰⁰⁰⁰⁰⁰⁰⁰⁰⁰⁰⁰⁰⁰⁰⁰").0, 3);
}

#[test]
fn unknown_characters_are_errors_at_their_offset() {
    assert_eq!(
        lex_err("(a @ b)"),
        (
            3,
            "expected a name, a number, a bracket or an operator, found '@' at byte 3".into()
        )
    );
    assert_eq!(lex_err("α$").0, 2);
    assert_eq!(lex_err("a & b").0, 2);
    assert_eq!(lex_err("a ! b").0, 2);
    assert_eq!(lex_err("(a, ..)").0, 4);
    assert_eq!(lex_err("a.b").0, 1);
    assert_eq!(
        lex_err("'").1,
        "expected a name, a number, a bracket or an operator, found '\\'' at byte 0"
    );
    assert_eq!(lex_err("a\u{0}").0, 1);
    assert_eq!(lex_err("😀").0, 0);
}
