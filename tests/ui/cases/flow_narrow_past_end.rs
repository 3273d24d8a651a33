// The last position taken one past the end (`s` where `s - 1` was meant).

#[path = "../support/candle.rs"]
mod candle;

use candle::{Result, Tensor};
use shapes::check;

#[check(ret = "(b, 1, d_model)")]
fn last_token(#[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
    let (_, s, _) = x.dims3()?;
    x.narrow(1, s, 1)
}

fn main() {}
