use shapes::{Shape, check};

#[check(ret = "(batch, seq, d_modle)")]
fn embed(#[shape("(batch, seq)")] ids: &Shape, #[shape("(vocab, d_model)")] table: &Shape) -> Shape {
    Shape::from([1, 1, 1])
}

fn main() {}
