// `#[shape]` on a `let` wants one pattern string on a plain name, outside closures.

#[path = "../support/candle.rs"]
mod candle;

use candle::{Result, Tensor};
use shapes::check;

fn helper(x: &Tensor) -> Result<(Tensor, Tensor)> {
    Ok((x.clone(), x.clone()))
}

#[check]
fn forms(#[shape("(b, s)")] x: &Tensor) -> Result<Tensor> {
    #[shape("(b, s)")]
    let (y, _z) = helper(x)?;
    #[shape]
    let w = y.contiguous()?;
    let f = || -> Result<Tensor> {
        #[shape("(b, s)")]
        let v = w.contiguous()?;
        Ok(v)
    };
    f()
}

fn main() {}
