// Written by `shapes spec --rust` from a checkpoint (safetensors).
// The derive checks no dtype; the checkpoint's are F16.

#[derive(shapes::Shaped)]
#[shapes(config(d_ff = "intermediate_size", d_model = "hidden_size", head_dim = "head_dim", kv_heads = "num_key_value_heads", n_experts = "num_experts", n_layers = "num_hidden_layers", vocab = "vocab_size"))]
#[shapes(where = "n_draft = 2")]
pub struct TinyMoe<T> {
    #[shape("(vocab, d_model)", name = "lm_head.weight")]
    pub lm_head_weight: T,
    #[shape(nested, prefix = "model.draft", count = "n_draft")]
    pub model_draft: Vec<Draft<T>>,
    #[shape("(vocab, d_model)", name = "model.embed_tokens.weight")]
    pub model_embed_tokens_weight: T,
    #[shape(nested, prefix = "model.layers", count = "n_layers")]
    pub model_layers: Vec<Layer<T>>,
}

#[derive(shapes::Shaped)]
#[shapes(given = "head_dim, kv_heads")]
pub struct Draft<T> {
    #[shape("(kv_heads * head_dim, d_model)", name = "k_proj.weight")]
    pub k_proj_weight: T,
    #[shape("(d_model,)", name = "norm.weight")]
    pub norm_weight: T,
}

#[derive(shapes::Shaped)]
#[shapes(given = "head_dim, kv_heads")]
pub struct Layer<T> {
    #[shape(nested, prefix = "mlp.experts", count = "n_experts")]
    pub mlp_experts: Vec<Expert<T>>,
    #[shape("(n_experts, d_model)", name = "mlp.gate.weight")]
    pub mlp_gate_weight: T,
    #[shape("(d_model,)", name = "norm.bias")]
    pub norm_bias: T,
    #[shape("(d_model,)", name = "norm.weight")]
    pub norm_weight: T,
    #[shape("(kv_heads * head_dim, d_model)", name = "self_attn.k_proj.weight")]
    pub self_attn_k_proj_weight: T,
    #[shape("(d_model,)", name = "self_attn.q_proj.bias")]
    pub self_attn_q_proj_bias: Option<T>,
    #[shape("(d_model, d_model)", name = "self_attn.q_proj.weight")]
    pub self_attn_q_proj_weight: T,
}

#[derive(shapes::Shaped)]
pub struct Expert<T> {
    #[shape("(d_model, d_ff)", name = "down.weight")]
    pub down_weight: T,
    #[shape("(d_ff, d_model)", name = "up.weight")]
    pub up_weight: T,
}
