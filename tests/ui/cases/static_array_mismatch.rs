use shapes::Shaped;

#[derive(Shaped)]
struct S {
    #[shape("(3, 5)")]
    m: [[f32; 4]; 3],
}

fn main() {}
