//! A DeepSeek-V3-shaped sharded safetensors checkpoint as deepseek-ai/DeepSeek-V3 publishes it:
//! `model-0000i-of-000163.safetensors` shards named by `model.safetensors.index.json`, and its
//! `config.json`. Multi-head latent attention (q_a_proj, q_a_layernorm, q_b_proj,
//! kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj, o_proj), the first three layers dense and the
//! others with a router over the routed experts plus one shared expert, and after the decoder
//! layers the multi-token-prediction layer (a whole decoder layer plus its enorm, hnorm,
//! eh_proj, shared_head and embed_tokens). Each quantized linear is FP8 (e4m3) with its F32
//! `weight_scale_inv` of one scale per 128 × 128 block; the rest is BF16, the router's
//! correction bias F32.
//!
//! At the published size (61 layers, 256 experts: [`Layout::PUBLISHED`]) that is 91,991
//! tensors. Only the headers are written: each shard's data region is made with
//! `File::set_len`, so the ~690 GB it describes costs no disk. Shared by the library's and the
//! command's tests and by `benches/scale.rs` (`#[path]`).
#![allow(dead_code)]

use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::Path;

/// A tensor: name, dtype, dims (row-major).
pub type Typed = (String, &'static str, Vec<usize>);

/// The published config.json's dims (hidden 7168, 128 heads, q_lora_rank 1536, kv_lora_rank
/// 512, qk_nope 128 + qk_rope 64, v_head_dim 128, intermediate 18432, experts of 2048, vocab
/// 129280) with `layers` decoder layers (the first three dense), `experts` routed experts per
/// sparse layer, and `mtp` multi-token-prediction layers (0 or 1).
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub layers: usize,
    pub experts: usize,
    pub mtp: usize,
}

const D: usize = 7168;
const HEADS: usize = 128;
const Q_LORA: usize = 1536;
const KV_LORA: usize = 512;
const NOPE: usize = 128;
const ROPE: usize = 64;
const V_HEAD: usize = 128;
const FF: usize = 18432;
const FF_EXP: usize = 2048;
const VOCAB: usize = 129_280;
const K_DENSE: usize = 3;

impl Layout {
    /// deepseek-ai/DeepSeek-V3 as published: 61 layers, 256 routed experts, one MTP layer.
    pub const PUBLISHED: Layout = Layout {
        layers: 61,
        experts: 256,
        mtp: 1,
    };

    /// The tensors in the published order (by layer), with their dtypes.
    pub fn tensors(&self) -> Vec<Typed> {
        let mut t: Vec<Typed> = Vec::with_capacity(self.count());
        t.push(("model.embed_tokens.weight".into(), "BF16", vec![VOCAB, D]));
        for i in 0..self.layers + self.mtp {
            let p = format!("model.layers.{i}");
            let norm = |t: &mut Vec<Typed>, name: &str, n: usize| {
                t.push((format!("{p}.{name}.weight"), "BF16", vec![n]));
            };
            norm(&mut t, "input_layernorm", D);
            fp8(&mut t, &format!("{p}.self_attn.q_a_proj"), Q_LORA, D);
            norm(&mut t, "self_attn.q_a_layernorm", Q_LORA);
            fp8(
                &mut t,
                &format!("{p}.self_attn.q_b_proj"),
                HEADS * (NOPE + ROPE),
                Q_LORA,
            );
            fp8(
                &mut t,
                &format!("{p}.self_attn.kv_a_proj_with_mqa"),
                KV_LORA + ROPE,
                D,
            );
            norm(&mut t, "self_attn.kv_a_layernorm", KV_LORA);
            fp8(
                &mut t,
                &format!("{p}.self_attn.kv_b_proj"),
                HEADS * (NOPE + V_HEAD),
                KV_LORA,
            );
            fp8(&mut t, &format!("{p}.self_attn.o_proj"), D, HEADS * V_HEAD);
            norm(&mut t, "post_attention_layernorm", D);
            if i < K_DENSE {
                mlp(&mut t, &format!("{p}.mlp"), FF);
            } else {
                t.push((
                    format!("{p}.mlp.gate.weight"),
                    "BF16",
                    vec![self.experts, D],
                ));
                t.push((
                    format!("{p}.mlp.gate.e_score_correction_bias"),
                    "F32",
                    vec![self.experts],
                ));
                for e in 0..self.experts {
                    mlp(&mut t, &format!("{p}.mlp.experts.{e}"), FF_EXP);
                }
                mlp(&mut t, &format!("{p}.mlp.shared_experts"), FF_EXP);
            }
            if i >= self.layers {
                norm(&mut t, "enorm", D);
                norm(&mut t, "hnorm", D);
                t.push((format!("{p}.eh_proj.weight"), "BF16", vec![D, 2 * D]));
                norm(&mut t, "shared_head.norm", D);
                t.push((
                    format!("{p}.shared_head.head.weight"),
                    "BF16",
                    vec![VOCAB, D],
                ));
                t.push((format!("{p}.embed_tokens.weight"), "BF16", vec![VOCAB, D]));
            }
        }
        t.push(("model.norm.weight".into(), "BF16", vec![D]));
        t.push(("lm_head.weight".into(), "BF16", vec![VOCAB, D]));
        t
    }

    /// How many tensors [`Layout::tensors`] lists.
    pub fn count(&self) -> usize {
        let attention = 4 + 5 * 2;
        let dense = attention + 3 * 2;
        let sparse = attention + 2 + (self.experts + 1) * 3 * 2;
        let blocks = self.layers + self.mtp;
        let dense_n = blocks.min(K_DENSE);
        3 + dense_n * dense + (blocks - dense_n) * sparse + self.mtp * 6
    }

    /// The config.json of this layout, as published but for the layer and expert counts.
    pub fn config(&self) -> String {
        format!(
            r#"{{"architectures":["DeepseekV3ForCausalLM"],"model_type":"deepseek_v3","hidden_size":{D},"intermediate_size":{FF},"moe_intermediate_size":{FF_EXP},"num_hidden_layers":{},"num_nextn_predict_layers":{},"num_attention_heads":{HEADS},"num_key_value_heads":{HEADS},"q_lora_rank":{Q_LORA},"kv_lora_rank":{KV_LORA},"qk_nope_head_dim":{NOPE},"qk_rope_head_dim":{ROPE},"v_head_dim":{V_HEAD},"n_routed_experts":{},"n_shared_experts":1,"num_experts_per_tok":8,"first_k_dense_replace":{K_DENSE},"n_group":8,"topk_group":4,"vocab_size":{VOCAB},"tie_word_embeddings":false,"torch_dtype":"bfloat16","quantization_config":{{"activation_scheme":"dynamic","fmt":"e4m3","quant_method":"fp8","weight_block_size":[128,128]}}}}"#,
            self.layers, self.mtp, self.experts
        )
    }

    /// Writes `tensors` (this layout's, or a corrupted copy) into `dir` as `shards` shards,
    /// their index and this layout's config.json.
    pub fn write(&self, dir: &Path, tensors: &[Typed], shards: usize) {
        write_sharded(dir, tensors, shards);
        fs::write(dir.join("config.json"), self.config()).expect("config.json");
    }
}

/// An FP8 linear and its block scales.
fn fp8(t: &mut Vec<Typed>, name: &str, out: usize, inp: usize) {
    t.push((format!("{name}.weight"), "F8_E4M3", vec![out, inp]));
    t.push((
        format!("{name}.weight_scale_inv"),
        "F32",
        vec![out.div_ceil(128), inp.div_ceil(128)],
    ));
}

/// A SwiGLU MLP of FP8 linears.
fn mlp(t: &mut Vec<Typed>, p: &str, ff: usize) {
    fp8(t, &format!("{p}.gate_proj"), ff, D);
    fp8(t, &format!("{p}.up_proj"), ff, D);
    fp8(t, &format!("{p}.down_proj"), D, ff);
}

fn dtype_size(dtype: &str) -> u64 {
    match dtype {
        "F8_E4M3" => 1,
        "BF16" => 2,
        _ => 4,
    }
}

/// `tensors` in order into `shards` files `model-0000i-of-0000n.safetensors` (headers written,
/// data sparse) and their `model.safetensors.index.json`.
pub fn write_sharded(dir: &Path, tensors: &[Typed], shards: usize) {
    let per = tensors.len().div_ceil(shards.max(1)).max(1);
    let count = tensors.len().div_ceil(per);
    let mut map = String::new();
    let mut total = 0u64;
    for (i, chunk) in tensors.chunks(per).enumerate() {
        let file = format!("model-{:05}-of-{count:05}.safetensors", i + 1);
        let mut json = String::from(r#"{"__metadata__":{"format":"pt"}"#);
        let mut offset = 0u64;
        for (name, dtype, dims) in chunk {
            let bytes = dims.iter().map(|&d| d as u64).product::<u64>() * dtype_size(dtype);
            let dims: Vec<String> = dims.iter().map(ToString::to_string).collect();
            write!(
                json,
                r#","{name}":{{"dtype":"{dtype}","shape":[{}],"data_offsets":[{offset},{}]}}"#,
                dims.join(","),
                offset + bytes
            )
            .expect("fmt");
            offset += bytes;
            if !map.is_empty() {
                map.push(',');
            }
            write!(map, r#""{name}":"{file}""#).expect("fmt");
        }
        json.push('}');
        total += offset;
        let mut head = (json.len() as u64).to_le_bytes().to_vec();
        head.extend_from_slice(json.as_bytes());
        let f = fs::File::create(dir.join(&file)).expect("create shard");
        (&f).write_all(&head).expect("write header");
        f.set_len(head.len() as u64 + offset).expect("set_len");
    }
    let index = format!(r#"{{"metadata":{{"total_size":{total}}},"weight_map":{{{map}}}}}"#);
    fs::write(dir.join("model.safetensors.index.json"), index).expect("index");
}
