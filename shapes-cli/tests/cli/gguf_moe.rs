//! The built-in mixture-of-experts and encoder families in GGUF names: Qwen2-MoE, Qwen3-MoE,
//! DeepSeek-V3 (deepseek2), T5, and BERT-style embedding models, each on a GGUF header with
//! the metadata llama.cpp's converter writes for a published model.

use crate::models::{M, gguf_meta};
use crate::support::*;
use crate::{has_line, s};

/// The GGUF file of `meta` and `tensors` passes; with `corrupt` reshaped to `dims` it fails
/// with `expect` in its report.
fn check(
    name: &str,
    meta: &[(String, Meta)],
    t: &Tensors,
    corrupt: &str,
    dims: &[usize],
    expect: &str,
) -> String {
    let d = dir(&format!("gguf_{name}"));
    let path = d.join(format!("{name}.gguf"));
    write_gguf(&path, meta, t, 0);
    let (code, ok, err) = shapes(&["check", s(&path)]);
    assert_eq!(code, 0, "{name}: {ok}{err}");
    assert!(t.iter().any(|(n, _)| n == corrupt), "{name}: no {corrupt}");
    let bad = d.join(format!("{name}_bad.gguf"));
    write_gguf(&bad, meta, &reshaped(t.clone(), corrupt, dims), 0);
    let (code, out, _) = shapes(&["check", s(&bad)]);
    assert_eq!(code, 1, "{name}: {out}");
    assert!(out.contains(expect), "{name}: {out}");
    ok
}

fn exps(l: &mut M, d: usize, ff: usize, n: usize) {
    l.lin("ffn_gate_inp", n, d, false)
        .t("ffn_gate_exps.weight", &[n, ff, d])
        .t("ffn_up_exps.weight", &[n, ff, d])
        .t("ffn_down_exps.weight", &[n, d, ff]);
}

fn shexp(l: &mut M, d: usize, ff: usize) {
    l.lin("ffn_gate_shexp", ff, d, false)
        .lin("ffn_up_shexp", ff, d, false)
        .lin("ffn_down_shexp", d, ff, false);
}

#[test]
fn qwen2moe_gguf() {
    // Qwen/Qwen1.5-MoE-A2.7B: 24 blocks, 2048 wide, 16 heads with q/k/v biases, 60 experts
    // of 1408, the shared expert of 5632 and its one-row gate.
    let d = 2048;
    let t = M::new()
        .t("token_embd.weight", &[151936, d])
        .each("blk", 24, |l, _| {
            l.norm("attn_norm", d, false)
                .lin("attn_q", d, d, true)
                .lin("attn_k", d, d, true)
                .lin("attn_v", d, d, true)
                .lin("attn_output", d, d, false)
                .norm("ffn_norm", d, false);
            exps(l, d, 1408, 60);
            l.t("ffn_gate_inp_shexp.weight", &[d]);
            shexp(l, d, 5632);
        })
        .norm("output_norm", d, false)
        .t("output.weight", &[151936, d])
        .done();
    let meta = gguf_meta(
        "qwen2moe",
        &[
            ("context_length", 8192),
            ("embedding_length", d),
            ("block_count", 24),
            ("feed_forward_length", 5632),
            ("attention.head_count", 16),
            ("attention.head_count_kv", 16),
            ("expert_count", 60),
            ("expert_used_count", 4),
            ("expert_feed_forward_length", 1408),
            ("expert_shared_feed_forward_length", 5632),
        ],
        151936,
    );
    check(
        "qwen2moe",
        &meta,
        &t,
        "blk.20.ffn_up_exps.weight",
        &[64, 1408, 2048],
        "metadata `qwen2moe.expert_count` = 60, but \"blk.20.ffn_up_exps.weight\" axis 0 is 64",
    );
}

#[test]
fn qwen3moe_gguf() {
    // Qwen/Qwen3-30B-A3B, 4 of its 48 blocks (the metadata says so): 2048 wide, 32 and 4
    // heads of 128 with q/k norms, 128 experts of 768.
    let d = 2048;
    let t = M::new()
        .t("token_embd.weight", &[151936, d])
        .each("blk", 4, |l, _| {
            l.norm("attn_norm", d, false)
                .lin("attn_q", 4096, d, false)
                .lin("attn_k", 512, d, false)
                .lin("attn_v", 512, d, false)
                .lin("attn_output", d, 4096, false)
                .norm("attn_q_norm", 128, false)
                .norm("attn_k_norm", 128, false)
                .norm("ffn_norm", d, false);
            exps(l, d, 768, 128);
        })
        .norm("output_norm", d, false)
        .t("output.weight", &[151936, d])
        .done();
    let meta = gguf_meta(
        "qwen3moe",
        &[
            ("context_length", 40960),
            ("embedding_length", d),
            ("block_count", 4),
            ("feed_forward_length", 6144),
            ("attention.head_count", 32),
            ("attention.head_count_kv", 4),
            ("attention.key_length", 128),
            ("attention.value_length", 128),
            ("expert_count", 128),
            ("expert_used_count", 8),
            ("expert_feed_forward_length", 768),
        ],
        151936,
    );
    check(
        "qwen3moe",
        &meta,
        &t,
        "blk.1.ffn_gate_exps.weight",
        &[128, 1536, 2048],
        "metadata `qwen3moe.expert_feed_forward_length` = 768, but \"blk.1.ffn_gate_exps.weight\" axis 1 is 1536",
    );
}

#[test]
fn deepseek_v3_gguf() {
    // deepseek-ai/DeepSeek-V3 as converted (deepseek2), 5 of its 61 blocks (the metadata says
    // so): 7168 wide, 128 heads, q_lora 1536, kv_lora 512, keys of 192 (128 + 64 rotary),
    // values of 128, 3 leading dense blocks of 18432, then 256 experts of 2048 and one shared,
    // kv_b beside its split halves.
    let (d, heads) = (7168, 128);
    let t = M::new()
        .t("token_embd.weight", &[129280, d])
        .each("blk", 5, |l, i| {
            l.norm("attn_norm", d, false)
                .lin("attn_q_a", 1536, d, false)
                .norm("attn_q_a_norm", 1536, false)
                .lin("attn_q_b", heads * 192, 1536, false)
                .lin("attn_kv_a_mqa", 576, d, false)
                .norm("attn_kv_a_norm", 512, false)
                .lin("attn_kv_b", heads * 256, 512, false)
                .t("attn_k_b.weight", &[heads, 512, 128])
                .t("attn_v_b.weight", &[heads, 128, 512])
                .lin("attn_output", d, heads * 128, false)
                .norm("ffn_norm", d, false);
            if i < 3 {
                l.lin("ffn_gate", 18432, d, false)
                    .lin("ffn_up", 18432, d, false)
                    .lin("ffn_down", d, 18432, false);
            } else {
                exps(l, d, 2048, 256);
                l.t("exp_probs_b.bias", &[256]);
                shexp(l, d, 2048);
            }
        })
        .norm("output_norm", d, false)
        .t("output.weight", &[129280, d])
        .done();
    let meta = gguf_meta(
        "deepseek2",
        &[
            ("context_length", 163840),
            ("embedding_length", d),
            ("block_count", 5),
            ("feed_forward_length", 18432),
            ("attention.head_count", heads),
            ("attention.head_count_kv", heads),
            ("attention.q_lora_rank", 1536),
            ("attention.kv_lora_rank", 512),
            ("attention.key_length", 192),
            ("attention.value_length", 128),
            ("rope.dimension_count", 64),
            ("leading_dense_block_count", 3),
            ("expert_count", 256),
            ("expert_shared_count", 1),
            ("expert_used_count", 8),
            ("expert_feed_forward_length", 2048),
        ],
        129280,
    );
    let out = check(
        "deepseek2",
        &meta,
        &t,
        "blk.2.attn_k_b.weight",
        &[heads, 128, 512],
        "metadata `deepseek2.attention.kv_lora_rank` = 512, but \"blk.2.attn_k_b.weight\" axis 1 is 128",
    );
    assert!(
        has_line(
            &out,
            "k_dense 3 metadata `deepseek2.leading_dense_block_count`"
        ),
        "{out}"
    );
}

#[test]
fn t5_gguf() {
    // google-t5/t5-small as converted: 6 encoder and 6 decoder blocks, 512 wide, 8 heads of
    // 64, a ReLU feed-forward of 2048, 32 relative-position buckets in block 0 of each stack.
    let (d, ff, inner) = (512, 2048, 512);
    let attn = |l: &mut M, a: &str| {
        l.norm(&format!("{a}_norm"), d, false)
            .lin(&format!("{a}_q"), inner, d, false)
            .lin(&format!("{a}_k"), inner, d, false)
            .lin(&format!("{a}_v"), inner, d, false)
            .lin(&format!("{a}_o"), d, inner, false);
    };
    let t = M::new()
        .t("token_embd.weight", &[32128, d])
        .t("enc.blk.0.attn_rel_b.weight", &[32, 8])
        .each("enc.blk", 6, |l, _| {
            attn(l, "attn");
            l.norm("ffn_norm", d, false)
                .lin("ffn_up", ff, d, false)
                .lin("ffn_down", d, ff, false);
        })
        .norm("enc.output_norm", d, false)
        .t("dec.blk.0.attn_rel_b.weight", &[32, 8])
        .each("dec.blk", 6, |l, _| {
            attn(l, "attn");
            attn(l, "cross_attn");
            l.norm("ffn_norm", d, false)
                .lin("ffn_up", ff, d, false)
                .lin("ffn_down", d, ff, false);
        })
        .norm("dec.output_norm", d, false)
        .done();
    let meta = gguf_meta(
        "t5",
        &[
            ("context_length", 512),
            ("embedding_length", d),
            ("feed_forward_length", ff),
            ("block_count", 6),
            ("attention.head_count", 8),
            ("attention.key_length", 64),
            ("attention.value_length", 64),
            ("attention.relative_buckets_count", 32),
        ],
        32128,
    );
    check(
        "t5",
        &meta,
        &t,
        "dec.blk.3.cross_attn_o.weight",
        &[512, 256],
        "(tensor \"dec.blk.3.cross_attn_o.weight\"): axis 1 expected v_inner = 512, found 256",
    );
}

#[test]
fn a_bert_embedding_model_gguf() {
    // sentence-transformers/all-MiniLM-L6-v2 as converted (bert): 6 blocks, 384 wide, 12
    // heads, 1536, 512 positions, 2 token types, vocab 30522.
    let (d, ff) = (384, 1536);
    let t = M::new()
        .t("token_embd.weight", &[30522, d])
        .t("token_types.weight", &[2, d])
        .t("position_embd.weight", &[512, d])
        .norm("token_embd_norm", d, true)
        .each("blk", 6, |l, _| {
            for p in ["attn_q", "attn_k", "attn_v", "attn_output"] {
                l.lin(p, d, d, true);
            }
            l.norm("attn_output_norm", d, true)
                .lin("ffn_up", ff, d, true)
                .lin("ffn_down", d, ff, true)
                .norm("layer_output_norm", d, true);
        })
        .done();
    let meta = gguf_meta(
        "bert",
        &[
            ("context_length", 512),
            ("embedding_length", d),
            ("feed_forward_length", ff),
            ("block_count", 6),
            ("attention.head_count", 12),
        ],
        30522,
    );
    check(
        "minilm",
        &meta,
        &t,
        "position_embd.weight",
        &[514, 384],
        "metadata `bert.context_length` = 512, but \"position_embd.weight\" axis 0 is 514",
    );
}
