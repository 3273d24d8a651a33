use shapes::{Shape, Shaped};

#[derive(Shaped)]
#[shapes(given = "head")]
struct S {
    #[shape("(heads * d, d)")]
    x: Shape,
    #[shape("(heads,)")]
    y: Shape,
}

fn main() {}
