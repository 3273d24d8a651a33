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

/// A BERT encoder as transformers names its parameters (`BertModel`'s state dict), for
/// checking checkpoints with `verify_source`: attention heads as `heads * head_dim`,
/// `n_layers` encoder layers counted from the names, LayerNorms, the pooler, and the
/// `embeddings.position_ids` buffer that some checkpoints carry (an `Option`).
///
/// The original `bert-base-uncased` upload names its LayerNorm parameters `gamma`/`beta`
/// (transformers renames them while loading); a struct for that file would use
/// `name = "gamma"` / `name = "beta"` on [`hf::LayerNorm`]'s fields.
pub mod hf {
    use shapes::Shaped;

    /// `LayerNorm.weight` and `LayerNorm.bias`.
    #[derive(Shaped)]
    pub struct LayerNorm<T> {
        #[shape("(d_model,)")]
        pub weight: T,
        #[shape("(d_model,)")]
        pub bias: T,
    }

    /// `embeddings.*`.
    #[derive(Shaped)]
    pub struct Embeddings<T> {
        #[shape("(vocab, d_model)", name = "word_embeddings.weight")]
        pub word: T,
        #[shape("(max_pos, d_model)", name = "position_embeddings.weight")]
        pub position: T,
        #[shape("(type_vocab, d_model)", name = "token_type_embeddings.weight")]
        pub token_type: T,
        #[shape(nested, prefix = "LayerNorm")]
        pub ln: LayerNorm<T>,
        /// A buffer `(1, max_pos)` saved by older transformers versions; absent in newer files.
        #[shape("(1, max_pos)", name = "position_ids")]
        pub position_ids: Option<T>,
    }

    /// `attention.self.*`: `heads` heads of `head_dim` each.
    #[derive(Shaped)]
    #[shapes(given = "heads")]
    pub struct SelfAttention<T> {
        #[shape("(heads * head_dim, d_model)", name = "query.weight")]
        pub q_w: T,
        #[shape("(heads * head_dim,)", name = "query.bias")]
        pub q_b: T,
        #[shape("(heads * head_dim, d_model)", name = "key.weight")]
        pub k_w: T,
        #[shape("(heads * head_dim,)", name = "key.bias")]
        pub k_b: T,
        #[shape("(heads * head_dim, d_model)", name = "value.weight")]
        pub v_w: T,
        #[shape("(heads * head_dim,)", name = "value.bias")]
        pub v_b: T,
    }

    /// `encoder.layer.{i}.*`: attention, its output projection and LayerNorm, the FFN.
    #[derive(Shaped)]
    pub struct Layer<T> {
        #[shape(nested, prefix = "attention.self")]
        pub attn: SelfAttention<T>,
        #[shape("(d_model, heads * head_dim)", name = "attention.output.dense.weight")]
        pub attn_out_w: T,
        #[shape("(d_model,)", name = "attention.output.dense.bias")]
        pub attn_out_b: T,
        #[shape(nested, prefix = "attention.output.LayerNorm")]
        pub attn_ln: LayerNorm<T>,
        #[shape("(d_ff, d_model)", name = "intermediate.dense.weight")]
        pub up_w: T,
        #[shape("(d_ff,)", name = "intermediate.dense.bias")]
        pub up_b: T,
        #[shape("(d_model, d_ff)", name = "output.dense.weight")]
        pub down_w: T,
        #[shape("(d_model,)", name = "output.dense.bias")]
        pub down_b: T,
        #[shape(nested, prefix = "output.LayerNorm")]
        pub out_ln: LayerNorm<T>,
    }

    /// `BertModel`: embeddings, `n_layers` layers, the pooler. `d_model = heads * head_dim`;
    /// `heads` is not visible in any shape, so it comes from the config (`verify_source_with`).
    #[derive(Shaped)]
    #[shapes(where = "d_model = heads * head_dim")]
    pub struct BertModel<T> {
        #[shape(nested)]
        pub embeddings: Embeddings<T>,
        #[shape(nested, prefix = "encoder.layer", count = "n_layers")]
        pub layers: Vec<Layer<T>>,
        #[shape("(d_model, d_model)", name = "pooler.dense.weight")]
        pub pooler_w: T,
        #[shape("(d_model,)", name = "pooler.dense.bias")]
        pub pooler_b: T,
    }

    /// `bert-base-uncased`'s parameter names and shapes as `BertModel` saves them (vocab
    /// 30522, 512 positions, 2 token types, hidden 768, 12 layers of 12 heads, intermediate
    /// 3072): 199 tensors, plus `embeddings.position_ids` when `position_ids` is true.
    pub fn bert_base_uncased(position_ids: bool) -> Vec<(String, Vec<usize>)> {
        let (vocab, pos, types, d, ff, layers) = (30522, 512, 2, 768, 3072, 12);
        let mut t: Vec<(String, Vec<usize>)> = Vec::new();
        let mut add = |name: String, dims: &[usize]| t.push((name, dims.to_vec()));
        add("embeddings.word_embeddings.weight".into(), &[vocab, d]);
        add("embeddings.position_embeddings.weight".into(), &[pos, d]);
        add(
            "embeddings.token_type_embeddings.weight".into(),
            &[types, d],
        );
        add("embeddings.LayerNorm.weight".into(), &[d]);
        add("embeddings.LayerNorm.bias".into(), &[d]);
        if position_ids {
            add("embeddings.position_ids".into(), &[1, pos]);
        }
        for i in 0..layers {
            let l = format!("encoder.layer.{i}");
            for m in ["query", "key", "value"] {
                add(format!("{l}.attention.self.{m}.weight"), &[d, d]);
                add(format!("{l}.attention.self.{m}.bias"), &[d]);
            }
            add(format!("{l}.attention.output.dense.weight"), &[d, d]);
            add(format!("{l}.attention.output.dense.bias"), &[d]);
            add(format!("{l}.attention.output.LayerNorm.weight"), &[d]);
            add(format!("{l}.attention.output.LayerNorm.bias"), &[d]);
            add(format!("{l}.intermediate.dense.weight"), &[ff, d]);
            add(format!("{l}.intermediate.dense.bias"), &[ff]);
            add(format!("{l}.output.dense.weight"), &[d, ff]);
            add(format!("{l}.output.dense.bias"), &[d]);
            add(format!("{l}.output.LayerNorm.weight"), &[d]);
            add(format!("{l}.output.LayerNorm.bias"), &[d]);
        }
        add("pooler.dense.weight".into(), &[d, d]);
        add("pooler.dense.bias".into(), &[d]);
        t
    }
}
