// The padding mask (b, s) broadcast along the heads instead of the keys.

#[path = "../support/candle.rs"]
mod candle;

use candle::{Result, Tensor};
use shapes::check;

#[check(ret = "(b, heads, s, s)")]
fn masked(
    #[shape("(b, heads, s, s)")] att: &Tensor,
    #[shape("(b, s)")] mask: &Tensor,
) -> Result<Tensor> {
    let mask = mask.unsqueeze(2)?.unsqueeze(3)?;
    att.broadcast_add(&mask)
}

fn main() {}
