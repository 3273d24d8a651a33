//! A DeepSeek-V3-shaped sharded checkpoint (tests/common/deepseek.rs, the generator
//! `benches/scale.rs` times at 1,000 to 100,000 tensors), here with fewer layers and experts
//! so that a debug build checks it quickly: it passes the built-in spec, and one transposed
//! expert is named.

use shapes::{Checkpoint, CheckpointFormat, Spec, spec::Naming};

use crate::common::blessed::assert_blessed;
use crate::common::ckpt_files::TempDir;
use crate::common::deepseek::{Layout, Typed};

const SMALL: Layout = Layout {
    layers: 5,
    experts: 8,
    mtp: 1,
};

fn open(tag: &str, tensors: &[Typed], shards: usize) -> (TempDir, Checkpoint) {
    let dir = TempDir::new(tag);
    SMALL.write(dir.path(), tensors, shards);
    let ckpt = Checkpoint::open(dir.path()).expect("the sharded checkpoint opens");
    (dir, ckpt)
}

#[test]
fn a_deepseek_v3_layout_in_shards_passes_its_built_in_spec() {
    let tensors = SMALL.tensors();
    assert_eq!(tensors.len(), SMALL.count());
    let (_dir, ckpt) = open("scale-ok", &tensors, 7);
    assert_eq!(ckpt.format(), CheckpointFormat::ShardedSafetensors);
    assert_eq!(ckpt.files().len(), 7);
    assert_eq!(ckpt.tensors().len(), tensors.len());
    let spec = Spec::for_checkpoint(&ckpt).expect("config.json names deepseek_v3");
    assert_eq!(spec.name(), "DeepseekV3");
    let report = spec.check(&ckpt);
    assert!(report.ok(), "{report}");
    // The FP8 weights and their F32 block scales are the dtypes the spec allows.
    let scale = "model.layers.4.mlp.experts.7.down_proj.weight_scale_inv";
    assert_eq!(ckpt.get(scale).map(|t| t.shape.dims()), Some(&[56, 16][..]));
    // The tensor names alone say which built-in it is.
    assert_eq!(Spec::guess(&ckpt), Some("deepseek_v3"));
    assert!(Spec::builtin("deepseek_v3", Naming::HuggingFace).is_some());
}

#[test]
fn one_transposed_expert_among_the_shards_is_named() {
    let mut tensors = SMALL.tensors();
    let name = "model.layers.4.mlp.experts.3.down_proj.weight";
    let t = tensors
        .iter_mut()
        .find(|t| t.0 == name)
        .expect("the layout has it");
    t.2.reverse();
    let (_dir, ckpt) = open("scale-bad", &tensors, 7);
    let spec = Spec::for_checkpoint(&ckpt).expect("config.json names deepseek_v3");
    let report = spec.check(&ckpt);
    assert!(!report.ok());
    let text = report.to_string();
    assert!(
        text.contains(&format!(
            "(tensor \"{name}\"): looks transposed: expected (7168, 2048), found (2048, 7168)"
        )),
        "{text}"
    );
    assert_eq!(report.errors().map(|e| e.len()), Some(1), "{text}");
}

#[test]
fn a_spec_written_from_it_chooses_dense_or_experts_per_layer_and_folds_the_experts() {
    let tensors = SMALL.tensors();
    let (_dir, ckpt) = open("scale-infer", &tensors, 3);
    let toml = Spec::infer(&ckpt).expect("a spec").to_toml();
    for line in [
        // The first three layers hold a dense MLP, the others the router and the experts.
        "\"mlp\" = { one_of = [\"mlp\", \"mlp_2\"], first = \"k_dense\" }",
        "k_dense = \"first_k_dense_replace\" # 3",
        // Two keys state 8, the experts and the experts per token: the second picks, it
        // counts nothing.
        "\"model.layers.{i}.mlp.experts\" = \"n_experts\"",
        "\"gate.weight\" = { shape = \"(n_experts, d_model)\", dtype = \"BF16\" }",
        "\"experts.{j}\" = { block = \"expert\" }",
        "[blocks.expert]",
    ] {
        assert!(toml.lines().any(|l| l == line), "no {line:?} in\n{toml}");
    }
    // Every expert once, not each of them written out.
    assert!(!toml.contains("experts.3."), "{toml}");
    assert!(toml.lines().count() < 100, "{toml}");
    let spec = Spec::from_toml("written.toml", &toml).expect("it loads");
    assert!(spec.check(&ckpt).ok());
    // A sparse layer that lost an expert, and a dense layer that holds a router, are named.
    let lost = "model.layers.4.mlp.experts.7.";
    let mut fewer: Vec<Typed> = tensors
        .iter()
        .filter(|t| !t.0.starts_with(lost))
        .cloned()
        .collect();
    fewer.push((
        "model.layers.1.mlp.gate.weight".into(),
        "BF16",
        vec![8, 7168],
    ));
    let (_dir, bad) = open("scale-infer-bad", &fewer, 3);
    let report = spec.check(&bad);
    let text = report.to_string();
    assert!(!report.ok(), "{text}");
    assert!(text.contains("model.layers.4.mlp.experts"), "{text}");
    assert!(text.contains("model.layers.1.mlp.gate.weight"), "{text}");
}

#[test]
fn the_structs_written_from_it_are_what_the_writer_writes() {
    let (_dir, ckpt) = open("scale-infer-rust", &SMALL.tensors(), 3);
    let rust = Spec::infer(&ckpt).expect("a spec").to_rust();
    assert_blessed("tests/it/spec_infer_written_choice.rs", &rust);
}

/// The structs, compiled: the derive has no `one_of`, so the dense and the sparse MLP are
/// two fields over `mlp`, each of their tensors optional.
#[allow(dead_code)]
mod written {
    include!("spec_infer_written_choice.rs");
}

#[test]
fn the_structs_written_from_it_verify_it_and_reject_a_changed_expert() {
    use shapes::{Shape, Shaped};
    let tensors = SMALL.tensors();
    let (_dir, ckpt) = open("scale-infer-verify", &tensors, 3);
    let b = written::DeepseekV3::<Shape>::verify_source(&ckpt).expect("the checkpoint passes");
    assert_eq!(b.get("d_ff_exp"), Some(2048));
    let mut wider = tensors.clone();
    let name = "model.layers.4.mlp.experts.3.up_proj.weight";
    let t = wider
        .iter_mut()
        .find(|t| t.0 == name)
        .expect("the layout has it");
    t.2[0] += 1;
    let (_dir, bad) = open("scale-infer-verify-bad", &wider, 3);
    let e = written::DeepseekV3::<Shape>::verify_source(&bad).unwrap_err();
    assert!(e.to_string().contains(name), "{e}");
}
