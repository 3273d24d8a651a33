use shapes::Shape;

struct Pair(Shape, Shape);

#[shapes::check]
fn f(#[shape("(n,)")] Pair(_a, _b): Pair, #[shape("(n,)")] _: &Shape) {}

fn main() {}
