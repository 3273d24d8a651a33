// A `#[shape]` on a `let` that the tracked shape of its value contradicts.

#[path = "../support/candle.rs"]
mod candle;

use candle::{Result, Tensor};
use shapes::check;

#[check]
fn scores(
    #[shape("(b, heads, s, head_dim)")] q: &Tensor,
    #[shape("(b, heads, s, head_dim)")] k: &Tensor,
) -> Result<Tensor> {
    #[shape("(b, heads, s, head_dim)")]
    let att = q.matmul(&k.t()?)?;
    Ok(att)
}

fn main() {}
