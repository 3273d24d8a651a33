//! numpy's broadcasting rules: N-ary, into a caller's buffer, on `i64` shapes, and one-way.

use super::error::{BroadcastError, BroadcastErrorKind, incompatible};
use crate::shape::{INLINE_RANK, Shape};

/// Broadcasts any number of shapes with numpy's rules and returns the result.
///
/// Shapes are aligned on the right; a missing leading dim counts as 1; at each axis the sizes
/// must be equal or 1, and the result takes the size that is not 1 (so a 0 pairs only with 0 or
/// 1 and gives 0). No input gives the scalar shape `()`. Agrees with `numpy.broadcast_shapes`
/// on numpy's and stdlib-js's whole test suites (`tests/broadcast_conformance.rs`).
///
/// The result lives inline for rank ≤ [`INLINE_RANK`], so this allocates nothing on success.
///
/// ```
/// use shapes::broadcast_shapes;
///
/// assert_eq!(broadcast_shapes(&[[6, 7].as_slice(), &[5, 6, 1], &[7], &[5, 1, 7]]).unwrap(), [5, 6, 7]);
/// assert_eq!(broadcast_shapes::<&[usize]>(&[]).unwrap(), []);
/// assert!(broadcast_shapes(&[[3], [4]]).is_err());
/// ```
#[inline]
pub fn broadcast_shapes<S: AsRef<[usize]>>(shapes: &[S]) -> Result<Shape, BroadcastError> {
    let rank = max_rank(shapes);
    if rank <= INLINE_RANK {
        let mut buf = [0usize; INLINE_RANK];
        // ok: `rank <= INLINE_RANK` is the branch condition.
        fill(shapes, &mut buf[..rank])?;
        Ok(Shape::from_inline(buf, rank))
    } else {
        let mut buf = vec![0usize; rank];
        fill(shapes, &mut buf)?;
        Ok(Shape::from(buf))
    }
}

/// [`broadcast_shapes`] without any allocation: writes the result into `out[..rank]` and
/// returns `rank` (stdlib-js's C API). `out` may be longer than needed; the rest is untouched.
///
/// A buffer shorter than the result's rank is [`BroadcastErrorKind::OutputTooSmall`], never a panic.
///
/// ```
/// use shapes::broadcast::broadcast_shapes_into;
///
/// let mut out = [0usize; 8];
/// let rank = broadcast_shapes_into(&[[8, 1, 6, 1].as_slice(), &[7, 1, 5]], &mut out).unwrap();
/// assert_eq!(&out[..rank], &[8, 7, 6, 5]);
///
/// let mut tiny = [0usize; 1];
/// assert!(broadcast_shapes_into(&[[2, 3]], &mut tiny).is_err());
/// ```
pub fn broadcast_shapes_into<S: AsRef<[usize]>>(
    shapes: &[S],
    out: &mut [usize],
) -> Result<usize, BroadcastError> {
    let rank = max_rank(shapes);
    let capacity = out.len();
    let Some(out) = out.get_mut(..rank) else {
        return Err(BroadcastErrorKind::OutputTooSmall { rank, capacity }.into());
    };
    fill(shapes, out)?;
    Ok(rank)
}

fn max_rank<S: AsRef<[usize]>>(shapes: &[S]) -> usize {
    shapes.iter().map(|s| s.as_ref().len()).max().unwrap_or(0)
}

/// The one broadcasting loop: writes all of `out`, whose length is `max_rank(shapes)`, one
/// axis at a time from the right (what the obvious hand-written loop does: each result dim is
/// stored once, and nothing needs filling beforehand).
#[inline(always)]
fn fill<S: AsRef<[usize]>>(shapes: &[S], out: &mut [usize]) -> Result<(), BroadcastError> {
    let rank = out.len();
    for (i, o) in out.iter_mut().rev().enumerate() {
        let mut acc = 1;
        for s in shapes {
            let s = s.as_ref();
            if i < s.len() {
                let d = s[s.len() - 1 - i]; // ok: `i < s.len()`, so the index is in bounds.
                if d != acc {
                    if acc == 1 {
                        acc = d;
                    } else if d != 1 {
                        return Err(mismatch(shapes, rank));
                    }
                }
            }
        }
        *o = acc;
    }
    Ok(())
}

// The loop above only needs to know *that* a mismatch happened; finding where is the error
// path's business, so it re-walks the inputs instead of carrying indices in the hot loop.
#[cold]
#[inline(never)]
fn mismatch<S: AsRef<[usize]>>(shapes: &[S], rank: usize) -> BroadcastError {
    for axis in 0..rank {
        let mut seen = 1usize;
        for s in shapes {
            let s = s.as_ref();
            let Some(i) = (axis + s.len()).checked_sub(rank) else {
                continue;
            };
            let d = s[i]; // ok: `i = axis + s.len() - rank < s.len()` since `axis < rank`.
            if d != 1 {
                if seen != 1 && seen != d {
                    return incompatible(shapes, rank, axis);
                }
                seen = d;
            }
        }
    }
    incompatible(shapes, rank, 0)
}

/// Broadcasts two `i64` shapes (the signature of hpt's `predict_broadcast_shape`).
///
/// A negative dim is [`BroadcastErrorKind::NegativeDim`], naming the shape, the axis and the value.
///
/// ```
/// use shapes::broadcast::predict_broadcast_shape;
///
/// assert_eq!(predict_broadcast_shape(&[2, 1, 4], &[3, 1]).unwrap(), [2, 3, 4]);
/// let err = predict_broadcast_shape(&[2, -1], &[2, 1]).unwrap_err();
/// assert_eq!(err.to_string(), "shape (2, -1) (input 0) has a negative dim -1 at axis 1; dims must be >= 0");
/// ```
pub fn predict_broadcast_shape(a: &[i64], b: &[i64]) -> Result<Shape, BroadcastError> {
    let a = to_usize_dims(a, 0)?;
    let b = to_usize_dims(b, 1)?;
    broadcast_shapes(&[a, b])
}

fn to_usize_dims(dims: &[i64], input: usize) -> Result<Shape, BroadcastError> {
    dims.iter()
        .enumerate()
        .map(|(axis, &value)| {
            if value < 0 {
                return Err(BroadcastErrorKind::NegativeDim {
                    dims: dims.to_vec(),
                    input,
                    axis,
                    value,
                }
                .into());
            }
            usize::try_from(value)
                .map_err(|_| BroadcastErrorKind::DimTooLarge { input, axis, value }.into())
        })
        .collect()
}

/// Whether two shapes broadcast together under numpy's rules, at any ranks.
///
/// Like gorgonia's `AreBroadcastable`, but with numpy's rules: `(3,)` and `(3, 1)` broadcast
/// (to `(3, 3)`), and so do `(2, 3)` and `()`.
///
/// ```
/// use shapes::broadcast::are_broadcastable;
///
/// assert!(are_broadcastable(&[2, 3], &[]).is_ok());
/// assert!(are_broadcastable(&[3], &[3, 1]).is_ok());
/// assert!(are_broadcastable(&[2, 3], &[4, 3]).is_err());
/// ```
pub fn are_broadcastable(a: &[usize], b: &[usize]) -> Result<(), BroadcastError> {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let offset = long.len() - short.len();
    // ok: `offset <= long.len()`.
    for (i, (&x, &y)) in long[offset..].iter().zip(short).enumerate() {
        if x != y && x != 1 && y != 1 {
            return Err(incompatible(&[a, b], long.len(), offset + i));
        }
    }
    Ok(())
}

/// Whether `from` broadcasts to exactly `to` (numpy's one-directional `broadcast_to`).
///
/// `from` may gain leading dims, and its size-1 dims stretch; nothing else changes. So
/// `(3, 1)` goes to `(2, 3, 4)` but `(2, 3, 4)` does not go to `(3, 1)`, and `(1,)` goes to
/// `(0,)` but `(0,)` does not go to `(1,)`.
///
/// ```
/// use shapes::broadcast::broadcast_to;
///
/// assert!(broadcast_to(&[3, 1], &[2, 3, 4]).is_ok());
/// assert!(broadcast_to(&[1], &[0]).is_ok());
/// let err = broadcast_to(&[3], &[4]).unwrap_err();
/// assert_eq!(err.to_string(), "cannot broadcast (3,) to (4,): axis -1 has 3 vs 4 (axis 0 of the target; only a 1 stretches)");
/// assert!(broadcast_to(&[1, 1], &[1]).is_err());
/// ```
pub fn broadcast_to(from: &[usize], to: &[usize]) -> Result<(), BroadcastError> {
    let Some(offset) = to.len().checked_sub(from.len()) else {
        return Err(BroadcastErrorKind::RankTooLarge {
            from: Shape::new(from),
            to: Shape::new(to),
        }
        .into());
    };
    // ok: `offset = to.len() - from.len() <= to.len()` (checked subtraction above).
    for (i, (&f, &t)) in from.iter().zip(&to[offset..]).enumerate() {
        if f != t && f != 1 {
            return Err(BroadcastErrorKind::NotBroadcastableTo {
                from: Shape::new(from),
                to: Shape::new(to),
                axis_from_end: from.len() - i,
                axis: offset + i,
                from_dim: f,
                to_dim: t,
            }
            .into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_names_inputs_axis_and_sizes() {
        let err = broadcast_shapes(&[[1, 2].as_slice(), &[3, 1], &[3, 2], &[10, 5]]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot broadcast (3, 1) with (10, 5) (inputs 1 and 3 of 4): axis -2 has 3 vs 10 (axis 0 of the result)"
        );
    }

    #[test]
    fn rank_above_inline_storage() {
        let a = vec![1usize; 70];
        let mut b = vec![1usize; 65];
        b[0] = 7;
        let r = broadcast_shapes(&[a, b]).unwrap();
        assert_eq!(r.rank(), 70);
        assert_eq!(r[5], 7);
    }

    #[test]
    fn extreme_dims_do_not_panic() {
        let m = usize::MAX;
        assert_eq!(broadcast_shapes(&[[m, 1], [1, m]]).unwrap(), [m, m]);
        assert!(broadcast_shapes(&[[m], [m - 1]]).is_err());
        assert!(predict_broadcast_shape(&[i64::MIN], &[i64::MAX]).is_err());
    }
}
