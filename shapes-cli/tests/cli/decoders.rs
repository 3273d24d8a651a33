//! The built-in decoder families in Hugging Face names, each on a header written from a
//! published model's config.json values, checked as they are and with one dim changed.

use crate::models::M;
use crate::support::*;
use crate::{has_line, hf_dir, s};

/// `tensors` with `config` match the built-in spec the config names (the report is
/// returned); the copy with `corrupt` reshaped to `dims` does not, and its report has
/// `expect`.
pub fn passes_then_caught(
    name: &str,
    tensors: &Tensors,
    config: &str,
    corrupt: &str,
    dims: &[usize],
    expect: &str,
) -> String {
    let path = hf_dir(name, tensors, config);
    let (code, ok, err) = shapes(&["check", s(&path)]);
    assert_eq!(code, 0, "{name}: {ok}{err}");
    assert!(ok.contains("OK: the checkpoint matches the spec"), "{ok}");
    assert!(
        tensors.iter().any(|(n, _)| n == corrupt),
        "{name}: no tensor {corrupt}"
    );
    let bad = reshaped(tensors.clone(), corrupt, dims);
    let path = hf_dir(&format!("{name}_bad"), &bad, config);
    let (code, out, err) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{name}: {out}{err}");
    assert!(out.contains(expect), "{name}: {out}");
    ok
}

/// A Llama-style attention (q/k/v/o) under `a`.
fn attn(l: &mut M, a: &str, d: usize, heads: usize, kv: usize, hd: usize, bias: bool) {
    l.lin(&format!("{a}.q_proj"), heads * hd, d, bias)
        .lin(&format!("{a}.k_proj"), kv * hd, d, bias)
        .lin(&format!("{a}.v_proj"), kv * hd, d, bias)
        .lin(&format!("{a}.o_proj"), d, heads * hd, false);
}

/// A SwiGLU MLP (gate, up, down) under `m`.
fn swiglu(l: &mut M, m: &str, d: usize, ff: usize) {
    l.lin(&format!("{m}.gate_proj"), ff, d, false)
        .lin(&format!("{m}.up_proj"), ff, d, false)
        .lin(&format!("{m}.down_proj"), d, ff, false);
}

#[test]
fn qwen3_with_its_per_head_norms() {
    // Qwen/Qwen3-0.6B config.json: 28 layers, hidden 1024, 16 heads and 8 key/value heads of
    // 128 (heads * head_dim = 2048, not the width), intermediate 3072, vocab 151936, tied.
    let (d, ff, layers, heads, kv, hd, vocab) = (1024, 3072, 28, 16, 8, 128, 151936);
    let t = M::new()
        .t("model.embed_tokens.weight", &[vocab, d])
        .each("model.layers", layers, |l, _| {
            attn(l, "self_attn", d, heads, kv, hd, false);
            l.norm("self_attn.q_norm", hd, false)
                .norm("self_attn.k_norm", hd, false);
            swiglu(l, "mlp", d, ff);
            l.norm("input_layernorm", d, false)
                .norm("post_attention_layernorm", d, false);
        })
        .norm("model.norm", d, false)
        .done();
    let config = r#"{"architectures":["Qwen3ForCausalLM"],"model_type":"qwen3","hidden_size":1024,"intermediate_size":3072,"num_hidden_layers":28,"num_attention_heads":16,"num_key_value_heads":8,"head_dim":128,"vocab_size":151936,"max_position_embeddings":40960,"tie_word_embeddings":true}"#;
    let out = passes_then_caught(
        "qwen3",
        &t,
        config,
        "model.layers.3.self_attn.k_norm.weight",
        &[64],
        "Qwen3.model.layers[3].self_attn.k_norm.weight: config `head_dim` = 128, but \"model.layers.3.self_attn.k_norm.weight\" axis 0 is 64",
    );
    assert!(has_line(&out, "head_dim 128 config `head_dim`"), "{out}");
}

#[test]
fn gemma_with_multi_query_attention() {
    // google/gemma-2b config.json: 18 layers, hidden 2048, 8 query heads sharing one
    // key/value head of 256, intermediate 16384, vocab 256000, the head tied.
    let (d, ff, layers, heads, kv, hd, vocab) = (2048, 16384, 18, 8, 1, 256, 256000);
    let t = M::new()
        .t("model.embed_tokens.weight", &[vocab, d])
        .each("model.layers", layers, |l, _| {
            attn(l, "self_attn", d, heads, kv, hd, false);
            swiglu(l, "mlp", d, ff);
            l.norm("input_layernorm", d, false)
                .norm("post_attention_layernorm", d, false);
        })
        .norm("model.norm", d, false)
        .done();
    let config = r#"{"architectures":["GemmaForCausalLM"],"model_type":"gemma","hidden_size":2048,"intermediate_size":16384,"num_hidden_layers":18,"num_attention_heads":8,"num_key_value_heads":1,"head_dim":256,"vocab_size":256000,"max_position_embeddings":8192}"#;
    passes_then_caught(
        "gemma",
        &t,
        config,
        "model.layers.17.self_attn.v_proj.weight",
        &[512, 2048],
        "(tensor \"model.layers.17.self_attn.v_proj.weight\"): axis 0 expected kv_heads * head_dim = 1 * 256, found 512",
    );
}

#[test]
fn gemma2_with_its_four_norms_a_layer() {
    // google/gemma-2-2b config.json: 26 layers, hidden 2304, 8 heads and 4 key/value heads of
    // 256, intermediate 9216, vocab 256000.
    let (d, ff, layers, heads, kv, hd, vocab) = (2304, 9216, 26, 8, 4, 256, 256000);
    let t = M::new()
        .t("model.embed_tokens.weight", &[vocab, d])
        .each("model.layers", layers, |l, _| {
            attn(l, "self_attn", d, heads, kv, hd, false);
            swiglu(l, "mlp", d, ff);
            for n in [
                "input_layernorm",
                "post_attention_layernorm",
                "pre_feedforward_layernorm",
                "post_feedforward_layernorm",
            ] {
                l.norm(n, d, false);
            }
        })
        .norm("model.norm", d, false)
        .done();
    let config = r#"{"architectures":["Gemma2ForCausalLM"],"model_type":"gemma2","hidden_size":2304,"intermediate_size":9216,"num_hidden_layers":26,"num_attention_heads":8,"num_key_value_heads":4,"head_dim":256,"vocab_size":256000,"query_pre_attn_scalar":256,"sliding_window":4096}"#;
    passes_then_caught(
        "gemma2",
        &t,
        config,
        "model.layers.9.pre_feedforward_layernorm.weight",
        &[2048],
        "config `hidden_size` = 2304, but \"model.layers.9.pre_feedforward_layernorm.weight\" axis 0 is 2048",
    );
    // A layer without its post-feed-forward norm is missing it.
    let t2: Tensors = t
        .into_iter()
        .filter(|(n, _)| n != "model.layers.4.post_feedforward_layernorm.weight")
        .collect();
    let path = hf_dir("gemma2_missing", &t2, config);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("missing tensors (1):\n  model.layers.4.post_feedforward_layernorm.weight"),
        "{out}"
    );
}

/// Gemma 3's decoder layers (q/k norms and the four norms) under `m`.
fn gemma3_layers(m: &mut M, prefix: &str, n: usize, d: usize, ff: usize, heads: usize, kv: usize) {
    let hd = 256;
    m.each(prefix, n, |l, _| {
        attn(l, "self_attn", d, heads, kv, hd, false);
        l.norm("self_attn.q_norm", hd, false)
            .norm("self_attn.k_norm", hd, false);
        swiglu(l, "mlp", d, ff);
        for n in [
            "input_layernorm",
            "post_attention_layernorm",
            "pre_feedforward_layernorm",
            "post_feedforward_layernorm",
        ] {
            l.norm(n, d, false);
        }
    });
}

#[test]
fn gemma3_text_only() {
    // google/gemma-3-1b-it config.json (Gemma3ForCausalLM, model_type gemma3_text): 26
    // layers, hidden 1152, 4 heads and one key/value head of 256, intermediate 6912, vocab
    // 262144.
    let (d, ff, vocab) = (1152, 6912, 262144);
    let mut m = M::new();
    m.t("model.embed_tokens.weight", &[vocab, d]);
    gemma3_layers(&mut m, "model.layers", 26, d, ff, 4, 1);
    let t = m.norm("model.norm", d, false).done();
    let config = r#"{"architectures":["Gemma3ForCausalLM"],"model_type":"gemma3_text","hidden_size":1152,"intermediate_size":6912,"num_hidden_layers":26,"num_attention_heads":4,"num_key_value_heads":1,"head_dim":256,"vocab_size":262144,"sliding_window":512}"#;
    passes_then_caught(
        "gemma3_1b",
        &t,
        config,
        "model.layers.20.mlp.down_proj.weight",
        &[1152, 13824],
        "config `intermediate_size` = 6912, but \"model.layers.20.mlp.down_proj.weight\" axis 1 is 13824",
    );
}

#[test]
fn gemma3_multimodal_with_its_vision_tower() {
    // google/gemma-3-4b-it config.json (Gemma3ForConditionalGeneration): text_config hidden
    // 2560, intermediate 10240, 34 layers (8 heads and 4 key/value heads of 256, vocab 262208:
    // the defaults it does not restate); vision_config (SigLIP, no pooling head) hidden 1152,
    // intermediate 4304, 27 layers, 896-pixel images in patches of 14 (64 × 64 positions).
    let (d, ff, vocab, vd, vff) = (2560, 10240, 262208, 1152, 4304);
    let mut m = M::new();
    m.t("language_model.model.embed_tokens.weight", &[vocab, d]);
    gemma3_layers(&mut m, "language_model.model.layers", 34, d, ff, 8, 4);
    m.norm("language_model.model.norm", d, false);
    m.under("vision_tower.vision_model", |v| {
        v.t("embeddings.patch_embedding.weight", &[vd, 3, 14, 14])
            .t("embeddings.patch_embedding.bias", &[vd])
            .t("embeddings.position_embedding.weight", &[4096, vd])
            .each("encoder.layers", 27, |l, _| {
                for p in ["q_proj", "k_proj", "v_proj", "out_proj"] {
                    l.lin(&format!("self_attn.{p}"), vd, vd, true);
                }
                l.norm("layer_norm1", vd, true)
                    .lin("mlp.fc1", vff, vd, true)
                    .lin("mlp.fc2", vd, vff, true)
                    .norm("layer_norm2", vd, true);
            })
            .norm("post_layernorm", vd, true);
    });
    let t = m
        .t("multi_modal_projector.mm_input_projection_weight", &[vd, d])
        .t("multi_modal_projector.mm_soft_emb_norm.weight", &[vd])
        .done();
    let config = r#"{"architectures":["Gemma3ForConditionalGeneration"],"model_type":"gemma3","mm_tokens_per_image":256,"text_config":{"hidden_size":2560,"intermediate_size":10240,"model_type":"gemma3_text","num_hidden_layers":34,"sliding_window":1024},"vision_config":{"hidden_size":1152,"image_size":896,"intermediate_size":4304,"model_type":"siglip_vision_model","num_attention_heads":16,"num_hidden_layers":27,"patch_size":14,"vision_use_head":false}}"#;
    let out = passes_then_caught(
        "gemma3_4b",
        &t,
        config,
        "vision_tower.vision_model.embeddings.position_embedding.weight",
        &[4097, 1152],
        "(tensor \"vision_tower.vision_model.embeddings.position_embedding.weight\"): axis 0 expected v_image / v_patch * (v_image / v_patch) = 896 / 14 * (896 / 14) = 4096, found 4097",
    );
    assert!(
        has_line(&out, "d_model 2560 config `text_config.hidden_size`"),
        "{out}"
    );
    assert!(
        has_line(&out, "v_image 896 config `vision_config.image_size`"),
        "{out}"
    );
    // The projector into the text width, transposed.
    let t = reshaped(
        t,
        "multi_modal_projector.mm_input_projection_weight",
        &[2560, 1152],
    );
    let path = hf_dir("gemma3_4b_proj", &t, config);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("\"multi_modal_projector.mm_input_projection_weight\""),
        "{out}"
    );
}

#[test]
fn phi3_with_fused_qkv_and_gate_up() {
    // microsoft/Phi-3-mini-4k-instruct config.json: 32 layers, hidden 3072, 32 heads (and 32
    // key/value heads) of 96, intermediate 8192, vocab 32064, untied head.
    let (d, ff, layers, vocab) = (3072, 8192, 32, 32064);
    let t = M::new()
        .t("model.embed_tokens.weight", &[vocab, d])
        .each("model.layers", layers, |l, _| {
            l.lin("self_attn.qkv_proj", 3 * d, d, false)
                .lin("self_attn.o_proj", d, d, false)
                .lin("mlp.gate_up_proj", 2 * ff, d, false)
                .lin("mlp.down_proj", d, ff, false)
                .norm("input_layernorm", d, false)
                .norm("post_attention_layernorm", d, false);
        })
        .norm("model.norm", d, false)
        .t("lm_head.weight", &[vocab, d])
        .done();
    let config = r#"{"architectures":["Phi3ForCausalLM"],"model_type":"phi3","hidden_size":3072,"intermediate_size":8192,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":32,"vocab_size":32064,"max_position_embeddings":4096,"tie_word_embeddings":false}"#;
    let out = passes_then_caught(
        "phi3",
        &t,
        config,
        "model.layers.5.mlp.gate_up_proj.weight",
        &[8192, 3072],
        "(tensor \"model.layers.5.mlp.gate_up_proj.weight\"): axis 0 expected 2 * d_ff = 2 * 8192 = 16384, found 8192",
    );
    assert!(
        has_line(
            &out,
            "head_dim 96 solving Phi3.model.layers[0].self_attn.qkv_proj.weight"
        ),
        "{out}"
    );
}

#[test]
fn phi2_with_its_biases_and_head_bias() {
    // microsoft/phi-2 config.json: 32 layers, hidden 2560, 32 heads (num_key_value_heads
    // null), intermediate 10240, vocab 51200, untied head with a bias.
    let (d, ff, layers, vocab) = (2560, 10240, 32, 51200);
    let t = M::new()
        .t("model.embed_tokens.weight", &[vocab, d])
        .each("model.layers", layers, |l, _| {
            for p in ["q_proj", "k_proj", "v_proj", "dense"] {
                l.lin(&format!("self_attn.{p}"), d, d, true);
            }
            l.lin("mlp.fc1", ff, d, true)
                .lin("mlp.fc2", d, ff, true)
                .norm("input_layernorm", d, true);
        })
        .norm("model.final_layernorm", d, true)
        .lin("lm_head", vocab, d, true)
        .done();
    let config = r#"{"architectures":["PhiForCausalLM"],"model_type":"phi","hidden_size":2560,"intermediate_size":10240,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":null,"vocab_size":51200,"partial_rotary_factor":0.4,"qk_layernorm":false,"tie_word_embeddings":false}"#;
    passes_then_caught(
        "phi2",
        &t,
        config,
        "lm_head.bias",
        &[50295],
        "config `vocab_size` = 51200, but \"lm_head.bias\" axis 0 is 50295",
    );
}

#[test]
fn starcoder2_with_biases_everywhere() {
    // bigcode/starcoder2-3b config.json: 30 layers, hidden 3072, 24 heads and 2 key/value
    // heads of 128, intermediate 12288, vocab 49152, use_bias, the head tied.
    let (d, ff, layers, heads, kv, hd, vocab) = (3072, 12288, 30, 24, 2, 128, 49152);
    let t = M::new()
        .t("model.embed_tokens.weight", &[vocab, d])
        .each("model.layers", layers, |l, _| {
            l.lin("self_attn.q_proj", heads * hd, d, true)
                .lin("self_attn.k_proj", kv * hd, d, true)
                .lin("self_attn.v_proj", kv * hd, d, true)
                .lin("self_attn.o_proj", d, heads * hd, true)
                .lin("mlp.c_fc", ff, d, true)
                .lin("mlp.c_proj", d, ff, true)
                .norm("input_layernorm", d, true)
                .norm("post_attention_layernorm", d, true);
        })
        .norm("model.norm", d, true)
        .done();
    let config = r#"{"architectures":["Starcoder2ForCausalLM"],"model_type":"starcoder2","hidden_size":3072,"intermediate_size":12288,"num_hidden_layers":30,"num_attention_heads":24,"num_key_value_heads":2,"vocab_size":49152,"max_position_embeddings":16384,"use_bias":true,"tie_word_embeddings":true}"#;
    passes_then_caught(
        "starcoder2",
        &t,
        config,
        "model.layers.29.self_attn.k_proj.bias",
        &[3072],
        "(tensor \"model.layers.29.self_attn.k_proj.bias\"): axis 0 expected kv_dim = 256, found 3072",
    );
}

#[test]
fn falcon_7b_multi_query() {
    // tiiuae/falcon-7b config.json: 32 layers, hidden 4544, 71 query heads of 64 sharing one
    // key/value head (multi_query: 4544 + 2 * 64 = 4672 rows of query_key_value), a parallel
    // attention and MLP after one LayerNorm, no linear biases, vocab 65024.
    let (d, layers, vocab) = (4544, 32, 65024);
    let t = M::new()
        .t("transformer.word_embeddings.weight", &[vocab, d])
        .each("transformer.h", layers, |l, _| {
            l.norm("input_layernorm", d, true)
                .lin("self_attention.query_key_value", d + 128, d, false)
                .lin("self_attention.dense", d, d, false)
                .lin("mlp.dense_h_to_4h", 4 * d, d, false)
                .lin("mlp.dense_4h_to_h", d, 4 * d, false);
        })
        .norm("transformer.ln_f", d, true)
        .done();
    let config = r#"{"architectures":["FalconForCausalLM"],"model_type":"falcon","hidden_size":4544,"num_attention_heads":71,"num_hidden_layers":32,"multi_query":true,"new_decoder_architecture":false,"parallel_attn":true,"bias":false,"vocab_size":65024}"#;
    let out = passes_then_caught(
        "falcon",
        &t,
        config,
        "transformer.h.30.self_attention.query_key_value.weight",
        &[4544 + 64, 4544],
        "(tensor \"transformer.h.30.self_attention.query_key_value.weight\"): axis 0 expected qkv = 4672, found 4608",
    );
    assert!(has_line(&out, "kv_heads 1 solving Falcon"), "{out}");
}

#[test]
fn gpt_neox_pythia_under_its_prefix() {
    // EleutherAI/pythia-70m config.json: 6 layers, hidden 512, 8 heads, intermediate 2048,
    // vocab 50304, 2048 positions; GPTNeoXForCausalLM saves the model under `gpt_neox.`
    // beside `embed_out`.
    let (d, ff, layers, vocab) = (512, 2048, 6, 50304);
    let t = M::new()
        .t("gpt_neox.embed_in.weight", &[vocab, d])
        .each("gpt_neox.layers", layers, |l, _| {
            l.norm("input_layernorm", d, true)
                .norm("post_attention_layernorm", d, true)
                .lin("attention.query_key_value", 3 * d, d, true)
                .lin("attention.dense", d, d, true)
                .lin("mlp.dense_h_to_4h", ff, d, true)
                .lin("mlp.dense_4h_to_h", d, ff, true)
                .t("attention.rotary_emb.inv_freq", &[8]);
        })
        .norm("gpt_neox.final_layer_norm", d, true)
        .t("embed_out.weight", &[vocab, d])
        .done();
    let config = r#"{"architectures":["GPTNeoXForCausalLM"],"model_type":"gpt_neox","hidden_size":512,"intermediate_size":2048,"num_attention_heads":8,"num_hidden_layers":6,"vocab_size":50304,"max_position_embeddings":2048,"rotary_pct":0.25,"tie_word_embeddings":false}"#;
    passes_then_caught(
        "pythia",
        &t,
        config,
        "embed_out.weight",
        &[50277, 512],
        "config `vocab_size` = 50304, but \"embed_out.weight\" axis 0 is 50277",
    );
}

#[test]
fn mistral_is_a_llama() {
    // mistralai/Mistral-7B-v0.1 config.json: 32 layers, hidden 4096, 32 heads and 8
    // key/value heads (of 128, not stated), intermediate 14336, vocab 32000, untied head.
    let m = Llama {
        vocab: 32000,
        d: 4096,
        layers: 32,
        heads: 32,
        kv_heads: 8,
        head_dim: 128,
        ff: 14336,
        tied: false,
        qkv_bias: false,
    };
    let config = m
        .config("mistral")
        .replace("LlamaForCausalLM", "MistralForCausalLM");
    let out = passes_then_caught(
        "mistral",
        &m.hf(),
        &config,
        "lm_head.weight",
        &[32000, 5120],
        "config `hidden_size` = 4096, but \"lm_head.weight\" axis 1 is 5120",
    );
    assert!(
        out.contains("spec: Llama (<built-in llama, Hugging Face names>)"),
        "{out}"
    );
}
