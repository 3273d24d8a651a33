use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct Linear {
    #[shape("(d_out, d_in)")]
    weight: Shape,
    #[shape("(d_out,)")]
    bias: Shape,
}

#[derive(Shaped)]
struct Block {
    #[shape("(d_model,)")]
    norm: Shape,
    #[shape("(vocab, d_model)")]
    embed: Shape,
    // `d_modle`: the linear's input is checked against nothing.
    #[shape(nested, rename(d_in = "d_modle", d_out = "d_ff"))]
    up: Linear,
}

fn main() {}
