// Llama attention: the keys are split into `heads` where the projection made `kv_heads`.

#[path = "../support/candle.rs"]
mod candle;

use candle::{D, Result, Tensor};
use shapes::check;

#[check(ret = "(b, s, d_model)")]
fn attention(
    #[shape("(b, s, d_model)")] x: &Tensor,
    #[shape("(s, head_dim / 2)")] cos: &Tensor,
    #[shape("(b, kv_heads, past, head_dim)")] past_k: &Tensor,
    #[shape("(heads * head_dim, d_model)")] wq: &Tensor,
    #[shape("(kv_heads * head_dim, d_model)")] wk: &Tensor,
    #[shape("(d_model, heads * head_dim)")] wo: &Tensor,
) -> Result<Tensor> {
    let (b, s, _) = x.dims3()?;
    let head_dim = cos.dim(D::Minus1)? * 2;
    let heads = wq.dim(0)? / head_dim;
    let kv_heads = wk.dim(0)? / head_dim;
    let n_rep = heads / kv_heads;
    let q = x.broadcast_matmul(&wq.t()?)?.reshape((b, s, heads, head_dim))?.transpose(1, 2)?;
    let k = x.broadcast_matmul(&wk.t()?)?.reshape((b, s, heads, head_dim))?.transpose(1, 2)?;
    let k = Tensor::cat(&[past_k, &k], 2)?;
    let k = Tensor::cat(&vec![&k; n_rep], 2)?.reshape((b, kv_heads * n_rep, (), head_dim))?;
    let att = q.matmul(&k.t()?)?;
    let y = att.matmul(&k)?.transpose(1, 2)?.reshape((b, s, heads * head_dim))?;
    y.broadcast_matmul(&wo.t()?)
}

fn main() {}
