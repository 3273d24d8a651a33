use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct S {
    #[shape("(a @ b)")]
    x: Shape,
}

fn main() {}
