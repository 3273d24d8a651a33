use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct S {
    #[shape(42)]
    x: Shape,
}

fn main() {}
