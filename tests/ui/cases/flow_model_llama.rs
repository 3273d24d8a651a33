// A Llama attention and MLP as structs of layers, `#[shapes::check]` on their `impl`s: the
// shapes of `self`'s fields, the struct's `where` and the other checked methods' contracts
// make each slip below a build error at its op (one per method): keys split into the query
// heads, queries handed to `repeat_kv`, no `.t()`, `repeat_kv` by the wrong factor, the cache
// joined on the wrong axis, a narrow past the end, a mask of the wrong length, the query heads
// merged as the key/value heads, and `up_proj` for `down_proj`.

#[path = "../support/candle.rs"]
mod candle;

use candle::nn::{Linear, Module};
use candle::{D, Result, Tensor};
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

    #[shapes::check(self, ret = "(b, kv_heads, s, head_dim)")]
    fn keys(&self, #[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
        let (b, s, _) = x.dims3()?;
        self.k_proj.forward(x)?.reshape((b, s, self.num_kv_heads, self.head_dim))?.transpose(1, 2)
    }

    // `repeat_kv` repeating by the head dim instead of `n_rep`.
    #[shapes::check(self, ret = "(b, kv_heads * n_rep, s, head_dim)")]
    fn repeat_by_the_wrong_factor(&self, #[shape("(b, kv_heads, s, head_dim)")] x: &Tensor) -> Result<Tensor> {
        let (b, kv_heads, s, head_dim) = x.dims4()?;
        Tensor::cat(&vec![x; self.head_dim], 2)?.reshape((b, kv_heads * self.head_dim, s, head_dim))
    }

    // The cached keys joined along the heads, not the sequence.
    #[shapes::check(self)]
    fn cache_on_the_wrong_axis(
        &self,
        #[shape("(b, s, d_model)")] x: &Tensor,
        #[shape("(b, kv_heads, past, head_dim)")] past_k: &Tensor,
    ) -> Result<Tensor> {
        let k = self.keys(x)?;
        let k = Tensor::cat(&[past_k, &k], 3)?;
        Ok(k)
    }

    // One element of the head dim narrowed from its end.
    #[shapes::check(self)]
    fn narrow_past_the_end(&self, #[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
        let k = self.keys(x)?;
        k.narrow(D::Minus1, self.head_dim, 1)
    }

    // The causal mask of (s, s + 1) added to scores of (…, s, s).
    #[shapes::check(self)]
    fn mask_of_the_wrong_length(
        &self,
        #[shape("(b, s, d_model)")] x: &Tensor,
        #[shape("(s, s + 1)")] mask: &Tensor,
    ) -> Result<Tensor> {
        let (b, s, _) = x.dims3()?;
        let q = self.q_proj.forward(x)?.reshape((b, s, self.num_heads, self.head_dim))?.transpose(1, 2)?;
        let att = q.matmul(&q.t()?)?;
        att.broadcast_add(mask)
    }

    // The query heads merged back as if they were the key/value heads.
    #[shapes::check(self)]
    fn heads_merged_as_kv(&self, #[shape("(b, heads, s, head_dim)")] y: &Tensor) -> Result<Tensor> {
        let (b, _, s, _) = y.dims4()?;
        y.transpose(1, 2)?.reshape((b, s, self.num_kv_heads * self.head_dim))
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
