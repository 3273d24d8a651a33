//! `shapes check` of several paths in one run, as a pre-commit hook calls it: each checkpoint
//! is checked on its own with its own verdict, and the exit code is the worst of them.

use std::path::{Path, PathBuf};

use super::{fracast, has_line, hf_dir, s};
use crate::support::*;

/// A SmolLM-135M that matches its built-in spec, one whose `k_proj` of layer 7 is wrong, and
/// a GPT-2 that matches, each in its own directory with its config.json.
fn three(prefix: &str) -> [PathBuf; 3] {
    let good = hf_dir(
        &format!("{prefix}_good"),
        &SMOLLM_135M.hf(),
        &SMOLLM_135M.config("llama"),
    );
    let bad = hf_dir(
        &format!("{prefix}_bad"),
        &reshaped(
            SMOLLM_135M.hf(),
            "model.layers.7.self_attn.k_proj.weight",
            &[256, 576],
        ),
        &SMOLLM_135M.config("llama"),
    );
    let gpt2 = hf_dir(&format!("{prefix}_gpt2"), &gpt2_small(), GPT2_CONFIG);
    [good, bad, gpt2]
}

/// The line a report starts with: the path, the format and the tensor count.
fn header(path: &Path, tensors: usize) -> String {
    format!("{}: safetensors, {tensors} tensors", path.display())
}

#[test]
fn each_path_gets_its_own_report_and_the_exit_code_is_the_worst() {
    let [good, bad, gpt2] = three("several");
    let n_llama = SMOLLM_135M.hf().len();
    let n_gpt2 = gpt2_small().len();

    let (code, out, err) = shapes(&["check", s(&good), s(&gpt2)]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        out.matches("OK: the checkpoint matches the spec").count(),
        2
    );
    assert!(out.starts_with(&header(&good, n_llama)), "{out}");
    assert!(has_line(&out, &header(&gpt2, n_gpt2)), "{out}");
    assert!(out.ends_with("\n\n2 checkpoints: 2 match\n"), "{out}");

    let (code, out, err) = shapes(&["check", s(&good), s(&bad), s(&gpt2)]);
    assert_eq!(code, 1, "one mismatch among three exits 1: {out}{err}");
    assert!(err.is_empty(), "{err}");
    // In the order given, each under its own header with its own verdict.
    let at = |needle: &str| {
        out.find(needle)
            .unwrap_or_else(|| panic!("{needle:?} in {out}"))
    };
    let (h_good, h_bad, h_gpt2) = (
        at(&header(&good, n_llama)),
        at(&header(&bad, n_llama)),
        at(&header(&gpt2, n_gpt2)),
    );
    assert!(h_good < h_bad && h_bad < h_gpt2, "{out}");
    let mismatch = at("MISMATCH: 1 error");
    assert!(h_bad < mismatch && mismatch < h_gpt2, "{out}");
    assert!(
        out[h_bad..h_gpt2].contains(
            "(tensor \"model.layers.7.self_attn.k_proj.weight\"): axis 0 expected kv_heads * head_dim = 3 * 64 = 192, found 256"
        ),
        "{out}"
    );
    assert_eq!(
        out.matches("OK: the checkpoint matches the spec").count(),
        2
    );
    assert!(
        has_line(&out, "3 checkpoints: 2 match, 1 does not match"),
        "{out}"
    );
    // The bad one alone is what it always was.
    let (code, alone, _) = shapes(&["check", s(&bad)]);
    assert_eq!(code, 1);
    assert!(out.contains(alone.trim_end()), "{alone}\n---\n{out}");
    assert!(!alone.contains("checkpoints:"), "no summary for one path");
}

#[test]
fn a_path_that_cannot_be_read_exits_2_and_the_others_are_still_checked() {
    let [good, bad, _] = three("several_unreadable");
    let junk = dir("several_junk").join("notes.safetensors");
    std::fs::write(&junk, "these are not weights\n").expect("write");
    let missing = dir("several_missing").join("model.safetensors");

    let (code, out, err) = shapes(&["check", s(&junk), s(&good), s(&missing), s(&bad)]);
    assert_eq!(
        code, 2,
        "an unreadable path outranks a mismatch: {out}{err}"
    );
    assert!(out.contains("OK: the checkpoint matches the spec"), "{out}");
    assert!(out.contains("MISMATCH: 1 error"), "{out}");
    assert!(
        has_line(
            &out,
            "4 checkpoints: 1 matches, 1 does not match, 2 could not be checked"
        ),
        "{out}"
    );
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "one error line per unreadable path: {err}");
    assert!(
        lines[0].starts_with(&format!("error: {}: ", junk.display())),
        "{err}"
    );
    assert!(
        lines[1].starts_with(&format!("error: {}: ", missing.display())),
        "{err}"
    );
    // The checked ones are printed in full, no leading blank line for the failed first path.
    assert!(out.starts_with(&good.display().to_string()), "{out}");

    // A path the built-ins cannot check (no architecture named) fails alone, named by path.
    let unnamed = dir("several_unnamed").join("model.safetensors");
    write_safetensors(&unnamed, &SMOLLM_135M.hf());
    let (code, out, err) = shapes(&["check", s(&good), s(&unnamed)]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.starts_with(&format!(
            "error: {}: the file names no architecture",
            unnamed.display()
        )),
        "{err}"
    );
    assert!(
        has_line(&out, "2 checkpoints: 1 matches, 1 could not be checked"),
        "{out}"
    );
}

#[test]
fn json_of_several_paths_is_an_array_of_reports() {
    let [good, bad, gpt2] = three("several_json");
    let missing = dir("several_json_missing").join("model.safetensors");
    let (code, out, err) = shapes(&["check", s(&good), s(&bad), s(&missing), s(&gpt2), "--json"]);
    assert_eq!(code, 2, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    let reports = v.as_array().expect("an array");
    assert_eq!(reports.len(), 4, "{out}");
    let paths: Vec<&str> = reports
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, [s(&good), s(&bad), s(&missing), s(&gpt2)]);
    let oks: Vec<bool> = reports.iter().map(|r| r["ok"].as_bool().unwrap()).collect();
    assert_eq!(oks, [true, false, false, true]);
    assert_eq!(reports[0]["spec"]["name"], "Llama");
    assert_eq!(reports[3]["spec"]["name"], "GPT2");
    assert_eq!(
        reports[1]["errors"][0]["tensor"],
        "model.layers.7.self_attn.k_proj.weight"
    );
    let error = reports[2]["error"].as_str().expect("an error message");
    assert!(
        error.starts_with(&format!("{}: ", missing.display())),
        "{error}"
    );
    assert!(
        err.starts_with(&format!("error: {}: ", missing.display())),
        "{err}"
    );

    // One path: the single object it always was.
    let (code, out, _) = shapes(&["check", s(&good), "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert!(v.is_object(), "{out}");
    assert_eq!(v["path"], s(&good));
}

#[test]
fn one_spec_file_checks_every_path_and_a_bad_one_stops_the_run_once() {
    // The fixture and a copy with one tensor's kernel widened, both against fracast.toml.
    let d = dir("several_spec");
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
    let corrupt = d.join("fracast_corrupt.safetensors");
    write_safetensors(&corrupt, &tensors);
    let fixture = fracast("fracast_model.safetensors");
    let spec = fracast("fracast.toml");
    let config = fracast("fracast_config.json");
    let (code, out, err) = shapes(&[
        "check",
        &fixture,
        s(&corrupt),
        "--spec",
        &spec,
        "--config",
        &config,
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        out.matches(&format!("spec: Fracast ({spec})")).count(),
        2,
        "{out}"
    );
    assert!(
        out.contains("Fracast.head.fc_blocks[1].dw_weight: config `model.head_fc_kernel` = 3, but \"head.fc_blocks.1.dw_weight\" axis 2 is 4"),
        "{out}"
    );
    assert!(
        has_line(&out, "2 checkpoints: 1 matches, 1 does not match"),
        "{out}"
    );

    // A spec that does not compile fails every path alike: said once, and nothing checked.
    let bad_spec = d.join("bad.toml");
    std::fs::write(
        &bad_spec,
        "name = \"M\"\n[tensors]\n\"w\" = \"(d_out d_in)\"\n",
    )
    .expect("write");
    let (code, out, err) = shapes(&["check", &fixture, s(&corrupt), "--spec", s(&bad_spec)]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert_eq!(err.matches("error: ").count(), 1, "{err}");
    assert!(
        err.starts_with(&format!("error: {}:3:15: ", bad_spec.display())),
        "{err}"
    );
}
