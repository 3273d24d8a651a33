use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct S {
    #[shape("(n, n / 0)")]
    x: Shape,
}

fn main() {}
