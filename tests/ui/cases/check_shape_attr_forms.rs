use shapes::Shape;

#[shapes::check]
fn f(#[shape] x: &Shape, #[shape(nested)] y: &Shape, #[shape("(n,)")] #[shape("(n,)")] z: &Shape) {}

fn main() {}
