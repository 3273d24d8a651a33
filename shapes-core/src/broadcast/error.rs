//! [`BroadcastError`]: why shapes do not broadcast, with the axis and the sizes.

use core::fmt;

use crate::shape::Shape;

/// Why a broadcast failed. Every variant names the shapes involved and, where there is one, the
/// axis, so the message can be acted on without re-running anything.
///
/// Axes are given two ways, as numpy users read them: counted from the right (`-1` is the last
/// axis, which is how broadcasting aligns shapes), and as an index into the result.
///
/// The details are a [`BroadcastErrorKind`], kept behind a box so that a `Result` carrying this
/// error stays small on the success path.
///
/// ```
/// use shapes::{broadcast_shapes, broadcast::BroadcastErrorKind};
///
/// let err = broadcast_shapes(&[[8, 4, 3].as_slice(), &[2, 1]]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "cannot broadcast (8, 4, 3) with (2, 1): axis -2 has 4 vs 2 (axis 1 of the result)"
/// );
/// assert!(matches!(err.kind(), BroadcastErrorKind::Incompatible { axis: 1, lhs_dim: 4, rhs_dim: 2, .. }));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct BroadcastError {
    kind: Box<BroadcastErrorKind>,
}

impl BroadcastError {
    /// What went wrong, with the shapes, axes and sizes involved.
    ///
    /// ```
    /// use shapes::broadcast::{broadcast_to, BroadcastErrorKind};
    /// let err = broadcast_to(&[2, 3], &[3]).unwrap_err();
    /// assert!(matches!(err.kind(), BroadcastErrorKind::RankTooLarge { .. }));
    /// ```
    pub fn kind(&self) -> &BroadcastErrorKind {
        &self.kind
    }

    /// The details, by value.
    ///
    /// ```
    /// use shapes::{broadcast_shapes, broadcast::BroadcastErrorKind};
    /// let err = broadcast_shapes(&[[2], [3]]).unwrap_err();
    /// assert!(matches!(err.into_kind(), BroadcastErrorKind::Incompatible { lhs_dim: 2, rhs_dim: 3, .. }));
    /// ```
    pub fn into_kind(self) -> BroadcastErrorKind {
        *self.kind
    }
}

impl From<BroadcastErrorKind> for BroadcastError {
    fn from(kind: BroadcastErrorKind) -> Self {
        BroadcastError {
            kind: Box::new(kind),
        }
    }
}

impl fmt::Display for BroadcastError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.kind, f)
    }
}

/// Reads like `Display`, so that `fn main() -> Result<(), Box<dyn Error>>` prints the message.
impl core::fmt::Debug for BroadcastError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for BroadcastError {}

/// The details of a [`BroadcastError`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BroadcastErrorKind {
    /// Two inputs have sizes at the same (right-aligned) axis that are different and neither 1.
    Incompatible {
        /// The first input with a size other than 1 at the axis.
        lhs: Shape,
        /// The input whose size there disagrees with `lhs`.
        rhs: Shape,
        /// Position of `lhs` among the inputs.
        lhs_input: usize,
        /// Position of `rhs` among the inputs.
        rhs_input: usize,
        /// Number of inputs (the message names input positions when there are more than two).
        inputs: usize,
        /// The axis counted from the right, 1-based: `2` means axis `-2`.
        axis_from_end: usize,
        /// The axis as an index of the (would-be) result.
        axis: usize,
        /// `lhs`'s size at the axis.
        lhs_dim: usize,
        /// `rhs`'s size at the axis.
        rhs_dim: usize,
    },
    /// The output buffer given to [`broadcast_shapes_into`](crate::broadcast::broadcast_shapes_into) is
    /// shorter than the result's rank.
    OutputTooSmall {
        /// The rank of the result.
        rank: usize,
        /// The length of the buffer.
        capacity: usize,
    },
    /// An `i64` shape has a negative dim.
    NegativeDim {
        /// The whole shape as given.
        dims: Vec<i64>,
        /// Position of that shape among the inputs.
        input: usize,
        /// The axis holding the negative dim.
        axis: usize,
        /// The negative value.
        value: i64,
    },
    /// An `i64` dim does not fit in `usize` on this platform.
    DimTooLarge {
        /// Position of the shape among the inputs.
        input: usize,
        /// The axis holding the dim.
        axis: usize,
        /// The value.
        value: i64,
    },
    /// [`broadcast_to`](crate::broadcast::broadcast_to): `from` has more dims than `to`.
    RankTooLarge {
        /// The shape being broadcast.
        from: Shape,
        /// The target shape.
        to: Shape,
    },
    /// [`broadcast_to`](crate::broadcast::broadcast_to): a size of `from` is neither 1 nor the target's.
    NotBroadcastableTo {
        /// The shape being broadcast.
        from: Shape,
        /// The target shape.
        to: Shape,
        /// The axis counted from the right, 1-based.
        axis_from_end: usize,
        /// The axis as an index of `to`.
        axis: usize,
        /// `from`'s size at the axis.
        from_dim: usize,
        /// `to`'s size at the axis.
        to_dim: usize,
    },
    /// Named broadcasting: one name has two different sizes and neither side may stretch.
    NameConflict {
        /// The dim's name.
        name: String,
        /// Its size on the left.
        lhs_dim: usize,
        /// Its size on the right.
        rhs_dim: usize,
    },
    /// A [`NamedShape`](crate::broadcast::NamedShape) was given the same name twice.
    DuplicateName {
        /// The repeated name.
        name: String,
    },
}

fn fmt_i64_dims(dims: &[i64], f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str("(")?;
    for (i, d) in dims.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{d}")?;
    }
    if dims.len() == 1 {
        f.write_str(",")?;
    }
    f.write_str(")")
}

impl fmt::Display for BroadcastErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BroadcastErrorKind::Incompatible {
                lhs,
                rhs,
                lhs_input,
                rhs_input,
                inputs,
                axis_from_end,
                axis,
                lhs_dim,
                rhs_dim,
            } => {
                write!(f, "cannot broadcast {lhs} with {rhs}")?;
                if *inputs > 2 {
                    write!(f, " (inputs {lhs_input} and {rhs_input} of {inputs})")?;
                }
                write!(
                    f,
                    ": axis -{axis_from_end} has {lhs_dim} vs {rhs_dim} (axis {axis} of the result)"
                )
            }
            BroadcastErrorKind::OutputTooSmall { rank, capacity } => write!(
                f,
                "the broadcast result has rank {rank} but the output buffer holds only {capacity} dims"
            ),
            BroadcastErrorKind::NegativeDim {
                dims,
                input,
                axis,
                value,
            } => {
                f.write_str("shape ")?;
                fmt_i64_dims(dims, f)?;
                write!(
                    f,
                    " (input {input}) has a negative dim {value} at axis {axis}; dims must be >= 0"
                )
            }
            BroadcastErrorKind::DimTooLarge { input, axis, value } => write!(
                f,
                "dim {value} at axis {axis} of input {input} does not fit in usize on this platform"
            ),
            BroadcastErrorKind::RankTooLarge { from, to } => write!(
                f,
                "cannot broadcast {from} to {to}: {} dims do not fit in {} (broadcasting only adds leading dims)",
                from.rank(),
                to.rank()
            ),
            BroadcastErrorKind::NotBroadcastableTo {
                from,
                to,
                axis_from_end,
                axis,
                from_dim,
                to_dim,
            } => write!(
                f,
                "cannot broadcast {from} to {to}: axis -{axis_from_end} has {from_dim} vs {to_dim} (axis {axis} of the target; only a 1 stretches)"
            ),
            BroadcastErrorKind::NameConflict {
                name,
                lhs_dim,
                rhs_dim,
            } => write!(
                f,
                "dim {name:?} has size {lhs_dim} on the left but {rhs_dim} on the right"
            ),
            BroadcastErrorKind::DuplicateName { name } => {
                write!(f, "dim name {name:?} appears twice in one named shape")
            }
        }
    }
}

/// Builds the `Incompatible` error for result axis `axis` of a broadcast of `shapes` to `rank`.
/// Only called on the error path, so it may walk the inputs again.
pub(crate) fn incompatible<S: AsRef<[usize]>>(
    shapes: &[S],
    rank: usize,
    axis: usize,
) -> BroadcastError {
    let axis_from_end = rank - axis;
    let dim_at = |s: &[usize]| {
        let i = s.len().checked_sub(axis_from_end)?;
        s.get(i).copied()
    };
    let mut first: Option<(usize, usize)> = None;
    for (index, s) in shapes.iter().enumerate() {
        let Some(d) = dim_at(s.as_ref()) else {
            continue;
        };
        if d == 1 {
            continue;
        }
        match first {
            None => first = Some((index, d)),
            Some((lhs_input, lhs_dim)) if lhs_dim != d => {
                return BroadcastErrorKind::Incompatible {
                    // ok: `lhs_input` came from `shapes.iter().enumerate()` above.
                    lhs: Shape::new(shapes[lhs_input].as_ref()),
                    rhs: Shape::new(s.as_ref()),
                    lhs_input,
                    rhs_input: index,
                    inputs: shapes.len(),
                    axis_from_end,
                    axis,
                    lhs_dim,
                    rhs_dim: d,
                }
                .into();
            }
            Some(_) => {}
        }
    }
    // Unreachable when called after a real mismatch; stay total anyway.
    BroadcastErrorKind::Incompatible {
        lhs: Shape::scalar(),
        rhs: Shape::scalar(),
        lhs_input: 0,
        rhs_input: 0,
        inputs: shapes.len(),
        axis_from_end,
        axis,
        lhs_dim: 1,
        rhs_dim: 1,
    }
    .into()
}
