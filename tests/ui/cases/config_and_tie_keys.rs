use shapes::{Shape, Shaped};

#[derive(Shaped)]
#[shapes(config(d_mdoel = "hidden_size", d_ff = ""))]
struct Mlp {
    #[shape("(d_ff, d_model)")]
    up: Shape,
    #[shape("(d_model,)", tie_key = "tie_word_embeddings")]
    norm: Shape,
    #[shape("(d_model,)", tied = "up")]
    bias: Shape,
}

fn main() {}
