use shapes::Shape;

#[shapes::check(ret = "(n, *a, *b)")]
fn f(#[shape("(n,)")] x: &Shape) -> Shape {
    x.clone()
}

fn main() {}
