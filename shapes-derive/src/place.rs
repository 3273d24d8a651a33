//! Where a pattern is written, as the arguments of the `Place` its errors name.

use proc_macro2::{Literal, Span, TokenStream};
use quote::quote;

/// `file, line, column` for the source text under `span`, the arguments of `Place::at` and
/// of the constructors that take a place (`FieldInfo::at`, `FieldNode::at`): the file as the
/// compiler names it and the 1-based line and column of the span's start. Outside a
/// compiler's macro expansion (this crate's unit tests) there is no file to name, and the
/// place is unknown.
pub(crate) fn place(span: Span) -> TokenStream {
    let (file, line, column) = location(span);
    let (line, column) = (
        Literal::u32_unsuffixed(line),
        Literal::u32_unsuffixed(column),
    );
    quote!(#file, #line, #column)
}

fn location(span: Span) -> (String, u32, u32) {
    if !proc_macro::is_available() {
        return (String::new(), 0, 0);
    }
    let span = span.unwrap();
    let number = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    (span.file(), number(span.line()), number(span.column()))
}
