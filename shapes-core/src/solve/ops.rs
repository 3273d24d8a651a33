//! Shape operations on concrete shapes, with numpy's semantics: what the solver computes when
//! an operation's operand is known, also usable directly.
//!
//! These are gorgonia's `Shape` methods (`S`, `T`, `Repeat`, `Concat`, `Eq`, `IsVector`, …)
//! as free functions over `&[usize]`, with gorgonia's bugs fixed (numpy is the reference):
//! stepped slices round up, a slice past the end is empty rather than an error, a reduction
//! axis out of range is an error rather than a panic, an identity permutation is not an
//! error. For a dim by index (negative from the end) use [`Shape::dim`](crate::Shape::dim).

use super::error::{InferError, InferErrorKind, bad_op, err};
use crate::expr::{Axis, SliceSpec};
use crate::shape::Shape;

/// The length of axis `axis` (of size `size`) after `spec`, with numpy's rules; `None` when
/// an integer index drops the axis.
pub(crate) fn slice_axis(
    size: usize,
    spec: SliceSpec,
    axis: usize,
) -> Result<Option<usize>, InferError> {
    let Ok(len) = isize::try_from(size) else {
        return bad_op(
            "slice",
            format!("axis {axis} has size {size}, too large to index"),
        );
    };
    match spec {
        SliceSpec::Index(i) => {
            let j = if i < 0 { i + len } else { i };
            if j < 0 || j >= len {
                return bad_op(
                    "index",
                    format!("index {i} is out of bounds for axis {axis} with size {size}"),
                );
            }
            Ok(None)
        }
        SliceSpec::Range { start, end, step } => {
            let step = step.unwrap_or(1);
            if step == 0 {
                return bad_op("slice", "slice step cannot be zero".to_string());
            }
            // Python's slice.indices(len).
            let (lower, upper) = if step > 0 { (0, len) } else { (-1, len - 1) };
            let clamp = |v: Option<isize>, default: isize| match v {
                None => default,
                Some(v) if v < 0 => (v + len).max(lower),
                Some(v) => v.min(upper),
            };
            let (s, e) = if step > 0 {
                (clamp(start, lower), clamp(end, upper))
            } else {
                (clamp(start, upper), clamp(end, lower))
            };
            // Every bound is clamped to `-1..=len`, and `s`, `e` lie on the same side of it
            // (`0..=len` going up, `-1..len` going down), so the span cannot overflow. The step
            // is taken by magnitude: `-step` overflows for `isize::MIN`.
            let span = if step > 0 { e - s } else { s - e };
            let n = if span > 0 {
                (span.unsigned_abs() - 1) / step.unsigned_abs() + 1
            } else {
                0
            };
            Ok(Some(n))
        }
    }
}

/// numpy basic indexing: the shape of `x[specs]` for an array `x` of shape `shape`. An
/// integer index drops its axis; a range keeps it with numpy's length (clamped to the axis,
/// rounded up for a step, empty when it starts past the end); missing trailing specs keep
/// their axes.
///
/// ```
/// use shapes::{Shape, solve::ops, expr::SliceSpec};
/// let r = |start, end, step| SliceSpec::Range { start, end, step };
/// assert_eq!(ops::slice(&[5], &[r(Some(0), Some(5), Some(2))]).unwrap(), Shape::from([3]));
/// assert_eq!(ops::slice(&[5, 3, 4], &[r(Some(0), Some(2), None), SliceSpec::Index(1)]).unwrap(),
///            Shape::from([2, 4]));
/// assert_eq!(ops::slice(&[5], &[r(Some(-2), None, None)]).unwrap(), Shape::from([2]));
/// assert!(ops::slice(&[2], &[SliceSpec::Index(3)]).is_err());
/// assert!(ops::slice(&[2], &[SliceSpec::Index(0), SliceSpec::Index(0)]).is_err());
/// ```
pub fn slice(shape: &[usize], specs: &[SliceSpec]) -> Result<Shape, InferError> {
    if specs.len() > shape.len() {
        return bad_op(
            "slice",
            format!(
                "too many indices: {} for a shape of rank {}",
                specs.len(),
                shape.len()
            ),
        );
    }
    let mut out = Shape::scalar();
    for (axis, &size) in shape.iter().enumerate() {
        match specs.get(axis) {
            None => out.push(size),
            Some(&spec) => {
                if let Some(n) = slice_axis(size, spec, axis)? {
                    out.push(n)
                }
            }
        }
    }
    Ok(out)
}

/// Checks that `axes` is a permutation of `0..rank`.
pub(crate) fn check_permutation(axes: &[usize], rank: usize) -> Result<(), InferError> {
    if axes.len() != rank {
        return bad_op(
            "transpose",
            format!(
                "{} axes given for a shape of rank {rank}; a permutation needs exactly {rank}",
                axes.len()
            ),
        );
    }
    let mut seen = [false; 64];
    let mut seen_vec;
    let seen: &mut [bool] = if rank <= 64 {
        &mut seen[..rank] // ok: `rank <= 64` is the branch condition.
    } else {
        seen_vec = vec![false; rank];
        &mut seen_vec
    };
    for &a in axes {
        if a >= rank {
            return err(InferErrorKind::AxisOutOfRange {
                op: "transpose",
                axis: a.try_into().unwrap_or(isize::MAX),
                rank,
            });
        }
        // ok: `a < rank == seen.len()`, checked just above.
        if std::mem::replace(&mut seen[a], true) {
            return bad_op(
                "transpose",
                format!("axis {a} is repeated in the permutation"),
            );
        }
    }
    Ok(())
}

/// Permutes `items` by `axes`: `out[i] = items[axes[i]]` (numpy's `transpose`), for any
/// element type (gorgonia's `UnsafePermute` / `genericUnsafePermute`). The identity
/// permutation is not an error.
///
/// ```
/// use shapes::solve::ops;
/// assert_eq!(ops::permute(&[2, 1, 3, 4, 0], &[1, 2, 3, 4, 5]).unwrap(), [3, 2, 4, 5, 1]);
/// assert_eq!(ops::permute(&[1, 0], &["a", "world"]).unwrap(), ["world", "a"]);
/// assert!(ops::permute(&[1, 1], &[3, 2]).is_err());
/// ```
pub fn permute<T: Clone>(axes: &[usize], items: &[T]) -> Result<Vec<T>, InferError> {
    check_permutation(axes, items.len())?;
    // ok: `check_permutation` proved every axis `< items.len()`.
    Ok(axes.iter().map(|&a| items[a].clone()).collect())
}

/// The shape of numpy's `x.transpose(axes)`.
///
/// ```
/// use shapes::{Shape, solve::ops};
/// assert_eq!(ops::transpose(&[2, 3, 4], &[2, 0, 1]).unwrap(), Shape::from([4, 2, 3]));
/// assert!(ops::transpose(&[2, 3], &[0, 0]).is_err());
/// ```
pub fn transpose(shape: &[usize], axes: &[usize]) -> Result<Shape, InferError> {
    check_permutation(axes, shape.len())?;
    // ok: `check_permutation` proved every axis `< shape.len()`.
    Ok(axes.iter().map(|&a| shape[a]).collect())
}

/// The shape after reducing (summing, taking the max, …) along one axis, which is removed,
/// or along every axis, which gives a scalar.
///
/// ```
/// use shapes::{Shape, solve::ops, expr::Axis};
/// assert_eq!(ops::reduce(&[2, 3], Axis::One(1)).unwrap(), Shape::from([2]));
/// assert_eq!(ops::reduce(&[2, 3], Axis::All).unwrap(), Shape::scalar());
/// assert!(ops::reduce(&[2, 3, 4], Axis::One(3)).is_err());
/// ```
pub fn reduce(shape: &[usize], axis: Axis) -> Result<Shape, InferError> {
    match axis {
        Axis::All => Ok(Shape::scalar()),
        Axis::One(a) => {
            check_axis("reduce", a, shape.len())?;
            Ok(shape
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != a)
                .map(|(_, &d)| d)
                .collect())
        }
    }
}

pub(crate) fn check_axis(op: &'static str, axis: usize, rank: usize) -> Result<(), InferError> {
    if axis >= rank {
        return err(InferErrorKind::AxisOutOfRange {
            op,
            axis: axis.try_into().unwrap_or(isize::MAX),
            rank,
        });
    }
    Ok(())
}

/// The most repeat counts [`repeat`] writes out: 2²⁴ (128 MiB of `usize` on a 64-bit
/// target). One count given for an axis longer than this is an error naming the limit,
/// rather than an allocation sized by a dim. The shape alone is never limited: the solver
/// ([`infer_app`](crate::solve::infer_app) on `Repeat⁰{[2]} a`) computes it without writing the
/// counts out.
pub const MAX_REPEAT_COUNTS: usize = 1 << 24;

/// numpy's `repeat`: the new shape and the repeat count of each element along the axis.
///
/// One count is broadcast over the axis; otherwise there must be one count per element. With
/// [`Axis::All`] the array is flattened first (numpy's `axis=None`).
///
/// The counts are returned one per element, so one count for an axis of more than
/// [`MAX_REPEAT_COUNTS`] elements is an error (and so is a failed allocation); an overflowing
/// result is an error too.
///
/// ```
/// use shapes::{Shape, solve::ops, expr::Axis};
/// assert_eq!(ops::repeat(&[2, 3], Axis::One(0), &[3]).unwrap(), (Shape::from([6, 3]), vec![3, 3]));
/// assert_eq!(ops::repeat(&[2, 3, 2], Axis::One(1), &[1, 2, 1]).unwrap().0, Shape::from([2, 4, 2]));
/// assert_eq!(ops::repeat(&[2, 3, 2], Axis::All, &[2]).unwrap().0, Shape::from([24]));
/// assert!(ops::repeat(&[2, 3], Axis::One(1), &[1, 2]).is_err());
/// assert!(ops::repeat(&[2, 1], Axis::One(2), &[3]).is_err());
/// let err = ops::repeat(&[1 << 20, 1 << 20], Axis::All, &[1]).unwrap_err();
/// assert!(err.to_string().contains("limit of 16777216"), "{err}");
/// ```
pub fn repeat(
    shape: &[usize],
    axis: Axis,
    repeats: &[usize],
) -> Result<(Shape, Vec<usize>), InferError> {
    let (out, size) = repeat_shape(shape, axis, repeats)?;
    let finals = match repeats {
        [r] => {
            if size > MAX_REPEAT_COUNTS {
                return bad_op(
                    "repeat",
                    format!(
                        "one count per element for {size} elements is past the limit of \
                         {MAX_REPEAT_COUNTS} counts written out (ops::MAX_REPEAT_COUNTS)"
                    ),
                );
            }
            let mut finals = Vec::new();
            if finals.try_reserve_exact(size).is_err() {
                return bad_op(
                    "repeat",
                    format!("no memory to write out {size} repeat counts"),
                );
            }
            finals.resize(size, *r);
            finals
        }
        rs => rs.to_vec(),
    };
    Ok((out, finals))
}

/// The shape of numpy's `repeat` and the length of the repeated axis (before repeating),
/// without writing out a count per element: nothing here is sized by a dim. The errors are
/// [`repeat`]'s, in the same order.
pub(crate) fn repeat_shape(
    shape: &[usize],
    axis: Axis,
    repeats: &[usize],
) -> Result<(Shape, usize), InferError> {
    let (size, mut out) = match axis {
        Axis::All => {
            let Some(n) = crate::shape::numel(shape) else {
                return bad_op(
                    "repeat",
                    format!(
                        "the element count of {} overflows usize",
                        crate::shape::DisplayDims(shape)
                    ),
                );
            };
            (n, Shape::from([n]))
        }
        Axis::One(a) => {
            check_axis("repeat", a, shape.len())?;
            (shape[a], Shape::from(shape)) // ok: `a < shape.len()`, checked just above.
        }
    };
    let total = match repeats {
        // `size` copies of `r` add up to `size × r`, which overflows exactly when the sum does.
        [r] => size.checked_mul(*r),
        rs if rs.len() == size => rs.iter().try_fold(0usize, |acc, &r| acc.checked_add(r)),
        rs => {
            return bad_op(
                "repeat",
                format!(
                    "{} repeat counts for an axis of size {size}: give one count, or one per element",
                    rs.len()
                ),
            );
        }
    };
    let Some(total) = total else {
        return bad_op("repeat", "the repeated size overflows usize".to_string());
    };
    let at = match axis {
        Axis::All => 0,
        Axis::One(a) => a,
    };
    // ok: `out` is `[n]` for `Axis::All` (`at == 0`), or `shape` with `a < shape.len()`.
    out[at] = total;
    Ok((out, size))
}

/// numpy's `concatenate` of shapes along an axis: the ranks must agree, and every dim except
/// the axis. With [`Axis::All`] each is flattened first (numpy's `axis=None`).
///
/// ```
/// use shapes::{Shape, solve::ops, expr::Axis};
/// assert_eq!(ops::concat(Axis::One(0), &[&[2, 2], &[2, 2], &[2, 2]]).unwrap(), Shape::from([6, 2]));
/// assert_eq!(ops::concat(Axis::One(1), &[&[2, 3], &[2, 5]]).unwrap(), Shape::from([2, 8]));
/// assert!(ops::concat(Axis::One(0), &[&[2, 2], &[2, 3]]).is_err());
/// ```
pub fn concat(axis: Axis, shapes: &[&[usize]]) -> Result<Shape, InferError> {
    let Some((first, rest)) = shapes.split_first() else {
        return bad_op("concat", "nothing to concatenate".to_string());
    };
    let Axis::One(axis) = axis else {
        let mut total = 0usize;
        for s in shapes {
            total = crate::shape::numel(s)
                .and_then(|n| total.checked_add(n))
                .ok_or_else(|| overflow_err("concat"))?;
        }
        return Ok(Shape::from([total]));
    };
    check_axis("concat", axis, first.len())?;
    let mut out = Shape::from(*first);
    for s in rest {
        if s.len() != first.len() {
            return bad_op(
                "concat",
                format!(
                    "{} and {} have different ranks",
                    crate::shape::DisplayDims(first),
                    crate::shape::DisplayDims(s)
                ),
            );
        }
        for (i, (&a, &b)) in first.iter().zip(s.iter()).enumerate() {
            if i != axis && a != b {
                return bad_op(
                    "concat",
                    format!(
                        "{} and {} differ on axis {i}, which is not the concatenation axis {axis}",
                        crate::shape::DisplayDims(first),
                        crate::shape::DisplayDims(s)
                    ),
                );
            }
        }
        // ok: `axis < first.len() == out.len() == s.len()` (`check_axis` and the rank check).
        out[axis] = out[axis]
            .checked_add(s[axis])
            .ok_or_else(|| overflow_err("concat"))?;
    }
    Ok(out)
}

fn overflow_err(op: &'static str) -> InferError {
    InferError::new(InferErrorKind::BadOperation {
        op,
        detail: "the result overflows usize".to_string(),
    })
}

/// gorgonia's soft `Shape.Eq`: equal, or both vectors with the same length once size-1 dims
/// of a rank-2 row or column vector are ignored (`(2,)` ≈ `(2, 1)` ≈ `(1, 2)`).
///
/// ```
/// use shapes::solve::ops::vector_eq;
/// assert!(vector_eq(&[2], &[2, 1]));
/// assert!(vector_eq(&[1, 2], &[2]));
/// assert!(!vector_eq(&[2, 1], &[1, 2]));
/// assert!(!vector_eq(&[], &[1]));
/// ```
pub fn vector_eq(a: &[usize], b: &[usize]) -> bool {
    if a == b {
        return true;
    }
    let squeeze = |s: &[usize]| -> Option<usize> {
        match *s {
            [n] => Some(n),
            [1, n] | [n, 1] => Some(n),
            _ => None,
        }
    };
    // Only a rank-1 shape matches a rank-2 vector; two rank-2 shapes must be equal.
    if a.len() == b.len() {
        return false;
    }
    matches!((squeeze(a), squeeze(b)), (Some(x), Some(y)) if x == y)
}

/// Rank 0.
///
/// ```
/// assert!(shapes::solve::ops::is_scalar(&[]));
/// assert!(!shapes::solve::ops::is_scalar(&[1]));
/// ```
pub fn is_scalar(s: &[usize]) -> bool {
    s.is_empty()
}

/// One element or none: rank 0, every dim 0, or a product of 1.
///
/// ```
/// use shapes::solve::ops::is_scalar_equiv;
/// assert!(is_scalar_equiv(&[1, 1, 1]));
/// assert!(is_scalar_equiv(&[0, 0, 0]));
/// assert!(!is_scalar_equiv(&[1, 2, 0, 3]));
/// ```
pub fn is_scalar_equiv(s: &[usize]) -> bool {
    s.is_empty() || s.iter().all(|&d| d == 0) || crate::shape::numel(s) == Some(1)
}

/// A column vector: rank 2, one column, more than one row.
///
/// ```
/// assert!(shapes::solve::ops::is_col_vec(&[2, 1]));
/// assert!(!shapes::solve::ops::is_col_vec(&[1, 1]));
/// ```
pub fn is_col_vec(s: &[usize]) -> bool {
    matches!(*s, [r, 1] if r > 1)
}

/// A row vector: rank 2, one row, more than one column.
///
/// ```
/// assert!(shapes::solve::ops::is_row_vec(&[1, 2]));
/// assert!(!shapes::solve::ops::is_row_vec(&[2, 1]));
/// ```
pub fn is_row_vec(s: &[usize]) -> bool {
    matches!(*s, [1, c] if c > 1)
}

/// Rank 1, or a row or column vector.
///
/// ```
/// assert!(shapes::solve::ops::is_vector(&[2]));
/// assert!(shapes::solve::ops::is_vector(&[1, 2]));
/// assert!(!shapes::solve::ops::is_vector(&[1, 1]));
/// ```
pub fn is_vector(s: &[usize]) -> bool {
    s.len() == 1 || is_col_vec(s) || is_row_vec(s)
}

/// At most one dim differs from 1 (and nothing is empty).
///
/// ```
/// assert!(shapes::solve::ops::is_vector_like(&[1, 5, 1]));
/// assert!(!shapes::solve::ops::is_vector_like(&[2, 2]));
/// assert!(!shapes::solve::ops::is_vector_like(&[0, 0]));
/// ```
pub fn is_vector_like(s: &[usize]) -> bool {
    s.iter().all(|&d| d != 0) && s.iter().filter(|&&d| d != 1).count() <= 1
}

/// Rank 2.
///
/// ```
/// assert!(shapes::solve::ops::is_matrix(&[2, 1]));
/// assert!(!shapes::solve::ops::is_matrix(&[2]));
/// ```
pub fn is_matrix(s: &[usize]) -> bool {
    s.len() == 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{Expr, parse};
    use crate::solve::infer_app;

    fn range(start: Option<isize>, end: Option<isize>, step: Option<isize>) -> SliceSpec {
        SliceSpec::Range { start, end, step }
    }

    /// Python's `len(range(*slice(start, end, step).indices(len)))`, in `i128` where nothing
    /// overflows.
    fn reference(len: usize, start: Option<isize>, end: Option<isize>, step: isize) -> usize {
        let (len, step) = (len as i128, step as i128);
        let (lower, upper) = if step > 0 { (0, len) } else { (-1, len - 1) };
        let clamp = |v: Option<isize>, default: i128| match v.map(|v| v as i128) {
            None => default,
            Some(v) if v < 0 => (v + len).max(lower),
            Some(v) => v.min(upper),
        };
        let (s, e) = if step > 0 {
            (clamp(start, lower), clamp(end, upper))
        } else {
            (clamp(start, upper), clamp(end, lower))
        };
        let n = if step > 0 {
            (e - s + step - 1).div_euclid(step)
        } else {
            (s - e - step - 1).div_euclid(-step)
        };
        n.max(0) as usize
    }

    /// Issue reproducer: `-step` overflowed for a step of `isize::MIN` (a panic with overflow
    /// checks on).
    #[test]
    fn slice_step_isize_min_is_not_negated() {
        let f = parse("a -> a[::-9223372036854775808]").unwrap();
        let out = infer_app(&f, &[parse("(1, 2)").unwrap()]).unwrap();
        assert_eq!(out.to_string(), "(1, 2)");
        let out = infer_app(&f, &[parse("(5, 2)").unwrap()]).unwrap();
        assert_eq!(out.to_string(), "(1, 2)");
        let out = infer_app(&f, &[parse("(0, 2)").unwrap()]).unwrap();
        assert_eq!(out.to_string(), "(0, 2)");
        assert_eq!(
            slice(&[2], &[range(None, None, Some(isize::MIN))]).unwrap(),
            [1]
        );
    }

    /// Every step computation at the ends of `isize`, against Python's rule computed in `i128`.
    #[test]
    fn slice_lengths_at_the_ends_of_isize() {
        let big = isize::MAX.unsigned_abs();
        let bounds = [
            None,
            Some(isize::MIN),
            Some(isize::MIN + 1),
            Some(-3),
            Some(-1),
            Some(0),
            Some(1),
            Some(3),
            Some(isize::MAX - 1),
            Some(isize::MAX),
        ];
        let steps = [isize::MIN, isize::MIN + 1, -3, -1, 1, 2, isize::MAX];
        for len in [0, 1, 2, 5, big - 1, big] {
            for start in bounds {
                for end in bounds {
                    for step in steps {
                        let got = slice_axis(len, range(start, end, Some(step)), 0).unwrap();
                        let want = reference(len, start, end, step);
                        assert_eq!(got, Some(want), "len {len} [{start:?}:{end:?}:{step}]");
                    }
                }
            }
        }
        // Past `isize::MAX` an axis cannot be indexed: an error, not a wrap.
        assert!(slice_axis(usize::MAX, range(None, None, Some(-1)), 0).is_err());
    }

    /// Issue reproducer: `Repeat` on a known shape wrote out one count per element, so a dim
    /// of 2⁴⁰ aborted allocating 8 TiB and `usize::MAX` panicked ("capacity overflow"). The
    /// solver computes the shape alone.
    #[test]
    fn repeat_in_the_solver_allocates_nothing_per_element() {
        let f = parse("a -> Repeat⁰{[2]} a").unwrap();
        let out = infer_app(&f, &[Expr::shape(&[1 << 40])]).unwrap();
        assert_eq!(out, Expr::shape(&[1 << 41]));
        let err = infer_app(&f, &[Expr::shape(&[usize::MAX])]).unwrap_err();
        assert!(
            err.to_string()
                .ends_with("the repeated size overflows usize"),
            "{err}"
        );
        let all = parse("a -> Repeat⁼{[3]} a").unwrap();
        let out = infer_app(&all, &[Expr::shape(&[1 << 20, 1 << 20])]).unwrap();
        assert_eq!(out, Expr::shape(&[3 << 40]));
        let out = parse("Repeat^0{[0]} (18446744073709551615, 2)")
            .unwrap()
            .eval()
            .unwrap();
        assert_eq!(out, Expr::shape(&[0, 2]));
    }

    /// Issue reproducer: `ops::repeat` returns the counts one per element, so one count over a
    /// huge axis is an error naming the limit rather than a huge allocation.
    #[test]
    fn repeat_counts_past_the_limit_are_an_error() {
        let err = repeat(&[1 << 20, 1 << 20], Axis::All, &[1]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "repeat: one count per element for 1099511627776 elements is past the limit of \
             16777216 counts written out (ops::MAX_REPEAT_COUNTS)"
        );
        assert!(repeat(&[1 << 40], Axis::One(0), &[2]).is_err());
        assert!(repeat(&[MAX_REPEAT_COUNTS + 1], Axis::One(0), &[2]).is_err());
        // The shape is checked first, with the errors it always had.
        let err = repeat(&[usize::MAX], Axis::One(0), &[2]).unwrap_err();
        assert_eq!(err.to_string(), "repeat: the repeated size overflows usize");
        let err = repeat(&[usize::MAX, 2], Axis::All, &[1]).unwrap_err();
        assert!(err.to_string().contains("element count"), "{err}");
        let err = repeat(&[3], Axis::One(0), &[1, 2]).unwrap_err();
        assert!(err.to_string().contains("2 repeat counts"), "{err}");
        // Below the limit, the counts as before.
        let (shape, counts) = repeat(&[2, 1024], Axis::One(1), &[3]).unwrap();
        assert_eq!(shape, Shape::from([2, 3072]));
        assert_eq!(counts, vec![3; 1024]);
        assert_eq!(
            repeat(&[0], Axis::One(0), &[]).unwrap(),
            (Shape::from([0]), vec![])
        );
        // The shape alone is not limited.
        let (shape, size) = repeat_shape(&[usize::MAX], Axis::One(0), &[0]).unwrap();
        assert_eq!((shape, size), (Shape::from([0]), usize::MAX));
        assert!(repeat(&[usize::MAX], Axis::One(0), &[0]).is_err());
    }
}
