use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct S {
    #[shape("(heads * head_dim, heads * head_dim)")]
    x: Shape,
}

fn main() {}
