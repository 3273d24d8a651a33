fn main() {
    let s = "(a, b)";
    let _ = shapes::expr!(s);
}
