use shapes::{Shape, Shaped};

struct Plain {
    x: Shape,
}

#[derive(Shaped)]
struct S {
    #[shape(nested)]
    inner: Plain,
}

fn main() {}
