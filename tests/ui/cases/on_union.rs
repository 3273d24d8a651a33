use shapes::Shaped;

#[derive(Shaped)]
union U {
    a: u32,
    b: f32,
}

fn main() {}
