//! Nothing unchecked in silence: a misspelt config key, a value given with `--set` that the
//! checkpoint contradicts, tensors a non-strict check allows, a wrong architecture, and every
//! outcome in one JSON schema (and SARIF) for CI.

use std::path::{Path, PathBuf};

use crate::support::*;

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// A checkpoint, a config.json and a spec in a fresh directory: (checkpoint, spec).
fn with_spec(name: &str, tensors: &Tensors, config: &str, spec: &str) -> (PathBuf, PathBuf) {
    let d = dir(name);
    write_safetensors(&d.join("model.safetensors"), tensors);
    std::fs::write(d.join("config.json"), config).expect("config");
    std::fs::write(d.join("spec.toml"), spec).expect("spec");
    (d.join("model.safetensors"), d.join("spec.toml"))
}

fn tiny() -> Tensors {
    vec![("embed".into(), vec![10, 4]), ("head".into(), vec![10, 4])]
}

#[test]
fn a_misspelt_config_key_is_an_error_before_any_tensor_is_checked() {
    // The config states d_model = 5; the tensors say 4. The right key reports it; the
    // misspelt one used to print OK.
    let config = r#"{"d_model": 5, "vocab_size": 10}"#;
    let spec = |key: &str| {
        format!(
            "[config]\nd_model = \"{key}\"\n[tensors]\n\"embed\" = \"(vocab, d_model)\"\n\"head\" = \"(vocab, d_model)\"\n"
        )
    };
    let (ckpt, good) = with_spec("key_right", &tiny(), config, &spec("d_model"));
    let (code, out, _) = shapes(&["check", s(&ckpt), "--spec", s(&good)]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("one cause: config `d_model` = 5, but the tensors give d_model = 4"),
        "{out}"
    );

    let (ckpt, typo) = with_spec("key_typo", &tiny(), config, &spec("d_modle"));
    let (code, out, err) = shapes(&["check", s(&ckpt), "--spec", s(&typo)]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.contains("the spec binds `d_model` from the key `d_modle`, which neither the file nor a config.json states, but config `d_model` = 5 is stated: a misspelt key leaves `d_model` unchecked against the config; correct the key in the spec's [config], or give the value with --set d_model=N"),
        "{err}"
    );
    // In JSON too, in the report's schema (checked by `shapes`).
    let (code, out, _) = shapes(&["check", s(&ckpt), "--spec", s(&typo), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        (code, v["exit"].clone(), v["ok"].clone()),
        (2, 2.into(), false.into())
    );
    assert!(
        v["error"].as_str().is_some_and(|e| e.contains("`d_modle`")),
        "{v}"
    );
    // Given on the command line, the key is not looked up.
    let (code, out, _) = shapes(&["check", s(&ckpt), "--spec", s(&typo), "--set", "d_model=4"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_key_fallback_is_one_string_or_a_list_and_keys_not_found_are_listed() {
    let config = r#"{"vocab_size": 12}"#;
    for keys in [r#""n_vocab | vocab_size""#, r#"["n_vocab", "vocab_size"]"#] {
        let spec = format!(
            "[config]\nvocab = {keys}\nd_model = \"hidden_size\"\n[tensors]\n\"embed\" = \"(vocab, d_model)\"\n\"head\" = \"(vocab, d_model)\"\n"
        );
        let (ckpt, spec) = with_spec("fallback", &tiny(), config, &spec);
        let (code, out, _) = shapes(&["check", s(&ckpt), "--spec", s(&spec), "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        assert_eq!(code, 1, "{keys}: the second key is read: {out}");
        assert_eq!(
            v["config_disagreements"][0]["source"], "config `vocab_size`",
            "{keys}"
        );
        assert_eq!(
            v["config_not_found"],
            serde_json::json!([{ "variable": "d_model", "keys": ["hidden_size"] }]),
            "{keys}"
        );
    }
}

#[test]
fn a_value_given_with_set_is_named_as_the_one_cause() {
    let d = dir("smollm_set");
    write_safetensors(&d.join("model.safetensors"), &SMOLLM_135M.hf());
    std::fs::write(d.join("config.json"), SMOLLM_135M.config("llama")).expect("config");
    let path = d.join("model.safetensors");
    let (code, out, _) = shapes(&["check", s(&path), "--set", "heads=8"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("one cause: --set heads = 8, but without it the checkpoint gives heads = 9 (bound by config `num_attention_heads`)"),
        "{out}"
    );
    // The cause first, then a few of the errors it makes, not all of them.
    let listed = out.lines().filter(|l| l.starts_with("- ")).count();
    assert!((1..=3).contains(&listed), "{listed} listed: {out}");
    // The command's words: a value given before checking is `--set`, never "the caller".
    assert!(!out.contains("the caller"), "{out}");
}

#[test]
fn a_non_strict_check_reports_what_it_allows_as_warnings() {
    let mut t = SMOLLM_135M.hf();
    t.push(("model.layers.0.self_attn.extra_scale".into(), vec![9]));
    let d = dir("smollm_warn");
    write_safetensors(&d.join("model.safetensors"), &t);
    std::fs::write(d.join("config.json"), SMOLLM_135M.config("llama")).expect("config");
    let path = d.join("model.safetensors");
    let (code, out, _) = shapes(&["check", s(&path), "--non-strict"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with(&format!("{}: safetensors", s(&path))),
        "{out}"
    );
    assert!(
        out.contains("warning: 1 tensor the spec does not describe (allowed: the check is not strict):\n  model.layers.0.self_attn.extra_scale"),
        "{out}"
    );
    let (code, out, _) = shapes(&["check", s(&path), "--non-strict", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!((code, v["ok"].clone()), (0, true.into()));
    assert_eq!(
        v["warnings"][0]["tensor"],
        "model.layers.0.self_attn.extra_scale"
    );
    assert_eq!(v["unexpected"], serde_json::json!([]));
}

#[test]
fn a_wrong_architecture_gets_advice_in_the_commands_words() {
    let d = dir("bert_as_llama");
    write_safetensors(&d.join("model.safetensors"), &bert_base());
    std::fs::write(d.join("config.json"), BERT_CONFIG).expect("config");
    let (code, out, _) = shapes(&["check", s(&d.join("model.safetensors")), "--arch", "llama"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        !out.contains("Option<Vec<_>>"),
        "Rust advice to a command-line user: {out}"
    );
    assert!(
        out.contains("if the list may be absent, mark its tensors `optional = true` in the spec; or check that the spec (--spec, --arch) is the one for this checkpoint"),
        "{out}"
    );
}

#[test]
fn inspect_recognises_bert_by_its_tensor_names_without_a_config() {
    let d = dir("bert_bare");
    write_safetensors(&d.join("model.safetensors"), &bert_base());
    let (code, out, err) = shapes(&["inspect", s(&d.join("model.safetensors"))]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("architecture: bert, recognised by its tensor names: no config names one (<built-in bert, Hugging Face names>)"),
        "{out}"
    );
    assert!(
        out.contains("run `shapes check --arch bert --set heads=N`"),
        "{out}"
    );
}

#[test]
fn every_outcome_prints_one_json_schema_and_sarif() {
    let d = dir("outcomes");
    write_safetensors(&d.join("model.safetensors"), &SMOLLM_135M.hf());
    std::fs::write(d.join("config.json"), SMOLLM_135M.config("llama")).expect("config");
    let path = d.join("model.safetensors");
    let bad = d.join("bad.safetensors");
    write_safetensors(
        &bad,
        &reshaped(
            SMOLLM_135M.hf(),
            "model.layers.3.mlp.up_proj.weight",
            &[1535, 576],
        ),
    );
    let cases: [(&[&str], i32); 5] = [
        (&["check", s(&path), "--json"], 0),
        (&["check", s(&bad), "--format", "json"], 1),
        (&["check", "/nonexistent/model.safetensors", "--json"], 2),
        (&["check", s(&path), "--json", "--set", "nothing=3"], 2),
        (&["check", s(&path), "--json", "--arch", "mamba"], 2),
    ];
    let before = JSON_VALIDATED.load(std::sync::atomic::Ordering::Relaxed);
    for (args, exit) in cases {
        let (code, out, _) = shapes(args);
        assert_eq!(code, exit, "{args:?}: {out}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        if exit == 1 {
            let e = &v["errors"][0];
            assert_eq!(e["kind"], "dim", "{e}");
            assert_eq!(e["tensor"], "model.layers.3.mlp.up_proj.weight");
            assert_eq!(
                (e["axis"].clone(), e["expected"].clone(), e["found"].clone()),
                (0.into(), 1536.into(), 1535.into())
            );
            assert_eq!(e["variables"][0]["name"], "d_ff");
            assert_eq!(e["variables"][0]["bound_by"], "config `intermediate_size`");
        }
    }
    assert!(JSON_VALIDATED.load(std::sync::atomic::Ordering::Relaxed) >= before + 5);

    let (code, out, _) = shapes(&["check", s(&bad), "--format", "sarif"]);
    assert_eq!(code, 1, "{out}");
    let log: serde_json::Value = serde_json::from_str(&out).expect("SARIF is JSON");
    assert_eq!(log["version"], "2.1.0");
    let r = &log["runs"][0]["results"][0];
    assert_eq!(
        (r["ruleId"].clone(), r["level"].clone()),
        ("dim".into(), "error".into())
    );
    assert_eq!(
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        s(&bad)
    );
    assert_eq!(
        r["locations"][0]["logicalLocations"][0]["name"],
        "model.layers.3.mlp.up_proj.weight"
    );
    let (code, out, _) = shapes(&[
        "check",
        "/nonexistent/model.safetensors",
        "--format",
        "sarif",
    ]);
    let log: serde_json::Value = serde_json::from_str(&out).expect("SARIF is JSON");
    assert_eq!(
        (
            code,
            log["runs"][0]["invocations"][0]["executionSuccessful"].clone()
        ),
        (2, false.into())
    );
}

#[test]
fn a_wrong_command_line_with_json_is_json_too() {
    let (code, out, err) = shapes(&["check", "--json", "--frmat", "x"]);
    assert_eq!(code, 2, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert!(
        v["error"].as_str().is_some_and(|e| e.contains("--frmat")),
        "{v}"
    );
}
