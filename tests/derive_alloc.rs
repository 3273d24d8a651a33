//! A successful derived `verify()` allocates nothing (BERT-base, 199 tensors, nested structs).

use shapes::Shaped;

#[path = "common/bert.rs"]
#[allow(dead_code)]
mod bert;

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
