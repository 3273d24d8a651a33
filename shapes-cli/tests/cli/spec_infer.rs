//! `shapes spec`: a spec written from a checkpoint passes `shapes check --spec` on that
//! checkpoint, and rejects it once a tensor is transposed, a layer is missing, a dim is
//! changed or a config value is changed.

use std::path::{Path, PathBuf};

use crate::models::{M, gguf_meta};
use crate::support::*;
use crate::{fracast, s};

/// A Llama-shaped decoder: vocab 97, d_model 64, 3 layers of 4 heads and 2 key/value heads
/// of 16, d_ff 176.
fn llama() -> Tensors {
    Llama {
        vocab: 97,
        d: 64,
        layers: 3,
        heads: 4,
        kv_heads: 2,
        head_dim: 16,
        ff: 176,
        tied: false,
        qkv_bias: true,
    }
    .hf()
}

fn llama_config(hidden: usize) -> String {
    format!(
        r#"{{"model_type":"llama","hidden_size":{hidden},"intermediate_size":176,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"num_hidden_layers":3,"vocab_size":97,"bos_token_id":2,"max_position_embeddings":64,"sliding_window":176}}"#
    )
}

/// Writes the spec of `ckpt` (with `extra` arguments) to `dir/spec.toml`; returns its path
/// and text.
fn write_spec(dir: &Path, ckpt: &Path, extra: &[&str]) -> (PathBuf, String) {
    let out = dir.join("spec.toml");
    let mut args = vec!["spec", s(ckpt), "-o", s(&out)];
    args.extend(extra);
    let (code, stdout, err) = shapes(&args);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(stdout.is_empty(), "-o writes nothing to stdout: {stdout}");
    let text = std::fs::read_to_string(&out).expect("the spec is written");
    (out, text)
}

/// `shapes check --spec` on `ckpt`: the exit code and the report.
fn check(ckpt: &Path, spec: &Path, extra: &[&str]) -> (i32, String) {
    let mut args = vec!["check", s(ckpt), "--spec", s(spec)];
    args.extend(extra);
    let (code, out, err) = shapes(&args);
    (code, format!("{out}{err}"))
}

fn transposed(mut t: Tensors, name: &str) -> Tensors {
    let e = t.iter_mut().find(|(n, _)| n == name).expect("the tensor");
    e.1.reverse();
    t
}

fn without_layer(t: Tensors, prefix: &str) -> Tensors {
    t.into_iter()
        .filter(|(n, _)| !n.starts_with(prefix))
        .collect()
}

#[test]
fn a_llama_spec_names_config_sizes_and_rejects_each_mutation() {
    let d = dir("spec_infer_llama");
    let ckpt = d.join("model.safetensors");
    let t = llama();
    write_safetensors(&ckpt, &t);
    std::fs::write(d.join("config.json"), llama_config(64)).expect("config");
    let (spec, text) = write_spec(&d, &ckpt, &[]);
    for line in [
        "dtype = \"F16\"",
        "d_model = \"hidden_size\" # 64",
        "d_ff = \"intermediate_size\" # 176",
        "vocab = \"vocab_size\" # 97",
        "n_layers = \"num_hidden_layers\" # 3",
        "\"model.layers\" = \"n_layers\"",
        "\"model.layers.{i}\" = { block = \"layer\" }",
        "[blocks.layer]",
        "\"self_attn.k_proj.weight\" = \"(kv_heads * head_dim, d_model)\"",
        "\"self_attn.k_proj.bias\" = \"(kv_heads * head_dim,)\"",
        "\"mlp.down_proj.weight\" = \"(d_model, d_ff)\"",
        "\"lm_head.weight\" = \"(vocab, d_model)\"",
        "given = [\"head_dim\", \"kv_heads\"]",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "no line {line:?} in\n{text}"
        );
    }
    // Token ids are not sizes; limits that happen to equal a width do not hide it.
    for key in ["bos_token_id", "max_position_embeddings", "sliding_window"] {
        assert!(!text.contains(key), "{text}");
    }
    let (code, out) = check(&ckpt, &spec, &[]);
    assert_eq!(code, 0, "{out}\n{text}");
    // The same text on standard output.
    let (code, stdout, _) = shapes(&["spec", s(&ckpt)]);
    assert_eq!((code, stdout.as_str()), (0, text.as_str()));

    for (what, t, expect) in [
        (
            "transposed",
            transposed(llama(), "model.layers.1.mlp.up_proj.weight"),
            "model.layers.1.mlp.up_proj.weight",
        ),
        (
            "layer missing",
            without_layer(llama(), "model.layers.2."),
            "n_layers",
        ),
        (
            "dim changed",
            reshaped(llama(), "model.layers.1.input_layernorm.weight", &[65]),
            "model.layers.1.input_layernorm.weight",
        ),
    ] {
        let m = dir(&format!("spec_infer_llama_{}", what.replace(' ', "_")));
        let path = m.join("model.safetensors");
        write_safetensors(&path, &t);
        std::fs::write(m.join("config.json"), llama_config(64)).expect("config");
        let (code, out) = check(&path, &spec, &[]);
        assert_eq!(code, 1, "{what} passed:\n{out}");
        assert!(out.contains(expect), "{what}: no `{expect}` in\n{out}");
    }
    // The config changed, the tensors not.
    let m = dir("spec_infer_llama_config_changed");
    let path = m.join("model.safetensors");
    write_safetensors(&path, &llama());
    std::fs::write(m.join("config.json"), llama_config(72)).expect("config");
    let (code, out) = check(&path, &spec, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("hidden_size"), "{out}");
}

/// Mixtral-shaped: 2 layers, each with a router and 4 experts of d_ff 48.
fn moe(layers: usize, experts: usize) -> Tensors {
    M::new()
        .t("model.embed_tokens.weight", &[50, 32])
        .each("model.layers", layers, |l, _| {
            l.lin("self_attn.q_proj", 32, 32, false)
                .lin("self_attn.k_proj", 16, 32, false)
                .lin("self_attn.v_proj", 16, 32, false)
                .lin("self_attn.o_proj", 32, 32, false)
                .lin("block_sparse_moe.gate", experts, 32, false)
                .each("block_sparse_moe.experts", experts, |e, _| {
                    e.lin("w1", 48, 32, false)
                        .lin("w2", 32, 48, false)
                        .lin("w3", 48, 32, false);
                })
                .norm("input_layernorm", 32, false)
                .norm("post_attention_layernorm", 32, false);
        })
        .norm("model.norm", 32, false)
        .lin("lm_head", 50, 32, false)
        .done()
}

fn moe_config(experts: usize) -> String {
    format!(
        r#"{{"model_type":"mixtral","hidden_size":32,"intermediate_size":48,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":8,"num_hidden_layers":2,"num_local_experts":{experts},"vocab_size":50}}"#
    )
}

#[test]
fn experts_inside_layers_are_a_nested_block() {
    let d = dir("spec_infer_moe");
    let ckpt = d.join("model.safetensors");
    write_safetensors(&ckpt, &moe(2, 4));
    std::fs::write(d.join("config.json"), moe_config(4)).expect("config");
    let (spec, text) = write_spec(&d, &ckpt, &[]);
    for line in [
        "\"model.layers\" = \"n_layers\"",
        "\"model.layers.{i}.block_sparse_moe.experts\" = \"n_experts\"",
        "n_experts = \"num_local_experts\" # 4",
        "\"block_sparse_moe.experts.{j}\" = { block = \"expert\" }",
        "\"block_sparse_moe.gate.weight\" = \"(n_experts, d_model)\"",
        "[blocks.expert]",
        "\"w2.weight\" = \"(d_model, d_ff)\"",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "no line {line:?} in\n{text}"
        );
    }
    let (code, out) = check(&ckpt, &spec, &[]);
    assert_eq!(code, 0, "{out}\n{text}");
    let mut one_expert_less = moe(2, 4);
    one_expert_less.retain(|(n, _)| !n.starts_with("model.layers.1.block_sparse_moe.experts.3."));
    for (what, t, config, expect) in [
        (
            "transposed",
            transposed(
                moe(2, 4),
                "model.layers.0.block_sparse_moe.experts.2.w2.weight",
            ),
            moe_config(4),
            "experts.2.w2.weight",
        ),
        (
            "layer missing",
            without_layer(moe(2, 4), "model.layers.1."),
            moe_config(4),
            "n_layers",
        ),
        (
            "expert missing",
            one_expert_less,
            moe_config(4),
            "n_experts",
        ),
        (
            "dim changed",
            reshaped(
                moe(2, 4),
                "model.layers.1.block_sparse_moe.experts.1.w1.weight",
                &[49, 32],
            ),
            moe_config(4),
            "experts.1.w1.weight",
        ),
        (
            "config changed",
            moe(2, 4),
            moe_config(5),
            "num_local_experts",
        ),
    ] {
        let m = dir(&format!("spec_infer_moe_{}", what.replace(' ', "_")));
        let path = m.join("model.safetensors");
        write_safetensors(&path, &t);
        std::fs::write(m.join("config.json"), config).expect("config");
        let (code, out) = check(&path, &spec, &[]);
        assert_eq!(code, 1, "{what} passed:\n{out}");
        assert!(out.contains(expect), "{what}: no `{expect}` in\n{out}");
    }
}

/// A GGUF decoder of an architecture no built-in describes, with its `{arch}.*` metadata.
fn gguf_model(layers: usize) -> Tensors {
    M::new()
        .t("token_embd.weight", &[61, 48])
        .each("blk", layers, |l, _| {
            l.norm("attn_norm", 48, false)
                .lin("attn_q", 48, 48, false)
                .lin("attn_k", 24, 48, false)
                .lin("attn_v", 24, 48, false)
                .lin("attn_output", 48, 48, false)
                .norm("ffn_norm", 48, false)
                .lin("ffn_gate", 136, 48, false)
                .lin("ffn_up", 136, 48, false)
                .lin("ffn_down", 48, 136, false);
        })
        .norm("output_norm", 48, false)
        .done()
}

fn gguf_keys(ff: usize) -> Vec<(String, Meta)> {
    gguf_meta(
        "newarch",
        &[
            ("embedding_length", 48),
            ("block_count", 3),
            ("feed_forward_length", ff),
            ("attention.head_count", 4),
            ("attention.head_count_kv", 2),
            ("attention.key_length", 12),
        ],
        61,
    )
}

#[test]
fn a_gguf_spec_binds_the_arch_keys() {
    let d = dir("spec_infer_gguf");
    let ckpt = d.join("model.gguf");
    write_gguf(&ckpt, &gguf_keys(136), &gguf_model(3), 0);
    let (spec, text) = write_spec(&d, &ckpt, &[]);
    for line in [
        "name = \"Newarch\"",
        "d_model = \"{arch}.embedding_length\" # 48",
        "d_ff = \"{arch}.feed_forward_length\" # 136",
        "vocab = \"tokenizer.ggml.tokens\" # 61",
        "\"blk\" = \"n_layers\"",
        "\"attn_k.weight\" = \"(kv_heads * head_dim, d_model)\"",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "no line {line:?} in\n{text}"
        );
    }
    let (code, out) = check(&ckpt, &spec, &[]);
    assert_eq!(code, 0, "{out}\n{text}");
    for (what, t, keys, expect) in [
        (
            "transposed",
            transposed(gguf_model(3), "blk.0.ffn_down.weight"),
            gguf_keys(136),
            "blk.0.ffn_down.weight",
        ),
        (
            "layer missing",
            without_layer(gguf_model(3), "blk.2."),
            gguf_keys(136),
            "n_layers",
        ),
        (
            "dim changed",
            reshaped(gguf_model(3), "blk.1.attn_norm.weight", &[47]),
            gguf_keys(136),
            "blk.1.attn_norm.weight",
        ),
        (
            "config changed",
            gguf_model(3),
            gguf_keys(140),
            "feed_forward_length",
        ),
    ] {
        let m = dir(&format!("spec_infer_gguf_{}", what.replace(' ', "_")));
        let path = m.join("model.gguf");
        write_gguf(&path, &keys, &t, 0);
        let (code, out) = check(&path, &spec, &[]);
        assert_eq!(code, 1, "{what} passed:\n{out}");
        assert!(out.contains(expect), "{what}: no `{expect}` in\n{out}");
    }
}

#[test]
fn without_a_config_sizes_are_written_as_found() {
    let d = dir("spec_infer_bare");
    let ckpt = d.join("model.safetensors");
    write_safetensors(&ckpt, &llama());
    let (spec, text) = write_spec(&d, &ckpt, &[]);
    assert!(!text.contains("[config]"), "{text}");
    for line in [
        "where = [\"n_layer = 3\"]",
        "\"model.layers\" = \"n_layer\"",
        "\"mlp.up_proj.weight\" = \"(176, 64)\"",
        // A bias and its weight's rows: one variable.
        "\"self_attn.k_proj.bias\" = \"(k_proj,)\"",
        "\"self_attn.k_proj.weight\" = \"(k_proj, 64)\"",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "no line {line:?} in\n{text}"
        );
    }
    let (code, out) = check(&ckpt, &spec, &[]);
    assert_eq!(code, 0, "{out}\n{text}");
    for (what, t, expect) in [
        (
            "transposed",
            transposed(llama(), "model.embed_tokens.weight"),
            "model.embed_tokens.weight",
        ),
        (
            "layer missing",
            without_layer(llama(), "model.layers.2."),
            "n_layer",
        ),
        (
            "dim changed",
            reshaped(llama(), "model.layers.0.self_attn.k_proj.bias", &[33]),
            "k_proj",
        ),
    ] {
        let m = dir(&format!("spec_infer_bare_{}", what.replace(' ', "_")));
        let path = m.join("model.safetensors");
        write_safetensors(&path, &t);
        let (code, out) = check(&path, &spec, &[]);
        assert_eq!(code, 1, "{what} passed:\n{out}");
        assert!(out.contains(expect), "{what}: no `{expect}` in\n{out}");
    }
}

#[test]
fn the_fixture_round_trips() {
    let d = dir("spec_infer_fracast");
    let ckpt = PathBuf::from(fracast("fracast_model.safetensors"));
    let config = fracast("fracast_config.json");
    let (spec, text) = write_spec(&d, &ckpt, &["--config", &config]);
    assert!(text.contains("d_model = \"model.d_model\" # 64"), "{text}");
    assert!(
        text.contains("\"head.fc_blocks\" = \"head_fc_layers\""),
        "{text}"
    );
    let (code, out) = check(&ckpt, &spec, &["--config", &config]);
    assert_eq!(code, 0, "{out}\n{text}");
    // Its int8 sibling holds other dtypes and tensors: the spec says so.
    let (code, out) = check(
        Path::new(&fracast("fracast_model.int8.safetensors")),
        &spec,
        &["--config", &config],
    );
    assert_eq!(code, 1, "{out}");
}

#[test]
fn rust_structs_and_errors() {
    let d = dir("spec_infer_rust");
    let ckpt = d.join("model.safetensors");
    write_safetensors(&ckpt, &moe(2, 4));
    std::fs::write(d.join("config.json"), moe_config(4)).expect("config");
    let (code, out, err) = shapes(&["spec", s(&ckpt), "--rust"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("#[derive(shapes::Shaped)]\n#[shapes(config("),
        "{out}"
    );
    assert!(
        out.contains("    #[shape(nested, prefix = \"block_sparse_moe.experts\", count = \"n_experts\")]\n    pub block_sparse_moe_experts: Vec<Expert<T>>,\n"),
        "{out}"
    );
    // A file that is not a checkpoint, and an unwritable output: exit 2, said why.
    let bad = d.join("bad.safetensors");
    std::fs::write(&bad, b"not a checkpoint").expect("write");
    let (code, _, err) = shapes(&["spec", s(&bad)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    let (code, _, err) = shapes(&["spec", s(&ckpt), "-o", s(&d.join("no/such/dir/x.toml"))]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("-o "), "{err}");
}
