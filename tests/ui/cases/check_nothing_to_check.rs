use shapes::Shape;

#[shapes::check]
fn f(x: &Shape) {}

fn main() {}
