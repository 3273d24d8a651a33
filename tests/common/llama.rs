//! A Llama-style decoder as transformers names its parameters (`LlamaForCausalLM`), for
//! checking checkpoints with `verify_source`: grouped-query attention (`k`/`v` of
//! `(kv_heads * head_dim, d_model)`), a gated FFN (gate, up, down), RMSNorms, `n_layers`
//! layers counted from the names, and an `lm_head` that is absent when the output projection
//! is tied to the embeddings.

use shapes::Shaped;

/// `model.layers.{i}.self_attn.*`: `heads` query heads sharing `kv_heads` key/value heads.
#[derive(Shaped)]
#[shapes(given = "heads")]
pub struct Attention<T> {
    #[shape("(heads * head_dim, d_model)", name = "q_proj.weight")]
    pub q: T,
    #[shape("(kv_heads * head_dim, d_model)", name = "k_proj.weight")]
    pub k: T,
    #[shape("(kv_heads * head_dim, d_model)", name = "v_proj.weight")]
    pub v: T,
    #[shape("(d_model, heads * head_dim)", name = "o_proj.weight")]
    pub o: T,
    /// RoPE's inverse frequencies, a buffer older checkpoints saved: one per pair of dims.
    #[shape("(head_dim / 2,)", name = "rotary_emb.inv_freq")]
    pub inv_freq: Option<T>,
}

/// `model.layers.{i}.mlp.*`: SwiGLU, `down(silu(gate(x)) * up(x))`.
#[derive(Shaped)]
pub struct Mlp<T> {
    #[shape("(d_ff, d_model)", name = "gate_proj.weight")]
    pub gate: T,
    #[shape("(d_ff, d_model)", name = "up_proj.weight")]
    pub up: T,
    #[shape("(d_model, d_ff)", name = "down_proj.weight")]
    pub down: T,
}

/// `model.layers.{i}.*`.
#[derive(Shaped)]
pub struct Layer<T> {
    #[shape(nested)]
    pub self_attn: Attention<T>,
    #[shape(nested)]
    pub mlp: Mlp<T>,
    #[shape("(d_model,)", name = "input_layernorm.weight")]
    pub attn_norm: T,
    #[shape("(d_model,)", name = "post_attention_layernorm.weight")]
    pub mlp_norm: T,
}

/// `model.*`: embeddings, `n_layers` layers, the final RMSNorm.
#[derive(Shaped)]
#[shapes(where = "d_model = heads * head_dim")]
pub struct Model<T> {
    #[shape("(vocab, d_model)", name = "embed_tokens.weight")]
    pub embed: T,
    #[shape(nested, count = "n_layers")]
    pub layers: Vec<Layer<T>>,
    #[shape("(d_model,)", name = "norm.weight")]
    pub norm: T,
}

/// `LlamaForCausalLM`.
#[derive(Shaped)]
pub struct LlamaForCausalLM<T> {
    #[shape(nested)]
    pub model: Model<T>,
    /// `None` when the output projection is tied to `model.embed_tokens` (the file then has
    /// no `lm_head.weight`).
    #[shape("(vocab, d_model)", name = "lm_head.weight")]
    pub lm_head: Option<T>,
}

/// TinyLlama-1.1B's parameter names and shapes (vocab 32000, hidden 2048, 22 layers, 32 query
/// heads and 4 key/value heads of 64 dims, intermediate 5632, untied `lm_head`): 201 tensors.
pub fn tinyllama_1_1b() -> Vec<(String, Vec<usize>)> {
    let (vocab, d, layers, heads, kv_heads, head_dim, ff) = (32000, 2048, 22, 32, 4, 64, 5632);
    let mut t: Vec<(String, Vec<usize>)> = Vec::new();
    let mut add = |name: String, dims: &[usize]| t.push((name, dims.to_vec()));
    add("model.embed_tokens.weight".into(), &[vocab, d]);
    for i in 0..layers {
        let l = format!("model.layers.{i}");
        add(
            format!("{l}.self_attn.q_proj.weight"),
            &[heads * head_dim, d],
        );
        add(
            format!("{l}.self_attn.k_proj.weight"),
            &[kv_heads * head_dim, d],
        );
        add(
            format!("{l}.self_attn.v_proj.weight"),
            &[kv_heads * head_dim, d],
        );
        add(
            format!("{l}.self_attn.o_proj.weight"),
            &[d, heads * head_dim],
        );
        add(format!("{l}.mlp.gate_proj.weight"), &[ff, d]);
        add(format!("{l}.mlp.up_proj.weight"), &[ff, d]);
        add(format!("{l}.mlp.down_proj.weight"), &[d, ff]);
        add(format!("{l}.input_layernorm.weight"), &[d]);
        add(format!("{l}.post_attention_layernorm.weight"), &[d]);
    }
    add("model.norm.weight".into(), &[d]);
    add("lm_head.weight".into(), &[vocab, d]);
    t
}
