use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct Inner {
    #[shape("(n,)")]
    w: Shape,
}

#[derive(Shaped)]
struct Model {
    #[shape("(n,)", prefix = "enc")]
    a: Shape,
    #[shape(nested, name = "x.weight")]
    b: Inner,
    #[shape(nested, count = "n_layers")]
    c: Inner,
    #[shape(nested, count = "2 * n")]
    d: Vec<Inner>,
    #[shape("(n,)", name = "")]
    e: Shape,
    #[shape("(n,)", name = "a", name = "b")]
    f: Shape,
}

fn main() {}
