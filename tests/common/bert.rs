//! A BERT-base parameter struct (199 tensors) shared by the verify benchmark and tests.

use shapes::{Shape, Shaped};

#[derive(Shaped)]
pub struct Embeddings<T> {
    #[shape("(vocab, d_model)")]
    pub word: T,
    #[shape("(max_pos, d_model)")]
    pub position: T,
    #[shape("(type_vocab, d_model)")]
    pub token_type: T,
    #[shape("(d_model,)")]
    pub ln_w: T,
    #[shape("(d_model,)")]
    pub ln_b: T,
}

#[derive(Shaped)]
pub struct Layer<T> {
    #[shape("(d_model, d_model)")]
    pub q_w: T,
    #[shape("(d_model,)")]
    pub q_b: T,
    #[shape("(d_model, d_model)")]
    pub k_w: T,
    #[shape("(d_model,)")]
    pub k_b: T,
    #[shape("(d_model, d_model)")]
    pub v_w: T,
    #[shape("(d_model,)")]
    pub v_b: T,
    #[shape("(d_model, d_model)")]
    pub o_w: T,
    #[shape("(d_model,)")]
    pub o_b: T,
    #[shape("(d_model,)")]
    pub ln1_w: T,
    #[shape("(d_model,)")]
    pub ln1_b: T,
    #[shape("(d_ff, d_model)")]
    pub up_w: T,
    #[shape("(d_ff,)")]
    pub up_b: T,
    #[shape("(d_model, d_ff)")]
    pub down_w: T,
    #[shape("(d_model,)")]
    pub down_b: T,
    #[shape("(d_model,)")]
    pub ln2_w: T,
    #[shape("(d_model,)")]
    pub ln2_b: T,
}

#[derive(Shaped)]
pub struct Bert<T> {
    #[shape(nested)]
    pub embeddings: Embeddings<T>,
    #[shape(nested)]
    pub layers: Vec<Layer<T>>,
    #[shape("(d_model, d_model)")]
    pub pooler_w: T,
    #[shape("(d_model,)")]
    pub pooler_b: T,
}

/// BERT-base's shapes: vocab 30522, 512 positions, 2 token types, d_model 768, d_ff 3072.
pub fn bert_base() -> Bert<Shape> {
    let (vocab, pos, types, d, ff) = (30522, 512, 2, 768, 3072);
    let layer = || Layer {
        q_w: Shape::from([d, d]),
        q_b: Shape::from([d]),
        k_w: Shape::from([d, d]),
        k_b: Shape::from([d]),
        v_w: Shape::from([d, d]),
        v_b: Shape::from([d]),
        o_w: Shape::from([d, d]),
        o_b: Shape::from([d]),
        ln1_w: Shape::from([d]),
        ln1_b: Shape::from([d]),
        up_w: Shape::from([ff, d]),
        up_b: Shape::from([ff]),
        down_w: Shape::from([d, ff]),
        down_b: Shape::from([d]),
        ln2_w: Shape::from([d]),
        ln2_b: Shape::from([d]),
    };
    Bert {
        embeddings: Embeddings {
            word: Shape::from([vocab, d]),
            position: Shape::from([pos, d]),
            token_type: Shape::from([types, d]),
            ln_w: Shape::from([d]),
            ln_b: Shape::from([d]),
        },
        layers: (0..12).map(|_| layer()).collect(),
        pooler_w: Shape::from([d, d]),
        pooler_b: Shape::from([d]),
    }
}

/// The sizes a hand-written check finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    pub vocab: usize,
    pub max_pos: usize,
    pub type_vocab: usize,
    pub d_model: usize,
    pub d_ff: usize,
}

/// The same facts as the derived `verify()`, written by hand as a list of comparisons: what a
/// careful engineer writes without the library.
#[inline(never)]
pub fn hand_written(m: &Bert<Shape>) -> Option<Sizes> {
    let e = &m.embeddings;
    let [vocab, d] = <[usize; 2]>::try_from(e.word.dims()).ok()?;
    let [max_pos, d1] = <[usize; 2]>::try_from(e.position.dims()).ok()?;
    let [type_vocab, d2] = <[usize; 2]>::try_from(e.token_type.dims()).ok()?;
    let mut ok = d1 == d && d2 == d && e.ln_w.dims() == [d] && e.ln_b.dims() == [d];
    let d_ff = m
        .layers
        .first()
        .map_or(0, |l| l.up_w.dims().first().copied().unwrap_or(0));
    for l in &m.layers {
        ok &= l.q_w.dims() == [d, d]
            && l.q_b.dims() == [d]
            && l.k_w.dims() == [d, d]
            && l.k_b.dims() == [d]
            && l.v_w.dims() == [d, d]
            && l.v_b.dims() == [d]
            && l.o_w.dims() == [d, d]
            && l.o_b.dims() == [d]
            && l.ln1_w.dims() == [d]
            && l.ln1_b.dims() == [d]
            && l.up_w.dims() == [d_ff, d]
            && l.up_b.dims() == [d_ff]
            && l.down_w.dims() == [d, d_ff]
            && l.down_b.dims() == [d]
            && l.ln2_w.dims() == [d]
            && l.ln2_b.dims() == [d];
    }
    ok &= m.pooler_w.dims() == [d, d] && m.pooler_b.dims() == [d];
    ok.then_some(Sizes {
        vocab,
        max_pos,
        type_vocab,
        d_model: d,
        d_ff,
    })
}
