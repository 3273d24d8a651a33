use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct Linear {
    #[shape("(d_out, d_in)")]
    weight: Shape,
}

// A layer is checked with `#[shape(nested)]`, not with a pattern of its own.
#[derive(Shaped)]
struct Mlp {
    #[shape("(d_ff, d_model)")]
    dense: Linear,
}

fn main() {}
