use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct Linear {
    #[shape("(d_out, d_in)")]
    weight: Shape,
}

#[derive(Shaped)]
struct Attention {
    #[shape("(d_model, d_model)")]
    o: Shape,
    #[shape(nested, rename(dout = "d_model"))]
    q: Linear,
}

fn main() {}
