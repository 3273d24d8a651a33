// A feed-forward block whose residual is added before the down projection.

#[path = "../support/candle.rs"]
mod candle;

use candle::{Result, Tensor};
use shapes::check;

#[check(ret = "(b, s, d_model)")]
fn feed_forward(
    #[shape("(b, s, d_model)")] x: &Tensor,
    #[shape("(d_ff, d_model)")] w_up: &Tensor,
    #[shape("(d_model, d_ff)")] w_down: &Tensor,
) -> Result<Tensor> {
    let h = x.broadcast_matmul(&w_up.t()?)?.gelu()?;
    let out = (x + h)?;
    out.broadcast_matmul(&w_down.t()?)
}

fn main() {}
