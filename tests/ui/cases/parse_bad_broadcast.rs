use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct S {
    #[shape("(#, n)")]
    x: Shape,
}

fn main() {}
