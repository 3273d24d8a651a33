//! `shapes check ADAPTER_DIR --base BASE`: PEFT LoRA adapters written as PEFT saves them
//! (`base_model.model.<module>.lora_A.weight`), checked against a small Llama-shaped base.

use std::path::{Path, PathBuf};

use super::{has_line, s};
use crate::support::*;

/// A two-layer Llama-shaped base: hidden 32, 2 key/value heads of 8, vocab 100.
fn base_tensors() -> Tensors {
    let mut t: Tensors = vec![("model.embed_tokens.weight".into(), vec![100, 32])];
    for i in 0..2 {
        for (name, dims) in [
            ("self_attn.q_proj", vec![32, 32]),
            ("self_attn.k_proj", vec![16, 32]),
            ("self_attn.v_proj", vec![16, 32]),
            ("self_attn.o_proj", vec![32, 32]),
            ("mlp.up_proj", vec![64, 32]),
            ("mlp.down_proj", vec![32, 64]),
            ("input_layernorm", vec![32]),
        ] {
            t.push((format!("model.layers.{i}.{name}.weight"), dims));
        }
    }
    t.push(("model.norm.weight".into(), vec![32]));
    t.push(("lm_head.weight".into(), vec![100, 32]));
    t
}

/// The base checkpoint, in its own directory.
fn base(name: &str) -> PathBuf {
    let d = dir(&format!("{name}_base"));
    let p = d.join("model.safetensors");
    write_safetensors(&p, &base_tensors());
    p
}

/// LoRA tensors of rank `r` on q_proj and v_proj of both layers.
fn lora(r: usize) -> Tensors {
    let mut t = Tensors::new();
    for i in 0..2 {
        for (m, out) in [("q_proj", 32), ("v_proj", 16)] {
            let key = format!("base_model.model.model.layers.{i}.self_attn.{m}");
            t.push((format!("{key}.lora_A.weight"), vec![r, 32]));
            t.push((format!("{key}.lora_B.weight"), vec![out, r]));
        }
    }
    t
}

/// An adapter directory with `config` and `tensors`.
fn adapter(name: &str, config: &str, tensors: &Tensors) -> PathBuf {
    let d = dir(name);
    write_safetensors(&d.join("adapter_model.safetensors"), tensors);
    std::fs::write(d.join("adapter_config.json"), config).expect("config");
    d
}

const CONFIG: &str = r#"{"peft_type": "LORA", "r": 4, "lora_alpha": 16, "target_modules": ["q_proj", "v_proj"], "base_model_name_or_path": "meta-llama/Llama-3.2-1B"}"#;

fn check(adapter: &Path, base: &Path, more: &[&str]) -> (i32, String, String) {
    let mut args = vec!["check", s(adapter), "--base", s(base)];
    args.extend(more);
    shapes(&args)
}

#[test]
fn a_correct_adapter_passes() {
    let a = adapter("lora_ok", CONFIG, &lora(4));
    let b = base("lora_ok");
    let (code, out, err) = check(&a, &b, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("OK: the adapter fits its base"), "{out}");
    assert!(out.contains("spec: LoRA adapter of "), "{out}");
    assert!(has_line(&out, "r 4 adapter_config.json `r`"), "{out}");
    let (code, out, _) = check(&a, &b, &["--json"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_transposed_lora_a_reads_like_the_torch_error() {
    let t = reshaped(
        lora(4),
        "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight",
        &[32, 4],
    );
    let (code, out, err) = check(
        &adapter("lora_transposed", CONFIG, &t),
        &base("lora_t"),
        &[],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(
            "adapter (tensor \"base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight\"): size mismatch for lora_A: (32, 4) where the base layer model.layers.0.self_attn.q_proj.weight is (32, 32) and r = 4 (`r`), so lora_A must be (4, 32) (it is transposed)"
        ),
        "{out}"
    );
}

#[test]
fn a_wrong_rank_is_named_in_every_layer_folded() {
    let a = adapter(
        "lora_wrong_r",
        &CONFIG.replace("\"r\": 4", "\"r\": 8"),
        &lora(4),
    );
    let (code, out, _) = check(&a, &base("lora_wrong_r"), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("8 errors, one cause: adapter_config.json `r` = 8, but the tensors give r = 4 (bound by base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight)"),
        "{out}"
    );
    assert!(
        out.contains("(2 errors) adapter (tensor \"base_model.model.model.layers.{0..1}.self_attn.q_proj.lora_A.weight\"): size mismatch for lora_A: (4, 32) where the base layer model.layers.{0..1}.self_attn.q_proj.weight is (32, 32) and r = 8 (`r`), so lora_A must be (8, 32)"),
        "{out}"
    );
    let (_, out, _) = check(&a, &base("lora_wrong_r_json"), &["--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["errors"].as_array().map(Vec::len), Some(8), "{v:#}");
    assert_eq!(v["errors"][0]["shape"], serde_json::json!([4, 32]));
    assert_eq!(v["config_disagreements"][0]["stated"], 8);
    assert_eq!(v["config_disagreements"][0]["found"], 4);
}

#[test]
fn rank_pattern_overrides_r_for_the_modules_it_matches() {
    let mut t = lora(4);
    for (name, dims) in &mut t {
        if name.contains("v_proj.lora_A") {
            *dims = vec![8, 32];
        } else if name.contains("v_proj.lora_B") {
            *dims = vec![16, 8];
        }
    }
    let config = CONFIG.replace(
        "\"r\": 4,",
        "\"r\": 4, \"rank_pattern\": {\"v_proj\": 8}, \"alpha_pattern\": {\"v_proj\": 32},",
    );
    let (code, out, err) = check(
        &adapter("lora_rank_pattern", &config, &t),
        &base("lora_rp"),
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        has_line(
            &out,
            "r[v_proj] 8 adapter_config.json `rank_pattern.v_proj`"
        ),
        "{out}"
    );
    // Without the override, the v_proj tensors are wrong, and the message names `r`.
    let (code, out, _) = check(
        &adapter("lora_rank_pattern_off", CONFIG, &t),
        &base("lora_rp_off"),
        &[],
    );
    assert_eq!(code, 1);
    assert!(out.contains("size mismatch for lora_A: (8, 32) where the base layer model.layers.{0..1}.self_attn.v_proj.weight is (16, 32) and r = 4 (`r`), so lora_A must be (4, 32)"), "{out}");
    // A rank_pattern key is a regular expression on the end of the module's name.
    let by_layer = CONFIG.replace("\"r\": 4,", "\"r\": 8, \"rank_pattern\": {\"layers\\\\.\\\\d\\\\.self_attn\\\\.q_proj\": 4, \"q_proj\": 2},");
    let mut t2 = lora(8);
    for (name, dims) in &mut t2 {
        if name.contains("q_proj.lora_A") {
            *dims = vec![4, 32];
        } else if name.contains("q_proj.lora_B") {
            *dims = vec![32, 4];
        }
    }
    let (code, out, err) = check(
        &adapter("lora_rank_regex", &by_layer, &t2),
        &base("lora_rr"),
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn a_targeted_module_without_its_tensors_is_missing() {
    let t: Tensors = lora(4)
        .into_iter()
        .filter(|(n, _)| !n.contains("layers.1.self_attn.v_proj"))
        .collect();
    // k_proj is targeted too, and no layer has it.
    let config = CONFIG.replace(
        "[\"q_proj\", \"v_proj\"]",
        "[\"q_proj\", \"v_proj\", \"k_proj\"]",
    );
    let (code, out, _) = check(
        &adapter("lora_missing", &config, &t),
        &base("lora_missing"),
        &[],
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("missing tensors (6):"), "{out}");
    assert!(
        has_line(
            &out,
            "base_model.model.model.layers.1.self_attn.v_proj.lora_A.weight"
        ),
        "{out}"
    );
    assert!(
        has_line(
            &out,
            "base_model.model.model.layers.{0..1}.self_attn.k_proj.lora_B.weight ×2"
        ),
        "{out}"
    );
}

#[test]
fn an_adapter_for_a_module_the_base_lacks_is_unknown_with_a_suggestion() {
    let mut t = lora(4);
    t.push((
        "base_model.model.model.layers.0.self_attn.qq_proj.lora_A.weight".into(),
        vec![4, 32],
    ));
    t.push((
        "base_model.model.model.model.layers.0.mlp.up_proj.lora_A.weight".into(),
        vec![4, 32],
    ));
    let config = CONFIG.replace(
        "[\"q_proj\", \"v_proj\"]",
        "[\"q_proj\", \"v_proj\", \"qq_proj\", \"up_proj\"]",
    );
    let (code, out, _) = check(
        &adapter("lora_unknown", &config, &t),
        &base("lora_unknown"),
        &[],
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("unknown base module model.layers.0.self_attn.qq_proj: the base checkpoint has no tensor model.layers.0.self_attn.qq_proj.weight; did you mean model.layers.0.self_attn.q_proj?"), "{out}");
    assert!(out.contains("unknown base module model.model.layers.0.mlp.up_proj: the base checkpoint has no tensor model.model.layers.0.mlp.up_proj.weight; did you mean model.layers.0.mlp.up_proj?"), "{out}");
}

#[test]
fn an_untargeted_module_is_named_as_dropped() {
    let config = CONFIG.replace("[\"q_proj\", \"v_proj\"]", "[\"q_proj\"]");
    let (code, out, _) = check(
        &adapter("lora_untargeted", &config, &lora(4)),
        &base("lora_untargeted"),
        &[],
    );
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("module model.layers.{0..1}.self_attn.v_proj is not among target_modules"),
        "{out}"
    );
}

#[test]
fn embedding_lora_and_modules_to_save_are_checked() {
    let mut t = lora(4);
    t.push((
        "base_model.model.model.embed_tokens.lora_embedding_A".into(),
        vec![4, 100],
    ));
    t.push((
        "base_model.model.model.embed_tokens.lora_embedding_B".into(),
        vec![32, 4],
    ));
    t.push(("base_model.model.lm_head.weight".into(), vec![100, 32]));
    let config = CONFIG.replace(
        "[\"q_proj\", \"v_proj\"]",
        "[\"q_proj\", \"v_proj\", \"embed_tokens\"], \"modules_to_save\": [\"lm_head\"]",
    );
    let (code, out, err) = check(
        &adapter("lora_embedding", &config, &t),
        &base("lora_emb"),
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    let bad = reshaped(
        reshaped(
            t,
            "base_model.model.model.embed_tokens.lora_embedding_B",
            &[100, 4],
        ),
        "base_model.model.lm_head.weight",
        &[101, 32],
    );
    let (code, out, _) = check(
        &adapter("lora_embedding_bad", &config, &bad),
        &base("lora_emb_bad"),
        &[],
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("size mismatch for lora_embedding_B: (100, 4) where the base layer model.embed_tokens.weight is (100, 32) and r = 4 (`r`), so lora_embedding_B must be (32, 4)"), "{out}");
    assert!(
        out.contains(
            "size mismatch for lm_head.weight: (101, 32) where the base tensor is (100, 32)"
        ),
        "{out}"
    );
}

#[test]
fn a_bad_adapter_config_is_a_clear_error() {
    let b = base("lora_bad_config");
    for (name, config, want) in [
        (
            "lora_not_json",
            "{\"r\": 4,",
            "adapter_config.json: not JSON: ",
        ),
        (
            "lora_no_r",
            r#"{"target_modules": ["q_proj"]}"#,
            "adapter_config.json: `r` is missing: state the LoRA rank the adapter was trained with, e.g. \"r\": 8",
        ),
        (
            "lora_zero_r",
            r#"{"r": 0}"#,
            "adapter_config.json: `r` is 0: a LoRA rank is at least 1",
        ),
        (
            "lora_half_r",
            r#"{"r": 8.5}"#,
            "adapter_config.json: `r` is 8.5, not a whole number",
        ),
        (
            "lora_text_r",
            r#"{"r": "8"}"#,
            "adapter_config.json: `r` is \"8\", not a whole number",
        ),
        (
            "lora_ia3",
            r#"{"peft_type": "IA3", "r": 8}"#,
            "peft_type is \"IA3\": only LoRA adapters",
        ),
    ] {
        let a = adapter(name, config, &lora(4));
        let (code, out, err) = check(&a, &b, &[]);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(err.contains(want), "{name}: {err}");
    }
}

#[test]
fn without_base_the_config_names_it_or_the_command_asks_for_it() {
    let a = adapter("lora_no_base", CONFIG, &lora(4));
    let (code, _, err) = shapes(&["check", s(&a)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("its adapter_config.json names the base model `meta-llama/Llama-3.2-1B`, which is not a local path: give --base PATH"), "{err}");
    let b = base("lora_local_base");
    let config = CONFIG.replace("meta-llama/Llama-3.2-1B", s(&b));
    let a = adapter("lora_local", &config, &lora(4));
    let (code, out, err) = shapes(&["check", s(&a)]);
    assert_eq!(code, 0, "{out}{err}");
    // --base on something that is not an adapter directory.
    let (code, _, err) = shapes(&["check", s(&b), "--base", s(&b)]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--base checks a PEFT adapter directory"),
        "{err}"
    );
}

#[test]
fn sarif_locates_each_error_at_its_adapter_tensor_and_names_are_escaped() {
    let mut t = reshaped(
        lora(4),
        "base_model.model.model.layers.1.self_attn.v_proj.lora_B.weight",
        &[16, 5],
    );
    t.push((
        "base_model.model.evil\\u001b[31m.lora_A.weight".into(),
        vec![4, 32],
    ));
    let a = adapter("lora_sarif", CONFIG, &t);
    let b = base("lora_sarif");
    let (code, out, _) = check(&a, &b, &["--format", "sarif"]);
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("SARIF");
    let names: Vec<&str> = v["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["locations"][0]["logicalLocations"][0]["name"].as_str())
        .collect();
    assert!(
        names.contains(&"base_model.model.model.layers.1.self_attn.v_proj.lora_B.weight"),
        "{names:?}"
    );
    let (_, text, _) = check(&a, &b, &[]);
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(
        text.contains("unknown base module evil\\u{1b}[31m"),
        "{text}"
    );
}

#[test]
fn a_regex_target_modules_is_matched_whole_look_ahead_included() {
    // Only layer 0's q_proj and v_proj are targeted; layer 1's tensors are then untargeted.
    let t: Tensors = lora(4)
        .into_iter()
        .filter(|(n, _)| n.contains("layers.0."))
        .collect();
    let config = CONFIG.replace(
        "[\"q_proj\", \"v_proj\"]",
        r#""model\\.layers\\.0\\.self_attn\\.(q|v)_proj""#,
    );
    let (code, out, err) = check(
        &adapter("lora_regex", &config, &t),
        &base("lora_regex"),
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    // The same regex misses layer 1's modules, which the adapter also has.
    let (code, out, _) = check(
        &adapter("lora_regex_more", &config, &lora(4)),
        &base("lora_regex_more"),
        &[],
    );
    assert_eq!(code, 1, "{out}");
    for m in ["q_proj", "v_proj"] {
        assert!(
            out.contains(&format!(
                "module model.layers.1.self_attn.{m} is not among target_modules"
            )),
            "{out}"
        );
    }
    assert!(
        !out.contains("layers.0.self_attn.q_proj is not among"),
        "{out}"
    );
    // A look-ahead, as PEFT configs leave a vision tower out: read as Python reads it.
    let look = CONFIG.replace(
        "[\"q_proj\", \"v_proj\"]",
        r#""^(?!.*vision).*(q_proj|v_proj)""#,
    );
    let (code, out, err) = check(
        &adapter("lora_regex_look", &look, &lora(4)),
        &base("lora_regex_look"),
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("does not read"), "{out}");
    // A pattern Python would refuse: the report says what was not checked.
    let bad = CONFIG.replace("[\"q_proj\", \"v_proj\"]", r#""(q_proj|v_proj""#);
    let (code, out, err) = check(
        &adapter("lora_regex_bad", &bad, &lora(4)),
        &base("lora_regex_bad"),
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("the regular expression has syntax it cannot compile ("),
        "{out}"
    );
    assert!(
        out.contains("which this checker does not read; checked only by the tensors present"),
        "{out}"
    );
}

#[test]
fn dora_magnitude_vectors_and_fan_in_fan_out_are_checked() {
    let mut t = lora(4);
    t.push((
        "base_model.model.model.layers.0.self_attn.q_proj.lora_magnitude_vector".into(),
        vec![32],
    ));
    t.push((
        "base_model.model.model.layers.0.self_attn.v_proj.lora_magnitude_vector".into(),
        vec![32],
    ));
    let (code, out, _) = check(&adapter("lora_dora", CONFIG, &t), &base("lora_dora"), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("size mismatch for lora_magnitude_vector: (32,) where the base layer model.layers.0.self_attn.v_proj.weight is (16, 32), so lora_magnitude_vector must be (16,)"), "{out}");
    // GPT-2's Conv1D stores (in, out): with fan_in_fan_out, lora_A is (r, in) all the same.
    let d = dir("lora_gpt2_base");
    let b = d.join("model.safetensors");
    write_safetensors(
        &b,
        &[("transformer.h.0.attn.c_attn.weight".into(), vec![32, 96])],
    );
    let t: Tensors = vec![
        (
            "base_model.model.transformer.h.0.attn.c_attn.lora_A.weight".into(),
            vec![4, 32],
        ),
        (
            "base_model.model.transformer.h.0.attn.c_attn.lora_B.weight".into(),
            vec![96, 4],
        ),
    ];
    let config = r#"{"r": 4, "target_modules": ["c_attn"], "fan_in_fan_out": true}"#;
    let (code, out, err) = check(&adapter("lora_gpt2", config, &t), &b, &[]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, _) = check(
        &adapter(
            "lora_gpt2_no_fifo",
            r#"{"r": 4, "target_modules": ["c_attn"]}"#,
            &t,
        ),
        &b,
        &[],
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("so lora_A must be (4, 96)"), "{out}");
}
