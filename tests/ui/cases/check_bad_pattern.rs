use shapes::Shape;

#[shapes::check]
fn f(#[shape("(a,,b)")] x: &Shape) {}

fn main() {}
