//! A successful derived `verify()` allocates nothing (BERT-base, 199 tensors, nested structs).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use shapes::Shaped;

#[path = "common/bert.rs"]
#[allow(dead_code)]
mod bert;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: defers every operation to `System`; only counts calls on the current thread.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_in(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
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
