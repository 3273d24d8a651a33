use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct S {
    #[shape("(d_model, d_model)")]
    x: Shape,
    #[shape("(d_modle,)")]
    bias: Shape,
}

fn main() {}
