fn main() {
    let _ = shapes::expr!("(a, b)", "(c,)");
}
