//! Real weights, not only a header: the shipped fracast-0 checkpoint loaded into candle
//! tensors, put in the `Fracast<Tensor>` struct and verified with `verify()`; the bound values
//! must equal the config's and the header's. A corrupted or transposed tensor gives an error
//! naming it (field path, axis, expected, found).
//!
//! Needs the `candle` feature (`cargo test --features candle --test it fracast_weights`; CI
//! runs every feature).

use std::collections::HashMap;

use candle_core::{DType, Device, Tensor};
use shapes::{
    Shaped,
    verify::{HasShape, Origin, Segment},
};

use crate::common::fracast::{self, Fracast};

fn load() -> HashMap<String, Tensor> {
    candle_core::safetensors::load(fracast::checkpoint(), &Device::Cpu)
        .expect("the shipped checkpoint loads")
}

fn build(mut tensors: HashMap<String, Tensor>) -> Fracast<Tensor> {
    let names: Vec<String> = tensors.keys().cloned().collect();
    let model = fracast::from_tensors(|n| tensors.remove(n), |n| names.iter().any(|k| k == n))
        .expect("every tensor the struct needs is in the checkpoint");
    assert!(
        tensors.is_empty(),
        "tensors the struct does not hold: {:?}",
        tensors.keys().collect::<Vec<_>>()
    );
    model
}

fn config() -> Vec<(&'static str, usize)> {
    let text = std::fs::read_to_string(fracast::config()).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    fracast::config_values(&json).unwrap()
}

#[test]
fn the_loaded_checkpoint_verifies_and_its_bindings_equal_the_config() {
    let tensors = load();
    assert_eq!(tensors.len(), 47);
    let model = build(tensors);
    let bindings = model.verify().unwrap_or_else(|e| panic!("{e}"));
    println!("{bindings}");
    let config = config();
    for (name, value) in &config {
        assert_eq!(bindings.get(name), Some(*value), "{name}");
    }
    // The two widths the config does not state, bound from the tensors themselves.
    assert_eq!(bindings.get("n_in_features"), Some(7));
    assert_eq!(bindings.get("n_summary_features"), Some(133));
    assert_eq!(bindings.len(), config.len() + 2);
    // The same facts from the header alone, with no tensor data.
    let header = shapes::checkpoint::SafetensorsHeader::read_path(fracast::checkpoint()).unwrap();
    let from_header = Fracast::<Tensor>::verify_source(&header).unwrap();
    for b in bindings.iter() {
        assert_eq!(from_header.value(&b.name), Some(b.value), "{}", b.name);
    }
}

#[test]
fn a_corrupted_tensor_is_named_with_its_axis_and_both_values() {
    let mut tensors = load();
    // The second fc block's depthwise kernel, width 4 instead of 3.
    let bad = Tensor::zeros((64, 1, 4), DType::F32, &Device::Cpu).unwrap();
    tensors.insert("head.fc_blocks.1.dw_weight".into(), bad);
    let model = build(tensors);
    assert_eq!(
        HasShape::shape(&model.head.fc_blocks[1].dw_weight),
        &[64, 1, 4]
    );
    let e = model.verify().unwrap_err();
    assert_eq!(
        e.path.segments(),
        &[
            Segment::Field("head"),
            Segment::Field("fc_blocks"),
            Segment::Index(1),
            Segment::Field("dw_weight"),
        ]
    );
    assert_eq!((e.axis, e.found()), (Some(2), Some(4)));
    assert_eq!(
        e.to_string(),
        "Fracast.head.fc_blocks[1].dw_weight: axis 2 expected head_fc_kernel = 3, found 4\n  \
         head_fc_kernel = 3 bound by Fracast.head.fc_blocks[0].dw_weight axis 2\n  \
         shape is (64, 1, 4), pattern (d_model, 1, head_fc_kernel)"
    );
    assert!(matches!(
        &e.provenance[0].origin,
        Origin::Field { axis: 2, .. }
    ));
}

#[test]
fn a_transposed_ffn_weight_is_caught_by_the_gated_ffn_relation() {
    let mut tensors = load();
    // down.weight stored transposed: (96, 64) instead of (64, 96).
    let down = tensors["core.block.ffn.down.weight"].t().unwrap();
    tensors.insert("core.block.ffn.down.weight".into(), down);
    let errors = build(tensors).verify_all().unwrap_err();
    let first = errors.first().unwrap().to_string();
    assert!(
        first.starts_with(
            "Fracast.core.block.ffn.down_w: looks transposed: expected (64, 96), found (96, 64), its reverse"
        ),
        "{errors}"
    );
}
