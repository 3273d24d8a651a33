use shapes::{Shape, Shaped};

#[derive(Shaped)]
struct Inner {
    #[shape("(n, n)")]
    x: Shape,
}

#[derive(Shaped)]
struct S {
    #[shape(nested, scope = "private")]
    inner: Inner,
}

fn main() {}
