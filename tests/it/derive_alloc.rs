//! A successful derived `verify()` allocates nothing (BERT-base, 199 tensors, nested structs;
//! TinyLlama, whose variables are first bound under four different paths, one pre-bound).

use shapes::{Bindings, Shape, Shaped};

use crate::common::{bert, llama};

fn allocations_in(f: impl FnOnce()) -> u64 {
    allocation_counter::measure(f).count_total
}

#[test]
fn successful_verify_allocates_nothing() {
    let model = bert::bert_base();
    // Warm up anything lazily initialised by the test harness.
    let _ = model.verify();
    let mut bindings = None;
    let n = allocations_in(|| bindings = Some(model.verify()));
    let b = bindings.unwrap().expect("BERT-base verifies");
    assert_eq!(n, 0, "verify() allocated {n} times on success");
    assert_eq!(b.get("d_model"), Some(768));
    assert_eq!(b.get("d_ff"), Some(3072));
    let n = allocations_in(|| {
        let _ = std::hint::black_box(model.verify_all());
    });
    assert_eq!(n, 0, "verify_all() allocated {n} times on success");
}

#[test]
fn a_failure_may_allocate_to_build_its_message() {
    let mut model = bert::bert_base();
    model.layers[7].up_w = shapes::Shape::from([3000, 768]);
    let e = model.verify().unwrap_err();
    assert_eq!(e.path.to_string(), "Bert.layers[7].up_w");
}

/// TinyLlama-1.1B's parameters as shapes: 22 layers, 32 query heads and 4 key/value heads of
/// 64 dims, hidden 2048, intermediate 5632, vocabulary 32000.
fn tinyllama() -> llama::LlamaForCausalLM<Shape> {
    let (vocab, d, kv, d_ff) = (32000, 2048, 4 * 64, 5632);
    let layer = || llama::Layer {
        self_attn: llama::Attention {
            q: Shape::from([d, d]),
            k: Shape::from([kv, d]),
            v: Shape::from([kv, d]),
            o: Shape::from([d, d]),
            inv_freq: None,
        },
        mlp: llama::Mlp {
            gate: Shape::from([d_ff, d]),
            up: Shape::from([d_ff, d]),
            down: Shape::from([d, d_ff]),
        },
        attn_norm: Shape::from([d]),
        mlp_norm: Shape::from([d]),
    };
    llama::LlamaForCausalLM {
        model: llama::Model {
            embed: Shape::from([vocab, d]),
            layers: (0..22).map(|_| layer()).collect(),
            norm: Shape::from([d]),
        },
        lm_head: Some(Shape::from([vocab, d])),
    }
}

#[test]
fn bindings_from_several_nested_paths_allocate_nothing() {
    let model = tinyllama();
    let _ = model.verify_with(Bindings::new().bind("heads", 32));
    let pre = Bindings::new().bind("heads", 32);
    let mut bindings = None;
    let n = allocations_in(|| bindings = Some(model.verify_with(pre)));
    let b = bindings.unwrap().expect("TinyLlama verifies");
    assert_eq!(n, 0, "verify_with() allocated {n} times on success");
    assert_eq!(
        [
            b.get("d_model"),
            b.get("kv_heads"),
            b.get("d_ff"),
            b.get("n_layers")
        ],
        [Some(2048), Some(4), Some(5632), Some(22)]
    );
    // Four different places bound the variables: the caller, `model`, and two nested levels
    // of `model.layers[0]`.
    let places: std::collections::BTreeSet<String> = b
        .iter()
        .map(|x| match x.origin {
            shapes::verify::Origin::Field { path, .. }
            | shapes::verify::Origin::Solved { path } => {
                let mut p = path.to_string();
                p.truncate(p.rfind('.').unwrap_or(p.len()));
                p
            }
            other => other.to_string(),
        })
        .collect();
    assert!(places.len() >= 4, "{places:?}");
}

/// Pre-binding a couple of values by name, and verifying with them, allocates nothing: the
/// names stay where the caller wrote them and the values inline.
#[test]
fn pre_binding_allocates_nothing() {
    let model = tinyllama();
    let _ = model.verify_with(Bindings::new().bind("heads", 32));
    let mut bindings = None;
    let n = allocations_in(|| {
        let pre = Bindings::new().bind("heads", 32).bind("kv_heads", 4);
        bindings = Some(model.verify_with(pre));
    });
    let b = bindings.unwrap().expect("TinyLlama verifies");
    assert_eq!(n, 0, "binding two names and verifying allocated {n} times");
    assert_eq!((b.get("heads"), b.get("head_dim")), (Some(32), Some(64)));
    assert_eq!(b.origin("heads"), Some(shapes::verify::Origin::Given));
}
