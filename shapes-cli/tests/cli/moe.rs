//! The built-in mixture-of-experts families in Hugging Face names (Mixtral, Qwen2-MoE,
//! Qwen3-MoE, DeepSeek-V3), on headers written from published config.json values: experts,
//! routers, shared experts, dense first layers, FP8 block scales.

use std::path::PathBuf;

use crate::decoders::passes_then_caught;
use crate::models::M;
use crate::support::*;
use crate::{has_line, hf_dir, s};

#[test]
fn mixtral_with_eight_experts_a_layer() {
    // mistralai/Mixtral-8x7B-v0.1 config.json: 32 layers, hidden 4096, 32 heads and 8
    // key/value heads of 128, 8 local experts of intermediate 14336 (2 per token), vocab
    // 32000, untied head.
    let (d, ff, layers, experts, vocab) = (4096, 14336, 32, 8, 32000);
    let t = M::new()
        .t("model.embed_tokens.weight", &[vocab, d])
        .each("model.layers", layers, |l, _| {
            l.lin("self_attn.q_proj", d, d, false)
                .lin("self_attn.k_proj", 1024, d, false)
                .lin("self_attn.v_proj", 1024, d, false)
                .lin("self_attn.o_proj", d, d, false)
                .lin("block_sparse_moe.gate", experts, d, false)
                .each("block_sparse_moe.experts", experts, |e, _| {
                    e.lin("w1", ff, d, false)
                        .lin("w2", d, ff, false)
                        .lin("w3", ff, d, false);
                })
                .norm("input_layernorm", d, false)
                .norm("post_attention_layernorm", d, false);
        })
        .norm("model.norm", d, false)
        .t("lm_head.weight", &[vocab, d])
        .done();
    let config = r#"{"architectures":["MixtralForCausalLM"],"model_type":"mixtral","hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"num_local_experts":8,"num_experts_per_tok":2,"vocab_size":32000,"tie_word_embeddings":false}"#;
    let out = passes_then_caught(
        "mixtral",
        &t,
        config,
        "model.layers.12.block_sparse_moe.experts.5.w2.weight",
        &[4096, 14335],
        "Mixtral.model.layers[12].block_sparse_moe.experts[5].w2.weight: config `intermediate_size` = 14336, but \"model.layers.12.block_sparse_moe.experts.5.w2.weight\" axis 1 is 14335",
    );
    assert!(
        has_line(&out, "n_experts 8 config `num_local_experts`"),
        "{out}"
    );
    // A layer with a seventh expert only: the count of experts is the config's.
    let t: Tensors = t
        .into_iter()
        .filter(|(n, _)| !n.starts_with("model.layers.3.block_sparse_moe.experts.7."))
        .collect();
    let path = hf_dir("mixtral_7_experts", &t, config);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("model.layers.3.block_sparse_moe.experts"),
        "{out}"
    );
}

#[test]
fn qwen2_moe_with_routed_and_shared_experts() {
    // Qwen/Qwen1.5-MoE-A2.7B config.json: 24 layers, hidden 2048, 16 heads (and 16 key/value
    // heads) of 128 with q/k/v biases, 60 experts of moe_intermediate_size 1408 (4 per token),
    // a shared expert of 5632 with its gate, intermediate 5632, vocab 151936, untied head.
    let (d, ff_exp, ff_sh, layers, experts, vocab) = (2048, 1408, 5632, 24, 60, 151936);
    let t = M::new()
        .t("model.embed_tokens.weight", &[vocab, d])
        .each("model.layers", layers, |l, _| {
            for p in ["q_proj", "k_proj", "v_proj"] {
                l.lin(&format!("self_attn.{p}"), d, d, true);
            }
            l.lin("self_attn.o_proj", d, d, false)
                .lin("mlp.gate", experts, d, false)
                .each("mlp.experts", experts, |e, _| {
                    e.lin("gate_proj", ff_exp, d, false)
                        .lin("up_proj", ff_exp, d, false)
                        .lin("down_proj", d, ff_exp, false);
                })
                .lin("mlp.shared_expert.gate_proj", ff_sh, d, false)
                .lin("mlp.shared_expert.up_proj", ff_sh, d, false)
                .lin("mlp.shared_expert.down_proj", d, ff_sh, false)
                .lin("mlp.shared_expert_gate", 1, d, false)
                .norm("input_layernorm", d, false)
                .norm("post_attention_layernorm", d, false);
        })
        .norm("model.norm", d, false)
        .t("lm_head.weight", &[vocab, d])
        .done();
    let config = r#"{"architectures":["Qwen2MoeForCausalLM"],"model_type":"qwen2_moe","hidden_size":2048,"intermediate_size":5632,"moe_intermediate_size":1408,"shared_expert_intermediate_size":5632,"num_experts":60,"num_experts_per_tok":4,"decoder_sparse_step":1,"mlp_only_layers":[],"num_hidden_layers":24,"num_attention_heads":16,"num_key_value_heads":16,"vocab_size":151936,"tie_word_embeddings":false}"#;
    passes_then_caught(
        "qwen2_moe",
        &t,
        config,
        "model.layers.8.mlp.shared_expert.up_proj.weight",
        &[1408, 2048],
        "config `shared_expert_intermediate_size` = 5632, but \"model.layers.8.mlp.shared_expert.up_proj.weight\" axis 0 is 1408",
    );
    // A sparse layer that also holds a dense MLP: the dense one is not expected there.
    let mut mixed = t.clone();
    mixed.push(("model.layers.2.mlp.gate_proj.weight".into(), vec![5632, d]));
    let path = hf_dir("qwen2_moe_mixed", &mixed, config);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("unexpected tensors (1):\n  model.layers.2.mlp.gate_proj.weight"),
        "{out}"
    );
    // A sparse layer without its router is missing it, not taken for a dense one.
    let no_router: Tensors = t
        .into_iter()
        .filter(|(n, _)| n != "model.layers.5.mlp.gate.weight")
        .collect();
    let path = hf_dir("qwen2_moe_no_router", &no_router, config);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("missing tensors (1):\n  model.layers.5.mlp.gate.weight"),
        "{out}"
    );
}

#[test]
fn qwen3_moe_with_its_experts() {
    // Qwen/Qwen3-30B-A3B config.json: hidden 2048, 32 heads and 4 key/value heads of 128 (with
    // q/k norms), 128 experts of moe_intermediate_size 768 (8 per token), no shared expert,
    // vocab 151936, untied head; written with 4 of its 48 layers, the config saying so.
    let (d, ff_exp, layers, experts, vocab) = (2048, 768, 4, 128, 151936);
    let t = M::new()
        .t("model.embed_tokens.weight", &[vocab, d])
        .each("model.layers", layers, |l, _| {
            l.lin("self_attn.q_proj", 32 * 128, d, false)
                .lin("self_attn.k_proj", 4 * 128, d, false)
                .lin("self_attn.v_proj", 4 * 128, d, false)
                .lin("self_attn.o_proj", d, 32 * 128, false)
                .norm("self_attn.q_norm", 128, false)
                .norm("self_attn.k_norm", 128, false)
                .lin("mlp.gate", experts, d, false)
                .each("mlp.experts", experts, |e, _| {
                    e.lin("gate_proj", ff_exp, d, false)
                        .lin("up_proj", ff_exp, d, false)
                        .lin("down_proj", d, ff_exp, false);
                })
                .norm("input_layernorm", d, false)
                .norm("post_attention_layernorm", d, false);
        })
        .norm("model.norm", d, false)
        .t("lm_head.weight", &[vocab, d])
        .done();
    let config = r#"{"architectures":["Qwen3MoeForCausalLM"],"model_type":"qwen3_moe","hidden_size":2048,"intermediate_size":6144,"moe_intermediate_size":768,"num_experts":128,"num_experts_per_tok":8,"decoder_sparse_step":1,"mlp_only_layers":[],"num_hidden_layers":4,"num_attention_heads":32,"num_key_value_heads":4,"head_dim":128,"vocab_size":151936,"tie_word_embeddings":false}"#;
    passes_then_caught(
        "qwen3_moe",
        &t,
        config,
        "model.layers.2.mlp.gate.weight",
        &[64, 2048],
        "config `num_experts` = 128, but \"model.layers.2.mlp.gate.weight\" axis 0 is 64",
    );
}

/// A linear layer saved in FP8 with its 128 × 128 block scales, as DeepSeek-V3 publishes it.
fn fp8(m: &mut M, name: &str, out: usize, inp: usize) {
    m.t(&format!("{name}.weight"), &[out, inp]).t(
        &format!("{name}.weight_scale_inv"),
        &[out.div_ceil(128), inp.div_ceil(128)],
    );
}

/// DeepSeek-V3 (deepseek-ai/DeepSeek-V3 config.json: hidden 7168, 128 heads, q_lora_rank 1536,
/// kv_lora_rank 512, qk_nope 128 + qk_rope 64, v_head_dim 128, intermediate 18432, 256 routed
/// experts of 2048 and one shared, first_k_dense_replace 3, vocab 129280, one
/// multi-token-prediction layer) written with `layers` decoder layers, plus the MTP layer.
fn deepseek_v3(layers: usize) -> (Tensors, String) {
    let (d, heads, q_lora, kv_lora, nope, rope, v_head) = (7168, 128, 1536, 512, 128, 64, 128);
    let (ff, ff_exp, experts, vocab) = (18432, 2048, 256, 129280);
    let t = M::new()
        .t("model.embed_tokens.weight", &[vocab, d])
        .each("model.layers", layers + 1, |l, i| {
            l.norm("input_layernorm", d, false);
            fp8(l, "self_attn.q_a_proj", q_lora, d);
            l.norm("self_attn.q_a_layernorm", q_lora, false);
            fp8(l, "self_attn.q_b_proj", heads * (nope + rope), q_lora);
            fp8(l, "self_attn.kv_a_proj_with_mqa", kv_lora + rope, d);
            l.norm("self_attn.kv_a_layernorm", kv_lora, false);
            fp8(l, "self_attn.kv_b_proj", heads * (nope + v_head), kv_lora);
            fp8(l, "self_attn.o_proj", d, heads * v_head);
            l.norm("post_attention_layernorm", d, false);
            if i < 3 {
                fp8(l, "mlp.gate_proj", ff, d);
                fp8(l, "mlp.up_proj", ff, d);
                fp8(l, "mlp.down_proj", d, ff);
            } else {
                l.t("mlp.gate.weight", &[experts, d])
                    .t("mlp.gate.e_score_correction_bias", &[experts]);
                l.each("mlp.experts", experts, |e, _| {
                    fp8(e, "gate_proj", ff_exp, d);
                    fp8(e, "up_proj", ff_exp, d);
                    fp8(e, "down_proj", d, ff_exp);
                });
                fp8(l, "mlp.shared_experts.gate_proj", ff_exp, d);
                fp8(l, "mlp.shared_experts.up_proj", ff_exp, d);
                fp8(l, "mlp.shared_experts.down_proj", d, ff_exp);
            }
            if i == layers {
                l.norm("enorm", d, false)
                    .norm("hnorm", d, false)
                    .t("eh_proj.weight", &[d, 2 * d])
                    .norm("shared_head.norm", d, false)
                    .t("shared_head.head.weight", &[vocab, d])
                    .t("embed_tokens.weight", &[vocab, d]);
            }
        })
        .norm("model.norm", d, false)
        .t("lm_head.weight", &[vocab, d])
        .done();
    let config = format!(
        r#"{{"architectures":["DeepseekV3ForCausalLM"],"model_type":"deepseek_v3","hidden_size":7168,"intermediate_size":18432,"moe_intermediate_size":2048,"num_hidden_layers":{layers},"num_nextn_predict_layers":1,"num_attention_heads":128,"num_key_value_heads":128,"q_lora_rank":1536,"kv_lora_rank":512,"qk_nope_head_dim":128,"qk_rope_head_dim":64,"v_head_dim":128,"n_routed_experts":256,"n_shared_experts":1,"num_experts_per_tok":8,"first_k_dense_replace":3,"n_group":8,"topk_group":4,"vocab_size":129280,"tie_word_embeddings":false,"quantization_config":{{"activation_scheme":"dynamic","fmt":"e4m3","quant_method":"fp8","weight_block_size":[128,128]}}}}"#
    );
    (t, config)
}

/// The dtypes DeepSeek-V3 is published in: FP8 (e4m3) for each linear with a block-scale
/// companion, F32 for the scales and the router's correction bias, BF16 for the rest.
fn deepseek_dtype(t: &Tensors) -> impl Fn(&str) -> &'static str + '_ {
    move |name: &str| {
        let scaled = name.strip_suffix(".weight").is_some_and(|base| {
            t.iter()
                .any(|(n, _)| *n == format!("{base}.weight_scale_inv"))
        });
        if scaled {
            "F8_E4M3"
        } else if name.ends_with("weight_scale_inv") || name.ends_with("e_score_correction_bias") {
            "F32"
        } else {
            "BF16"
        }
    }
}

/// A DeepSeek-V3 checkpoint in its published dtypes, its config beside it.
fn deepseek_dir(name: &str, t: &Tensors, config: &str) -> PathBuf {
    let d = dir(name);
    write_safetensors_typed(&d.join("model.safetensors"), t, &deepseek_dtype(t));
    std::fs::write(d.join("config.json"), config).expect("config");
    d.join("model.safetensors")
}

#[test]
fn deepseek_v3_with_latent_attention_dense_first_layers_and_fp8_scales() {
    // Five decoder layers (the config says so): the three dense ones, two sparse ones.
    let (t, config) = deepseek_v3(5);
    let path = deepseek_dir("deepseek_v3", &t, &config);
    let (code, out, err) = shapes(&["check", s(&path)]);
    assert_eq!(code, 0, "{out}{err}");
    let bad = reshaped(
        t.clone(),
        "model.layers.4.self_attn.kv_b_proj.weight_scale_inv",
        &[256, 8],
    );
    let path = deepseek_dir("deepseek_v3_scale", &bad, &config);
    let (code, bad_out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{bad_out}");
    assert!(
        bad_out.contains("(tensor \"model.layers.4.self_attn.kv_b_proj.weight_scale_inv\"): axis 1 expected (kv_lora + 127) // 128 = (512 + 127) // 128 = 4, found 8"),
        "{bad_out}"
    );
    assert!(
        has_line(&out, "k_dense 3 config `first_k_dense_replace`"),
        "{out}"
    );
    assert!(
        has_line(&out, "n_blocks 6 DeepseekV3.model.layers axis 0"),
        "{out}"
    );

    // The config says three dense layers; a file whose fourth layer is dense too (its
    // experts replaced by a dense MLP) is not a DeepSeek-V3 of this config.
    let d = 7168;
    let mut fourth_dense: Tensors = t
        .iter()
        .filter(|(n, _)| !n.starts_with("model.layers.3.mlp."))
        .cloned()
        .collect();
    for (p, dims) in [
        ("gate_proj.weight", [18432, d]),
        ("gate_proj.weight_scale_inv", [144, 56]),
        ("up_proj.weight", [18432, d]),
        ("up_proj.weight_scale_inv", [144, 56]),
        ("down_proj.weight", [d, 18432]),
        ("down_proj.weight_scale_inv", [56, 144]),
    ] {
        fourth_dense.push((format!("model.layers.3.mlp.{p}"), dims.to_vec()));
    }
    let path = deepseek_dir("deepseek_v3_fourth_dense", &fourth_dense, &config);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "expected 256 elements under model.layers.3.mlp.experts.* (n_experts = 256), found none"
        ),
        "{out}"
    );
    assert!(
        out.contains("missing tensors (8):\n  model.layers.3.mlp.gate.weight")
            && out.contains("unexpected tensors (6):\n  model.layers.3.mlp.down_proj.weight"),
        "{out}"
    );

    // An FP8 weight needs its scales: one dropped is missing.
    let unscaled: Tensors = t
        .iter()
        .filter(|(n, _)| n != "model.layers.1.mlp.up_proj.weight_scale_inv")
        .cloned()
        .collect();
    let path = deepseek_dir("deepseek_v3_unscaled", &unscaled, &config);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("missing tensors (1):\n  model.layers.1.mlp.up_proj.weight_scale_inv"),
        "{out}"
    );
    // Weights of a dtype the published checkpoint does not use: one in BF16 beside its
    // scales, and the scales of another layer's experts in BF16.
    let d = dir("deepseek_v3_dtypes");
    let path = d.join("model.safetensors");
    let published = deepseek_dtype(&t);
    write_safetensors_typed(&path, &t, &|n| match n {
        "model.layers.0.self_attn.o_proj.weight" => "BF16",
        _ if n.starts_with("model.layers.4.mlp.experts.") && n.ends_with("scale_inv") => "BF16",
        _ => published(n),
    });
    std::fs::write(d.join("config.json"), &config).expect("config");
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("MISMATCH: 769 tensors of a dtype the spec does not allow\n\ntensors of a dtype the spec does not allow (769):\n  model.layers.0.self_attn.o_proj.weight: BF16, not F8_E4M3\n"),
        "{out}"
    );
    assert!(
        has_line(
            &out,
            "model.layers.4.mlp.experts.{0..255}.gate_proj.weight_scale_inv: BF16, not F32 ×256"
        ),
        "{out}"
    );

    // The multi-token-prediction layer is counted: without it, the layers are one short of
    // num_hidden_layers + num_nextn_predict_layers.
    let no_mtp: Tensors = t
        .iter()
        .filter(|(n, _)| !n.starts_with("model.layers.5."))
        .cloned()
        .collect();
    let path = deepseek_dir("deepseek_v3_no_mtp", &no_mtp, &config);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        has_line(
            &out,
            "- DeepseekV3: where clause fails: n_blocks = 5 but n_layers + n_mtp = 5 + 1 = 6"
        ),
        "{out}"
    );
}

#[path = "../../../tests/common/deepseek.rs"]
mod deepseek;

/// The sharded layout `benches/scale.rs` times (tests/common/deepseek.rs: shards named by
/// `model.safetensors.index.json`, FP8 weights with their block scales, the MTP layer), with
/// 5 layers of 16 experts: it passes its built-in spec, one transposed expert is named, and
/// checked as a Llama it gets a bounded report with did-you-means.
#[test]
fn a_sharded_deepseek_v3_layout_passes_and_a_transposed_expert_is_named() {
    let layout = deepseek::Layout {
        layers: 5,
        experts: 16,
        mtp: 1,
    };
    let tensors = layout.tensors();
    let d = dir("deepseek_v3_sharded");
    layout.write(&d, &tensors, 9);
    let (code, out, err) = shapes(&["check", s(&d)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(&format!(
            ": sharded safetensors, 9 files, {} tensors",
            layout.count()
        )),
        "{out}"
    );
    let (code, wrong, err) = shapes(&["check", s(&d), "--arch", "llama", "--set", "head_dim=128"]);
    assert_eq!(code, 1, "{wrong}{err}");
    assert!(wrong.lines().count() < 200, "{wrong}");
    assert!(
        wrong.contains("hint: `model.layers.0.self_attn.q_proj.weight` is missing: did you mean `model.layers.0.self_attn.q_a_proj.weight`?"),
        "{wrong}"
    );
    let name = "model.layers.3.mlp.experts.11.up_proj.weight";
    let mut bad = tensors;
    if let Some(t) = bad.iter_mut().find(|t| t.0 == name) {
        t.2.reverse();
    }
    let d = dir("deepseek_v3_sharded_transposed");
    layout.write(&d, &bad, 9);
    let (code, out, _) = shapes(&["check", s(&d)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "(tensor \"{name}\"): looks transposed: expected (2048, 7168), found (7168, 2048)"
        )),
        "{out}"
    );
}
