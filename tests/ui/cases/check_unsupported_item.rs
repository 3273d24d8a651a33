use shapes::Shape;

#[shapes::check]
fn f(#[shape("(n, D a)")] x: &Shape) {}

fn main() {}
