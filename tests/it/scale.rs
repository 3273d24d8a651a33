//! A DeepSeek-V3-shaped sharded checkpoint (tests/common/deepseek.rs, the generator
//! `benches/scale.rs` times at 1,000 to 100,000 tensors), here with fewer layers and experts
//! so that a debug build checks it quickly: it passes the built-in spec, and one transposed
//! expert is named.

use shapes::{Checkpoint, CheckpointFormat, Naming, Spec};

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
