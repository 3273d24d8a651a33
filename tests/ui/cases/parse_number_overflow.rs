use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct S {
    #[shape("(n, 99999999999999999999999)")]
    x: Shape,
}

fn main() {}
