// Four slips of an axis or a rank, each a build error at its op: a `dims3()` of a 4-D tensor,
// `stack` where the kv-cache wants `cat`, a repeated axis in `permute`, an axis past the rank.

#[path = "../support/candle.rs"]
mod candle;

use candle::{Result, Tensor};
use shapes::check;

#[check]
fn heads_first(#[shape("(b, heads, s, head_dim)")] q: &Tensor) -> Result<usize> {
    let (b, s, _) = q.dims3()?;
    Ok(b * s)
}

#[check(ret = "(b, kv_heads, past + s, head_dim)")]
fn append(
    #[shape("(b, kv_heads, past, head_dim)")] past_k: &Tensor,
    #[shape("(b, kv_heads, s, head_dim)")] k: &Tensor,
) -> Result<Tensor> {
    Tensor::stack(&[past_k, k], 2)
}

#[check]
fn merge(#[shape("(b, heads, s, head_dim)")] y: &Tensor) -> Result<Tensor> {
    y.permute((0, 2, 2, 3))
}

#[check]
fn swap(#[shape("(b, heads, s, head_dim)")] y: &Tensor) -> Result<Tensor> {
    y.transpose(2, 4)
}

fn main() {}
