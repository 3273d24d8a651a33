//! `#[shapes::check]` following shapes through a forward body: a BERT self-attention, a
//! feed-forward block and a Llama attention with grouped-query `repeat_kv`, rotary embeddings
//! and a kv-cache, written as candle-transformers writes them, build with no error (their
//! mistakes are the `flow_*` cases of `tests/ui`), and run on real candle tensors exactly as
//! before: the run-time checks of the arguments, of the return value and of an annotated `let`
//! still catch what only a run can show.
//!
//! Needs the `candle` feature (`cargo test --features candle --test it flow::`).

use candle_core::{D, DType, Device, Tensor};
use shapes::check;

/// BERT's self-attention (`BertSelfAttention` with its output projection), the head count
/// taken from the head mask as Hugging Face's BERT takes it.
#[check(ret = "(b, s, d_model)", where = "d_model = heads * head_dim")]
fn bert_self_attention(
    #[shape("(b, s, d_model)")] x: &Tensor,
    #[shape("(b, s)")] mask: &Tensor,
    #[shape("(heads,)")] head_mask: &Tensor,
    #[shape("(d_model, d_model)")] wq: &Tensor,
    #[shape("(d_model, d_model)")] wk: &Tensor,
    #[shape("(d_model, d_model)")] wv: &Tensor,
    #[shape("(d_model, d_model)")] wo: &Tensor,
) -> candle_core::Result<Tensor> {
    let (b, s, d_model) = x.dims3()?;
    let heads = head_mask.dim(0)?;
    let head_dim = d_model / heads;
    let q = x
        .broadcast_matmul(&wq.t()?)?
        .reshape((b, s, heads, head_dim))?
        .transpose(1, 2)?
        .contiguous()?;
    let k = x
        .broadcast_matmul(&wk.t()?)?
        .reshape((b, s, heads, head_dim))?
        .transpose(1, 2)?
        .contiguous()?;
    let v = x
        .broadcast_matmul(&wv.t()?)?
        .reshape((b, s, heads, head_dim))?
        .transpose(1, 2)?
        .contiguous()?;
    let scale = 1.0 / (head_dim as f64).sqrt();
    let att = (q.matmul(&k.t()?)? * scale)?;
    // (b, s) -> (b, 1, 1, s): the mask of padded keys, the same for every query.
    let mask = mask.unsqueeze(1)?.unsqueeze(1)?;
    let att = att.broadcast_add(&mask)?;
    let att = candle_nn::ops::softmax(&att, D::Minus1)?;
    let att = att.broadcast_mul(&head_mask.reshape((1, heads, 1, 1))?)?;
    let y = att.matmul(&v)?;
    let y = y.transpose(1, 2)?.reshape((b, s, d_model))?;
    y.broadcast_matmul(&wo.t()?)
}

/// BERT's feed-forward block with its residual.
#[check(ret = "(b, s, d_model)")]
fn bert_feed_forward(
    #[shape("(b, s, d_model)")] x: &Tensor,
    #[shape("(d_ff, d_model)")] w_up: &Tensor,
    #[shape("(d_model, d_ff)")] w_down: &Tensor,
) -> candle_core::Result<Tensor> {
    let h = x.broadcast_matmul(&w_up.t()?)?.gelu()?;
    let h = h.broadcast_matmul(&w_down.t()?)?;
    x + h
}

/// Llama's attention with a kv-cache: grouped-query heads repeated by `repeat_kv` (inlined
/// as candle-transformers writes it), rotary embeddings, a causal mask over the cache.
#[check(ret = "(b, s, d_model)")]
#[allow(clippy::too_many_arguments)]
fn llama_attention(
    #[shape("(b, s, d_model)")] x: &Tensor,
    #[shape("(s, head_dim / 2)")] cos: &Tensor,
    #[shape("(s, head_dim / 2)")] sin: &Tensor,
    #[shape("(s, past + s)")] mask: &Tensor,
    #[shape("(b, kv_heads, past, head_dim)")] past_k: &Tensor,
    #[shape("(b, kv_heads, past, head_dim)")] past_v: &Tensor,
    #[shape("(heads * head_dim, d_model)")] wq: &Tensor,
    #[shape("(kv_heads * head_dim, d_model)")] wk: &Tensor,
    #[shape("(kv_heads * head_dim, d_model)")] wv: &Tensor,
    #[shape("(d_model, heads * head_dim)")] wo: &Tensor,
) -> candle_core::Result<Tensor> {
    let (b, s, _) = x.dims3()?;
    let head_dim = cos.dim(D::Minus1)? * 2;
    let heads = wq.dim(0)? / head_dim;
    let kv_heads = wk.dim(0)? / head_dim;
    let n_rep = heads / kv_heads;
    let q = x
        .broadcast_matmul(&wq.t()?)?
        .reshape((b, s, heads, head_dim))?
        .transpose(1, 2)?
        .contiguous()?;
    let k = x
        .broadcast_matmul(&wk.t()?)?
        .reshape((b, s, kv_heads, head_dim))?
        .transpose(1, 2)?
        .contiguous()?;
    let v = x
        .broadcast_matmul(&wv.t()?)?
        .reshape((b, s, kv_heads, head_dim))?
        .transpose(1, 2)?;
    let q = candle_nn::rotary_emb::rope(&q, cos, sin)?;
    let k = candle_nn::rotary_emb::rope(&k, cos, sin)?;
    let k = Tensor::cat(&[past_k, &k], 2)?;
    let v = Tensor::cat(&[past_v, &v], 2)?.contiguous()?;
    // repeat_kv
    let k = Tensor::cat(&vec![&k; n_rep], 2)?.reshape((b, kv_heads * n_rep, (), head_dim))?;
    let v = Tensor::cat(&vec![&v; n_rep], 2)?.reshape((b, kv_heads * n_rep, (), head_dim))?;
    let att = (q.matmul(&k.t()?)? / (head_dim as f64).sqrt())?;
    let att = att.broadcast_add(mask)?;
    let att = candle_nn::ops::softmax_last_dim(&att)?;
    let y = att.matmul(&v.contiguous()?)?;
    let y = y.transpose(1, 2)?.reshape((b, s, heads * head_dim))?;
    y.broadcast_matmul(&wo.t()?)
}

/// A helper the analysis cannot see into: its result is given a shape by `#[shape]` on the
/// `let`, which is checked when it runs.
fn opaque_projection(x: &Tensor, w: &Tensor, wrong: bool) -> candle_core::Result<Tensor> {
    let y = x.broadcast_matmul(&w.t()?)?;
    if wrong { y.narrow(2, 0, 1) } else { Ok(y) }
}

#[check(ret = "(b, s, d_model)")]
fn annotated(
    #[shape("(b, s, d_model)")] x: &Tensor,
    #[shape("(d_model, d_model)")] w: &Tensor,
    wrong: bool,
) -> candle_core::Result<Tensor> {
    #[shape("(b, s, d_model)")]
    let h = opaque_projection(x, w, wrong)?;
    let h = (h + x)?;
    Ok(h)
}

fn randn(dims: &[usize]) -> Tensor {
    Tensor::randn(0f32, 1f32, dims, &Device::Cpu).expect("a random tensor")
}

#[test]
fn bert_attention_runs_as_before() {
    let (b, s, heads, head_dim) = (2, 5, 4, 8);
    let d = heads * head_dim;
    let x = randn(&[b, s, d]);
    let mask = Tensor::zeros((b, s), DType::F32, &Device::Cpu).expect("a mask");
    let head_mask = Tensor::ones(heads, DType::F32, &Device::Cpu).expect("a head mask");
    let w = || randn(&[d, d]);
    let y = bert_self_attention(&x, &mask, &head_mask, &w(), &w(), &w(), &w()).expect("runs");
    assert_eq!(y.dims(), &[b, s, d]);
    // A head mask of another length than the heads the weights split into: the run-time
    // check of the arguments catches it before candle runs.
    let bad_heads = Tensor::ones(5, DType::F32, &Device::Cpu).expect("a head mask");
    let err = bert_self_attention(&x, &mask, &bad_heads, &w(), &w(), &w(), &w()).unwrap_err();
    assert!(err.to_string().contains("heads"), "{err}");
}

#[test]
fn bert_feed_forward_runs_as_before() {
    let x = randn(&[2, 3, 16]);
    let y = bert_feed_forward(&x, &randn(&[64, 16]), &randn(&[16, 64])).expect("runs");
    assert_eq!(y.dims(), &[2, 3, 16]);
    let err = bert_feed_forward(&x, &randn(&[64, 16]), &randn(&[16, 32])).unwrap_err();
    assert!(err.to_string().contains("d_ff"), "{err}");
}

#[test]
fn llama_attention_runs_as_before() {
    let (b, s, past, heads, kv_heads, head_dim) = (1, 3, 2, 4, 2, 8);
    let d = 24;
    let x = randn(&[b, s, d]);
    let cos = randn(&[s, head_dim / 2]);
    let sin = randn(&[s, head_dim / 2]);
    let mask = Tensor::zeros((s, past + s), DType::F32, &Device::Cpu).expect("a mask");
    let past_k = randn(&[b, kv_heads, past, head_dim]);
    let past_v = randn(&[b, kv_heads, past, head_dim]);
    let y = llama_attention(
        &x,
        &cos,
        &sin,
        &mask,
        &past_k,
        &past_v,
        &randn(&[heads * head_dim, d]),
        &randn(&[kv_heads * head_dim, d]),
        &randn(&[kv_heads * head_dim, d]),
        &randn(&[d, heads * head_dim]),
    )
    .expect("runs");
    assert_eq!(y.dims(), &[b, s, d]);
    // A mask one position short of the cache: caught at the call.
    let short = Tensor::zeros((s, past + s - 1), DType::F32, &Device::Cpu).expect("a mask");
    let err = llama_attention(
        &x,
        &cos,
        &sin,
        &short,
        &past_k,
        &past_v,
        &randn(&[heads * head_dim, d]),
        &randn(&[kv_heads * head_dim, d]),
        &randn(&[kv_heads * head_dim, d]),
        &randn(&[d, heads * head_dim]),
    )
    .unwrap_err();
    assert!(err.to_string().contains("mask"), "{err}");
}

#[test]
fn an_annotated_let_is_checked_when_it_runs() {
    let x = randn(&[2, 3, 4]);
    let w = randn(&[4, 4]);
    assert_eq!(annotated(&x, &w, false).expect("runs").dims(), &[2, 3, 4]);
    let err = annotated(&x, &w, true).unwrap_err().to_string();
    if cfg!(debug_assertions) && shapes::__private::CHECKS {
        // The annotation's check names the local and its pattern, before candle's `+`.
        assert!(err.contains("annotated.h"), "{err}");
        assert!(err.contains("d_model = 4"), "{err}");
    } else {
        // Without the check, candle's own error comes from the addition.
        assert!(err.contains("shape mismatch"), "{err}");
    }
}
