use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct Linear {
    #[shape("(d_out, d_in)")]
    weight: Shape,
}

#[derive(Shaped)]
struct Attention {
    #[shape(nested, rename(d_out = "heads * head_dim"))]
    q: Linear,
}

fn main() {}
