use shapes::{Shape, Shaped};

#[derive(Shaped)]
#[shapes(where = "heads = 12", where = "heads = 16")]
struct S {
    #[shape("(heads, heads)")]
    x: Shape,
}

fn main() {}
