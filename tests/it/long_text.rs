//! Text built from hostile input stays bounded and never panics: a name longer than the
//! formatter's 16-bit width argument in a table, and errors that quote names or list files
//! (each quoted name cut to a fixed length, each list to its first entries and a count).

use shapes::Bindings;
use shapes::text::MAX_COLUMN_WIDTH;

/// A name of `n` chars, for the tables that keep names as `'static` text.
fn leaked_name(n: usize) -> &'static str {
    Box::leak("n".repeat(n).into_boxed_str())
}

#[test]
fn a_bindings_table_with_a_name_past_the_formatters_width_limit_prints() {
    let long = leaked_name(70_000);
    let b = Bindings::new().bind(long, 3).bind("d", 1_000_000);
    let table = b.to_string();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 2, "{}", &table[..200]);
    // The long name overflows its own row; the short one is padded to the capped column.
    assert!(lines[0].starts_with(long) && lines[0].ends_with("bound by the caller"));
    let short = format!(
        "d{}  1000000  bound by the caller",
        " ".repeat(MAX_COLUMN_WIDTH - 1)
    );
    assert_eq!(lines[1], short);
}
