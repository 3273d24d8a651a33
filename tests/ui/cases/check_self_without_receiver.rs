use shapes::Shape;

// `self` shares the variables of a method's struct: a free function has none.
#[shapes::check(self)]
fn width(#[shape("(batch, d_model)")] x: &Shape) -> usize {
    x.dims()[1]
}

fn main() {}
