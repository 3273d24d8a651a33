//! An architecture no built-in spec describes still gets checked: the generic checks of its
//! format's conventions (llama.cpp's GGUF keys and tensor names; transformers' common
//! config keys and decoder layout), the report saying so.

use crate::models::{M, gguf_meta};
use crate::support::*;
use crate::{has_line, hf_dir, s};

/// ibm-granite/granite-3.1-2b-instruct as llama.cpp converts it (general.architecture =
/// granite, which no built-in spec describes): 40 blocks, 2048 wide, 32 heads and 8
/// key/value heads of 64, feed-forward 8192, vocab 49155, the head tied.
fn granite(ff_stated: usize) -> (Vec<(String, Meta)>, Tensors) {
    let d = 2048;
    let t = M::new()
        .t("token_embd.weight", &[49155, d])
        .each("blk", 40, |l, _| {
            l.norm("attn_norm", d, false)
                .lin("attn_q", d, d, false)
                .lin("attn_k", 512, d, false)
                .lin("attn_v", 512, d, false)
                .lin("attn_output", d, d, false)
                .norm("ffn_norm", d, false)
                .lin("ffn_gate", 8192, d, false)
                .lin("ffn_up", 8192, d, false)
                .lin("ffn_down", d, 8192, false);
        })
        .norm("output_norm", d, false)
        .done();
    let meta = gguf_meta(
        "granite",
        &[
            ("context_length", 131072),
            ("embedding_length", d),
            ("block_count", 40),
            ("feed_forward_length", ff_stated),
            ("attention.head_count", 32),
            ("attention.head_count_kv", 8),
        ],
        49155,
    );
    (meta, t)
}

#[test]
fn an_unknown_gguf_architecture_gets_the_generic_checks() {
    let d = dir("generic_gguf");
    let (meta, t) = granite(8192);
    let path = d.join("granite.gguf");
    write_gguf(&path, &meta, &t, 0);
    let (code, out, err) = shapes(&["check", s(&path)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("spec: GenericGguf (<generic GGUF checks: architecture `granite` not recognised>)\narchitecture `granite` is not recognised: the generic checks of llama.cpp's GGUF conventions ran"),
        "{out}"
    );
    assert!(
        has_line(
            &out,
            "checked: `feed_forward_length` against ffn_gate, ffn_up and ffn_down"
        ),
        "{out}"
    );
    assert!(
        has_line(&out, "hd_k 64 solving GenericGguf.blk[0].attn_q.weight"),
        "{out}"
    );
    assert!(
        has_line(&out, "n_layers 40 metadata `granite.block_count`"),
        "{out}"
    );

    // The metadata's feed_forward_length doubled: named as the one cause.
    let (meta, _) = granite(16384);
    let bad = d.join("granite_ff.gguf");
    write_gguf(&bad, &meta, &t, 0);
    let (code, out, _) = shapes(&["check", s(&bad)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("120 errors, one cause: metadata `granite.feed_forward_length` = 16384, but the tensors give d_ff = 8192"),
        "{out}"
    );

    // One block's keys with the wrong number of rows.
    let (meta, _) = granite(8192);
    let bad = d.join("granite_k.gguf");
    write_gguf(
        &bad,
        &meta,
        &reshaped(t.clone(), "blk.7.attn_k.weight", &[1024, 2048]),
        0,
    );
    let (code, out, _) = shapes(&["check", s(&bad)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("GenericGguf.blk[7].attn_k.weight (tensor \"blk.7.attn_k.weight\"): axis 0 expected kv_heads * hd_k = 8 * 64 = 512, found 1024"),
        "{out}"
    );

    // A block missing: block_count says 40.
    let short: Tensors = t
        .iter()
        .filter(|(n, _)| !n.starts_with("blk.39."))
        .cloned()
        .collect();
    let bad = d.join("granite_short.gguf");
    write_gguf(&bad, &meta, &short, 0);
    let (code, out, _) = shapes(&["check", s(&bad)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("expected 40 elements under blk.* (n_layers = 40), found 39"),
        "{out}"
    );

    // JSON carries the notes.
    let (code, out, _) = shapes(&["check", s(&path), "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert!(
        v["notes"][0]
            .as_str()
            .is_some_and(|n| n.starts_with("architecture `granite` is not recognised")),
        "{out}"
    );
}

#[test]
fn a_key_stated_per_layer_leaves_its_tensors_unchecked() {
    // An architecture whose feed-forward width varies by layer (OpenELM's, say): the GGUF
    // states feed_forward_length as an array, so the ffn tensors are not checked against
    // it, while the rest still is.
    let d = dir("generic_per_layer");
    let t = M::new()
        .t("token_embd.weight", &[1000, 64])
        .each("blk", 2, |l, i| {
            l.norm("attn_norm", 64, false)
                .lin("ffn_up", 128 * (i + 1), 64, false)
                .lin("ffn_down", 64, 128 * (i + 1), false);
        })
        .done();
    let mut meta = gguf_meta("elm", &[("embedding_length", 64), ("block_count", 2)], 1000);
    meta.push(("elm.feed_forward_length".into(), Meta::Tokens(2)));
    let path = d.join("elm.gguf");
    write_gguf(&path, &meta, &t, 0);
    let (code, out, err) = shapes(&["check", s(&path)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("feed_forward_length"), "{out}");
    let bad = d.join("elm_bad.gguf");
    write_gguf(
        &bad,
        &meta,
        &reshaped(t, "blk.1.attn_norm.weight", &[65]),
        0,
    );
    let (code, out, _) = shapes(&["check", s(&bad)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "metadata `elm.embedding_length` = 64, but \"blk.1.attn_norm.weight\" axis 0 is 65"
        ),
        "{out}"
    );
}

/// allenai/OLMo-2-0425-1B (model_type olmo2, which no built-in spec describes): 16 layers,
/// hidden 2048, 16 heads (and 16 key/value heads) of 128, intermediate 8192, vocab 100352,
/// untied head; its q/k norms over the whole width and its post-norms are not among the
/// tensors the generic checks know.
fn olmo2() -> Tensors {
    let d = 2048;
    M::new()
        .t("model.embed_tokens.weight", &[100352, d])
        .each("model.layers", 16, |l, _| {
            for p in ["q_proj", "k_proj", "v_proj", "o_proj"] {
                l.lin(&format!("self_attn.{p}"), d, d, false);
            }
            l.norm("self_attn.q_norm", d, false)
                .norm("self_attn.k_norm", d, false)
                .lin("mlp.gate_proj", 8192, d, false)
                .lin("mlp.up_proj", 8192, d, false)
                .lin("mlp.down_proj", d, 8192, false)
                .norm("post_attention_layernorm", d, false)
                .norm("post_feedforward_layernorm", d, false);
        })
        .norm("model.norm", d, false)
        .t("lm_head.weight", &[100352, d])
        .done()
}

const OLMO2_CONFIG: &str = r#"{"architectures":["Olmo2ForCausalLM"],"model_type":"olmo2","hidden_size":2048,"intermediate_size":8192,"num_hidden_layers":16,"num_attention_heads":16,"num_key_value_heads":16,"vocab_size":100352,"max_position_embeddings":4096,"tie_word_embeddings":false}"#;

#[test]
fn an_unknown_config_architecture_gets_the_generic_checks() {
    let path = hf_dir("generic_olmo2", &olmo2(), OLMO2_CONFIG);
    let (code, out, err) = shapes(&["check", s(&path)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("architecture `olmo2` is not recognised: the generic checks of transformers' common config keys and decoder layout ran"),
        "{out}"
    );
    assert!(
        has_line(
            &out,
            "checked: `num_hidden_layers` against the number of `model.layers.N` layers, `hidden_size` against their norms"
        ),
        "{out}"
    );
    assert!(
        has_line(
            &out,
            "head_dim 128 solving Generic.model.layers[0].self_attn.q_proj.weight"
        ),
        "{out}"
    );

    // A value projection of half the rows.
    let bad = reshaped(
        olmo2(),
        "model.layers.9.self_attn.v_proj.weight",
        &[1024, 2048],
    );
    let path = hf_dir("generic_olmo2_v", &bad, OLMO2_CONFIG);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("(tensor \"model.layers.9.self_attn.v_proj.weight\"): axis 0 expected kv_heads * head_dim = 16 * 128 = 2048, found 1024"),
        "{out}"
    );

    // A config whose intermediate_size is not the tensors': the one cause.
    let config = OLMO2_CONFIG.replace("\"intermediate_size\":8192", "\"intermediate_size\":11008");
    let path = hf_dir("generic_olmo2_config", &olmo2(), &config);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("48 errors, one cause: config `intermediate_size` = 11008, but the tensors give d_ff = 8192"),
        "{out}"
    );
}

#[test]
fn without_a_config_an_unknown_safetensors_file_still_exits_2() {
    let d = dir("generic_none");
    write_safetensors(&d.join("model.safetensors"), &olmo2());
    let (code, _, err) = shapes(&["check", s(&d.join("model.safetensors"))]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the file names no architecture"), "{err}");
}
