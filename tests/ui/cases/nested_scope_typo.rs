use shapes::{Shape, Shaped};

// The nested struct spells it `d_modle`, its parent `d_model`: the two never meet.
#[derive(Shaped)]
struct Mlp {
    #[shape("(d_ff, d_modle)")]
    up: Shape,
    #[shape("(d_modle, d_ff)")]
    down: Shape,
}

#[derive(Shaped)]
struct Block {
    #[shape("(vocab, d_model)")]
    embed: Shape,
    #[shape("(d_model,)")]
    norm: Shape,
    #[shape(nested)]
    mlp: Mlp,
}

fn main() {}
