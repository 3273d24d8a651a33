use shapes::Shape;

#[shapes::check]
const fn f(#[shape("(n,)")] x: &Shape) {}

fn main() {}
