// A decoder block calling its attention's and its MLP's checked `forward` and a checked free
// function, all declared in this module: each call is read by the callee's contract (its
// parameters' and return value's patterns, the struct's names through the field's renames),
// so each slip below is a build error: the MLP's `d_ff`-wide output fed to the attention, which
// takes the block's `hidden`; the residual added across widths after the MLP's up projection;
// keys of the key/value head count handed to a free `scores` that takes the queries' heads; and
// the scores returned where the attention's output was meant.

#[path = "../support/candle.rs"]
mod candle;

use candle::nn::{Linear, Module, RmsNorm};
use candle::{Result, Tensor};
use shapes::Shaped;

#[derive(Shaped)]
struct Attention {
    #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
    o_proj: Linear,
}

#[shapes::check]
impl Attention {
    #[shapes::check(self, ret = "(b, s, d_model)")]
    fn forward(&self, #[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
        self.o_proj.forward(x)
    }
}

#[derive(Shaped)]
struct Mlp {
    #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
    up: Linear,
}

#[shapes::check]
impl Mlp {
    // Only the up projection: the result is `d_ff` wide.
    #[shapes::check(self, ret = "(b, s, d_ff)")]
    fn up_only(&self, #[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
        self.up.forward(x)
    }
}

#[derive(Shaped)]
struct Block {
    #[shape(nested, rename(d_model = "hidden"))]
    attn: Attention,
    #[shape(nested, rename(d_model = "hidden"))]
    mlp: Mlp,
    #[shape(nested, rename(d_model = "hidden"))]
    norm: RmsNorm,
}

#[shapes::check]
impl Block {
    // The MLP's `d_ff`-wide output handed to the attention, which takes `hidden`.
    #[shapes::check(self)]
    fn attention_after_the_up_projection(&self, #[shape("(b, s, hidden)")] x: &Tensor) -> Result<Tensor> {
        let h = self.mlp.up_only(x)?;
        self.attn.forward(&h)
    }

    // The residual added across widths: the MLP's output is `d_ff` wide.
    #[shapes::check(self, ret = "(b, s, hidden)")]
    fn residual_across_widths(&self, #[shape("(b, s, hidden)")] x: &Tensor) -> Result<Tensor> {
        let h = self.attn.forward(&self.norm.forward(x)?)?;
        let h = self.mlp.up_only(&h)?;
        x + h
    }
}

// The attention scores of queries and keys of the same head count.
#[shapes::check(ret = "(b, heads, s, s)")]
fn scores(
    #[shape("(b, heads, s, d)")] q: &Tensor,
    #[shape("(b, heads, s, d)")] k: &Tensor,
) -> Result<Tensor> {
    q.matmul(&k.t()?)
}

// The keys handed over before they are repeated to the queries' head count.
#[shapes::check]
fn keys_not_repeated(
    #[shape("(b, heads, s, d)")] q: &Tensor,
    #[shape("(b, kv_heads, s, d)")] k: &Tensor,
) -> Result<Tensor> {
    scores(q, k)
}

// The scores returned where the attention's output was meant.
#[shapes::check(ret = "(b, heads, s, d)")]
fn scores_for_output(
    #[shape("(b, heads, s, d)")] q: &Tensor,
    #[shape("(b, heads, s, d)")] k: &Tensor,
) -> Result<Tensor> {
    let att = scores(q, k)?;
    Ok(att)
}

fn main() {}
