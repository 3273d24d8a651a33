use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct S {
    #[shape("(n, n)")]
    #[shape("(n,)")]
    x: Shape,
}

fn main() {}
