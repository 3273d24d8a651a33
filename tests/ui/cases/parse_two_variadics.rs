use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct S {
    #[shape("(*batch, n, ...)")]
    x: Shape,
}

fn main() {}
