//! TBE's `refine_shapes_for_broadcast`: the fewest axes a broadcasting kernel needs to loop over.

use super::error::BroadcastError;
use super::numpy::are_broadcastable;
use crate::shape::Shape;

/// What one aligned axis does in a two-operand broadcast.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Both sizes are equal (and not both 1): no broadcasting on this axis.
    Equal,
    /// The left size is 1 and stretches to the right's.
    LhsStretches,
    /// The right size is 1 and stretches to the left's.
    RhsStretches,
}

/// Simplifies a pair of shapes for a broadcasting kernel, as Ascend TBE's
/// `refine_shapes_for_broadcast` does: pad the shorter shape with leading 1s, drop every axis
/// where both sizes are 1, then fuse each run of adjacent axes of the same kind (equal with
/// equal, or broadcast with the 1 on the same side) into one axis whose size is the product.
///
/// The refined pair describes the same element-wise loop with fewer, longer axes: it broadcasts
/// to a shape with the same element count as the original pair's broadcast.
///
/// Unlike TBE, incompatible input is an error (the same [`BroadcastError`] as
/// [`broadcast_shapes`](crate::broadcast_shapes)). When every axis is `1` on both sides, and
/// when both shapes are scalars `()`, the result is `((1,), (1,))`: one axis of size 1, so a
/// kernel always has an axis to loop over. A `1` against a `0` counts as broadcasting (the 1
/// stretches to 0). A fusion whose product would overflow `usize` is skipped, so the axes stay
/// apart rather than wrap.
///
/// ```
/// use shapes::broadcast::refine_shapes_for_broadcast;
///
/// let (a, b) = refine_shapes_for_broadcast(&[1, 2, 3, 4, 1, 5, 6, 7], &[2, 1, 1, 2, 1, 6, 7]).unwrap();
/// assert_eq!(a, [2, 12, 1, 5, 42]);
/// assert_eq!(b, [2, 1, 2, 1, 42]);
///
/// let (a, b) = refine_shapes_for_broadcast(&[], &[]).unwrap();
/// assert_eq!((a, b), ([1].into(), [1].into()));
/// assert!(refine_shapes_for_broadcast(&[2], &[3]).is_err());
/// ```
pub fn refine_shapes_for_broadcast(
    a: &[usize],
    b: &[usize],
) -> Result<(Shape, Shape), BroadcastError> {
    are_broadcastable(a, b)?;
    let rank = a.len().max(b.len());
    let padded = |s: &[usize], axis: usize| {
        let pad = rank - s.len();
        // ok: `pad <= axis < rank`, so `axis - pad < rank - pad == s.len()`.
        if axis < pad { 1 } else { s[axis - pad] }
    };
    let mut out_a = Shape::scalar();
    let mut out_b = Shape::scalar();
    let mut last: Option<Kind> = None;
    for axis in 0..rank {
        let (x, y) = (padded(a, axis), padded(b, axis));
        let kind = match (x, y) {
            (1, 1) => continue,
            _ if x == y => Kind::Equal,
            (1, _) => Kind::LhsStretches,
            // `are_broadcastable` succeeded, so the only case left is `y == 1`.
            _ => Kind::RhsStretches,
        };
        let fused = match (last == Some(kind), out_a.last_mut(), out_b.last_mut()) {
            (true, Some(pa), Some(pb)) => match (pa.checked_mul(x), pb.checked_mul(y)) {
                (Some(fa), Some(fb)) => {
                    *pa = fa;
                    *pb = fb;
                    true
                }
                _ => false,
            },
            _ => false,
        };
        if !fused {
            out_a.push(x);
            out_b.push(y);
        }
        last = Some(kind);
    }
    if out_a.is_empty() {
        out_a.push(1);
        out_b.push(1);
    }
    Ok((out_a, out_b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflowing_fusion_keeps_axes_apart() {
        let m = usize::MAX;
        let (a, b) = refine_shapes_for_broadcast(&[m, 2], &[m, 2]).unwrap();
        assert_eq!(a, [m, 2]);
        assert_eq!(b, [m, 2]);
    }

    #[test]
    fn scalar_against_matrix() {
        let (a, b) = refine_shapes_for_broadcast(&[], &[2, 3]).unwrap();
        assert_eq!((a, b), (Shape::from([1]), Shape::from([6])));
    }
}
