//! A Llama attention and MLP written with burn (`#[derive(Module, Shaped)]` on the modules,
//! `#[shapes::check]` on their `impl`s and on every `forward`): the macro follows the shapes
//! through burn's `reshape([…])`, `swap_dims`, `matmul`, `dims()`, `unsqueeze_dim`,
//! `expand`, the activations and the layers' forwards, from the modules' fields; the modules
//! build, verify and run on burn's CPU backend. (Here, beside the backend the `burn` tests
//! build; the analysis itself is the derive's.)

use ::burn_core::module::Module;
use ::burn_nn::{Linear, LinearConfig, RmsNorm, RmsNormConfig};
use ::burn_tensor::{Tensor, activation};

use crate::verify::Shaped;

// What a burn user writes: burn's derive names its crate `burn`.
use ::burn_core as burn;

#[derive(Module, Debug, shapes::Shaped)]
#[shapes(crate = "crate")]
#[shapes(
    where = "q_dim = heads * head_dim",
    where = "kv_dim = kv_heads * head_dim"
)]
struct Attention {
    #[shape(nested, rename(d_in = "d_model", d_out = "q_dim"))]
    wq: Linear,
    #[shape(nested, rename(d_in = "d_model", d_out = "kv_dim"))]
    wk: Linear,
    #[shape(nested, rename(d_in = "d_model", d_out = "kv_dim"))]
    wv: Linear,
    #[shape(nested, rename(d_in = "q_dim", d_out = "d_model"))]
    wo: Linear,
    #[shape(dim = "heads")]
    n_heads: usize,
    #[shape(dim = "kv_heads")]
    n_kv_heads: usize,
    #[shape(dim = "head_dim")]
    head_dim: usize,
    #[shape(dim = "n_rep")]
    n_rep: usize,
}

#[shapes::check]
impl Attention {
    /// burn-llama's `repeat_kv`: each key/value head repeated `n_rep` times.
    #[shapes::check(self, crate = "crate", ret = "(b, kv_heads * n_rep, s, head_dim)")]
    fn repeat_kv(&self, #[shape("(b, kv_heads, s, head_dim)")] x: Tensor<4>) -> Tensor<4> {
        let [b, kv_heads, s, head_dim] = x.dims();
        x.unsqueeze_dim::<5>(2)
            .expand([b, kv_heads, self.n_rep, s, head_dim])
            .reshape([b, kv_heads * self.n_rep, s, head_dim])
    }

    #[shapes::check(self, crate = "crate", ret = "(b, s, d_model)")]
    fn forward(
        &self,
        #[shape("(b, s, d_model)")] x: Tensor<3>,
        #[shape("(s, s)")] mask: Tensor<2>,
    ) -> Tensor<3> {
        let [b, s, _] = x.dims();
        let q = self.wq.forward(x.clone());
        let k = self.wk.forward(x.clone());
        let v = self.wv.forward(x);
        let q = q
            .reshape([b, s, self.n_heads, self.head_dim])
            .swap_dims(1, 2);
        let k = k
            .reshape([b, s, self.n_kv_heads, self.head_dim])
            .swap_dims(1, 2);
        let v = v
            .reshape([b, s, self.n_kv_heads, self.head_dim])
            .swap_dims(1, 2);
        let k = self.repeat_kv(k);
        let v = self.repeat_kv(v);
        let scores = q
            .matmul(k.transpose())
            .div_scalar((self.head_dim as f32).sqrt());
        let scores = scores + mask.reshape([1, 1, s, s]);
        let probs = activation::softmax(scores, 3);
        let y = probs.matmul(v).swap_dims(1, 2);
        self.wo
            .forward(y.reshape([b, s, self.n_heads * self.head_dim]))
    }
}

#[derive(Module, Debug, shapes::Shaped)]
#[shapes(crate = "crate")]
struct Mlp {
    #[shape(nested)]
    norm: RmsNorm,
    #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
    gate: Linear,
    #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
    up: Linear,
    #[shape(nested, rename(d_in = "d_ff", d_out = "d_model"))]
    down: Linear,
}

#[shapes::check]
impl Mlp {
    #[shapes::check(self, crate = "crate", ret = "(b, s, d_model)")]
    fn forward(&self, #[shape("(b, s, d_model)")] x: Tensor<3>) -> Tensor<3> {
        let h = self.norm.forward(x.clone());
        let gated = activation::silu(self.gate.forward(h.clone())) * self.up.forward(h);
        x + self.down.forward(gated)
    }
}

fn attention(d_model: usize, heads: usize, kv_heads: usize) -> Attention {
    let device = Default::default();
    let head_dim = d_model / heads;
    let linear = |i, o| LinearConfig::new(i, o).init(&device);
    Attention {
        wq: linear(d_model, heads * head_dim),
        wk: linear(d_model, kv_heads * head_dim),
        wv: linear(d_model, kv_heads * head_dim),
        wo: linear(heads * head_dim, d_model),
        n_heads: heads,
        n_kv_heads: kv_heads,
        head_dim,
        n_rep: heads / kv_heads,
    }
}

#[test]
fn a_burn_llama_attention_and_mlp_verify_and_run() {
    let device = Default::default();
    let attn = attention(32, 4, 2);
    let b = attn.verify().expect("the attention's declarations hold");
    assert_eq!(
        (b.get("heads"), b.get("kv_heads"), b.get("head_dim")),
        (Some(4), Some(2), Some(8))
    );
    let mlp = Mlp {
        norm: RmsNormConfig::new(32).init(&device),
        gate: LinearConfig::new(32, 96).init(&device),
        up: LinearConfig::new(32, 96).init(&device),
        down: LinearConfig::new(96, 32).init(&device),
    };
    mlp.verify().expect("the MLP's declarations hold");

    let x = Tensor::<3>::ones([2, 5, 32], &device);
    let mask = Tensor::<2>::zeros([5, 5], &device);
    let y = mlp.forward(attn.forward(x, mask));
    assert_eq!(y.dims(), [2, 5, 32]);
}

#[test]
fn a_wrong_size_field_is_named_by_verify() {
    let mut attn = attention(32, 4, 2);
    attn.n_kv_heads = 4;
    let e = attn
        .verify()
        .expect_err("4 key/value heads of 8 are not 16");
    assert!(e.to_string().contains("n_kv_heads"), "{e}");
}
