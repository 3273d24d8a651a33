use shapes::{Shape, Shaped};

#[derive(Shaped)]
enum E {
    A(Shape),
}

fn main() {}
