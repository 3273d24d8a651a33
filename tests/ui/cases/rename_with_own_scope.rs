use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct Norm {
    #[shape("(d,)")]
    weight: Shape,
}

// A nested struct in a scope of its own shares no variable: the rename would do nothing.
#[derive(Shaped)]
struct Block {
    #[shape("(d_model,)")]
    bias: Shape,
    #[shape(nested, scope = "own", rename(d = "d_model"))]
    norm: Norm,
}

fn main() {}
