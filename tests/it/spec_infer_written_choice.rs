// Written by `shapes spec --rust` from a checkpoint (sharded safetensors, 3 files).
// The derive checks no dtype; the checkpoint's are BF16, F32, F8_E4M3.

#[derive(shapes::Shaped)]
#[shapes(config(d_ff = "intermediate_size", d_ff_exp = "moe_intermediate_size", d_model = "hidden_size", kv_lora = "kv_lora_rank", n_experts = "n_routed_experts", q_lora = "q_lora_rank", vocab = "vocab_size"))]
#[shapes(where = "n_layer = 6")]
pub struct DeepseekV3<T> {
    #[shape("(vocab, d_model)", name = "lm_head.weight")]
    pub lm_head_weight: T,
    #[shape("(vocab, d_model)", name = "model.embed_tokens.weight")]
    pub model_embed_tokens_weight: T,
    #[shape(nested, prefix = "model.layers", count = "n_layer")]
    pub model_layers: Vec<Layer<T>>,
    #[shape("(d_model,)", name = "model.norm.weight")]
    pub model_norm_weight: T,
}

#[derive(shapes::Shaped)]
pub struct Layer<T> {
    #[shape("(d_model, 14336)", name = "eh_proj.weight")]
    pub eh_proj_weight: Option<T>,
    #[shape("(vocab, d_model)", name = "embed_tokens.weight")]
    pub embed_tokens_weight: Option<T>,
    #[shape("(d_model,)", name = "enorm.weight")]
    pub enorm_weight: Option<T>,
    #[shape("(d_model,)", name = "hnorm.weight")]
    pub hnorm_weight: Option<T>,
    #[shape("(d_model,)", name = "input_layernorm.weight")]
    pub input_layernorm_weight: T,
    /// One of the blocks an element holds at `mlp` (`one_of` in a spec file).
    #[shape(nested, prefix = "mlp")]
    pub mlp: Mlp<T>,
    /// One of the blocks an element holds at `mlp` (`one_of` in a spec file).
    #[shape(nested, prefix = "mlp")]
    pub mlp_2: Mlp2<T>,
    #[shape("(d_model,)", name = "post_attention_layernorm.weight")]
    pub post_attention_layernorm_weight: T,
    #[shape("(kv_lora,)", name = "self_attn.kv_a_layernorm.weight")]
    pub self_attn_kv_a_layernorm_weight: T,
    #[shape("(576, d_model)", name = "self_attn.kv_a_proj_with_mqa.weight")]
    pub self_attn_kv_a_proj_with_mqa_weight: T,
    #[shape("(5, 56)", name = "self_attn.kv_a_proj_with_mqa.weight_scale_inv")]
    pub self_attn_kv_a_proj_with_mqa_weight_scale_inv: T,
    #[shape("(32768, kv_lora)", name = "self_attn.kv_b_proj.weight")]
    pub self_attn_kv_b_proj_weight: T,
    #[shape("(256, 4)", name = "self_attn.kv_b_proj.weight_scale_inv")]
    pub self_attn_kv_b_proj_weight_scale_inv: T,
    #[shape("(d_model, 16384)", name = "self_attn.o_proj.weight")]
    pub self_attn_o_proj_weight: T,
    #[shape("(56, 128)", name = "self_attn.o_proj.weight_scale_inv")]
    pub self_attn_o_proj_weight_scale_inv: T,
    #[shape("(q_lora,)", name = "self_attn.q_a_layernorm.weight")]
    pub self_attn_q_a_layernorm_weight: T,
    #[shape("(q_lora, d_model)", name = "self_attn.q_a_proj.weight")]
    pub self_attn_q_a_proj_weight: T,
    #[shape("(12, 56)", name = "self_attn.q_a_proj.weight_scale_inv")]
    pub self_attn_q_a_proj_weight_scale_inv: T,
    #[shape("(24576, q_lora)", name = "self_attn.q_b_proj.weight")]
    pub self_attn_q_b_proj_weight: T,
    #[shape("(192, 12)", name = "self_attn.q_b_proj.weight_scale_inv")]
    pub self_attn_q_b_proj_weight_scale_inv: T,
    #[shape("(vocab, d_model)", name = "shared_head.head.weight")]
    pub shared_head_head_weight: Option<T>,
    #[shape("(d_model,)", name = "shared_head.norm.weight")]
    pub shared_head_norm_weight: Option<T>,
}

#[derive(shapes::Shaped)]
pub struct Mlp<T> {
    #[shape("(d_model, d_ff)", name = "down_proj.weight")]
    pub down_proj_weight: Option<T>,
    #[shape("(56, 144)", name = "down_proj.weight_scale_inv")]
    pub down_proj_weight_scale_inv: Option<T>,
    #[shape("(d_ff, d_model)", name = "gate_proj.weight")]
    pub gate_proj_weight: Option<T>,
    #[shape("(144, 56)", name = "gate_proj.weight_scale_inv")]
    pub gate_proj_weight_scale_inv: Option<T>,
    #[shape("(d_ff, d_model)", name = "up_proj.weight")]
    pub up_proj_weight: Option<T>,
    #[shape("(144, 56)", name = "up_proj.weight_scale_inv")]
    pub up_proj_weight_scale_inv: Option<T>,
}

#[derive(shapes::Shaped)]
pub struct Mlp2<T> {
    #[shape(nested, prefix = "experts")]
    pub experts: Option<Vec<Expert<T>>>,
    #[shape("(n_experts,)", name = "gate.e_score_correction_bias")]
    pub gate_e_score_correction_bias: Option<T>,
    #[shape("(n_experts, d_model)", name = "gate.weight")]
    pub gate_weight: Option<T>,
    #[shape("(d_model, d_ff_exp)", name = "shared_experts.down_proj.weight")]
    pub shared_experts_down_proj_weight: Option<T>,
    #[shape("(56, 16)", name = "shared_experts.down_proj.weight_scale_inv")]
    pub shared_experts_down_proj_weight_scale_inv: Option<T>,
    #[shape("(d_ff_exp, d_model)", name = "shared_experts.gate_proj.weight")]
    pub shared_experts_gate_proj_weight: Option<T>,
    #[shape("(16, 56)", name = "shared_experts.gate_proj.weight_scale_inv")]
    pub shared_experts_gate_proj_weight_scale_inv: Option<T>,
    #[shape("(d_ff_exp, d_model)", name = "shared_experts.up_proj.weight")]
    pub shared_experts_up_proj_weight: Option<T>,
    #[shape("(16, 56)", name = "shared_experts.up_proj.weight_scale_inv")]
    pub shared_experts_up_proj_weight_scale_inv: Option<T>,
}

#[derive(shapes::Shaped)]
pub struct Expert<T> {
    #[shape("(d_model, d_ff_exp)", name = "down_proj.weight")]
    pub down_proj_weight: T,
    #[shape("(56, 16)", name = "down_proj.weight_scale_inv")]
    pub down_proj_weight_scale_inv: T,
    #[shape("(d_ff_exp, d_model)", name = "gate_proj.weight")]
    pub gate_proj_weight: T,
    #[shape("(16, 56)", name = "gate_proj.weight_scale_inv")]
    pub gate_proj_weight_scale_inv: T,
    #[shape("(d_ff_exp, d_model)", name = "up_proj.weight")]
    pub up_proj_weight: T,
    #[shape("(16, 56)", name = "up_proj.weight_scale_inv")]
    pub up_proj_weight_scale_inv: T,
}
