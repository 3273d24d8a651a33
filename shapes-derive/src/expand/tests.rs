//! The size of what the derive generates, per field: what a struct of thousands of fields
//! costs rustc (benches/compile_time.sh times the build itself).

use proc_macro2::{TokenStream, TokenTree};

/// The fields of `benches/compile_time.sh`'s struct, kind `i % 10`.
fn field(i: usize) -> String {
    let (pattern, ty) = match i % 10 {
        0 => ("(heads,)", "&'a Shape"),
        1 => ("(d_model, heads * head_dim)", "&'a Shape"),
        2 => ("(heads * head_dim, d_model)", "&'a Shape"),
        3 => ("(d_ff, d_model)", "Dims<Vec<usize>>"),
        4 => ("(d_model, d_ff)", "Dims<Vec<usize>>"),
        5 => ("(d_model,)", "Option<Shape>"),
        6 => return format!("#[shape(nested)] f{i}: Block<'a>,"),
        7 => ("(vocab, d_model)", "Shape"),
        8 => ("(batch, seq, 3 * d_model)", "&'a Shape"),
        _ => ("(d_ff,)", "Option<Shape>"),
    };
    format!("#[shape(\"{pattern}\")] f{i}: {ty},")
}

fn count(ts: TokenStream) -> usize {
    ts.into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => 2 + count(g.stream()),
            _ => 1,
        })
        .sum()
}

fn tokens(fields: usize) -> usize {
    let body: String = (0..fields).map(field).collect();
    let input: syn::DeriveInput = syn::parse_str(&format!("struct Model<'a> {{ {body} }}"))
        .unwrap_or_else(|e| panic!("the test struct does not parse: {e}"));
    let out = super::derive(&input);
    assert!(
        !out.to_string().contains("compile_error"),
        "the test struct is rejected: {out}"
    );
    count(out)
}

/// Tokens per field, from the difference between 110 and 10 fields (the per-struct part
/// cancels out). benches/compile_time.sh prints this line.
#[test]
fn tokens_per_field() {
    let per_field = (tokens(110) - tokens(10)) / 100;
    println!("tokens per field: {per_field}");
    // 413 before plain tensors were read by name through one call each (347 since); 523 when
    // every dim expression got straight-line arithmetic, which structs of more than
    // `INLINE_FIELDS` fields (this one) now leave to the general checker (340).
    assert!(per_field < 360, "{per_field} tokens per field");
}
