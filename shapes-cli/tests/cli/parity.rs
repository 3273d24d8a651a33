//! A spec file and a `#[derive(Shaped)]` struct with the same patterns give the same bindings
//! and the same error texts on the same files: the spec compiles to a `Plan`, checked by the
//! checker the derive generates code for.

use std::collections::BTreeSet;

use shapes::{Bindings, Shape, Shaped, checkpoint::SafetensorsHeader, verify::SourceOptions};

use crate::support::{Tensors, dir, shapes, write_safetensors};

#[path = "../../../tests/common/parity_model.rs"]
mod parity_model;

use parity_model::Model;

const SPEC: &str = r#"
name = "Model"
given = ["heads"]
where = ["d_model = heads * head_dim"]

[repeat]
"layers" = "n_layers"

[tensors]
"embed" = "(vocab, d_model)"
"proj" = "(heads * head_dim, d_model)"
"scale" = "(*batch, d_model)"
"layers.{i}" = { block = "layer" }

[blocks.layer]
"up" = "(d_ff, d_model)"
"down" = "(d_model, d_ff)"
"bias" = { shape = "(d_ff,)", optional = true }
"#;

fn good() -> Tensors {
    let mut t: Tensors = vec![
        ("embed".into(), vec![100, 64]),
        ("proj".into(), vec![64, 64]),
        ("scale".into(), vec![2, 3, 64]),
    ];
    for i in 0..3 {
        t.push((format!("layers.{i}.up"), vec![256, 64]));
        t.push((format!("layers.{i}.down"), vec![64, 256]));
    }
    t.push(("layers.1.bias".into(), vec![256]));
    t
}

/// What a user reads: each binding with its origin, each error's text, missing, unexpected.
#[derive(Debug, PartialEq)]
struct Readable {
    bindings: BTreeSet<String>,
    errors: Vec<String>,
    missing: Vec<String>,
    unexpected: Vec<String>,
}

fn derived(path: &std::path::Path) -> Readable {
    let header = SafetensorsHeader::read_path(path).expect("the file reads");
    let opts = SourceOptions::new().bindings(Bindings::new().bind("heads", 4));
    match Model::verify_source_options(&header, opts) {
        Ok(b) => Readable {
            bindings: b
                .iter()
                .map(|x| format!("{} = {} from {}", x.name, x.value, x.origin))
                .collect(),
            errors: vec![],
            missing: vec![],
            unexpected: vec![],
        },
        Err(e) => Readable {
            bindings: BTreeSet::new(),
            // The one difference is a word: the command names a value given before checking
            // by its flag, where Rust says the caller gave it.
            errors: e
                .mismatches()
                .map(|e| {
                    e.to_string()
                        .replace("bound by the caller", "bound by --set")
                })
                .collect(),
            missing: e.missing_tensors().iter().map(|s| s.to_string()).collect(),
            unexpected: e.unexpected_tensors().to_vec(),
        },
    }
}

fn planned(path: &std::path::Path, spec: &std::path::Path) -> Readable {
    let (code, out, err) = shapes(&[
        "check",
        path.to_str().expect("UTF-8"),
        "--spec",
        spec.to_str().expect("UTF-8"),
        "--set",
        "heads=4",
        "--json",
    ]);
    assert!(code == 0 || code == 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let strings = |key: &str| -> Vec<String> {
        v[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    Readable {
        bindings: v["bindings"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|b| {
                        let value = match &b["value"] {
                            serde_json::Value::Array(dims) => {
                                let d: Vec<usize> = dims
                                    .iter()
                                    .filter_map(|d| {
                                        d.as_u64().and_then(|d| usize::try_from(d).ok())
                                    })
                                    .collect();
                                Shape::from(d.as_slice()).to_string()
                            }
                            other => other.to_string(),
                        };
                        let origin = match b["bound_by"].as_str() {
                            Some("--set") => "the caller",
                            Some(o) => o,
                            None => "",
                        };
                        format!(
                            "{} = {value} from {origin}",
                            b["variable"].as_str().unwrap_or("")
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
        errors: v["errors"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e["message"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default(),
        missing: strings("missing"),
        unexpected: strings("unexpected"),
    }
}

#[test]
fn a_spec_and_a_derived_struct_read_the_same() {
    let d = dir("parity");
    let spec = d.join("model.toml");
    std::fs::write(&spec, SPEC).expect("write");
    let cases: Vec<(&str, Tensors)> = vec![
        ("good", good()),
        (
            "a dim",
            crate::support::reshaped(good(), "layers.2.down", &[64, 255]),
        ),
        ("a rank", crate::support::reshaped(good(), "embed", &[100])),
        (
            "the where clause",
            crate::support::reshaped(good(), "proj", &[60, 64]),
        ),
        (
            "a missing tensor",
            good()
                .into_iter()
                .filter(|(n, _)| n != "layers.0.up")
                .collect(),
        ),
        ("an unexpected tensor", {
            let mut t = good();
            t.push(("layers.0.extra".into(), vec![1]));
            t
        }),
        (
            "after a variadic",
            crate::support::reshaped(good(), "scale", &[2, 3, 63]),
        ),
    ];
    for (what, tensors) in cases {
        let path = d.join("model.safetensors");
        write_safetensors(&path, &tensors);
        let (a, b) = (derived(&path), planned(&path, &spec));
        assert_eq!(a, b, "{what}");
        if what == "good" {
            assert!(
                a.bindings.contains("head_dim = 16 from solving Model.proj"),
                "{a:?}"
            );
        } else {
            assert!(
                !(a.errors.is_empty() && a.missing.is_empty() && a.unexpected.is_empty()),
                "{what}: {a:?}"
            );
        }
    }
}
