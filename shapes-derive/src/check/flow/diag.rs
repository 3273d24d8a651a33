//! What the flow analysis says: how an expression is quoted in a message, the places where
//! tracking was lost (gaps), and how `trace` shows them.
//!
//! A stable proc macro cannot emit a warning, so `#[shapes::check(trace)]` turns each gap into
//! the use of a `#[deprecated]` item whose note is the gap's message, spanned at the gap:
//! rustc then prints one warning per gap, at its line, in `cargo check` and `cargo build`,
//! without failing the build (unless warnings are denied). That is the most useful place for
//! it: beside the code, in the editor, with nothing to run.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote_spanned};
use syn::Expr;

/// A place where a tracked shape was lost, and why.
#[derive(Debug, Clone)]
pub struct Gap {
    pub span: Span,
    pub message: String,
}

/// A quote of source in a message, rendered only when a message is written (most ops
/// never need theirs).
#[derive(Clone, Copy)]
pub enum Quote<'a> {
    Str(&'a str),
    Expr(&'a Expr),
    Call(&'a syn::ExprCall),
    Binary(&'a syn::ExprBinary),
    /// A method call, its receiver elided when long (the message quotes it with its shape).
    Method(&'a syn::ExprMethodCall),
}

impl std::fmt::Display for Quote<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = String::new();
        match *self {
            Quote::Str(s) => return f.write_str(s),
            Quote::Expr(e) => write_expr(e, &mut out),
            Quote::Call(c) => {
                write_expr(&c.func, &mut out);
                out.push('(');
                write_list(&c.args, &mut out);
                out.push(')');
            }
            Quote::Binary(b) => {
                write_expr(&b.left, &mut out);
                out.push(' ');
                out.push_str(&tokens(b.op));
                out.push(' ');
                write_expr(&b.right, &mut out);
            }
            Quote::Method(m) => {
                let recv = render_short(&m.receiver);
                out.push_str(if recv.chars().count() > 24 {
                    "…"
                } else {
                    &recv
                });
                out.push('.');
                out.push_str(&m.method.to_string());
                out.push('(');
                write_list(&m.args, &mut out);
                out.push(')');
            }
        }
        f.write_str(&shorten(&out))
    }
}

/// The longest quote of an expression in a message before its start is elided.
const MAX_QUOTE: usize = 48;

/// `e` as compact source text, for messages: `q.matmul(&k)`, `x.transpose(1, 2)?`.
pub fn render(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(e, &mut out);
    out
}

/// [`render`], keeping only the end of a long expression: `…reshape((b, s, heads, head_dim))?`.
pub fn render_short(e: &Expr) -> String {
    shorten(&render(e))
}

/// `s` cut to its last [`MAX_QUOTE`] characters, with `…` in front.
pub fn shorten(s: &str) -> String {
    let n = s.chars().count();
    if n <= MAX_QUOTE {
        return s.to_owned();
    }
    let tail: String = s.chars().skip(n - (MAX_QUOTE - 1)).collect();
    format!("…{tail}")
}

fn write_list<'a>(items: impl IntoIterator<Item = &'a Expr>, out: &mut String) {
    for (i, a) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_expr(a, out);
    }
}

fn write_expr(e: &Expr, out: &mut String) {
    match e {
        // The common cases written directly: a path of plain segments, a literal.
        Expr::Path(p)
            if p.qself.is_none() && p.path.segments.iter().all(|s| s.arguments.is_none()) =>
        {
            if p.path.leading_colon.is_some() {
                out.push_str("::");
            }
            for (i, s) in p.path.segments.iter().enumerate() {
                if i > 0 {
                    out.push_str("::");
                }
                out.push_str(&s.ident.to_string());
            }
        }
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => out.push_str(&i.token().to_string()),
        Expr::Lit(l) => out.push_str(&tokens(l)),
        Expr::Path(p) => out.push_str(&tokens(p)),
        Expr::Reference(r) => {
            out.push('&');
            if r.mutability.is_some() {
                out.push_str("mut ");
            }
            write_expr(&r.expr, out);
        }
        Expr::Try(t) => {
            write_expr(&t.expr, out);
            out.push('?');
        }
        Expr::Paren(p) => {
            out.push('(');
            write_expr(&p.expr, out);
            out.push(')');
        }
        Expr::Group(g) => write_expr(&g.expr, out),
        Expr::Field(f) => {
            write_expr(&f.base, out);
            out.push('.');
            out.push_str(&tokens(&f.member));
        }
        Expr::MethodCall(m) => {
            write_expr(&m.receiver, out);
            out.push('.');
            out.push_str(&m.method.to_string());
            if let Some(t) = &m.turbofish {
                out.push_str(&tokens(t));
            }
            out.push('(');
            write_list(&m.args, out);
            out.push(')');
        }
        Expr::Call(c) => {
            write_expr(&c.func, out);
            out.push('(');
            write_list(&c.args, out);
            out.push(')');
        }
        Expr::Tuple(t) => {
            out.push('(');
            write_list(&t.elems, out);
            if t.elems.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        Expr::Array(a) => {
            out.push('[');
            write_list(&a.elems, out);
            out.push(']');
        }
        Expr::Binary(b) => {
            write_expr(&b.left, out);
            out.push(' ');
            out.push_str(&tokens(b.op));
            out.push(' ');
            write_expr(&b.right, out);
        }
        Expr::Unary(u) => {
            out.push_str(&tokens(u.op));
            write_expr(&u.expr, out);
        }
        Expr::Macro(m) => {
            out.push_str(&tokens(&m.mac.path));
            out.push_str("![…]");
        }
        Expr::Cast(c) => {
            write_expr(&c.expr, out);
            out.push_str(" as ");
            out.push_str(&tokens(&c.ty));
        }
        _ => out.push_str(&tokens(e)),
    }
}

/// Tokens as text, with the spaces `to_string` puts around `::` and `<>` taken out.
fn tokens(t: impl ToTokens) -> String {
    t.to_token_stream()
        .to_string()
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace("& ", "&")
}

/// The `trace` warnings: one `#[deprecated]` unit struct per gap, used at the gap's span.
pub fn trace_tokens(gaps: &[Gap]) -> TokenStream {
    gaps.iter()
        .map(|g| {
            let note = format!("shapes: shape tracking lost: {}", g.message);
            quote_spanned! {g.span=>
                {
                    #[deprecated(note = #note)]
                    #[allow(non_camel_case_types)]
                    struct shape_tracking_lost;
                    let _ = shape_tracking_lost;
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quote_of(src: &str) -> String {
        render(&syn::parse_str::<Expr>(src).expect("an expression"))
    }

    #[test]
    fn renders_compactly() {
        assert_eq!(quote_of("q . matmul ( & k )"), "q.matmul(&k)");
        assert_eq!(
            quote_of("x.reshape((b, s, heads, head_dim))?.transpose(1, 2)?"),
            "x.reshape((b, s, heads, head_dim))?.transpose(1, 2)?"
        );
        assert_eq!(
            quote_of("Tensor::cat(&[&a, &b], D::Minus1)"),
            "Tensor::cat(&[&a, &b], D::Minus1)"
        );
        assert_eq!(quote_of("(x + y)"), "(x + y)");
        assert_eq!(
            quote_of("self.q_proj.forward(&x)"),
            "self.q_proj.forward(&x)"
        );
    }

    #[test]
    fn long_quotes_keep_their_end() {
        let long = "x".repeat(100);
        let s = shorten(&long);
        assert!(s.starts_with('…'));
        assert_eq!(s.chars().count(), MAX_QUOTE);
    }

    #[test]
    fn each_gap_is_a_deprecated_use() {
        let gaps = vec![Gap {
            span: Span::call_site(),
            message: "`f(&x)`: not in the vocabulary".into(),
        }];
        let ts = trace_tokens(&gaps).to_string();
        assert!(ts.contains("deprecated"), "{ts}");
        assert!(ts.contains("not in the vocabulary"), "{ts}");
    }
}
