use shapes::{Shape, Shaped};

#[derive(Shaped)]
#[shapes(where = "d_model = heads * head_dim")]
struct S {
    #[shape("(d_model, heads)")]
    x: Shape,
    #[shape("(heads,)")]
    y: Shape,
}

fn main() {}
