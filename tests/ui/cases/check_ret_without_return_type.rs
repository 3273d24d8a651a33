use shapes::Shape;

#[shapes::check(ret = "(n,)")]
fn f(#[shape("(n,)")] x: &Shape) {}

fn main() {}
