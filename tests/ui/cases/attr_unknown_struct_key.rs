use shapes::{Shape, Shaped};

#[derive(Shaped)]
#[shapes(wher = "n = 2")]
struct S {
    #[shape("(n, n)")]
    x: Shape,
}

fn main() {}
