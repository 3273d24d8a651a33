use shapes::Shape;

#[shapes::check(ret = "(n * m,)")]
fn f(#[shape("(a * b,)")] x: &Shape, #[shape("(n,)")] y: &Shape) -> Shape {
    x.clone()
}

fn main() {}
