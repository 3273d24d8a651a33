use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct S {
    #[shape("(*batch, n)")]
    x: Shape,
    #[shape("(batch, n)")]
    y: Shape,
}

fn main() {}
