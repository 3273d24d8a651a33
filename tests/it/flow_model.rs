//! A BERT layer and a Llama decoder layer written the way candle-transformers writes them:
//! `#[derive(Shaped)]` on each struct of layers (`candle_nn::Linear`, `LayerNorm`, `RmsNorm`
//! and `usize` sizes declared with `dim = "…"`), `#[shapes::check]` on each `impl` and on every
//! `forward`. The bodies' shapes follow from `self`'s fields, the struct's `where` equations
//! and the other checked methods of the impl: they build with no error (their mistakes are the
//! `flow_model_*` cases of `tests/ui`), `verify()` holds on the loaded models, and they run on
//! real candle tensors.
//!
//! Needs the `candle` feature (`cargo test --features candle --test it flow_model::`).

use candle_core::{D, DType, Device, Module, Result, Tensor};
use candle_nn::{LayerNorm, Linear, RmsNorm, VarBuilder, VarMap};
use shapes::Shaped;

/// BERT's self-attention with its output projection and residual norm
/// (`BertSelfAttention` + `BertSelfOutput`).
#[derive(Shaped)]
#[shapes(where = "d_model = heads * head_dim")]
struct BertAttention {
    #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
    query: Linear,
    #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
    key: Linear,
    #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
    value: Linear,
    #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
    dense: Linear,
    #[shape(nested)]
    layer_norm: LayerNorm,
    #[shape(dim = "heads")]
    num_attention_heads: usize,
    #[shape(dim = "head_dim")]
    attention_head_size: usize,
}

#[shapes::check]
impl BertAttention {
    #[shapes::check(self, ret = "(b, heads, s, head_dim)")]
    fn transpose_for_scores(&self, #[shape("(b, s, d_model)")] xs: &Tensor) -> Result<Tensor> {
        let (b, s, _) = xs.dims3()?;
        xs.reshape((b, s, self.num_attention_heads, self.attention_head_size))?
            .transpose(1, 2)?
            .contiguous()
    }

    #[shapes::check(self, ret = "(b, s, d_model)")]
    fn forward(
        &self,
        #[shape("(b, s, d_model)")] hidden: &Tensor,
        #[shape("(b, 1, 1, s)")] mask: &Tensor,
    ) -> Result<Tensor> {
        let (b, s, _) = hidden.dims3()?;
        let q = self.transpose_for_scores(&self.query.forward(hidden)?)?;
        let k = self.transpose_for_scores(&self.key.forward(hidden)?)?;
        let v = self.transpose_for_scores(&self.value.forward(hidden)?)?;
        let scale = (self.attention_head_size as f64).sqrt();
        let scores = (q.matmul(&k.t()?)? / scale)?.broadcast_add(mask)?;
        let probs = candle_nn::ops::softmax(&scores, D::Minus1)?;
        let context = probs.matmul(&v)?.transpose(1, 2)?.flatten_from(2)?;
        let context =
            context.reshape((b, s, self.num_attention_heads * self.attention_head_size))?;
        let out = self.dense.forward(&context)?;
        self.layer_norm.forward(&(out + hidden)?)
    }
}

/// BERT's feed-forward block (`BertIntermediate` + `BertOutput`).
#[derive(Shaped)]
struct BertFfn {
    #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
    intermediate: Linear,
    #[shape(nested, rename(d_in = "d_ff", d_out = "d_model"))]
    output: Linear,
    #[shape(nested)]
    layer_norm: LayerNorm,
}

#[shapes::check]
impl BertFfn {
    #[shapes::check(self, ret = "(b, s, d_model)")]
    fn forward(&self, #[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
        let h = self.intermediate.forward(x)?.gelu()?;
        let h = self.output.forward(&h)?;
        self.layer_norm.forward(&(h + x)?)
    }
}

/// Llama's attention with grouped-query heads, rotary embeddings and a causal mask
/// (`CausalSelfAttention`, without the kv-cache).
#[derive(Shaped)]
#[shapes(
    where = "q_dim = heads * head_dim",
    where = "kv_dim = kv_heads * head_dim"
)]
#[shapes(where = "heads = kv_heads * n_rep")]
struct LlamaAttention {
    #[shape(nested, rename(d_in = "d_model", d_out = "q_dim"))]
    q_proj: Linear,
    #[shape(nested, rename(d_in = "d_model", d_out = "kv_dim"))]
    k_proj: Linear,
    #[shape(nested, rename(d_in = "d_model", d_out = "kv_dim"))]
    v_proj: Linear,
    #[shape(nested, rename(d_in = "q_dim", d_out = "d_model"))]
    o_proj: Linear,
    #[shape(dim = "heads")]
    num_attention_heads: usize,
    #[shape(dim = "kv_heads")]
    num_key_value_heads: usize,
    #[shape(dim = "head_dim")]
    head_dim: usize,
    #[shape(dim = "n_rep")]
    n_rep: usize,
}

#[shapes::check]
impl LlamaAttention {
    /// candle-transformers' `repeat_kv`, inlined.
    #[shapes::check(self, ret = "(b, heads, s, head_dim)")]
    fn repeat_kv(&self, #[shape("(b, kv_heads, s, head_dim)")] x: &Tensor) -> Result<Tensor> {
        let (b, kv_heads, s, head_dim) = x.dims4()?;
        Tensor::cat(&vec![x; self.n_rep], 2)?.reshape((b, kv_heads * self.n_rep, s, head_dim))
    }

    #[shapes::check(self, ret = "(b, s, d_model)")]
    fn forward(
        &self,
        #[shape("(b, s, d_model)")] x: &Tensor,
        #[shape("(s, head_dim / 2)")] cos: &Tensor,
        #[shape("(s, head_dim / 2)")] sin: &Tensor,
        #[shape("(s, s)")] mask: &Tensor,
    ) -> Result<Tensor> {
        let (b, s, _) = x.dims3()?;
        let q = self.q_proj.forward(x)?;
        let k = self.k_proj.forward(x)?;
        let v = self.v_proj.forward(x)?;
        let q = q
            .reshape((b, s, self.num_attention_heads, self.head_dim))?
            .transpose(1, 2)?
            .contiguous()?;
        let k = k
            .reshape((b, s, self.num_key_value_heads, self.head_dim))?
            .transpose(1, 2)?
            .contiguous()?;
        let v = v
            .reshape((b, s, self.num_key_value_heads, self.head_dim))?
            .transpose(1, 2)?;
        let q = candle_nn::rotary_emb::rope(&q, cos, sin)?;
        let k = candle_nn::rotary_emb::rope(&k, cos, sin)?;
        let k = self.repeat_kv(&k)?;
        let v = self.repeat_kv(&v.contiguous()?)?;
        let att = (q.matmul(&k.t()?)? / (self.head_dim as f64).sqrt())?;
        let att = att.broadcast_add(mask)?;
        let att = candle_nn::ops::softmax_last_dim(&att)?;
        let y = att.matmul(&v)?;
        let y = y
            .transpose(1, 2)?
            .reshape((b, s, self.num_attention_heads * self.head_dim))?;
        self.o_proj.forward(&y)
    }
}

/// Llama's gated MLP.
#[derive(Shaped)]
struct LlamaMlp {
    #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
    gate_proj: Linear,
    #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
    up_proj: Linear,
    #[shape(nested, rename(d_in = "d_ff", d_out = "d_model"))]
    down_proj: Linear,
}

#[shapes::check]
impl LlamaMlp {
    #[shapes::check(self, ret = "(b, s, d_model)")]
    fn forward(&self, #[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
        let gate = candle_nn::ops::silu(&self.gate_proj.forward(x)?)?;
        self.down_proj.forward(&(gate * self.up_proj.forward(x)?)?)
    }
}

/// Llama's decoder block: norms, attention and MLP with their residuals.
#[derive(Shaped)]
struct LlamaBlock {
    #[shape(nested)]
    rms_1: RmsNorm,
    #[shape(nested)]
    attn: LlamaAttention,
    #[shape(nested)]
    rms_2: RmsNorm,
    #[shape(nested)]
    mlp: LlamaMlp,
}

#[shapes::check]
impl LlamaBlock {
    #[shapes::check(self, ret = "(b, s, d_model)")]
    fn forward(
        &self,
        #[shape("(b, s, d_model)")] x: &Tensor,
        #[shape("(s, head_dim / 2)")] cos: &Tensor,
        #[shape("(s, head_dim / 2)")] sin: &Tensor,
        #[shape("(s, s)")] mask: &Tensor,
    ) -> Result<Tensor> {
        let residual = x;
        let x = self.rms_1.forward(x)?;
        // Another struct's checked method, declared in this module: read by its contract.
        let x = self.attn.forward(&x, cos, sin, mask)?;
        let x = (x + residual)?;
        let residual = &x;
        let y = self.mlp.forward(&self.rms_2.forward(&x)?)?;
        y + residual
    }
}

/// A residual feed-forward block whose `forward` asks for every tracked `let` to be checked
/// when it runs (`each_let`).
#[derive(Shaped)]
struct Residual {
    #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
    up: Linear,
    #[shape(nested, rename(d_in = "d_ff", d_out = "d_model"))]
    down: Linear,
}

#[shapes::check]
impl Residual {
    #[shapes::check(self, each_let)]
    fn forward(&self, #[shape("(b, d_model)")] x: &Tensor) -> Result<Tensor> {
        let h = self.up.forward(x)?.relu()?;
        let y = self.down.forward(&h)?;
        let out = (y.clone() * 0.5)?;
        out.broadcast_add(x)
    }
}

fn linear(vb: &VarBuilder, out: usize, inp: usize, name: &str) -> Result<Linear> {
    candle_nn::linear(inp, out, vb.pp(name))
}

fn bert_attention(vb: &VarBuilder, d_model: usize, heads: usize) -> Result<BertAttention> {
    Ok(BertAttention {
        query: linear(vb, d_model, d_model, "query")?,
        key: linear(vb, d_model, d_model, "key")?,
        value: linear(vb, d_model, d_model, "value")?,
        dense: linear(vb, d_model, d_model, "dense")?,
        layer_norm: candle_nn::layer_norm(d_model, 1e-12, vb.pp("layer_norm"))?,
        num_attention_heads: heads,
        attention_head_size: d_model / heads,
    })
}

fn llama_block(
    vb: &VarBuilder,
    d_model: usize,
    heads: usize,
    kv_heads: usize,
) -> Result<LlamaBlock> {
    let head_dim = d_model / heads;
    let d_ff = 3 * d_model;
    let attn = LlamaAttention {
        q_proj: linear(vb, heads * head_dim, d_model, "q")?,
        k_proj: linear(vb, kv_heads * head_dim, d_model, "k")?,
        v_proj: linear(vb, kv_heads * head_dim, d_model, "v")?,
        o_proj: linear(vb, d_model, heads * head_dim, "o")?,
        num_attention_heads: heads,
        num_key_value_heads: kv_heads,
        head_dim,
        n_rep: heads / kv_heads,
    };
    let mlp = LlamaMlp {
        gate_proj: linear(vb, d_ff, d_model, "gate")?,
        up_proj: linear(vb, d_ff, d_model, "up")?,
        down_proj: linear(vb, d_model, d_ff, "down")?,
    };
    Ok(LlamaBlock {
        rms_1: candle_nn::rms_norm(d_model, 1e-5, vb.pp("rms_1"))?,
        attn,
        rms_2: candle_nn::rms_norm(d_model, 1e-5, vb.pp("rms_2"))?,
        mlp,
    })
}

fn randn(dims: &[usize]) -> Tensor {
    Tensor::randn(0f32, 1f32, dims, &Device::Cpu).expect("a random tensor")
}

#[test]
fn a_bert_layer_verifies_and_runs() -> Result<()> {
    let vars = VarMap::new();
    let vb = VarBuilder::from_varmap(&vars, DType::F32, &Device::Cpu);
    let attention = bert_attention(&vb.pp("attention"), 32, 4)?;
    let ffn = BertFfn {
        intermediate: linear(&vb, 128, 32, "intermediate")?,
        output: linear(&vb, 32, 128, "output")?,
        layer_norm: candle_nn::layer_norm(32, 1e-12, vb.pp("ffn_norm"))?,
    };
    let b = attention
        .verify()
        .expect("the attention's declarations hold");
    assert_eq!((b.get("heads"), b.get("head_dim")), (Some(4), Some(8)));
    ffn.verify().expect("the feed-forward's declarations hold");

    let x = randn(&[2, 5, 32]);
    let mask = Tensor::zeros((2, 1, 1, 5), DType::F32, &Device::Cpu)?;
    let y = ffn.forward(&attention.forward(&x, &mask)?)?;
    assert_eq!(y.dims(), &[2, 5, 32]);
    Ok(())
}

#[test]
fn a_size_field_is_checked_by_verify() -> Result<()> {
    let vars = VarMap::new();
    let vb = VarBuilder::from_varmap(&vars, DType::F32, &Device::Cpu);
    let mut attention = bert_attention(&vb, 32, 4)?;
    attention.attention_head_size = 7;
    let e = attention.verify().expect_err("4 heads of 7 are not 32");
    let text = e.to_string();
    assert!(text.contains("attention_head_size"), "{text}");
    Ok(())
}

#[test]
fn a_llama_block_verifies_and_runs() -> Result<()> {
    let vars = VarMap::new();
    let vb = VarBuilder::from_varmap(&vars, DType::F32, &Device::Cpu);
    let block = llama_block(&vb, 32, 4, 2)?;
    let b = block.verify().expect("the block's declarations hold");
    assert_eq!(
        (b.get("heads"), b.get("kv_heads"), b.get("n_rep")),
        (Some(4), Some(2), Some(2))
    );

    let (s, head_dim) = (6, 8);
    let x = randn(&[2, s, 32]);
    let cos = randn(&[s, head_dim / 2]);
    let sin = randn(&[s, head_dim / 2]);
    let mask = Tensor::zeros((s, s), DType::F32, &Device::Cpu)?;
    let y = block.forward(&x, &cos, &sin, &mask)?;
    assert_eq!(y.dims(), &[2, s, 32]);

    // What only a run shows is still caught at the call: a mask for another length.
    let wrong = Tensor::zeros((s, s + 1), DType::F32, &Device::Cpu)?;
    let e = block
        .forward(&x, &cos, &sin, &wrong)
        .unwrap_err()
        .to_string();
    assert!(e.contains("mask"), "{e}");
    Ok(())
}

#[test]
fn each_let_checks_the_tracked_shapes_when_they_run() -> Result<()> {
    let vars = VarMap::new();
    let vb = VarBuilder::from_varmap(&vars, DType::F32, &Device::Cpu);
    let x = randn(&[2, 16]);
    let ok = Residual {
        up: linear(&vb, 64, 16, "up")?,
        down: linear(&vb, 16, 64, "down")?,
    };
    assert_eq!(ok.forward(&x)?.dims(), &[2, 16]);

    // `down` built 64 -> 15, never verified: candle runs `down.forward` and the scaling, and
    // would fail only at the residual add. The tracked `let y` is (b, d_model), with d_model
    // 16 from `x`, and its check names the line.
    let wrong = Residual {
        up: linear(&vb, 64, 16, "up")?,
        down: linear(&vb, 15, 64, "down_15")?,
    };
    let e = wrong.forward(&x).unwrap_err().to_string();
    if cfg!(debug_assertions) && shapes::__private::CHECKS {
        let line = include_str!("flow_model.rs")
            .lines()
            .position(|l| l.contains("let y = self.down.forward(&h)?;"))
            .expect("the let")
            + 1;
        assert!(e.contains(&format!("y (line {line})")), "{e}");
        assert!(e.contains("d_model = 16"), "{e}");
    } else {
        assert!(e.contains("shape mismatch"), "{e}");
    }
    Ok(())
}
