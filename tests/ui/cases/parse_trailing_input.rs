use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct S {
    #[shape("(n, m) k")]
    x: Shape,
}

fn main() {}
