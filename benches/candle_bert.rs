//! BERT-base (199 tensors) as a candle user holds it: a model struct of `candle_nn` layers
//! (`Embedding`, `LayerNorm`, `Linear`), `#[derive(Shaped)]` on it, and the hand-written
//! comparisons of the same facts through the layers' accessors. Each tensor is a broadcast
//! view of one scalar, so the model has BERT-base's shapes without its 440 MB.

use candle_core::{DType, Device, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear};
use shapes::Shaped;

#[derive(Shaped)]
pub struct Embeddings {
    #[shape(nested)]
    pub word: Embedding,
    #[shape(nested, rename(vocab = "max_pos"))]
    pub position: Embedding,
    #[shape(nested, rename(vocab = "type_vocab"))]
    pub token_type: Embedding,
    #[shape(nested)]
    pub norm: LayerNorm,
}

#[derive(Shaped)]
pub struct Layer {
    #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
    pub query: Linear,
    #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
    pub key: Linear,
    #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
    pub value: Linear,
    #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
    pub output: Linear,
    #[shape(nested)]
    pub norm1: LayerNorm,
    #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
    pub up: Linear,
    #[shape(nested, rename(d_in = "d_ff", d_out = "d_model"))]
    pub down: Linear,
    #[shape(nested)]
    pub norm2: LayerNorm,
}

#[derive(Shaped)]
pub struct Bert {
    #[shape(nested)]
    pub embeddings: Embeddings,
    #[shape(nested)]
    pub layers: Vec<Layer>,
    #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
    pub pooler: Linear,
}

fn view(dims: &[usize]) -> Tensor {
    let one = Tensor::zeros((), DType::F32, &Device::Cpu).expect("a scalar");
    one.broadcast_as(dims).expect("a broadcast view")
}

fn linear(d_out: usize, d_in: usize) -> Linear {
    Linear::new(view(&[d_out, d_in]), Some(view(&[d_out])))
}

fn norm(d: usize) -> LayerNorm {
    LayerNorm::new(view(&[d]), view(&[d]), 1e-12)
}

/// BERT-base's shapes: vocab 30522, 512 positions, 2 token types, d_model 768, d_ff 3072,
/// 12 layers.
pub fn bert_base() -> Bert {
    let (d, d_ff) = (768, 3072);
    Bert {
        embeddings: Embeddings {
            word: Embedding::new(view(&[30522, d]), d),
            position: Embedding::new(view(&[512, d]), d),
            token_type: Embedding::new(view(&[2, d]), d),
            norm: norm(d),
        },
        layers: (0..12)
            .map(|_| Layer {
                query: linear(d, d),
                key: linear(d, d),
                value: linear(d, d),
                output: linear(d, d),
                norm1: norm(d),
                up: linear(d_ff, d),
                down: linear(d, d_ff),
                norm2: norm(d),
            })
            .collect(),
        pooler: linear(d, d),
    }
}

/// The same facts, hand-written against the layers' accessors: the sizes on success.
pub fn hand_written(m: &Bert) -> Option<(usize, usize, usize)> {
    let e = &m.embeddings;
    let [vocab, d] = <[usize; 2]>::try_from(e.word.embeddings().dims()).ok()?;
    let norm_ok =
        |n: &LayerNorm| n.weight().dims() == [d] && n.bias().is_none_or(|b| b.dims() == [d]);
    let linear_ok = |l: &Linear, o: usize, i: usize| {
        l.weight().dims() == [o, i] && l.bias().is_none_or(|b| b.dims() == [o])
    };
    let mut ok = e.position.embeddings().dims().get(1) == Some(&d)
        && e.position.embeddings().dims().len() == 2
        && e.token_type.embeddings().dims().get(1) == Some(&d)
        && e.token_type.embeddings().dims().len() == 2
        && norm_ok(&e.norm);
    let d_ff = m
        .layers
        .first()
        .map_or(0, |l| l.up.weight().dims().first().copied().unwrap_or(0));
    for l in &m.layers {
        ok &= linear_ok(&l.query, d, d)
            && linear_ok(&l.key, d, d)
            && linear_ok(&l.value, d, d)
            && linear_ok(&l.output, d, d)
            && norm_ok(&l.norm1)
            && linear_ok(&l.up, d_ff, d)
            && linear_ok(&l.down, d, d_ff)
            && norm_ok(&l.norm2);
    }
    ok &= linear_ok(&m.pooler, d, d);
    ok.then_some((vocab, d, d_ff))
}
