use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct Linear {
    #[shapes("(d_out, d_in)")]
    weight: Shape,
    #[shape("(d_out,)")]
    bias: Shape,
}

fn main() {}
