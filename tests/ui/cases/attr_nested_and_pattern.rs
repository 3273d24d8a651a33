use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct S {
    #[shape("(n, n)", nested)]
    x: Shape,
}

fn main() {}
