// A Llama attention and MLP as structs of layers, `#[shapes::check]` on their `impl`s: the
// shapes of `self`'s fields, the struct's `where` and the other checked methods' contracts
// make each slip below a build error at its op (one per method).

#[path = "../support/candle.rs"]
mod candle;

use candle::nn::{Linear, Module};
use candle::{Result, Tensor};
use shapes::Shaped;

#[derive(Shaped)]
#[shapes(where = "q_dim = heads * head_dim", where = "kv_dim = kv_heads * head_dim")]
struct Attention {
    #[shape(nested, rename(d_in = "d_model", d_out = "q_dim"))]
    q_proj: Linear,
    #[shape(nested, rename(d_in = "d_model", d_out = "kv_dim"))]
    k_proj: Linear,
    #[shape(dim = "heads")]
    num_heads: usize,
    #[shape(dim = "kv_heads")]
    num_kv_heads: usize,
    #[shape(dim = "head_dim")]
    head_dim: usize,
    #[shape(dim = "n_rep")]
    n_rep: usize,
}

#[shapes::check]
impl Attention {
    #[shapes::check(self, ret = "(b, heads, s, head_dim)")]
    fn repeat_kv(&self, #[shape("(b, kv_heads, s, head_dim)")] x: &Tensor) -> Result<Tensor> {
        let (b, kv_heads, s, head_dim) = x.dims4()?;
        Tensor::cat(&vec![x; self.n_rep], 2)?.reshape((b, kv_heads * self.n_rep, s, head_dim))
    }

    // The keys split into `heads` where their projection made `kv_heads`.
    #[shapes::check(self)]
    fn keys_split_into_query_heads(&self, #[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
        let (b, s, _) = x.dims3()?;
        self.k_proj.forward(x)?.reshape((b, s, self.num_heads, self.head_dim))
    }

    // The queries handed to `repeat_kv`, which takes the keys' heads.
    #[shapes::check(self)]
    fn queries_repeated(&self, #[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
        let (b, s, _) = x.dims3()?;
        let q = self.q_proj.forward(x)?.reshape((b, s, self.num_heads, self.head_dim))?;
        self.repeat_kv(&q.transpose(1, 2)?)
    }

    // No `.t()` on the repeated keys.
    #[shapes::check(self)]
    fn missing_transpose(&self, #[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
        let (b, s, _) = x.dims3()?;
        let q = self.q_proj.forward(x)?.reshape((b, s, self.num_heads, self.head_dim))?;
        let k = self.k_proj.forward(x)?.reshape((b, s, self.num_kv_heads, self.head_dim))?;
        let k = self.repeat_kv(&k.transpose(1, 2)?)?;
        q.transpose(1, 2)?.matmul(&k)
    }
}

#[derive(Shaped)]
struct Mlp {
    #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
    gate_proj: Linear,
    #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
    up_proj: Linear,
    #[shape(nested, rename(d_in = "d_ff", d_out = "d_model"))]
    down_proj: Linear,
}

#[shapes::check]
impl Mlp {
    // `up_proj` where `down_proj` was meant.
    #[shapes::check(self, ret = "(b, s, d_model)")]
    fn forward(&self, #[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
        let gate = self.gate_proj.forward(x)?.silu()?;
        self.up_proj.forward(&(&gate * self.up_proj.forward(x)?)?)
    }
}

fn main() {}
