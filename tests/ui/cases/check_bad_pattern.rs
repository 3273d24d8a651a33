use shapes::Shape;

#[shapes::check]
fn f(#[shape("(a,,b)")] x: &Shape) {}

fn main() {}

// A `where` string is parsed like the derive's: the caret points at the byte.
#[shapes::check(where = "n <= 2 * ")]
fn g(#[shape("(n,)")] x: &Shape) {}
