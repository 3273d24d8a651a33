use shapes::{Shape, Shaped};

#[derive(Shaped)]
#[shapes(where = "heads % 4 = 0, heads")]
struct S {
    #[shape("(heads, heads)")]
    x: Shape,
}

fn main() {}
