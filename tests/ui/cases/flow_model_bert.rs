// A BERT layer as a struct of layers with `usize` sizes (`dim = "…"`), `#[shapes::check]` on
// its `impl`: each slip below is a build error at its op (one per method).

#[path = "../support/candle.rs"]
mod candle;

use candle::nn::{LayerNorm, Linear, Module};
use candle::{Result, Tensor};
use shapes::Shaped;

#[derive(Shaped)]
#[shapes(where = "d_model = heads * head_dim")]
struct Layer {
    #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
    query: Linear,
    #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
    key: Linear,
    #[shape(dim = "heads")]
    num_attention_heads: usize,
    #[shape(dim = "head_dim")]
    attention_head_size: usize,
}

#[shapes::check]
impl Layer {
    #[shapes::check(self, ret = "(b, heads, s, head_dim)")]
    fn transpose_for_scores(&self, #[shape("(b, s, d_model)")] xs: &Tensor) -> Result<Tensor> {
        let (b, s, _) = xs.dims3()?;
        xs.reshape((b, s, self.num_attention_heads, self.attention_head_size))?
            .transpose(1, 2)
    }

    // The heads split along the wrong axes: `transpose(1, 3)` where `(1, 2)` was meant.
    #[shapes::check(self)]
    fn wrong_transpose_axes(&self, #[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
        let (b, s, _) = x.dims3()?;
        let q = self.transpose_for_scores(&self.query.forward(x)?)?;
        let k = self.key.forward(x)?;
        let k = k.reshape((b, s, self.num_attention_heads, self.attention_head_size))?;
        q.matmul(&k.transpose(1, 3)?)
    }

    // The heads returned unmerged.
    #[shapes::check(self, ret = "(b, s, d_model)")]
    fn heads_not_merged(&self, #[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
        let q = self.transpose_for_scores(&self.query.forward(x)?)?;
        let k = self.transpose_for_scores(&self.key.forward(x)?)?;
        let probs = candle::ops::softmax_last_dim(&q.matmul(&k.t()?)?)?;
        probs.matmul(&q)
    }
}

// The feed-forward block, in a struct of its own. (In `Layer`, `d_model = heads * head_dim`
// makes `d_ff` against `d_model` unprovable: `d_ff` may be that product.)
#[derive(Shaped)]
struct Ffn {
    #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
    intermediate: Linear,
    #[shape(nested, rename(d_in = "d_ff", d_out = "d_model"))]
    output: Linear,
    #[shape(nested)]
    layer_norm: LayerNorm,
}

#[shapes::check]
impl Ffn {
    // The residual added across widths: the intermediate output is `d_ff` wide.
    #[shapes::check(self)]
    fn residual_across_widths(&self, #[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
        let h = self.intermediate.forward(x)?.gelu()?;
        x + h
    }

    // The norm applied at the intermediate width.
    #[shapes::check(self)]
    fn norm_at_the_wrong_width(&self, #[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
        self.layer_norm.forward(&self.intermediate.forward(x)?)
    }
}

fn main() {}
