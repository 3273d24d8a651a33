//! What code the walk does not follow may change: the locals a closure, a loop's body, a
//! macro or an unknown place expression may assign, found in its tokens (`x = …`, `x += …`,
//! `&mut x`), over-broadly, so that a shape is forgotten rather than wrongly kept.

use proc_macro2::{Spacing, Span, TokenStream, TokenTree};

use super::{Val, Walker};

/// Macros of the standard library that read their arguments and assign nothing.
const STD_MACROS: &[&str] = &[
    "println",
    "print",
    "eprintln",
    "eprint",
    "format",
    "format_args",
    "write",
    "writeln",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "panic",
    "unreachable",
    "vec",
    "dbg",
    "matches",
];

impl Walker<'_> {
    /// Forgets every local that `tokens` may assign (`x = …`, `x += …`, `&mut x`), or, with
    /// `all`, every local it names (a macro the walk does not know).
    pub(super) fn forget_assigned(&mut self, tokens: TokenStream, all: bool, why: &str) {
        let mut names: Vec<(String, Span)> = Vec::new();
        assigned(tokens, all, &mut names);
        for (n, span) in names {
            self.forget(&n, span, why);
        }
    }

    pub(super) fn mac(&mut self, mac: &syn::Macro) -> Val {
        let known = mac
            .path
            .segments
            .last()
            .is_some_and(|s| STD_MACROS.contains(&s.ident.to_string().as_str()));
        self.forget_assigned(
            mac.tokens.clone(),
            !known,
            "is passed to a macro that may change it",
        );
        Val::Other
    }
}

/// The locals `tokens` may assign: an identifier followed by `=` or a compound assignment, or
/// after `&mut`; with `all`, every identifier.
pub(super) fn assigned(tokens: TokenStream, all: bool, out: &mut Vec<(String, Span)>) {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => assigned(g.stream(), all, out),
            TokenTree::Ident(id) => {
                let name = id.to_string();
                if name == "self" || name == "mut" {
                    continue;
                }
                let after_mut_ref = i >= 2
                    && matches!(&tts[i - 1], TokenTree::Ident(m) if m == "mut")
                    && matches!(&tts[i - 2], TokenTree::Punct(p) if p.as_char() == '&');
                if all || after_mut_ref || is_assignment(&tts[i + 1..]) {
                    out.push((name, id.span()));
                }
            }
            TokenTree::Punct(_) | TokenTree::Literal(_) => {}
        }
    }
}

/// The fields of `self` that `tokens` may assign: `self.x = …`, `self.x += …`,
/// `&mut self.x` (a field's shape is then not the one its struct declares).
pub(super) fn fields_assigned(tokens: TokenStream, out: &mut Vec<String>) {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => fields_assigned(g.stream(), out),
            TokenTree::Ident(id) if id == "self" => {
                let (Some(TokenTree::Punct(dot)), Some(field)) = (tts.get(i + 1), tts.get(i + 2))
                else {
                    continue;
                };
                if dot.as_char() != '.' || matches!(field, TokenTree::Group(_)) {
                    continue;
                }
                let after_mut_ref = i >= 2
                    && matches!(&tts[i - 1], TokenTree::Ident(m) if m == "mut")
                    && matches!(&tts[i - 2], TokenTree::Punct(p) if p.as_char() == '&');
                if after_mut_ref || is_assignment(&tts[i + 3..]) {
                    out.push(field.to_string());
                }
            }
            _ => {}
        }
    }
}

/// Whether the tokens start with `=` (not `==` or `=>`) or a compound assignment operator.
fn is_assignment(rest: &[TokenTree]) -> bool {
    let punct = |k: usize| match rest.get(k) {
        Some(TokenTree::Punct(p)) => Some((p.as_char(), p.spacing())),
        _ => None,
    };
    matches!(
        (punct(0), punct(1), punct(2)),
        (Some(('=', Spacing::Alone)), _, _)
            | (
                Some((
                    '+' | '-' | '*' | '/' | '%' | '^' | '&' | '|',
                    Spacing::Joint
                )),
                Some(('=', _)),
                _
            )
            | (
                Some(('<', Spacing::Joint)),
                Some(('<', Spacing::Joint)),
                Some(('=', _))
            )
            | (
                Some(('>', Spacing::Joint)),
                Some(('>', Spacing::Joint)),
                Some(('=', _))
            )
    )
}
