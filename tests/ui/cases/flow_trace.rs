#![deny(deprecated)]

// `trace` shows each place where a shape is lost as a `deprecated` warning at its line;
// denied here, so that the case fails and its messages are kept.

#[path = "../support/candle.rs"]
mod candle;

use candle::{Result, Tensor};
use shapes::check;

#[check(trace, ret = "(b, s, d)")]
fn block(#[shape("(b, s, d)")] x: &Tensor, #[shape("(d, d)")] w: &Tensor, n: usize) -> Result<Tensor> {
    let h = opaque(x)?;
    let mut y = x.broadcast_matmul(&w.t()?)?;
    for _ in 0..n {
        y = y.gelu()?;
    }
    #[shape("(b, s, d)")]
    let z = (&h + y)?;
    Ok(z)
}

fn opaque(x: &Tensor) -> Result<Tensor> {
    Ok(x.clone())
}

fn main() {}
