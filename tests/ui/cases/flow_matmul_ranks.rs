// `matmul` of a batch of sequences by a weight matrix: candle's `matmul` does not
// broadcast, `broadcast_matmul` does.

#[path = "../support/candle.rs"]
mod candle;

use candle::{Result, Tensor};
use shapes::check;

#[check(ret = "(b, s, d_out)")]
fn project(
    #[shape("(b, s, d_in)")] x: &Tensor,
    #[shape("(d_out, d_in)")] w: &Tensor,
) -> Result<Tensor> {
    x.matmul(&w.t()?)
}

fn main() {}
