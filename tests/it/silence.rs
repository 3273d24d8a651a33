//! Nothing unchecked in silence, from the library: a misspelt config key is an error before
//! any tensor is checked, a `given` variable left out is named as such, tensors a non-strict
//! check allows are warnings, the typo rule reaches spec blocks, and an ignore list leaves out
//! exactly what it matches.

use std::collections::BTreeMap;

use shapes::{Checkpoint, Shape, ShapeErrorKind, Shaped, Spec, verify::SourceOptions};

use crate::common::ckpt_files::{TempDir, safetensors};

fn ckpt(tag: &str, tensors: &[(&str, &[usize])], config: &str) -> (TempDir, Checkpoint) {
    let dir = TempDir::new(tag);
    let t: Vec<(String, Vec<usize>)> = tensors
        .iter()
        .map(|(n, d)| (n.to_string(), d.to_vec()))
        .collect();
    safetensors(&dir.join("model.safetensors"), &t, &[]);
    std::fs::write(dir.join("config.json"), config).expect("config");
    let c = Checkpoint::open(dir.join("model.safetensors")).expect("opens");
    (dir, c)
}

#[derive(Shaped)]
#[shapes(config(d_ff = "intermediate_sise"))]
struct Misspelt {
    #[shape("(d_ff, d_model)", name = "up.weight")]
    up: Shape,
    #[shape("(d_model, d_ff)", name = "down.weight")]
    down: Shape,
}

#[derive(Shaped)]
#[shapes(config(d_ff = ["ffn_dim", "intermediate_size"]))]
struct Listed {
    #[shape("(d_ff, d_model)", name = "up.weight")]
    up: Shape,
    #[shape("(d_model, d_ff)", name = "down.weight")]
    down: Shape,
}

#[test]
fn a_misspelt_config_key_is_an_error_before_any_tensor_is_checked() {
    // The config disagrees with the tensors, and the key is one slip away from the one it
    // states: the check would have passed without comparing d_ff with the config.
    let tensors: &[(&str, &[usize])] = &[("up.weight", &[64, 16]), ("down.weight", &[16, 65])];
    let (_dir, c) = ckpt("misspelt", tensors, r#"{"intermediate_size": 48}"#);
    let e = Misspelt::verify_source(&c).unwrap_err();
    assert_eq!(e.len(), 1, "only the key, no tensor: {e}");
    assert!(
        matches!(&e.errors()[0].kind, ShapeErrorKind::ConfigKey { key, .. } if key == "intermediate_sise")
    );
    assert_eq!(
        e.to_string(),
        "Misspelt: `d_ff` is bound from the key `intermediate_sise`, which the checkpoint does not state, but it states config `intermediate_size` = 48: a misspelt key leaves `d_ff` unchecked against the config; correct the key"
    );
    // A config that states nothing close: the key is simply absent, the tensors decide.
    let (_dir, c) = ckpt("absent", tensors, r#"{"hidden_size": 16}"#);
    let e = Misspelt::verify_source(&c).unwrap_err();
    assert!(
        matches!(e.errors()[0].kind, ShapeErrorKind::Dim { .. }),
        "{e}"
    );
}

#[test]
fn config_keys_are_a_string_with_bars_or_a_list() {
    let tensors: &[(&str, &[usize])] = &[("up.weight", &[64, 16]), ("down.weight", &[16, 64])];
    let (_dir, c) = ckpt("listed", tensors, r#"{"intermediate_size": 48}"#);
    let e = Listed::verify_source(&c).unwrap_err();
    assert!(
        e.to_string()
            .contains("one cause: d_ff is 48, bound by config `intermediate_size`, but 64 in:"),
        "{e}"
    );
}

#[derive(Shaped)]
#[shapes(given = "heads", where = "d_model = heads * head_dim")]
struct Attention {
    #[shape("(d_model, heads * head_dim)")]
    w_q: Shape,
}

#[test]
fn a_given_variable_left_out_is_named_as_given() {
    let attn = Attention {
        w_q: Shape::from([768, 768]),
    };
    let e = attn.verify().unwrap_err();
    assert_eq!(
        e.to_string(),
        "Attention.w_q: axis 1 cannot check heads * head_dim: `heads` is `given`: pass it with `verify_with(Bindings::new().bind(\"heads\", …))` (`verify_source_with` for a checkpoint)\n  shape is (768, 768), pattern (d_model, heads * head_dim)"
    );
    let b = attn
        .verify_with(shapes::Bindings::new().bind("heads", 12))
        .unwrap();
    assert_eq!(b.get("head_dim"), Some(64));
}

#[derive(Shaped)]
struct Norm {
    #[shape("(d,)")]
    weight: Shape,
}

#[test]
fn non_strict_reports_undescribed_tensors_as_warnings_and_ignored_ones_not_at_all() {
    let src: BTreeMap<String, Shape> = [
        ("weight", Shape::from([4])),
        ("step", Shape::from([1])),
        ("embeddings.position_ids", Shape::from([1, 512])),
    ]
    .into_iter()
    .map(|(n, s)| (n.to_string(), s))
    .collect();
    let e = Norm::verify_source(&src).unwrap_err();
    assert_eq!(e.unexpected_tensors(), ["embeddings.position_ids", "step"]);
    let b = Norm::verify_source_options(&src, SourceOptions::new().strict(false)).unwrap();
    assert_eq!(b.allowed_unexpected(), ["embeddings.position_ids", "step"]);
    // Ignored: neither an error in a strict check nor a warning in a non-strict one.
    let ignore = SourceOptions::new().ignore(["*.position_ids"]);
    let e = Norm::verify_source_options(&src, ignore.clone()).unwrap_err();
    assert_eq!(e.unexpected_tensors(), ["step"]);
    let b = Norm::verify_source_options(&src, ignore.strict(false)).unwrap();
    assert_eq!(b.allowed_unexpected(), ["step"]);
}

#[test]
fn a_typo_inside_a_block_used_twice_is_still_used_once() {
    let text = r#"
[tensors]
"embed" = "(vocab, d_model)"
"norm" = "(d_model,)"
"a" = { block = "mlp" }
"b" = { block = "mlp" }
[blocks.mlp]
"up" = "(d_ff, d_model)"
"down" = "(d_modle, d_ff)"
"#;
    let e = Spec::from_toml("s.toml", text).unwrap_err();
    assert!(
        e.message().starts_with(
            "`d_modle` is used only once, so nothing checks it (did you mean `d_model`?)"
        ),
        "{e}"
    );
    // A block that spells it `d_modle` throughout never meets the file's `d_model`.
    let apart = text.replace("\"(d_ff, d_model)\"", "\"(d_ff, d_modle)\"");
    let e = Spec::from_toml("s.toml", &apart).unwrap_err();
    assert!(
        e.message().starts_with(
            "`d_modle` and `d_model` differ by a slip of the fingers but are never used together"
        ),
        "{e}"
    );
}

/// candle-transformers' BERT skips `embeddings.position_ids` and the pooler: its mirror
/// passes a strict check of the real file with those two ignored, and no dummy fields.
mod candle_bert {
    use shapes::{Bindings, Shape, Shaped, verify::SourceOptions};

    use crate::common::bert::hf::{Layer, LayerNorm, bert_base_uncased};
    use crate::common::st_header;

    #[derive(Shaped)]
    struct Embeddings {
        #[shape("(vocab, d_model)", name = "word_embeddings.weight")]
        word: Shape,
        #[shape("(max_pos, d_model)", name = "position_embeddings.weight")]
        position: Shape,
        #[shape("(type_vocab, d_model)", name = "token_type_embeddings.weight")]
        token_type: Shape,
        #[shape(nested, prefix = "LayerNorm")]
        ln: LayerNorm<Shape>,
    }

    #[derive(Shaped)]
    #[shapes(where = "d_model = heads * head_dim")]
    struct BertModel {
        #[shape(nested)]
        embeddings: Embeddings,
        #[shape(nested, prefix = "encoder.layer", count = "n_layers")]
        layers: Vec<Layer<Shape>>,
    }

    #[test]
    fn the_real_checkpoint_passes_strictly_with_what_the_structs_skip_ignored() {
        let header = st_header::header(&bert_base_uncased(true));
        let heads = || Bindings::new().bind("heads", 12);
        let e = BertModel::verify_source_with(&header, heads()).unwrap_err();
        assert_eq!(
            e.unexpected_tensors(),
            [
                "embeddings.position_ids",
                "pooler.dense.bias",
                "pooler.dense.weight"
            ]
        );
        let ignore = SourceOptions::new()
            .bindings(heads())
            .ignore(["embeddings.position_ids", "pooler.*"]);
        let b = BertModel::verify_source_options(&header, ignore).unwrap();
        assert_eq!((b.get("n_layers"), b.get("head_dim")), (Some(12), Some(64)));
        assert!(b.allowed_unexpected().is_empty());
    }
}

/// "One cause" for a value from any source: a tensor, the caller.
#[derive(Shaped)]
struct Stack {
    #[shape("(d, d)")]
    w0: Shape,
    #[shape("(d, d)")]
    w1: Shape,
    #[shape("(d, d)")]
    w2: Shape,
}

#[test]
fn a_value_from_the_caller_or_a_tensor_is_named_as_the_one_cause() {
    let stack = Stack {
        w0: Shape::from([4, 4]),
        w1: Shape::from([4, 4]),
        w2: Shape::from([4, 4]),
    };
    let e = stack
        .verify_all_with(shapes::Bindings::new().bind("d", 5))
        .unwrap_err();
    assert!(
        e.to_string().starts_with(
            "6 shape errors:\n- 6 mismatches, one cause: d is 5, bound by the caller, but 4 in:"
        ),
        "{e}"
    );
    // In a report: a tensor that binds a value the others contradict.
    let dir = TempDir::new("tensor-cause");
    let t: Vec<(String, Vec<usize>)> = [("w0", [5, 5]), ("w1", [4, 4]), ("w2", [4, 4])]
        .into_iter()
        .map(|(n, d)| (n.to_string(), d.to_vec()))
        .collect();
    safetensors(&dir.join("model.safetensors"), &t, &[]);
    let ckpt = Checkpoint::open(dir.join("model.safetensors")).expect("opens");
    let spec = Spec::from_toml(
        "s.toml",
        "[tensors]\n\"w0\" = \"(d, d)\"\n\"w1\" = \"(d, d)\"\n\"w2\" = \"(d, d)\"\n",
    )
    .expect("valid");
    let text = spec.check(&ckpt).to_string();
    assert!(
        text.contains("4 errors, one cause: d = 5 bound by Model.w0 axis 0, but 4 dims are 4"),
        "{text}"
    );
}

/// A nested struct's `config(…)` and `ignore` are read when the struct holding it is checked
/// against a checkpoint, under its renames and its prefix.
mod nested_keys {
    use shapes::{Shape, ShapeErrorKind, Shaped};

    use super::ckpt;

    #[derive(Shaped)]
    #[shapes(config(d = "hidden_size"), ignore = "position_ids")]
    struct Embeddings {
        #[shape("(vocab, d)", name = "word.weight")]
        word: Shape,
    }

    #[derive(Shaped)]
    struct Model {
        #[shape(nested, rename(d = "d_model"))]
        embeddings: Embeddings,
        #[shape("(d_model,)", name = "norm.weight")]
        norm: Shape,
    }

    #[test]
    fn a_nested_structs_config_and_ignore_are_read() {
        let tensors: &[(&str, &[usize])] = &[
            ("embeddings.word.weight", &[10, 4]),
            ("embeddings.position_ids", &[1, 8]),
            ("norm.weight", &[4]),
        ];
        let (_dir, c) = ckpt("nested-config", tensors, r#"{"hidden_size": 5}"#);
        let e = Model::verify_source(&c).unwrap_err();
        assert!(e.unexpected_tensors().is_empty(), "{e}");
        assert!(
            e.errors()
                .iter()
                .all(|e| matches!(e.kind, ShapeErrorKind::Dim { .. })),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("d_model is 5, bound by config `hidden_size`"),
            "{e}"
        );
        let (_dir, c) = ckpt("nested-config-ok", tensors, r#"{"hidden_size": 4}"#);
        let b = Model::verify_source(&c).unwrap();
        assert_eq!(b.get("d_model"), Some(4));
    }
}
