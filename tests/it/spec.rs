//! Spec files and the report, from the library: the same rules as the derive, the same config
//! lookup as the command, and a report that stays short and safe whatever the checkpoint.

use shapes::text::escape;
use shapes::{Checkpoint, Plan, ShapeSource, Spec, spec::Naming, verify::PlanNode};

use crate::common::ckpt_files::{TempDir, safetensors};

/// The typo the derive rejects at compile time (tests/ui/cases: "did you mean `head_dim`")
/// is rejected by a spec file too, with the same words, even inside a `where` clause.
#[test]
fn a_where_typo_is_rejected_as_the_derive_rejects_it() {
    let builtin = Spec::builtin("llama", Naming::Gguf).expect("built in");
    assert_eq!(builtin.given(), ["heads"]);
    let text = r#"
name = "Llama"
given = ["heads"]
where = ["heads % kv_heads = 0", "d_model = heads * head_dmi"]
[tensors]
"q" = "(heads * head_dim, d_model)"
"k" = "(kv_heads * head_dim, d_model)"
"#;
    let e = Spec::from_toml("llama.toml", text).unwrap_err();
    assert_eq!(
        e.message(),
        "`head_dmi` is used only once, so nothing checks it (did you mean `head_dim`?); name it `_head_dmi` (or use `_`) if that is intended"
    );
    assert_eq!((e.line(), e.column()), (4, 34));
}

/// A name bound from the config and used once is checked by the config: not a typo.
#[test]
fn a_config_variable_used_once_is_not_a_typo() {
    let text = "[config]\nn_layer = \"n\"\n[repeat]\n\"layers\" = \"n_layer\"\n[tensors]\n\"layers.{i}.w\" = \"(n_layers, n_layers)\"\n";
    assert!(Spec::from_toml("s.toml", text).is_ok());
}

/// The library and the command read a config list the same way: as its length.
#[test]
fn a_config_list_states_its_length_in_every_path() {
    let dir = TempDir::new("spec-list");
    safetensors(
        &dir.join("model.safetensors"),
        &[("w".into(), vec![3])],
        &[],
    );
    std::fs::write(
        dir.join("config.json"),
        r#"{"q": [0.1, 0.5, 0.9], "z": null}"#,
    )
    .unwrap();
    let ckpt = Checkpoint::open(dir.path()).unwrap();
    let plan = Plan::build("M", &[PlanNode::tensor("w", "(n,)")], &[])
        .unwrap()
        .bind_from("n", &["q"])
        .unwrap();
    let b = plan.verify_source(&ckpt).unwrap();
    assert_eq!(b.origin("n").unwrap().to_string(), "config `q`");
    let spec = Spec::from_toml(
        "s.toml",
        "[config]\nn = \"q\"\n[tensors]\n\"w\" = \"(n,)\"\n",
    )
    .unwrap();
    let report = spec.check(&ckpt);
    assert!(report.ok(), "{report}");
    assert_eq!(report.given()[0].source, "config `q`");
    // `null` states nothing.
    assert_eq!(ckpt.config("z"), None);
}

/// A config string is shown as the string it is, not as a number.
#[test]
fn a_config_string_is_shown_quoted() {
    let dir = TempDir::new("spec-string");
    safetensors(
        &dir.join("model.safetensors"),
        &[("w".into(), vec![8])],
        &[],
    );
    std::fs::write(dir.join("config.json"), r#"{"hidden_size": "8"}"#).unwrap();
    let ckpt = Checkpoint::open(dir.path()).unwrap();
    let spec = Spec::from_toml(
        "s.toml",
        "[config]\nd = \"hidden_size\"\n[tensors]\n\"w\" = \"(d,)\"\n",
    )
    .unwrap();
    let e = spec.plan().verify_source(&ckpt).unwrap_err();
    assert!(
        e.to_string()
            .contains("config `hidden_size` = \"8\", which should state `d`, is not a size"),
        "{e}"
    );
}

/// 100,000 unexpected tensors with distinct names: the text is a few dozen lines with the
/// count of the rest, `--all` lists them all, and the JSON carries every name.
#[test]
fn a_report_of_many_tensors_is_bounded() {
    let dir = TempDir::new("spec-many");
    let mut tensors: Vec<(String, Vec<usize>)> = vec![("w".into(), vec![2])];
    let n = 20_000;
    tensors.extend((0..n).map(|i| (format!("extra_{i:05}_{}", i * 7919 % 10_007), vec![1])));
    safetensors(&dir.join("model.safetensors"), &tensors, &[]);
    let ckpt = Checkpoint::open(dir.path()).unwrap();
    let spec =
        Spec::from_toml("s.toml", "[tensors]\n\"w\" = \"(n,)\"\n\"v\" = \"(n,)\"\n").unwrap();
    let report = spec.check(&ckpt);
    let text = report.to_string();
    assert!(text.lines().count() < 80, "{} lines", text.lines().count());
    assert!(text.contains("unexpected tensors (20,000):"), "{text}");
    assert!(text.contains("  … and 19,950 more"), "{text}");
    let all = report.clone().all(true).to_string();
    assert!(all.lines().count() > n, "{} lines", all.lines().count());
    let json = report.to_json();
    assert_eq!(json["unexpected"].as_array().map(Vec::len), Some(n));
    assert_eq!(json["missing"][0], "v");
}

/// A tensor name with terminal escape sequences prints as inert text.
#[test]
fn names_from_a_file_are_escaped_in_the_report() {
    let dir = TempDir::new("spec-escape");
    let evil = "w\u{1b}]0;pwned\u{7}\u{1b}[2J";
    // JSON escapes the name in the header; the reader gives it back raw.
    let header = format!(
        "{{\"w\":{{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}},{}:{{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}}}",
        serde_json::to_string(evil).unwrap()
    );
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend(header.as_bytes());
    bytes.extend([0u8; 16]);
    std::fs::write(dir.join("model.safetensors"), bytes).unwrap();
    let ckpt = Checkpoint::open(dir.path()).unwrap();
    let spec = Spec::from_toml("s.toml", "[tensors]\n\"w\" = \"(n,)\"\n").unwrap();
    let text = spec.check(&ckpt).to_string();
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "{text:?}"
    );
    assert!(text.contains(&*escape(evil)), "{text}");
}
