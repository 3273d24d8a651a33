use shapes::Shaped;

#[derive(Shaped)]
struct S {
    #[shape("(n,)")]
    m: [[f32; 4]; 3],
}

fn main() {}
