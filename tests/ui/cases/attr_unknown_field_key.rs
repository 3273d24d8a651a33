use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct S {
    #[shape("(n,)", strict)]
    x: Shape,
}

fn main() {}
