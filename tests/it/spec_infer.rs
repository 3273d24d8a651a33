//! `Spec::infer(…).to_rust()`: the `#[derive(Shaped)]` structs written for a checkpoint
//! compile and verify the checkpoint they were written from. They are
//! `spec_infer_written.rs` beside this file, compiled into this binary; the test holds that
//! file equal to what the writer writes now (`SHAPES_BLESS=1` rewrites it).

use shapes::{Checkpoint, Shape, Shaped, Spec};

use crate::common::blessed::assert_blessed;
use crate::common::ckpt_files::{self, TempDir, Tensor};

/// A mixture-of-experts decoder: `layers` layers with 2 key/value heads of 6 and 4 experts
/// of d_ff 24,
/// a q bias in the first layer only (so an `Option`), a LayerNorm with a bias, and two
/// draft blocks.
fn moe(layers: usize, d_ff: usize) -> Vec<Tensor> {
    let mut t: Vec<Tensor> = vec![("model.embed_tokens.weight".into(), vec![50, 16])];
    for l in 0..layers {
        let p = format!("model.layers.{l}");
        t.push((format!("{p}.self_attn.q_proj.weight"), vec![16, 16]));
        if l == 0 {
            t.push((format!("{p}.self_attn.q_proj.bias"), vec![16]));
        }
        t.push((format!("{p}.self_attn.k_proj.weight"), vec![12, 16]));
        t.push((format!("{p}.mlp.gate.weight"), vec![4, 16]));
        for e in 0..4 {
            t.push((format!("{p}.mlp.experts.{e}.up.weight"), vec![d_ff, 16]));
            t.push((format!("{p}.mlp.experts.{e}.down.weight"), vec![16, d_ff]));
        }
        t.push((format!("{p}.norm.weight"), vec![16]));
        t.push((format!("{p}.norm.bias"), vec![16]));
    }
    // Two draft blocks with attention alone: a block without nested lists, its key/value
    // rows a product, its count stated by no key.
    for i in 0..2 {
        t.push((format!("model.draft.{i}.k_proj.weight"), vec![12, 16]));
        t.push((format!("model.draft.{i}.norm.weight"), vec![16]));
    }
    t.push(("lm_head.weight".into(), vec![50, 16]));
    t
}

const CONFIG: &str = r#"{"model_type":"tiny_moe","hidden_size":16,"num_key_value_heads":2,"head_dim":6,"num_hidden_layers":3,"num_experts":4,"intermediate_size":24,"vocab_size":50}"#;

fn open(dir: &TempDir, tensors: &[Tensor]) -> Checkpoint {
    let path = dir.join("model.safetensors");
    ckpt_files::safetensors(&path, tensors, &[]);
    std::fs::write(dir.join("config.json"), CONFIG).expect("config");
    Checkpoint::open(&path).expect("the checkpoint opens")
}

#[test]
fn the_written_structs_are_what_the_writer_writes() {
    let dir = TempDir::new("spec-infer-rust");
    let ckpt = open(&dir, &moe(3, 24));
    let rust = Spec::infer(&ckpt).expect("a spec").to_rust();
    assert_blessed("tests/it/spec_infer_written.rs", &rust);
}

/// The structs, compiled.
#[allow(dead_code)]
mod written {
    include!("spec_infer_written.rs");
}

#[test]
fn the_written_structs_verify_their_checkpoint_and_reject_changes() {
    let dir = TempDir::new("spec-infer-verify");
    let ckpt = open(&dir, &moe(3, 24));
    let b = written::TinyMoe::<Shape>::verify_source(&ckpt).expect("the checkpoint passes");
    assert_eq!(
        (b.get("n_layers"), b.get("n_experts"), b.get("d_ff")),
        (Some(3), Some(4), Some(24))
    );
    assert_eq!((b.get("kv_heads"), b.get("n_draft")), (Some(2), Some(2)));
    // Experts of another width than the config states.
    let other = TempDir::new("spec-infer-verify-other");
    let e = written::TinyMoe::<Shape>::verify_source(&open(&other, &moe(3, 20))).unwrap_err();
    assert!(e.to_string().contains("intermediate_size"), "{e}");
    // A layer missing.
    let fewer = TempDir::new("spec-infer-verify-fewer");
    let e = written::TinyMoe::<Shape>::verify_source(&open(&fewer, &moe(2, 24))).unwrap_err();
    assert!(e.to_string().contains("n_layers"), "{e}");
}

/// 16 layers of 128 experts (18,500 tensors) beside a config of 5,000 more keys: the spec is
/// written (the pairs of so many keys are not tried) and folds to two blocks.
#[test]
fn many_tensors_and_many_keys() {
    let dir = TempDir::new("spec-infer-scale");
    let mut t: Vec<Tensor> = vec![("embed.weight".into(), vec![50, 16])];
    for l in 0..16 {
        t.push((format!("layers.{l}.gate.weight"), vec![128, 16]));
        for e in 0..128 {
            for (w, dims) in [("up", [24, 16]), ("down", [16, 24]), ("gate_up", [24, 16])] {
                t.push((format!("layers.{l}.experts.{e}.{w}.weight"), dims.to_vec()));
                t.push((format!("layers.{l}.experts.{e}.{w}.scale"), vec![dims[0]]));
                t.push((format!("layers.{l}.experts.{e}.{w}.zero"), vec![1]));
            }
        }
    }
    let path = dir.join("model.safetensors");
    ckpt_files::safetensors(&path, &t, &[]);
    let mut config = serde_json::json!({
        "hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 16,
        "num_experts": 128, "vocab_size": 50,
    });
    for i in 0..5000 {
        config[format!("extra_{i}")] = serde_json::json!(1_000_000 + i);
    }
    std::fs::write(dir.join("config.json"), config.to_string()).expect("config");
    let ckpt = Checkpoint::open(&path).expect("the checkpoint opens");
    let toml = Spec::infer(&ckpt).expect("a spec").to_toml();
    assert_eq!(toml.matches("[blocks.").count(), 2, "{toml}");
    for line in [
        "\"layers.{i}.experts\" = \"n_experts\"",
        "\"gate.weight\" = \"(n_experts, d_model)\"",
        "\"up.scale\" = \"(d_ff,)\"",
        "\"up.zero\" = \"(1,)\"",
    ] {
        assert!(toml.lines().any(|l| l == line), "no {line:?} in\n{toml}");
    }
    assert!(!toml.contains("extra_"), "{toml}");
}

/// 20,000 config keys of one value, which is also a list's count: none is told apart, each
/// is looked at once, and the count is pinned as found.
#[test]
fn many_keys_of_one_value() {
    let dir = TempDir::new("spec-infer-one-value");
    let t: Vec<Tensor> = (0..2)
        .map(|l| (format!("layers.{l}.w"), vec![5, 7]))
        .collect();
    let path = dir.join("model.safetensors");
    ckpt_files::safetensors(&path, &t, &[]);
    let mut config = serde_json::json!({ "num_layers": 2 });
    for i in 0..20_000 {
        config[format!("layer_thing_{i}")] = serde_json::json!(2);
    }
    std::fs::write(dir.join("config.json"), config.to_string()).expect("config");
    let ckpt = Checkpoint::open(&path).expect("the checkpoint opens");
    let toml = Spec::infer(&ckpt).expect("a spec").to_toml();
    assert!(toml.contains("where = [\"n_layer = 2\"]"), "{toml}");
    assert!(toml.contains("\"w\" = \"(5, 7)\""), "{toml}");
    assert!(!toml.contains("[config]"), "{toml}");
}
