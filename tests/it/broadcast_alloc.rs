//! The broadcasting hot path allocates nothing: `broadcast_shapes_into` at any rank, and
//! `broadcast_shapes` (and the two-shape checks) on success up to rank 8 (`INLINE_RANK`).
//!
//! Allocations are counted by the `allocation-counter` crate's global allocator, per thread.

use std::hint::black_box;

use shapes::{
    Shape,
    broadcast::{
        are_broadcastable, broadcast_shapes_into, broadcast_to, refine_shapes_for_broadcast,
    },
    broadcast_shapes,
    shape::INLINE_RANK,
};

/// How many allocations `f` makes on this thread (allocation-counter counts per thread, so the
/// harness's other threads cannot disturb a measurement).
fn allocations_in<R>(f: impl FnOnce() -> R) -> (u64, R) {
    let mut r = None;
    let info = allocation_counter::measure(|| r = Some(f()));
    (info.count_total, r.expect("the closure ran"))
}

/// Compatible inputs whose broadcast has rank `rank`: a full-rank shape with 1s in it, a
/// shorter one, a scalar, and a full-rank one of all 1s; the result is `2, 3, 4, 2, 3, 4, ...`.
fn inputs(rank: usize) -> Vec<Vec<usize>> {
    let full: Vec<usize> = (0..rank).map(|i| 2 + i % 3).collect();
    let with_ones: Vec<usize> = full
        .iter()
        .enumerate()
        .map(|(i, &d)| if i % 2 == 0 { 1 } else { d })
        .collect();
    let short: Vec<usize> = full[rank / 2..].to_vec();
    vec![with_ones, short, vec![], vec![1; rank], full]
}

const RANKS: [usize; 10] = [0, 1, 2, 3, 4, 5, 6, 8, 9, 64];

#[test]
fn broadcast_shapes_into_never_allocates() {
    let mut out = [0usize; 64];
    for rank in RANKS {
        let shapes = inputs(rank);
        let slices: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
        let expected = broadcast_shapes(&shapes).unwrap();
        // Warm up, then measure: with owned `Vec`s, with borrowed slices, and with two inputs.
        let _ = broadcast_shapes_into(&shapes, &mut out);
        let (n, r) = allocations_in(|| broadcast_shapes_into(black_box(&shapes), &mut out));
        assert_eq!(
            n, 0,
            "broadcast_shapes_into allocated {n} times at rank {rank}"
        );
        assert_eq!(&out[..r.unwrap()], expected.dims());
        let (n, r) = allocations_in(|| broadcast_shapes_into(black_box(&slices), &mut out));
        assert_eq!(
            n, 0,
            "broadcast_shapes_into(&[&[usize]]) allocated at rank {rank}"
        );
        assert_eq!(r.unwrap(), rank);
        let (n, _) = allocations_in(|| broadcast_shapes_into(black_box(&slices[3..]), &mut out));
        assert_eq!(
            n, 0,
            "two-input broadcast_shapes_into allocated at rank {rank}"
        );
    }
}

#[test]
fn broadcast_shapes_allocates_nothing_up_to_inline_rank() {
    for rank in RANKS {
        let shapes = inputs(rank);
        let slices: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
        let _ = broadcast_shapes(&slices);
        let (n, out) = allocations_in(|| broadcast_shapes(black_box(&slices)));
        let out: Shape = out.unwrap();
        assert_eq!(out.rank(), rank);
        if rank <= INLINE_RANK {
            assert_eq!(n, 0, "broadcast_shapes allocated {n} times at rank {rank}");
            assert!(out.is_inline());
        } else {
            // Above the inline capacity the result lives on the heap: one allocation, no more.
            assert_eq!(n, 1, "broadcast_shapes allocated {n} times at rank {rank}");
        }
        let (n, _) = allocations_in(|| drop(black_box(out)));
        assert_eq!(n, 0);
    }
}

#[test]
fn pairwise_checks_allocate_nothing_on_success() {
    for rank in RANKS {
        let shapes = inputs(rank);
        let (a, b) = (shapes[0].as_slice(), shapes[1].as_slice());
        let out = broadcast_shapes(&[a, b]).unwrap();
        let (n, r) = allocations_in(|| are_broadcastable(black_box(a), black_box(b)));
        assert!(r.is_ok());
        assert_eq!(n, 0, "are_broadcastable allocated at rank {rank}");
        let (n, r) = allocations_in(|| broadcast_to(black_box(a), black_box(&out)));
        assert!(r.is_ok());
        assert_eq!(n, 0, "broadcast_to allocated at rank {rank}");
        if rank <= INLINE_RANK {
            let (n, r) = allocations_in(|| refine_shapes_for_broadcast(black_box(a), black_box(b)));
            assert!(r.is_ok());
            assert_eq!(n, 0, "refine_shapes_for_broadcast allocated at rank {rank}");
        }
    }
}

/// Not a promise, but documented behaviour: an error boxes its details (so that the `Ok` path
/// stays small), and that is where allocation happens.
#[test]
fn errors_allocate_their_details() {
    let (n, r) = allocations_in(|| broadcast_shapes(black_box(&[[3], [4]])));
    assert!(r.is_err());
    assert!(n >= 1);
}
