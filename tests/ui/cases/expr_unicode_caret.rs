fn main() {
    // The caret counts characters, not bytes.
    let _ = shapes::expr!("(größe, α @ β)");
}
