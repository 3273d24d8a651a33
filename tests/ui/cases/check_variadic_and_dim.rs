use shapes::Shape;

#[shapes::check]
fn f(#[shape("(*b, n)")] x: &Shape, #[shape("(b,)")] y: &Shape) {}

fn main() {}
