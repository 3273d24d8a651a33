fn main() {
    let _ = shapes::expr!("");
}
