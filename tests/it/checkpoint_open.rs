//! `Checkpoint::open` on checkpoints written the way they are shipped (from the shipped
//! fracast checkpoint and from published model shapes), each also corrupted, every error's
//! text asserted; and dims bound from `config.json` / GGUF metadata, tied output heads.

use std::fs;

use shapes::{
    Checkpoint, CheckpointFormat, ConfigPlace, Origin, Plan, PlanNode, ShapeSource, SourceOptions,
};

use crate::common::ckpt_files::{self, Gv, TempDir, Tensor};
use crate::common::llama::tinyllama_1_1b;

fn err(path: &std::path::Path) -> String {
    Checkpoint::open(path).unwrap_err().to_string()
}

/// TinyLlama's `config.json`, as transformers writes it.
fn tinyllama_config(tied: bool, ff: usize) -> String {
    serde_json::json!({
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": 2048,
        "intermediate_size": ff,
        "num_attention_heads": 32,
        "num_hidden_layers": 22,
        "num_key_value_heads": 4,
        "vocab_size": 32000,
        "tie_word_embeddings": tied,
        "torch_dtype": "bfloat16"
    })
    .to_string()
}

/// A Llama-family plan that binds its dims from either the config or the GGUF metadata.
fn llama_plan(prefix: &str, names: &LlamaNames) -> Plan {
    let layer = vec![
        PlanNode::tensor(names.q, "(heads * head_dim, d_model)"),
        PlanNode::tensor(names.k, "(kv_heads * head_dim, d_model)"),
        PlanNode::tensor(names.v, "(kv_heads * head_dim, d_model)"),
        PlanNode::tensor(names.o, "(d_model, heads * head_dim)"),
        PlanNode::tensor(names.gate, "(d_ff, d_model)"),
        PlanNode::tensor(names.up, "(d_ff, d_model)"),
        PlanNode::tensor(names.down, "(d_model, d_ff)"),
        PlanNode::tensor(names.attn_norm, "(d_model,)"),
        PlanNode::tensor(names.ffn_norm, "(d_model,)"),
    ];
    Plan::build(
        "Llama",
        &[
            PlanNode::group(
                prefix,
                vec![
                    PlanNode::tensor(names.embed, "(vocab, d_model)"),
                    PlanNode::group(names.layers, layer).repeated(Some("n_layers")),
                    PlanNode::tensor(names.norm, "(d_model,)"),
                ],
            ),
            PlanNode::tied(
                names.head,
                "(vocab, d_model)",
                names.head_to,
                Some("tie_word_embeddings"),
            ),
        ],
        &["d_model = heads * head_dim"],
    )
    .unwrap()
    .bind_from("d_model", &["hidden_size", "{arch}.embedding_length"])
    .unwrap()
    .bind_from("d_ff", &["intermediate_size", "{arch}.feed_forward_length"])
    .unwrap()
    .bind_from(
        "heads",
        &["num_attention_heads", "{arch}.attention.head_count"],
    )
    .unwrap()
    .bind_from(
        "kv_heads",
        &["num_key_value_heads", "{arch}.attention.head_count_kv"],
    )
    .unwrap()
    .bind_from("n_layers", &["num_hidden_layers", "{arch}.block_count"])
    .unwrap()
}

struct LlamaNames {
    embed: &'static str,
    layers: &'static str,
    q: &'static str,
    k: &'static str,
    v: &'static str,
    o: &'static str,
    gate: &'static str,
    up: &'static str,
    down: &'static str,
    attn_norm: &'static str,
    ffn_norm: &'static str,
    norm: &'static str,
    head: &'static str,
    head_to: &'static str,
}

const HF: LlamaNames = LlamaNames {
    embed: "embed_tokens.weight",
    layers: "layers",
    q: "self_attn.q_proj.weight",
    k: "self_attn.k_proj.weight",
    v: "self_attn.v_proj.weight",
    o: "self_attn.o_proj.weight",
    gate: "mlp.gate_proj.weight",
    up: "mlp.up_proj.weight",
    down: "mlp.down_proj.weight",
    attn_norm: "input_layernorm.weight",
    ffn_norm: "post_attention_layernorm.weight",
    norm: "norm.weight",
    head: "lm_head.weight",
    head_to: "model.embed_tokens.weight",
};

const GGUF: LlamaNames = LlamaNames {
    embed: "token_embd.weight",
    layers: "blk",
    q: "attn_q.weight",
    k: "attn_k.weight",
    v: "attn_v.weight",
    o: "attn_output.weight",
    gate: "ffn_gate.weight",
    up: "ffn_up.weight",
    down: "ffn_down.weight",
    attn_norm: "attn_norm.weight",
    ffn_norm: "ffn_norm.weight",
    norm: "output_norm.weight",
    head: "output.weight",
    head_to: "token_embd.weight",
};

/// TinyLlama's tensors under GGUF's names.
fn tinyllama_gguf_tensors() -> Vec<Tensor> {
    tinyllama_1_1b()
        .into_iter()
        .map(|(name, dims)| {
            let name = name
                .replace("model.embed_tokens", "token_embd")
                .replace("model.layers.", "blk.")
                .replace("self_attn.q_proj", "attn_q")
                .replace("self_attn.k_proj", "attn_k")
                .replace("self_attn.v_proj", "attn_v")
                .replace("self_attn.o_proj", "attn_output")
                .replace("mlp.gate_proj", "ffn_gate")
                .replace("mlp.up_proj", "ffn_up")
                .replace("mlp.down_proj", "ffn_down")
                .replace("input_layernorm", "attn_norm")
                .replace("post_attention_layernorm", "ffn_norm")
                .replace("model.norm", "output_norm")
                .replace("lm_head", "output");
            (name, dims)
        })
        .collect()
}

fn tinyllama_gguf_meta(ff: u32) -> Vec<(String, Gv)> {
    vec![
        ("general.architecture".into(), Gv::Str("llama".into())),
        ("general.name".into(), Gv::Str("TinyLlama".into())),
        ("llama.embedding_length".into(), Gv::U32(2048)),
        ("llama.feed_forward_length".into(), Gv::U32(ff)),
        ("llama.attention.head_count".into(), Gv::U32(32)),
        ("llama.attention.head_count_kv".into(), Gv::U32(4)),
        ("llama.block_count".into(), Gv::U32(22)),
        (
            "tokenizer.ggml.tokens".into(),
            Gv::StrArray((0..32000).map(|i| format!("tok{i}")).collect()),
        ),
    ]
}

#[test]
fn sharded_llama_binds_its_dims_from_the_config() {
    let dir = TempDir::new("llama-sharded");
    let tensors: Vec<Tensor> = tinyllama_1_1b();
    let shards = ckpt_files::sharded(dir.path(), &tensors, 3);
    fs::write(dir.join("config.json"), tinyllama_config(false, 5632)).unwrap();
    let plan = llama_plan("model", &HF);

    let ckpt = Checkpoint::open(dir.path()).unwrap();
    assert_eq!(ckpt.format(), CheckpointFormat::ShardedSafetensors);
    assert_eq!(ckpt.files().len(), 3);
    assert_eq!(ckpt.tensors().len(), 201);
    assert_eq!(
        ckpt.get("lm_head.weight").map(|t| t.dtype.as_str()),
        Some("F16")
    );
    assert_eq!(ckpt.architecture(), Some("llama"));
    let b = plan.verify_source(&ckpt).unwrap();
    assert_eq!(b.get("d_model"), Some(2048));
    assert_eq!(b.get("head_dim"), Some(64));
    assert_eq!(
        b.origin("kv_heads"),
        Some(Origin::Config {
            key: "num_key_value_heads".into()
        })
    );
    // The same through the index file.
    let by_index = Checkpoint::open(dir.join("model.safetensors.index.json")).unwrap();
    assert_eq!(by_index.tensor_names(), ckpt.tensor_names());

    // A config that disagrees with the tensors: the key is the cause.
    fs::write(dir.join("config.json"), tinyllama_config(false, 4096)).unwrap();
    let e = plan
        .verify_source(&Checkpoint::open(dir.path()).unwrap())
        .unwrap_err();
    let first = e.errors()[0].to_string();
    assert_eq!(
        first,
        "Llama.model.layers[0].mlp.gate_proj.weight: config `intermediate_size` = 4096, but \
         \"model.layers.0.mlp.gate_proj.weight\" axis 0 is 5632\n  d_ff = 4096 bound by config \
         `intermediate_size`\n  shape is (5632, 2048), pattern (d_ff, d_model)"
    );
    assert_eq!(e.len(), 22 * 3);

    // A missing shard, named.
    fs::remove_file(dir.join(&shards[1])).unwrap();
    assert_eq!(
        err(dir.path()),
        format!(
            "{}: shard \"model-00002-of-00003.safetensors\" is missing (67 tensor(s) listed in it, e.g. \"model.layers.10.input_layernorm.weight\")",
            dir.join("model.safetensors.index.json").display()
        )
    );
    let _ = ConfigPlace::ConfigJson;
    let _ = SourceOptions::new();
}
