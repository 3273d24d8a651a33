//! `shapes diff A B`: added, removed, reshaped and retyped tensors between two checkpoints of
//! any formats, folded across layers, as text and JSON, with its exit codes.

use std::path::PathBuf;

use super::{has_line, s};
use crate::support::*;

/// `tensors` as an F16 safetensors file in a fresh directory `name`.
fn smollm(name: &str, tensors: &[(String, Vec<usize>)]) -> PathBuf {
    let d = dir(name);
    let p = d.join("model.safetensors");
    write_safetensors(&p, tensors);
    p
}

#[test]
fn the_same_checkpoint_twice_is_the_same() {
    let a = smollm("diff_same", &SMOLLM_135M.hf());
    let (code, out, err) = shapes(&["diff", s(&a), s(&a)]);
    assert_eq!(code, 0, "{out}{err}");
    let n = SMOLLM_135M.hf().len();
    assert!(
        out.contains(&format!(
            "SAME: {n} tensors, the same names, shapes and dtypes"
        )),
        "{out}"
    );
}

#[test]
fn added_removed_and_reshaped_tensors_are_listed_and_layers_fold() {
    let t = SMOLLM_135M.hf();
    let a = smollm("diff_a", &t);
    // Every layer's up_proj one row wider, the final norm gone, one tensor new.
    let mut changed: Tensors = t
        .iter()
        .filter(|(n, _)| n != "model.norm.weight")
        .map(|(n, d)| {
            if n.ends_with("mlp.up_proj.weight") {
                (n.clone(), vec![1537, 576])
            } else {
                (n.clone(), d.clone())
            }
        })
        .collect();
    changed.push(("lm_head.weight".into(), vec![49152, 576]));
    let b = smollm("diff_b", &changed);
    let (code, out, err) = shapes(&["diff", s(&a), s(&b)]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("DIFFERENT: 1 added, 1 removed, 30 reshaped"),
        "{out}"
    );
    assert!(
        has_line(
            &out,
            "model.layers.{0..29}.mlp.up_proj.weight: (1536, 576) → (1537, 576) ×30"
        ),
        "{out}"
    );
    assert!(has_line(&out, "removed: only in a (1):"), "{out}");
    assert!(has_line(&out, "model.norm.weight: F16 (576,)"), "{out}");
    assert!(has_line(&out, "added: only in b (1):"), "{out}");
    assert!(has_line(&out, "lm_head.weight: F16 (49152, 576)"), "{out}");
    // Reversed: added and removed swap.
    let (code, out, _) = shapes(&["diff", s(&b), s(&a)]);
    assert_eq!(code, 1);
    assert!(has_line(&out, "model.norm.weight: F16 (576,)"), "{out}");
    assert!(
        out.contains("removed: only in a (1):\n  lm_head.weight"),
        "{out}"
    );
}

#[test]
fn a_dtype_only_change_is_listed_and_exits_0() {
    let t = SMOLLM_135M.hf();
    let a = smollm("diff_dtype_a", &t);
    let d = dir("diff_dtype_b");
    let b = d.join("model.safetensors");
    write_safetensors_typed(&b, &t, &|n| {
        if n.contains("layernorm") {
            "F32"
        } else {
            "F16"
        }
    });
    let (code, out, err) = shapes(&["diff", s(&a), s(&b)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("SAME SHAPES: "), "{out}");
    assert!(out.contains("; 60 differ in dtype only"), "{out}");
    assert!(
        has_line(
            &out,
            "model.layers.{0..29}.input_layernorm.weight: F16 → F32 (576,) ×30"
        ),
        "{out}"
    );
}

#[test]
fn a_safetensors_file_and_a_gguf_file_compare_by_name() {
    let t = SMOLLM_135M.gguf();
    let d = dir("diff_gguf");
    let st = d.join("model.safetensors");
    write_safetensors(&st, &t);
    let gguf = d.join("model.gguf");
    let shrunk = reshaped(t.clone(), "blk.3.attn_k.weight", &[128, 576]);
    write_gguf(&gguf, &SMOLLM_135M.gguf_meta("llama"), &shrunk, 0);
    let (code, out, err) = shapes(&["diff", s(&st), s(&gguf)]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(": GGUF, "), "{out}");
    assert!(
        has_line(&out, "blk.3.attn_k.weight: (192, 576) → (128, 576)"),
        "{out}"
    );
    // Hugging Face names against GGUF names: nothing in common, and said so.
    let hf = smollm("diff_gguf_hf", &SMOLLM_135M.hf());
    let (code, out, _) = shapes(&["diff", s(&hf), s(&gguf)]);
    assert_eq!(code, 1);
    assert!(out.contains("note: no tensor name is in both"), "{out}");
}

#[test]
fn a_sharded_checkpoint_diffs_against_one_file() {
    let t = bert_base();
    let one = smollm("diff_bert_one", &t);
    let d = dir("diff_bert_sharded");
    let (x, y) = t.split_at(t.len() / 2);
    let y = reshaped(y.to_vec(), "pooler.dense.weight", &[768, 769]);
    write_safetensors(&d.join("model-00001-of-00002.safetensors"), x);
    write_safetensors(&d.join("model-00002-of-00002.safetensors"), &y);
    let (code, out, err) = shapes(&["diff", s(&one), s(&d)]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(": sharded safetensors, 2 files, "), "{out}");
    assert!(
        has_line(&out, "pooler.dense.weight: (768, 768) → (768, 769)"),
        "{out}"
    );
    assert!(out.contains("DIFFERENT: 1 reshaped"), "{out}");
}

#[test]
fn json_lists_every_difference() {
    let t = SMOLLM_135M.hf();
    let a = smollm("diff_json_a", &t);
    let b = smollm(
        "diff_json_b",
        &reshaped(
            t.clone(),
            "model.layers.4.self_attn.q_proj.weight",
            &[576, 577],
        ),
    );
    let (code, out, err) = shapes(&["diff", s(&a), s(&b), "--json"]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["exit"], 1);
    assert_eq!(v["same_shapes"], false);
    assert_eq!(v["common"], t.len());
    assert_eq!(
        v["changed"],
        serde_json::json!([{
            "name": "model.layers.4.self_attn.q_proj.weight",
            "shape_changed": true,
            "shape_a": [576, 576],
            "shape_b": [576, 577],
            "dtype_a": "F16",
            "dtype_b": "F16",
        }])
    );
    assert_eq!(v["a"]["format"], "safetensors");
    assert_eq!(v["added"], serde_json::json!([]));
}

#[test]
fn more_than_fifty_differences_are_counted_and_all_shows_them() {
    let many: Tensors = (0..80).map(|i| (format!("t{i}_x"), vec![2])).collect();
    let a = smollm("diff_many_a", &many);
    let b = smollm("diff_many_b", &[]);
    let (code, out, _) = shapes(&["diff", s(&a), s(&b)]);
    assert_eq!(code, 1);
    assert!(out.contains("  … and 30 more"), "{out}");
    let (_, out, _) = shapes(&["diff", s(&a), s(&b), "--all"]);
    assert!(out.contains("  t79_x: F16 (2,)"), "{out}");
    assert!(!out.contains("more"), "{out}");
}

#[test]
fn an_unreadable_checkpoint_exits_2_and_json_says_why() {
    let a = smollm("diff_unreadable", &[("w".into(), vec![2])]);
    let missing = a.with_file_name("nope.safetensors");
    let (code, out, err) = shapes(&["diff", s(&a), s(&missing)]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains("nope.safetensors"), "{err}");
    let garbage = a.with_file_name("garbage.safetensors");
    std::fs::write(&garbage, b"not a checkpoint").expect("write");
    let (code, out, err) = shapes(&["diff", s(&garbage), s(&a), "--json"]);
    assert_eq!(code, 2, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["exit"], 2);
    assert!(
        v["error"]
            .as_str()
            .is_some_and(|e| e.contains("garbage.safetensors")),
        "{v}"
    );
}

#[test]
fn names_from_a_file_are_escaped() {
    let a = smollm("diff_escape", &[("evil\\u001b[31m.w".into(), vec![2])]);
    let b = smollm("diff_escape_b", &[]);
    let (code, out, _) = shapes(&["diff", s(&a), s(&b)]);
    assert_eq!(code, 1);
    assert!(!out.contains('\u{1b}'), "{out:?}");
    assert!(out.contains("evil\\u{1b}[31m.w"), "{out}");
}

#[test]
fn a_wrong_command_line_with_json_is_a_diff_failure_in_json() {
    let (code, out, err) = shapes(&["diff", "--json", "only-one.safetensors"]);
    assert_eq!(code, 2, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        (v["exit"].clone(), v["same_shapes"].clone()),
        (2.into(), false.into())
    );
    assert!(
        v["error"].as_str().is_some_and(|e| e.contains("<B>")),
        "{v}"
    );
}
