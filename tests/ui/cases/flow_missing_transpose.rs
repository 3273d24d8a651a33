// BERT self-attention: `k` is multiplied without its transpose.

#[path = "../support/candle.rs"]
mod candle;

use candle::{Result, Tensor};
use shapes::check;

#[check(ret = "(b, s, d_model)", where = "d_model = heads * head_dim")]
fn attention(
    #[shape("(b, s, d_model)")] x: &Tensor,
    #[shape("(heads,)")] head_mask: &Tensor,
    #[shape("(d_model, d_model)")] wq: &Tensor,
    #[shape("(d_model, d_model)")] wk: &Tensor,
    #[shape("(d_model, d_model)")] wv: &Tensor,
) -> Result<Tensor> {
    let (b, s, d_model) = x.dims3()?;
    let heads = head_mask.dim(0)?;
    let head_dim = d_model / heads;
    let q = x.broadcast_matmul(&wq.t()?)?.reshape((b, s, heads, head_dim))?.transpose(1, 2)?;
    let k = x.broadcast_matmul(&wk.t()?)?.reshape((b, s, heads, head_dim))?.transpose(1, 2)?;
    let v = x.broadcast_matmul(&wv.t()?)?.reshape((b, s, heads, head_dim))?.transpose(1, 2)?;
    let att = candle::ops::softmax_last_dim(&(q.matmul(&k)? / 8.0)?)?;
    let y = att.matmul(&v)?;
    y.transpose(1, 2)?.reshape((b, s, d_model))
}

fn main() {}
