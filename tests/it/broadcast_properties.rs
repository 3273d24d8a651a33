//! Algebraic properties of the broadcasting family, and agreement with a slow reference.
//!
//! Independent random shapes almost never broadcast, which would leave the success path
//! untested, so most inputs are *derived*: draw a base shape (rank 0..=6, small dims with many
//! 1s and some 0s), then make each input from it by dropping leading dims, turning some dims
//! into 1 and, now and then, changing a dim so that it conflicts. `derived_inputs_cover_both_
//! outcomes` checks that this gives a healthy mix of compatible and incompatible inputs.

use std::collections::BTreeMap;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use shapes::{
    Shape,
    broadcast::{
        BroadcastErrorKind, NamedShape, NamedStrategy, are_broadcastable, broadcast_named,
        broadcast_shapes_into, broadcast_to, predict_broadcast_shape, refine_shapes_for_broadcast,
    },
    broadcast_shapes,
    shape::numel,
};

// ---------------------------------------------------------------------------------------------
// The reference: numpy's rule written out the slow, obvious way.
// ---------------------------------------------------------------------------------------------

/// What the reference says about a failed broadcast: the leftmost result axis where two inputs
/// have different sizes, neither 1, and the first two such sizes at that axis (in input order).
#[derive(Debug, PartialEq, Eq)]
struct RefConflict {
    axis: usize,
    lhs_dim: usize,
    rhs_dim: usize,
}

/// Broadcasts by the definition: pad every shape on the left with 1s to the longest rank, then
/// at each axis the sizes other than 1 must all be equal; the result is that size, or 1.
fn reference(shapes: &[Vec<usize>]) -> Result<Vec<usize>, RefConflict> {
    let rank = shapes.iter().map(Vec::len).max().unwrap_or(0);
    let padded: Vec<Vec<usize>> = shapes
        .iter()
        .map(|s| {
            let mut p = vec![1; rank - s.len()];
            p.extend_from_slice(s);
            p
        })
        .collect();
    let mut out = Vec::new();
    for axis in 0..rank {
        let not_one: Vec<usize> = padded.iter().map(|p| p[axis]).filter(|&d| d != 1).collect();
        match not_one.first() {
            None => out.push(1),
            Some(&first) => match not_one.iter().find(|&&d| d != first) {
                None => out.push(first),
                Some(&other) => {
                    return Err(RefConflict {
                        axis,
                        lhs_dim: first,
                        rhs_dim: other,
                    });
                }
            },
        }
    }
    Ok(out)
}

fn ours_vs_reference(shapes: &[Vec<usize>]) -> Result<(), TestCaseError> {
    let ours = broadcast_shapes(shapes);
    match (reference(shapes), ours) {
        (Ok(want), Ok(got)) => prop_assert_eq!(got, want),
        (Err(want), Err(e)) => match e.kind() {
            BroadcastErrorKind::Incompatible {
                axis,
                axis_from_end,
                lhs_dim,
                rhs_dim,
                inputs,
                ..
            } => {
                let rank = shapes.iter().map(Vec::len).max().unwrap_or(0);
                prop_assert_eq!(
                    RefConflict {
                        axis: *axis,
                        lhs_dim: *lhs_dim,
                        rhs_dim: *rhs_dim
                    },
                    want
                );
                prop_assert_eq!(*axis_from_end, rank - axis);
                prop_assert_eq!(*inputs, shapes.len());
            }
            other => prop_assert!(false, "unexpected error kind {:?}", other),
        },
        (want, got) => prop_assert!(false, "reference {:?}, ours {:?}", want, got),
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Strategies.
// ---------------------------------------------------------------------------------------------

/// A dim as they come in practice: mostly 1 and small sizes, sometimes 0.
fn small_dim() -> impl Strategy<Value = usize> + Clone {
    prop_oneof![
        1 => Just(0usize),
        4 => Just(1usize),
        4 => 2usize..=4,
        1 => 5usize..=9,
    ]
}

/// How to derive one input from the base: how many leading dims to drop (taken modulo
/// rank + 1) and one edit byte per axis.
type Edit = (usize, Vec<u8>);

fn edit() -> impl Strategy<Value = Edit> {
    (0usize..8, vec(any::<u8>(), 64))
}

/// Applies an edit: drop leading dims; then per remaining axis, by the edit byte, keep the dim
/// (about 55%), make it 1 (about 23%) or change it to something else (about 22%).
fn derive(base: &[usize], (drop, ops): &Edit, other: usize) -> Vec<usize> {
    let drop = drop % (base.len() + 1);
    base[drop..]
        .iter()
        .zip(ops)
        .map(|(&d, &op)| match op {
            0..=139 => d,
            140..=199 => 1,
            _ => {
                if d == other {
                    other.wrapping_add(1)
                } else {
                    other
                }
            }
        })
        .collect()
}

/// `n` shapes: mostly derived from a common base, sometimes fully independent.
fn shapes_from(
    dim: impl Strategy<Value = usize> + Clone + 'static,
    max_rank: usize,
    n: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = Vec<Vec<usize>>> {
    let derived = (
        vec(dim.clone(), 0..=max_rank),
        vec((edit(), dim.clone()), n.clone()),
    )
        .prop_map(|(base, edits)| {
            edits
                .iter()
                .map(|(e, other)| derive(&base, e, *other))
                .collect::<Vec<_>>()
        });
    let independent = vec(vec(dim, 0..=max_rank), n);
    prop_oneof![9 => derived, 1 => independent]
}

fn small_shapes(n: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Vec<Vec<usize>>> {
    shapes_from(small_dim(), 6, n)
}

fn pair() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    small_shapes(2..=2).prop_map(|mut v| {
        let b = v.pop().unwrap();
        let a = v.pop().unwrap();
        (a, b)
    })
}

fn triple() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, Vec<usize>)> {
    small_shapes(3..=3).prop_map(|mut v| {
        let c = v.pop().unwrap();
        let b = v.pop().unwrap();
        let a = v.pop().unwrap();
        (a, b, c)
    })
}

/// Broadcasting with the error collapsed, for comparing results that need not agree on which
/// conflict they report.
fn bc(shapes: &[&[usize]]) -> Option<Shape> {
    broadcast_shapes(shapes).ok()
}

// ---------------------------------------------------------------------------------------------
// Properties.
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn matches_reference(shapes in small_shapes(0..=5)) {
        ours_vs_reference(&shapes)?;
    }

    #[test]
    fn commutative((a, b) in pair()) {
        prop_assert_eq!(bc(&[&a, &b]), bc(&[&b, &a]));
    }

    #[test]
    fn associative((a, b, c) in triple()) {
        let left = bc(&[&a, &b]).and_then(|ab| bc(&[&ab, &c]));
        let right = bc(&[&b, &c]).and_then(|bc_| bc(&[&a, &bc_]));
        prop_assert_eq!(&left, &right);
        prop_assert_eq!(left, bc(&[&a, &b, &c]));
    }

    #[test]
    fn n_ary_equals_pairwise_fold(shapes in small_shapes(0..=6)) {
        let fold = shapes
            .iter()
            .try_fold(Shape::scalar(), |acc, s| bc(&[&acc, s]));
        prop_assert_eq!(broadcast_shapes(&shapes).ok(), fold);
    }

    #[test]
    fn into_equals_owned(shapes in small_shapes(0..=5), spare in 0usize..3) {
        const SENTINEL: usize = usize::MAX - 7;
        let rank = shapes.iter().map(Vec::len).max().unwrap_or(0);
        let mut buf = vec![SENTINEL; rank + spare];
        let into = broadcast_shapes_into(&shapes, &mut buf);
        match (into, broadcast_shapes(&shapes)) {
            (Ok(r), Ok(owned)) => {
                prop_assert_eq!(r, rank);
                prop_assert_eq!(&buf[..r], owned.dims());
                prop_assert!(buf[r..].iter().all(|&d| d == SENTINEL), "wrote past rank: {:?}", buf);
            }
            (Err(a), Err(b)) => prop_assert_eq!(a, b),
            (a, b) => prop_assert!(false, "into {:?}, owned {:?}", a, b),
        }
        // A buffer one too short is always `OutputTooSmall`, whether or not the shapes agree.
        if rank > 0 {
            let mut short = vec![SENTINEL; rank - 1];
            let err = broadcast_shapes_into(&shapes, &mut short).unwrap_err();
            let too_small = matches!(
                err.kind(),
                BroadcastErrorKind::OutputTooSmall { rank: r, capacity: c } if *r == rank && *c == rank - 1
            );
            prop_assert!(too_small, "{:?}", err);
        }
    }

    #[test]
    fn inputs_broadcast_to_the_result((a, b) in pair()) {
        if let Some(out) = bc(&[&a, &b]) {
            prop_assert!(broadcast_to(&a, &out).is_ok());
            prop_assert!(broadcast_to(&b, &out).is_ok());
            // And broadcasting to a shape is broadcasting with it when the result is that shape.
            prop_assert_eq!(broadcast_to(&a, &b).is_ok(), out == b);
        }
    }

    #[test]
    fn broadcast_to_is_one_way_broadcasting((from, to) in pair()) {
        let expected = from.len() <= to.len()
            && bc(&[&from, &to]).is_some_and(|out| out == to);
        prop_assert_eq!(broadcast_to(&from, &to).is_ok(), expected);
    }

    #[test]
    fn are_broadcastable_agrees((a, b) in pair()) {
        prop_assert_eq!(are_broadcastable(&a, &b).is_ok(), broadcast_shapes(&[&a, &b]).is_ok());
        prop_assert_eq!(are_broadcastable(&a, &b).is_ok(), are_broadcastable(&b, &a).is_ok());
    }

    #[test]
    fn predict_agrees_on_i64((a, b) in pair()) {
        let i = |s: &[usize]| s.iter().map(|&d| i64::try_from(d).unwrap()).collect::<Vec<_>>();
        prop_assert_eq!(
            predict_broadcast_shape(&i(&a), &i(&b)).ok(),
            bc(&[&a, &b])
        );
    }

    #[test]
    fn refine_keeps_the_broadcast((a, b) in pair()) {
        match (refine_shapes_for_broadcast(&a, &b), bc(&[&a, &b])) {
            (Ok((ra, rb)), Some(out)) => {
                prop_assert_eq!(ra.rank(), rb.rank());
                prop_assert!(ra.rank() >= 1);
                prop_assert!(ra.rank() <= a.len().max(b.len()).max(1));
                let refined_out = bc(&[&ra, &rb]);
                prop_assert!(refined_out.is_some(), "refined ({}, {}) do not broadcast", ra, rb);
                prop_assert_eq!(numel(&refined_out.unwrap()), numel(&out));
                prop_assert_eq!(numel(&ra), numel(&a));
                prop_assert_eq!(numel(&rb), numel(&b));
                // No axis is (1, 1) unless it is the only one.
                if ra.rank() > 1 {
                    prop_assert!(ra.iter().zip(rb.iter()).all(|(&x, &y)| x != 1 || y != 1));
                }
            }
            (Err(_), None) => {}
            (r, out) => prop_assert!(false, "refine {:?} but broadcast {:?}", r, out),
        }
    }

    #[test]
    fn named_broadcast_agrees_on_every_name(
        a in proptest::collection::btree_map(0u8..6, small_dim(), 0..=4),
        b in proptest::collection::btree_map(0u8..6, small_dim(), 0..=4),
        stretch in any::<bool>(),
    ) {
        let named = |m: &BTreeMap<u8, usize>| {
            NamedShape::new(m.iter().map(|(&k, &v)| (format!("d{k}"), v))).unwrap()
        };
        let (na, nb) = (named(&a), named(&b));
        let strategy = if stretch { NamedStrategy::StretchOnes } else { NamedStrategy::MissingDimensions };
        let conflict = a.iter().any(|(k, &x)| {
            b.get(k).is_some_and(|&y| x != y && !(stretch && (x == 1 || y == 1)))
        });
        match broadcast_named(&na, &nb, strategy) {
            Err(_) => prop_assert!(conflict),
            Ok((a2, b2)) => {
                prop_assert!(!conflict);
                let union: std::collections::BTreeSet<u8> = a.keys().chain(b.keys()).copied().collect();
                prop_assert_eq!(a2.len(), union.len());
                prop_assert_eq!(b2.len(), union.len());
                for (name, size) in a2.iter() {
                    prop_assert_eq!(b2.get(name), Some(size));
                }
                // Each side keeps its own names first, in order.
                prop_assert!(a2.names().zip(na.names()).all(|(x, y)| x == y));
                prop_assert!(b2.names().zip(nb.names()).all(|(x, y)| x == y));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Extremes: huge dims and ranks up to 64 must never panic, and must still be right.
// ---------------------------------------------------------------------------------------------

fn huge_dim() -> impl Strategy<Value = usize> + Clone {
    prop_oneof![
        2 => Just(0usize),
        3 => Just(1usize),
        2 => Just(usize::MAX),
        1 => Just(usize::MAX - 1),
        1 => Just(1usize << 63),
        1 => Just(i64::MAX as usize),
        1 => Just(i64::MAX as usize + 1),
        2 => any::<usize>(),
        2 => 2usize..=4,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn extremes_do_not_panic(shapes in shapes_from(huge_dim(), 64, 0..=5), cap in 0usize..=70) {
        ours_vs_reference(&shapes)?;
        let owned = broadcast_shapes(&shapes);
        let mut buf = vec![0usize; cap];
        let into = broadcast_shapes_into(&shapes, &mut buf);
        let rank = shapes.iter().map(Vec::len).max().unwrap_or(0);
        if cap >= rank {
            prop_assert_eq!(into.map(|r| buf[..r].to_vec()), owned.clone().map(|s| s.to_vec()));
        } else {
            prop_assert!(into.is_err());
        }
        match &owned {
            Ok(out) => {
                let _ = out.to_string();
                let _ = numel(out);
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
        if let [a, b, ..] = shapes.as_slice() {
            let ab = bc(&[a, b]);
            prop_assert_eq!(are_broadcastable(a, b).is_ok(), ab.is_some());
            if let Err(e) = broadcast_to(a, b) {
                let _ = e.to_string();
            }
            match refine_shapes_for_broadcast(a, b) {
                Ok((ra, rb)) => {
                    let out = ab.as_ref().expect("refine succeeded, so the pair broadcasts");
                    let refined_out = bc(&[&ra, &rb]).expect("refined shapes broadcast");
                    // Fusions that would overflow are skipped, so counts agree even here.
                    prop_assert_eq!(numel(&refined_out), numel(out));
                }
                Err(e) => {
                    prop_assert!(ab.is_none());
                    let _ = e.to_string();
                }
            }
            // The same dims as i64, wrapped so that some are negative or too large.
            let i = |s: &[usize]| s.iter().map(|&d| d as i64).collect::<Vec<_>>();
            let (ia, ib) = (i(a), i(b));
            match predict_broadcast_shape(&ia, &ib) {
                Ok(p) => prop_assert_eq!(Some(p), ab),
                Err(e) => {
                    let negative = ia.iter().chain(&ib).any(|&d| d < 0);
                    prop_assert!(negative || ab.is_none(), "{}", e);
                    let _ = e.to_string();
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The generator itself.
// ---------------------------------------------------------------------------------------------

/// Guards the strategy: if it stopped producing compatible inputs (or incompatible ones), the
/// properties above would quietly test only one path.
#[test]
fn derived_inputs_cover_both_outcomes() {
    let mut runner = TestRunner::deterministic();
    let strategy = small_shapes(2..=4);
    let n = 2000;
    let mut ok = 0;
    let mut nontrivial_ok = 0;
    for _ in 0..n {
        let shapes = strategy.new_tree(&mut runner).unwrap().current();
        if let Ok(out) = broadcast_shapes(&shapes) {
            ok += 1;
            if out.rank() >= 2 && out.iter().any(|&d| d > 1) {
                nontrivial_ok += 1;
            }
        }
    }
    assert!(
        (n / 4..=n * 3 / 4).contains(&ok),
        "{ok} of {n} generated cases broadcast; want a mix"
    );
    assert!(
        nontrivial_ok >= n / 5,
        "only {nontrivial_ok} of {n} successes have rank >= 2 and a dim > 1"
    );
}
