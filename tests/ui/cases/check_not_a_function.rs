#[shapes::check]
struct S;

fn main() {}
