use shapes::Shape;

#[shapes::check(returns = "(n,)")]
fn f(#[shape("(n,)")] x: &Shape) -> Shape {
    x.clone()
}

fn main() {}
