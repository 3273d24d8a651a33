//! The `shapes` binary run as a process: on the shipped fracast checkpoint, and on files the
//! tests write with the published shapes of a Llama-family model (GQA), Qwen2, GPT-2 and
//! BERT, each also corrupted in one way.

mod adapter;
mod decoders;
mod diff;
mod encoders;
mod generic;
mod gguf_archs;
mod gguf_moe;
mod models;
mod moe;
mod parity;
mod schema;
mod several;
mod silence;
mod spec_infer;
mod support;

use std::path::{Path, PathBuf};

use support::*;

fn fracast(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/fracast")
        .join(file)
        .display()
        .to_string()
}

/// Whether `out` has a line that reads `want` with runs of spaces taken as one.
fn has_line(out: &str, want: &str) -> bool {
    let norm = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
    let want = norm(want);
    out.lines().any(|l| norm(l) == want)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// A checkpoint file and a config.json beside it, in a fresh directory.
fn hf_dir(name: &str, tensors: &Tensors, config: &str) -> PathBuf {
    let d = dir(name);
    write_safetensors(&d.join("model.safetensors"), tensors);
    std::fs::write(d.join("config.json"), config).expect("config");
    d.join("model.safetensors")
}

#[test]
fn the_fixture_matches_its_spec_with_the_config_bound() {
    let (code, out, err) = shapes(&[
        "check",
        &fracast("fracast_model.safetensors"),
        "--spec",
        &fracast("fracast.toml"),
        "--config",
        &fracast("fracast_config.json"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("OK: the checkpoint matches the spec"), "{out}");
    assert!(has_line(&out, "d_model 64 config `model.d_model`"), "{out}");
    assert!(
        has_line(&out, "n_in_features 7 Fracast.core.in_proj.weight axis 1"),
        "{out}"
    );
}

#[test]
fn a_corrupted_fixture_names_the_tensor() {
    let d = dir("fracast_corrupt");
    let src =
        shapes::checkpoint::SafetensorsHeader::read_path(fracast("fracast_model.safetensors"))
            .expect("the fixture reads");
    let tensors: Tensors = src
        .tensors()
        .iter()
        .map(|t| {
            let dims = if t.name == "head.fc_blocks.1.dw_weight" {
                vec![64, 1, 4]
            } else {
                t.shape.dims().to_vec()
            };
            (t.name.clone(), dims)
        })
        .collect();
    let path = d.join("fracast_corrupt.safetensors");
    write_safetensors(&path, &tensors);
    let (code, out, _) = shapes(&[
        "check",
        s(&path),
        "--spec",
        &fracast("fracast.toml"),
        "--config",
        &fracast("fracast_config.json"),
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "Fracast.head.fc_blocks[1].dw_weight: config `model.head_fc_kernel` = 3, but \"head.fc_blocks.1.dw_weight\" axis 2 is 4"
        ),
        "{out}"
    );
}

/// A mismatch names the line of the spec file that declares its pattern: in the text, in
/// `--json` and as SARIF's related location.
#[test]
fn a_mismatch_names_the_spec_line_that_declares_its_pattern() {
    let d = dir("declared_at");
    let text = std::fs::read_to_string(fracast("fracast.toml")).expect("the fixture's spec");
    let entry = "\"head.fc_blocks.{i}.dw_weight\" = \"(d_model, 1, head_fc_kernel)\"";
    let line = 1 + text.lines().position(|l| l == entry).expect("the entry");
    let spec = d.join("wrong.toml");
    std::fs::write(&spec, text.replace(entry, &entry.replace(", 1,", ", 2,"))).expect("spec");
    let args = |extra: &'static [&'static str]| {
        let mut a = vec![
            "check".to_owned(),
            fracast("fracast_model.safetensors"),
            "--spec".to_owned(),
            s(&spec).to_owned(),
            "--config".to_owned(),
            fracast("fracast_config.json"),
        ];
        a.extend(extra.iter().map(|x| (*x).to_owned()));
        a
    };
    let run = |extra| {
        let a = args(extra);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        shapes(&a)
    };
    let (code, out, _) = run(&[]);
    assert_eq!(code, 1, "{out}");
    let want = format!(
        "    shape is (64, 1, 3), pattern (d_model, 2, head_fc_kernel)\n    declared at {}:{line}:34\n",
        s(&spec)
    );
    assert!(out.contains(&want), "{out}");
    let (_, json, _) = run(&["--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["errors"][0]["declared_at"]["file"], s(&spec));
    assert_eq!(v["errors"][0]["declared_at"]["line"], line);
    assert_eq!(v["errors"][0]["declared_at"]["column"], 34);
    let (_, sarif, _) = run(&["--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_str(&sarif).expect("SARIF");
    let region = &v["runs"][0]["results"][0]["relatedLocations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (&region["startLine"], &region["startColumn"]),
        (&line.into(), &34.into())
    );
}

#[test]
fn a_llama_gqa_checkpoint_is_recognised_and_checked() {
    let path = hf_dir("smollm", &SMOLLM_135M.hf(), &SMOLLM_135M.config("llama"));
    let (code, out, err) = shapes(&["inspect", s(&path)]);
    assert_eq!(code, 0, "{err}");
    assert!(
        has_line(
            &out,
            "model.layers.{0..29}.self_attn.q_proj.weight F16 (576, 576) ×30"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "d_model = 576, heads = 9, kv_heads = 3, head_dim = 64, n_layers = 30, d_ff = 1536, vocab = 49152, tied embeddings"
        ),
        "{out}"
    );
    let (code, out, err) = shapes(&["check", s(&path)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("lm_head.weight is tied to model.embed_tokens.weight (config `tie_word_embeddings` = true)"),
        "{out}"
    );
    assert!(
        has_line(&out, "kv_heads 3 config `num_key_value_heads`"),
        "{out}"
    );
}

/// The built-in Llama spec's `where`: sizes that fit together but heads that do not group
/// (9 query heads over 2 key/value heads) are rejected, naming the clause and the keys.
#[test]
fn a_llama_whose_heads_do_not_group_is_rejected() {
    let odd = Llama {
        kv_heads: 2,
        ..SMOLLM_135M
    };
    let path = hf_dir("smollm_groups", &odd.hf(), &odd.config("llama"));
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("MISMATCH: 1 error"), "{out}");
    assert!(
        has_line(
            &out,
            "- Llama: where clause fails: heads % kv_heads = 9 % 2 = 1, not 0"
        ),
        "{out}"
    );
    assert!(
        has_line(
            &out,
            "heads = 9 bound by config `num_attention_heads`; kv_heads = 2 bound by config `num_key_value_heads`"
        ),
        "{out}"
    );
}

#[test]
fn a_llama_with_one_corrupted_tensor_names_it() {
    let t = reshaped(
        SMOLLM_135M.hf(),
        "model.layers.7.self_attn.k_proj.weight",
        &[256, 576],
    );
    let path = hf_dir("smollm_corrupt", &t, &SMOLLM_135M.config("llama"));
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("MISMATCH: 1 error"), "{out}");
    assert!(
        out.contains(
            "Llama.model.layers[7].self_attn.k_proj.weight (tensor \"model.layers.7.self_attn.k_proj.weight\"): axis 0 expected kv_heads * head_dim = 3 * 64 = 192, found 256"
        ),
        "{out}"
    );
}

#[test]
fn a_wrong_config_is_named_by_its_key() {
    let config = SMOLLM_135M
        .config("llama")
        .replace("\"intermediate_size\":1536", "\"intermediate_size\":2048");
    let path = hf_dir("smollm_config", &SMOLLM_135M.hf(), &config);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "90 errors, one cause: config `intermediate_size` = 2048, but the tensors give d_ff = 1536 (bound by Llama.model.layers[0].mlp.gate_proj.weight axis 0)"
        ),
        "{out}"
    );
    assert!(
        out.contains("d_ff = 2048 bound by config `intermediate_size`"),
        "{out}"
    );
}

#[test]
fn a_renamed_tensor_gets_a_did_you_mean() {
    let t = renamed(
        SMOLLM_135M.hf(),
        "model.layers.3.mlp.up_proj.weight",
        "model.layers.3.mlp.upproj.weight",
    );
    let path = hf_dir("smollm_renamed", &t, &SMOLLM_135M.config("llama"));
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "hint: `model.layers.3.mlp.up_proj.weight` is missing: did you mean `model.layers.3.mlp.upproj.weight`?"
        ),
        "{out}"
    );
}

#[test]
fn an_untied_head_that_is_missing_is_an_error() {
    let config = SMOLLM_135M.config("llama").replace(
        "\"tie_word_embeddings\":true",
        "\"tie_word_embeddings\":false",
    );
    let path = hf_dir("smollm_untied", &SMOLLM_135M.hf(), &config);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "Llama.lm_head.weight: tensor \"lm_head.weight\" is missing, and config `tie_word_embeddings` = false says it is not tied to \"model.embed_tokens.weight\""
        ),
        "{out}"
    );
}

#[test]
fn qwen2_as_gguf_binds_its_dims_from_the_metadata() {
    let d = dir("qwen2_gguf");
    let path = d.join("qwen2.gguf");
    write_gguf(&path, &QWEN2_0_5B.gguf_meta("qwen2"), &QWEN2_0_5B.gguf(), 0);
    let (code, out, err) = shapes(&["check", s(&path)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        has_line(&out, "vocab 151936 metadata `tokenizer.ggml.tokens`"),
        "{out}"
    );
    assert!(
        out.contains("output.weight is tied to token_embd.weight (absent from the checkpoint)"),
        "{out}"
    );

    let bad = d.join("qwen2_bad.gguf");
    let t = reshaped(QWEN2_0_5B.gguf(), "blk.11.attn_k.bias", &[64]);
    write_gguf(&bad, &QWEN2_0_5B.gguf_meta("qwen2"), &t, 0);
    let (code, out, _) = shapes(&["check", s(&bad)]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("(tensor \"blk.11.attn_k.bias\"): axis 0 expected kv_heads * head_dim = 2 * 64 = 128, found 64"), "{out}");
}

#[test]
fn gpt2_is_checked_with_its_conv1d_layout() {
    let path = hf_dir("gpt2", &gpt2_small(), GPT2_CONFIG);
    let (code, out, err) = shapes(&["check", s(&path)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(has_line(&out, "head_dim 64 solving GPT2"), "{out}");
    // c_attn written as a Linear (out, in) instead of Conv1D's (in, out).
    let t = reshaped(gpt2_small(), "h.4.attn.c_attn.weight", &[2304, 768]);
    let path = hf_dir("gpt2_bad", &t, GPT2_CONFIG);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("(tensor \"h.4.attn.c_attn.weight\")"), "{out}");
}

#[test]
fn bert_needs_its_heads_from_the_config() {
    let path = hf_dir("bert", &bert_base(), BERT_CONFIG);
    let (code, out, err) = shapes(&["check", s(&path)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        has_line(&out, "n_layers 12 config `num_hidden_layers`"),
        "{out}"
    );
    let t = reshaped(
        bert_base(),
        "encoder.layer.5.intermediate.dense.bias",
        &[3000],
    );
    let path = hf_dir("bert_bad", &t, BERT_CONFIG);
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("Bert.encoder.layer[5].intermediate.dense.bias: config `intermediate_size` = 3072, but \"encoder.layer.5.intermediate.dense.bias\" axis 0 is 3000"), "{out}");
    // Without a config, `heads` shows in no shape: a clear usage error.
    let d = dir("bert_no_config");
    write_safetensors(&d.join("model.safetensors"), &bert_base());
    let (code, _, err) = shapes(&["check", s(&d.join("model.safetensors")), "--arch", "bert"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`heads` shows in no tensor's shape"), "{err}");
    let (code, out, err) = shapes(&[
        "check",
        s(&d.join("model.safetensors")),
        "--arch",
        "bert",
        "--set",
        "heads=12",
    ]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn a_file_that_is_no_checkpoint_exits_2() {
    let d = dir("not_a_checkpoint");
    let path = d.join("notes.txt");
    std::fs::write(&path, "these are not weights\n").expect("write");
    let (code, out, err) = shapes(&["check", s(&path), "--arch", "llama"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.starts_with(&format!(
            "error: {}: not a checkpoint this reader knows",
            path.display()
        )),
        "{err}"
    );
    let (code, _, err) = shapes(&["check", "/nonexistent/model.safetensors"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("/nonexistent/model.safetensors: No such file"),
        "{err}"
    );
    let (code, _, _) = shapes(&["check"]);
    assert_eq!(code, 2, "bad usage exits 2");
}

#[test]
fn the_json_report_parses_back() {
    let t = reshaped(
        SMOLLM_135M.hf(),
        "model.layers.7.self_attn.k_proj.weight",
        &[256, 576],
    );
    let t = renamed(t, "model.norm.weight", "model.nrm.weight");
    let path = hf_dir("smollm_json", &t, &SMOLLM_135M.config("llama"));
    let (code, out, _) = shapes(&["check", s(&path), "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["ok"], false);
    assert_eq!(
        v["errors"][0]["tensor"],
        "model.layers.7.self_attn.k_proj.weight"
    );
    assert_eq!(v["errors"][0]["axis"], 0);
    assert_eq!(v["missing"][0], "model.norm.weight");
    assert_eq!(v["unexpected"][0], "model.nrm.weight");
    assert_eq!(v["suggestions"][0]["did_you_mean"], "model.nrm.weight");
    assert_eq!(v["given"][0]["source"], "config `hidden_size`");

    let good = hf_dir(
        "smollm_json_ok",
        &SMOLLM_135M.hf(),
        &SMOLLM_135M.config("llama"),
    );
    let (code, out, _) = shapes(&["check", s(&good), "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["ok"], true);
    let heads = v["bindings"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["variable"] == "head_dim"))
        .expect("head_dim bound");
    assert_eq!(heads["value"], 64);
}

#[test]
fn a_bad_spec_points_at_its_line_and_column() {
    let d = dir("bad_spec");
    let spec = d.join("bad.toml");
    std::fs::write(&spec, "name = \"M\"\n[tensors]\n\"w\" = \"(d_out d_in)\"\n").expect("write");
    let (code, _, err) = shapes(&[
        "check",
        &fracast("fracast_model.safetensors"),
        "--spec",
        s(&spec),
    ]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "error: {}:3:15: in the pattern of `w`: expected ',' or ')', found 'd_in' at byte 7\n   3 | \"w\" = \"(d_out d_in)\"\n     |               ^\n",
            spec.display()
        )
    );
    std::fs::write(&spec, "[tensors]\n\"w\" = { block = \"lin\", rename = { d_ot = \"d\" } }\n[blocks.lin]\n\"weight\" = \"(d_out, d_in)\"\n").expect("write");
    let (code, _, err) = shapes(&[
        "check",
        &fracast("fracast_model.safetensors"),
        "--spec",
        s(&spec),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains(
            ":2:17: `rename` names `d_ot`, which block `lin` does not use (did you mean `d_out`?)"
        ),
        "{err}"
    );
}

/// Every ```text block of the README that starts with `$ shapes …` is what that command prints
/// (fixture paths run from the repository root; the SmolLM-135M files are written by this
/// test).
#[test]
fn the_readme_shows_what_the_command_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let files = dir("readme");
    let bad_config = SMOLLM_135M
        .config("llama")
        .replace("\"intermediate_size\":1536", "\"intermediate_size\":2048");
    for (name, config) in [
        ("SmolLM-135M", SMOLLM_135M.config("llama")),
        ("SmolLM-135M-bad-config", bad_config),
    ] {
        let to = files.join(name);
        std::fs::create_dir_all(&to).expect("dir");
        write_safetensors(&to.join("model.safetensors"), &SMOLLM_135M.hf());
        std::fs::write(to.join("config.json"), config).expect("config");
    }
    let mut checked = 0;
    let mut rest = readme.as_str();
    while let Some(start) = rest.find("```text\n$ shapes ") {
        let block = &rest[start + "```text\n".len()..];
        let end = block.find("\n```").expect("a closed block");
        let (command, expected) = block[..end].split_once('\n').expect("output lines");
        let args: Vec<&str> = command
            .trim_start_matches("$ shapes ")
            .split_whitespace()
            .collect();
        let cwd = if args.iter().any(|a| a.starts_with("tests/")) {
            root.clone()
        } else {
            files.clone()
        };
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_shapes"))
            .args(&args)
            .current_dir(&cwd)
            .env("NO_COLOR", "1")
            .output()
            .expect("runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(stdout.trim_end(), expected, "README block `{command}`");
        checked += 1;
        rest = &block[end..];
    }
    assert_eq!(checked, 3, "the README's three command blocks");
}

#[test]
fn non_strict_allows_tensors_the_spec_does_not_describe() {
    let mut t = SMOLLM_135M.hf();
    t.push(("model.layers.0.self_attn.extra_scale".into(), vec![9]));
    let path = hf_dir("smollm_extra", &t, &SMOLLM_135M.config("llama"));
    let (code, out, _) = shapes(&["check", s(&path)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("unexpected tensors (1):\n  model.layers.0.self_attn.extra_scale"),
        "{out}"
    );
    let (code, out, _) = shapes(&["check", s(&path), "--non-strict"]);
    assert_eq!(code, 0, "{out}");
    let (code, _, err) = shapes(&["check", s(&path), "--arch", "mamba"]);
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "no built-in architecture `mamba`: the built-ins are llama, qwen3, gemma, gemma2, gemma3, phi3, phi, mixtral, qwen2_moe, qwen3_moe, deepseek_v3, gpt2, gpt_neox, starcoder2, falcon, bert, roberta, t5, whisper, vit, clip, siglip"
        ),
        "{err}"
    );
    let (code, _, err) = shapes(&["check", s(&path), "--set", "head=9"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--set head: the spec Llama has no variable `head` (did you mean `heads`?)"),
        "{err}"
    );
}

#[test]
fn inspect_shows_gguf_metadata_by_length() {
    let d = dir("inspect_gguf");
    let path = d.join("smollm.gguf");
    write_gguf(
        &path,
        &SMOLLM_135M.gguf_meta("llama"),
        &SMOLLM_135M.gguf(),
        0,
    );
    let (code, out, err) = shapes(&["inspect", s(&path)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(": GGUF, 272 tensors"), "{out}");
    assert!(
        has_line(&out, "tokenizer.ggml.tokens = [49152 × String]"),
        "{out}"
    );
    assert!(
        has_line(&out, "blk.{0..29}.attn_k.weight F16 (192, 576) ×30"),
        "{out}"
    );
    assert!(
        out.contains("heads = 9, kv_heads = 3, head_dim = 64, n_layers = 30"),
        "{out}"
    );
}

#[test]
fn a_spec_is_analysed_like_a_derived_struct() {
    let d = dir("spec_analysis");
    let spec = d.join("s.toml");
    let run = |text: &str| {
        std::fs::write(&spec, text).expect("write");
        let (code, _, err) = shapes(&[
            "check",
            &fracast("fracast_model.safetensors"),
            "--spec",
            s(&spec),
        ]);
        assert_eq!(code, 2, "{err}");
        err
    };
    let err = run("[tensors]\n\"w\" = \"(heads * head_dim, d_model)\"\n");
    assert!(
        err.contains(":2:7: `head_dim`, `heads` can never be solved from the tensors: they only appear inside arithmetic with other unknowns. Declare one with given = [\"head_dim\"]"),
        "{err}"
    );
    let err = run("[tensors]\n\"a\" = \"(d_model, d_model)\"\n\"b\" = \"(d_modle,)\"\n");
    assert!(
        err.contains(
            ":3:7: `d_modle` is used only once, so nothing checks it (did you mean `d_model`?)"
        ),
        "{err}"
    );
    let err = run("given = [\"head\"]\n[tensors]\n\"a\" = \"(heads, 4)\"\n");
    assert!(
        err.contains(":1:10: `given` names `head`, which no tensor uses (did you mean `heads`?)"),
        "{err}"
    );
}

/// Issue class 5 in spec files: comparisons and divisibility beside equations, several in one
/// string, checked once bound; a failure names the clause and where its variables came from.
#[test]
fn a_spec_states_comparisons_in_where() {
    let d = dir("spec_where_cmp");
    let spec = d.join("s.toml");
    let text = std::fs::read_to_string(fracast("fracast.toml")).expect("spec");
    let run = |wheres: &str| {
        let body = text.replace(
            "where = [\"2 * ffn_hidden = 3 * d_model\"]",
            &format!("where = [\"2 * ffn_hidden = 3 * d_model\", {wheres}]"),
        );
        assert_ne!(body, text, "the fixture's where line moved");
        std::fs::write(&spec, body).expect("write");
        shapes(&[
            "check",
            &fracast("fracast_model.safetensors"),
            "--spec",
            s(&spec),
            "--config",
            &fracast("fracast_config.json"),
        ])
    };
    let (code, out, err) = run("\"d_model % 8 = 0, kernel_size <= 64\", \"d_model != 0\"");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("OK: the checkpoint matches the spec"), "{out}");

    let (code, out, err) = run("\"d_model >= 100000\"");
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        has_line(
            &out,
            "- Fracast: where clause fails: d_model >= 100000 does not hold: d_model = 64"
        ),
        "{out}"
    );
    assert!(
        has_line(&out, "d_model = 64 bound by config `model.d_model`"),
        "{out}"
    );

    // A name only a comparison uses is bound by nothing: the spec is rejected before any file
    // is read, with the name it was probably meant to be.
    let (code, _, err) = run("\"d_modle >= 1\"");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            ":9:42: `d_modle` appears only in a `where` comparison, which checks values but binds none (did you mean `d_model`?)"
        ),
        "{err}"
    );
}

#[test]
fn a_sharded_bert_is_checked_by_its_index_or_its_directory() {
    let d = dir("bert_sharded");
    let t = bert_base();
    let (a, b) = t.split_at(t.len() / 2);
    let mut map = Vec::new();
    for (file, part) in [
        ("model-00001-of-00002.safetensors", a),
        ("model-00002-of-00002.safetensors", b),
    ] {
        write_safetensors(&d.join(file), part);
        map.extend(part.iter().map(|(n, _)| format!("\"{n}\":\"{file}\"")));
    }
    std::fs::write(
        d.join("model.safetensors.index.json"),
        format!("{{\"metadata\":{{}},\"weight_map\":{{{}}}}}", map.join(",")),
    )
    .expect("index");
    std::fs::write(d.join("config.json"), BERT_CONFIG).expect("config");
    for path in [d.join("model.safetensors.index.json"), d.clone()] {
        let (code, out, err) = shapes(&["check", s(&path)]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(
            out.contains(": sharded safetensors, 2 files, 199 tensors"),
            "{out}"
        );
    }
    std::fs::remove_file(d.join("model-00002-of-00002.safetensors")).expect("remove");
    let (code, _, err) = shapes(&["check", s(&d)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("model-00002-of-00002.safetensors"), "{err}");
}

#[test]
fn a_split_gguf_is_checked_from_any_part() {
    let d = dir("smollm_split");
    let t = SMOLLM_135M.gguf();
    let (a, b) = t.split_at(t.len() / 2);
    let mut meta = SMOLLM_135M.gguf_meta("llama");
    meta.push(("split.no".into(), Meta::U32(0)));
    meta.push(("split.count".into(), Meta::U32(2)));
    meta.push(("split.tensors.count".into(), Meta::U32(t.len() as u32)));
    write_gguf(&d.join("smollm-00001-of-00002.gguf"), &meta, a, 0);
    let second = vec![
        ("split.no".to_string(), Meta::U32(1)),
        ("split.count".to_string(), Meta::U32(2)),
    ];
    write_gguf(&d.join("smollm-00002-of-00002.gguf"), &second, b, 0);
    for part in ["smollm-00001-of-00002.gguf", "smollm-00002-of-00002.gguf"] {
        let (code, out, err) = shapes(&["check", s(&d.join(part))]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains(": split GGUF, 2 files, 272 tensors"), "{out}");
        assert!(
            has_line(&out, "n_layers 30 metadata `llama.block_count`"),
            "{out}"
        );
    }
}

#[path = "../../../tests/common/ckpt_files.rs"]
mod ckpt_files;

#[test]
fn npz_and_pytorch_copies_of_the_fixture_are_checked() {
    let d = dir("fracast_formats");
    let header =
        shapes::checkpoint::SafetensorsHeader::read_path(fracast("fracast_model.safetensors"))
            .expect("the fixture reads");
    let tensors: Tensors = header
        .tensors()
        .iter()
        .map(|t| (t.name.clone(), t.shape.dims().to_vec()))
        .collect();
    let spec = fracast("fracast.toml");
    let config = fracast("fracast_config.json");
    let npz = d.join("fracast.npz");
    ckpt_files::npz(&npz, &tensors, true);
    let pt = d.join("fracast.pt");
    ckpt_files::pt(&pt, &tensors);
    for (path, format) in [(&npz, "numpy .npz"), (&pt, "PyTorch zip")] {
        let (code, out, err) = shapes(&["check", s(path), "--spec", &spec, "--config", &config]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains(&format!(": {format}, 47 tensors")), "{out}");
    }
    let bad = d.join("fracast_bad.pt");
    ckpt_files::pt(&bad, &reshaped(tensors, "head.queries", &[24, 64]));
    let (code, out, _) = shapes(&["check", s(&bad), "--spec", &spec, "--config", &config]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "Fracast.head.queries: config `model.horizon` = 48, but \"head.queries\" axis 0 is 24"
        ),
        "{out}"
    );
}
