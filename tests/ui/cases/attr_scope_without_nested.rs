use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct S {
    #[shape("(n, n)", scope = "own")]
    x: Shape,
}

fn main() {}
