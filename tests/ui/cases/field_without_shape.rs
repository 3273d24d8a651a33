use shapes::Shaped;

#[derive(Shaped)]
struct S {
    #[shape("(n, n)")]
    name: String,
}

fn main() {}
