use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct S {
    #[shape("")]
    x: Shape,
}

fn main() {}
