//! The built-in families in GGUF names (llama.cpp's tensor map), each on a GGUF header written
//! with the metadata llama.cpp's converter writes for a published model, checked as it is and
//! with one dim changed.

use crate::models::{M, gguf_meta};
use crate::support::*;
use crate::{has_line, s};

/// The GGUF file of `meta` and `tensors` matches the built-in spec its architecture names
/// (the report is returned); the copy with `corrupt` reshaped to `dims` does not, and its
/// report has `expect`.
fn gguf_passes_then_caught(
    name: &str,
    meta: &[(String, Meta)],
    tensors: &Tensors,
    corrupt: &str,
    dims: &[usize],
    expect: &str,
) -> String {
    let d = dir(&format!("gguf_{name}"));
    let path = d.join(format!("{name}.gguf"));
    write_gguf(&path, meta, tensors, 0);
    let (code, ok, err) = shapes(&["check", s(&path)]);
    assert_eq!(code, 0, "{name}: {ok}{err}");
    assert!(
        tensors.iter().any(|(n, _)| n == corrupt),
        "{name}: no tensor {corrupt}"
    );
    let bad = d.join(format!("{name}_bad.gguf"));
    write_gguf(&bad, meta, &reshaped(tensors.clone(), corrupt, dims), 0);
    let (code, out, err) = shapes(&["check", s(&bad)]);
    assert_eq!(code, 1, "{name}: {out}{err}");
    assert!(out.contains(expect), "{name}: {out}");
    ok
}

/// A llama-style GGUF block's attention and norms, then `ffn` for its feed-forward.
fn blk(l: &mut M, d: usize, q: usize, kv: usize, ffn: impl FnOnce(&mut M)) {
    l.norm("attn_norm", d, false)
        .lin("attn_q", q, d, false)
        .lin("attn_k", kv, d, false)
        .lin("attn_v", kv, d, false)
        .lin("attn_output", d, q, false)
        .norm("ffn_norm", d, false);
    ffn(l);
}

fn dense(l: &mut M, d: usize, ff: usize) {
    l.lin("ffn_gate", ff, d, false)
        .lin("ffn_up", ff, d, false)
        .lin("ffn_down", d, ff, false);
}

fn experts(l: &mut M, d: usize, ff: usize, n: usize) {
    l.lin("ffn_gate_inp", n, d, false)
        .t("ffn_gate_exps.weight", &[n, ff, d])
        .t("ffn_up_exps.weight", &[n, ff, d])
        .t("ffn_down_exps.weight", &[n, d, ff]);
}

#[test]
fn a_mixtral_gguf_declares_llama_and_holds_experts() {
    // mistralai/Mixtral-8x7B-v0.1 converted by llama.cpp: general.architecture = llama, 32
    // blocks of 8 experts stacked in 3-D tensors (14336 wide) behind ffn_gate_inp.
    let (d, ff, n) = (4096, 14336, 8);
    let t = M::new()
        .t("token_embd.weight", &[32000, d])
        .each("blk", 32, |l, _| {
            blk(l, d, d, 1024, |l| experts(l, d, ff, n))
        })
        .norm("output_norm", d, false)
        .t("output.weight", &[32000, d])
        .done();
    let meta = gguf_meta(
        "llama",
        &[
            ("context_length", 32768),
            ("embedding_length", d),
            ("block_count", 32),
            ("feed_forward_length", ff),
            ("attention.head_count", 32),
            ("attention.head_count_kv", 8),
            ("expert_count", n),
            ("expert_used_count", 2),
        ],
        32000,
    );
    let out = gguf_passes_then_caught(
        "mixtral",
        &meta,
        &t,
        "blk.17.ffn_down_exps.weight",
        &[8, 14336, 4096],
        "metadata `llama.embedding_length` = 4096, but \"blk.17.ffn_down_exps.weight\" axis 1 is 14336",
    );
    assert!(
        has_line(&out, "n_experts 8 metadata `llama.expert_count`"),
        "{out}"
    );
    // A block holding the experts' gate and up but not their down is missing it: the
    // feed-forward is all of one kind, in full.
    let d2 = dir("gguf_mixtral_partial");
    let partial: Tensors = t
        .iter()
        .filter(|(n, _)| n != "blk.3.ffn_down_exps.weight")
        .cloned()
        .collect();
    write_gguf(&d2.join("m.gguf"), &meta, &partial, 0);
    let (code, out, _) = shapes(&["check", s(&d2.join("m.gguf"))]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("MISMATCH: 1 error")
            && out.contains("missing tensors (1):\n  blk.3.ffn_down_exps.weight"),
        "{out}"
    );
    // A block with neither: its dense FFN is what is missing.
    let none: Tensors = t
        .into_iter()
        .filter(|(n, _)| !n.starts_with("blk.5.ffn_") || n == "blk.5.ffn_norm.weight")
        .collect();
    write_gguf(&d2.join("n.gguf"), &meta, &none, 0);
    let (code, out, _) = shapes(&["check", s(&d2.join("n.gguf"))]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("missing tensors (3):\n  blk.5.ffn_gate.weight\n  blk.5.ffn_up.weight\n  blk.5.ffn_down.weight"),
        "{out}"
    );
}

#[test]
fn qwen3_gguf() {
    // Qwen/Qwen3-0.6B: 28 blocks, 1024 wide, 16 and 8 heads of 128 (key_length), 3072.
    let (d, ff) = (1024, 3072);
    let t = M::new()
        .t("token_embd.weight", &[151936, d])
        .each("blk", 28, |l, _| {
            blk(l, d, 2048, 1024, |l| dense(l, d, ff));
            l.norm("attn_q_norm", 128, false)
                .norm("attn_k_norm", 128, false);
        })
        .norm("output_norm", d, false)
        .done();
    let meta = gguf_meta(
        "qwen3",
        &[
            ("context_length", 40960),
            ("embedding_length", d),
            ("block_count", 28),
            ("feed_forward_length", ff),
            ("attention.head_count", 16),
            ("attention.head_count_kv", 8),
            ("attention.key_length", 128),
            ("attention.value_length", 128),
        ],
        151936,
    );
    gguf_passes_then_caught(
        "qwen3",
        &meta,
        &t,
        "blk.0.attn_q_norm.weight",
        &[1024],
        "metadata `qwen3.attention.key_length` = 128, but \"blk.0.attn_q_norm.weight\" axis 0 is 1024",
    );
}

/// Gemma 1, 2 or 3 (`gen`) in GGUF names.
fn gemma_gguf(
    generation: u8,
    layers: usize,
    d: usize,
    ff: usize,
    heads: usize,
    kv: usize,
    vocab: usize,
) -> Tensors {
    M::new()
        .t("token_embd.weight", &[vocab, d])
        .each("blk", layers, |l, _| {
            blk(l, d, heads * 256, kv * 256, |l| dense(l, d, ff));
            if generation >= 2 {
                l.norm("post_attention_norm", d, false)
                    .norm("post_ffw_norm", d, false);
            }
            if generation >= 3 {
                l.norm("attn_q_norm", 256, false)
                    .norm("attn_k_norm", 256, false);
            }
        })
        .norm("output_norm", d, false)
        .done()
}

fn gemma_meta(
    arch: &str,
    layers: usize,
    d: usize,
    ff: usize,
    heads: usize,
    kv: usize,
    vocab: usize,
) -> Vec<(String, Meta)> {
    gguf_meta(
        arch,
        &[
            ("context_length", 8192),
            ("embedding_length", d),
            ("block_count", layers),
            ("feed_forward_length", ff),
            ("attention.head_count", heads),
            ("attention.head_count_kv", kv),
            ("attention.key_length", 256),
            ("attention.value_length", 256),
        ],
        vocab,
    )
}

#[test]
fn gemma_gguf_in_three_generations() {
    // google/gemma-2b: 18 blocks, 2048 wide, 8 heads and one key/value head, 16384.
    gguf_passes_then_caught(
        "gemma",
        &gemma_meta("gemma", 18, 2048, 16384, 8, 1, 256000),
        &gemma_gguf(1, 18, 2048, 16384, 8, 1, 256000),
        "blk.2.attn_k.weight",
        &[512, 2048],
        "(tensor \"blk.2.attn_k.weight\"): axis 0 expected kv_heads * head_dim = 1 * 256, found 512",
    );
    // google/gemma-2-2b: 26 blocks, 2304 wide, 8 and 4 heads, 9216.
    gguf_passes_then_caught(
        "gemma2",
        &gemma_meta("gemma2", 26, 2304, 9216, 8, 4, 256000),
        &gemma_gguf(2, 26, 2304, 9216, 8, 4, 256000),
        "blk.25.post_ffw_norm.weight",
        &[2048],
        "metadata `gemma2.embedding_length` = 2304, but \"blk.25.post_ffw_norm.weight\" axis 0 is 2048",
    );
    // google/gemma-3-1b-it: 26 blocks, 1152 wide, 4 heads and one, 6912; and the corruption
    // a generic GGUF auditor caught: feed_forward_length doubled in the metadata.
    let t = gemma_gguf(3, 26, 1152, 6912, 4, 1, 262144);
    gguf_passes_then_caught(
        "gemma3",
        &gemma_meta("gemma3", 26, 1152, 6912, 4, 1, 262144),
        &t,
        "blk.7.attn_k_norm.weight",
        &[128],
        "\"blk.7.attn_k_norm.weight\" axis 0 is 128",
    );
    let d = dir("gguf_gemma3_ff");
    let path = d.join("gemma3.gguf");
    write_gguf(
        &path,
        &gemma_meta("gemma3", 26, 1152, 13824, 4, 1, 262144),
        &t,
        0,
    );
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("78 errors, one cause: metadata `gemma3.feed_forward_length` = 13824, but the tensors give d_ff = 6912"),
        "{out}"
    );
}

#[test]
fn phi3_gguf_with_fused_qkv_and_up() {
    // microsoft/Phi-3-mini-4k-instruct: 32 blocks, 3072 wide, 32 heads of 96, ffn_up holding
    // gate and up (2 × 8192 rows).
    let (d, ff) = (3072, 8192);
    let t = M::new()
        .t("token_embd.weight", &[32064, d])
        .each("blk", 32, |l, _| {
            l.norm("attn_norm", d, false)
                .lin("attn_qkv", 3 * d, d, false)
                .lin("attn_output", d, d, false)
                .norm("ffn_norm", d, false)
                .lin("ffn_up", 2 * ff, d, false)
                .lin("ffn_down", d, ff, false);
        })
        .norm("output_norm", d, false)
        .t("output.weight", &[32064, d])
        .done();
    let meta = gguf_meta(
        "phi3",
        &[
            ("context_length", 4096),
            ("embedding_length", d),
            ("block_count", 32),
            ("feed_forward_length", ff),
            ("attention.head_count", 32),
            ("attention.head_count_kv", 32),
            ("rope.dimension_count", 96),
        ],
        32064,
    );
    gguf_passes_then_caught(
        "phi3",
        &meta,
        &t,
        "blk.31.ffn_up.weight",
        &[8192, 3072],
        "(tensor \"blk.31.ffn_up.weight\"): axis 0 expected 2 * d_ff = 2 * 8192 = 16384, found 8192",
    );
}

#[test]
fn phi2_gguf_fused_or_apart() {
    // microsoft/phi-2: 32 blocks, 2560 wide, 32 heads, 10240, LayerNorms and linears with
    // biases, an output head with a bias; q/k/v fused (as the first published conversions
    // from the `mixer.Wqkv` checkpoint) or apart (converted from PhiForCausalLM).
    let (d, ff, vocab) = (2560, 10240, 51200);
    let phi2 = |fused: bool| {
        M::new()
            .t("token_embd.weight", &[vocab, d])
            .each("blk", 32, |l, _| {
                l.norm("attn_norm", d, true);
                if fused {
                    l.lin("attn_qkv", 3 * d, d, true);
                } else {
                    l.lin("attn_q", d, d, true)
                        .lin("attn_k", d, d, true)
                        .lin("attn_v", d, d, true);
                }
                l.lin("attn_output", d, d, true)
                    .lin("ffn_up", ff, d, true)
                    .lin("ffn_down", d, ff, true);
            })
            .norm("output_norm", d, true)
            .lin("output", vocab, d, true)
            .done()
    };
    let meta = gguf_meta(
        "phi2",
        &[
            ("context_length", 2048),
            ("embedding_length", d),
            ("block_count", 32),
            ("feed_forward_length", ff),
            ("attention.head_count", 32),
            ("attention.head_count_kv", 32),
            ("rope.dimension_count", 32),
        ],
        vocab,
    );
    gguf_passes_then_caught(
        "phi2_fused",
        &meta,
        &phi2(true),
        "blk.9.attn_qkv.bias",
        &[2560],
        "(tensor \"blk.9.attn_qkv.bias\"): axis 0 expected (heads + 2 * kv_heads) * head_dim = (32 + 2 * 32) * 80 = 7680, found 2560",
    );
    gguf_passes_then_caught(
        "phi2_apart",
        &meta,
        &phi2(false),
        "blk.9.attn_v.weight",
        &[2560, 2048],
        "metadata `phi2.embedding_length` = 2560, but \"blk.9.attn_v.weight\" axis 1 is 2048",
    );
}

#[test]
fn gptneox_gguf() {
    // EleutherAI/pythia-70m: 6 blocks, 512 wide, 8 heads, 2048, LayerNorms and linears with
    // biases, the vocabulary padded to 50304 tokens.
    let (d, ff, vocab) = (512, 2048, 50304);
    let t = M::new()
        .t("token_embd.weight", &[vocab, d])
        .each("blk", 6, |l, _| {
            l.norm("attn_norm", d, true)
                .lin("attn_qkv", 3 * d, d, true)
                .lin("attn_output", d, d, true)
                .norm("ffn_norm", d, true)
                .lin("ffn_up", ff, d, true)
                .lin("ffn_down", d, ff, true);
        })
        .norm("output_norm", d, true)
        .t("output.weight", &[vocab, d])
        .done();
    let meta = gguf_meta(
        "gptneox",
        &[
            ("context_length", 2048),
            ("embedding_length", d),
            ("block_count", 6),
            ("feed_forward_length", ff),
            ("attention.head_count", 8),
            ("rope.dimension_count", 16),
        ],
        vocab,
    );
    gguf_passes_then_caught(
        "gptneox",
        &meta,
        &t,
        "blk.5.attn_qkv.weight",
        &[1024, 512],
        "(tensor \"blk.5.attn_qkv.weight\"): axis 0 expected 3 * d_model = 3 * 512 = 1536, found 1024",
    );
}

#[test]
fn starcoder2_gguf() {
    // bigcode/starcoder2-3b: 30 blocks, 3072 wide, 24 heads and 2 key/value heads of 128,
    // 12288, biases everywhere, the head tied.
    let (d, ff, vocab) = (3072, 12288, 49152);
    let t = M::new()
        .t("token_embd.weight", &[vocab, d])
        .each("blk", 30, |l, _| {
            l.norm("attn_norm", d, true)
                .lin("attn_q", d, d, true)
                .lin("attn_k", 256, d, true)
                .lin("attn_v", 256, d, true)
                .lin("attn_output", d, d, true)
                .norm("ffn_norm", d, true)
                .lin("ffn_up", ff, d, true)
                .lin("ffn_down", d, ff, true);
        })
        .norm("output_norm", d, true)
        .done();
    let meta = gguf_meta(
        "starcoder2",
        &[
            ("context_length", 16384),
            ("embedding_length", d),
            ("block_count", 30),
            ("feed_forward_length", ff),
            ("attention.head_count", 24),
            ("attention.head_count_kv", 2),
        ],
        vocab,
    );
    gguf_passes_then_caught(
        "starcoder2",
        &meta,
        &t,
        "blk.0.ffn_down.bias",
        &[12288],
        "metadata `starcoder2.embedding_length` = 3072, but \"blk.0.ffn_down.bias\" axis 0 is 12288",
    );
}

#[test]
fn falcon_gguf() {
    // tiiuae/falcon-7b: 32 blocks, 4544 wide, 71 query heads sharing one key/value head of
    // 64, the converter's feed_forward_length 4 × 4544.
    let (d, vocab) = (4544, 65024);
    let t = M::new()
        .t("token_embd.weight", &[vocab, d])
        .each("blk", 32, |l, _| {
            l.norm("attn_norm", d, true)
                .lin("attn_qkv", d + 128, d, false)
                .lin("attn_output", d, d, false)
                .lin("ffn_up", 4 * d, d, false)
                .lin("ffn_down", d, 4 * d, false);
        })
        .norm("output_norm", d, true)
        .t("output.weight", &[vocab, d])
        .done();
    let meta = gguf_meta(
        "falcon",
        &[
            ("context_length", 2048),
            ("embedding_length", d),
            ("block_count", 32),
            ("feed_forward_length", 4 * d),
            ("attention.head_count", 71),
            ("attention.head_count_kv", 1),
        ],
        vocab,
    );
    gguf_passes_then_caught(
        "falcon",
        &meta,
        &t,
        "blk.12.attn_qkv.weight",
        &[3 * d, d],
        "(tensor \"blk.12.attn_qkv.weight\"): axis 0 expected (heads + 2 * kv_heads) * head_dim = (71 + 2 * 1) * 64 = 4672, found 13632",
    );
}
