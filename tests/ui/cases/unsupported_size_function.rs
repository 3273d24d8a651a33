use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct S {
    #[shape("(n, D a)")]
    x: Shape,
    #[shape("(n,)")]
    y: Shape,
}

fn main() {}
