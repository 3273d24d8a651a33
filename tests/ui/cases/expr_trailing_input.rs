fn main() {
    let _ = shapes::expr!("(a, b) -> (b, c) x");
}
