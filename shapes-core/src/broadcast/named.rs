//! Broadcasting by dim name rather than by position.

use core::fmt;

use super::error::{BroadcastError, BroadcastErrorKind};
use crate::shape::Shape;

/// A shape whose dims have names: ordered `(name, size)` pairs, each name at most once.
///
/// ```
/// use shapes::broadcast::NamedShape;
///
/// let s = NamedShape::new([("batch", 2), ("seq", 5)]).unwrap();
/// assert_eq!(s.get("seq"), Some(5));
/// assert_eq!(s.shape(), [2, 5]);
/// assert_eq!(s.to_string(), "(batch=2, seq=5)");
/// assert!(NamedShape::new([("x", 1), ("x", 2)]).is_err());
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct NamedShape {
    dims: Vec<(String, usize)>,
}

impl NamedShape {
    /// A named shape from `(name, size)` pairs, in order. A repeated name is
    /// [`BroadcastErrorKind::DuplicateName`].
    ///
    /// ```
    /// let s = shapes::broadcast::NamedShape::new([("h", 4), ("w", 4)]).unwrap();
    /// assert_eq!(s.len(), 2);
    /// ```
    pub fn new<I, N>(dims: I) -> Result<Self, BroadcastError>
    where
        I: IntoIterator<Item = (N, usize)>,
        N: Into<String>,
    {
        let mut out = NamedShape::default();
        for (name, size) in dims {
            out.push(name.into(), size)?;
        }
        Ok(out)
    }

    fn push(&mut self, name: String, size: usize) -> Result<(), BroadcastError> {
        if self.get(&name).is_some() {
            return Err(BroadcastErrorKind::DuplicateName { name }.into());
        }
        self.dims.push((name, size));
        Ok(())
    }

    /// The size of the dim called `name`.
    ///
    /// ```
    /// let s = shapes::broadcast::NamedShape::new([("c", 3)]).unwrap();
    /// assert_eq!(s.get("c"), Some(3));
    /// assert_eq!(s.get("h"), None);
    /// ```
    pub fn get(&self, name: &str) -> Option<usize> {
        self.dims.iter().find(|(n, _)| n == name).map(|&(_, s)| s)
    }

    /// The number of dims.
    ///
    /// ```
    /// assert_eq!(shapes::broadcast::NamedShape::default().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.dims.len()
    }

    /// Whether there are no dims (a scalar).
    ///
    /// ```
    /// assert!(shapes::broadcast::NamedShape::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.dims.is_empty()
    }

    /// The `(name, size)` pairs in order.
    ///
    /// ```
    /// let s = shapes::broadcast::NamedShape::new([("a", 1)]).unwrap();
    /// assert_eq!(s.iter().next(), Some(("a", 1)));
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, usize)> + '_ {
        self.dims.iter().map(|(n, s)| (n.as_str(), *s))
    }

    /// The names in order.
    ///
    /// ```
    /// let s = shapes::broadcast::NamedShape::new([("a", 1), ("b", 2)]).unwrap();
    /// assert_eq!(s.names().collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.dims.iter().map(|(n, _)| n.as_str())
    }

    /// The sizes in order, as a positional [`Shape`].
    ///
    /// ```
    /// let s = shapes::broadcast::NamedShape::new([("a", 1), ("b", 2)]).unwrap();
    /// assert_eq!(s.shape(), [1, 2]);
    /// ```
    pub fn shape(&self) -> Shape {
        self.dims.iter().map(|&(_, s)| s).collect()
    }
}

impl fmt::Display for NamedShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for (i, (n, s)) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{n}={s}")?;
        }
        f.write_str(")")
    }
}

impl fmt::Debug for NamedShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NamedShape{self}")
    }
}

/// How [`broadcast_named`] treats a dim that both sides have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NamedStrategy {
    /// Tensorics' "broadcast missing dimensions": only a dim one side lacks is broadcast; a dim
    /// both sides have must have one size on both, even when one of them is 1.
    MissingDimensions,
    /// numpy's rule applied by name: a dim both sides have may also be 1 on one side, and that
    /// 1 stretches to the other side's size.
    StretchOnes,
}

/// Broadcasts two named shapes with tensorics' "broadcast missing dimensions" strategy; the
/// same as [`broadcast_named`] with [`NamedStrategy::MissingDimensions`].
///
/// Each side keeps its own dims in its own order and gains, appended after them in the order
/// they appear on the other side, the dims it lacks, with the other side's sizes. A size-1 dim
/// that is present is **not** stretched: the same name with two different sizes is
/// [`BroadcastErrorKind::NameConflict`].
///
/// ```
/// use shapes::broadcast::{broadcast_missing_dimensions, NamedShape};
///
/// let a = NamedShape::new([("batch", 2), ("feature", 8)]).unwrap();
/// let b = NamedShape::new([("feature", 8), ("head", 4)]).unwrap();
/// let (a2, b2) = broadcast_missing_dimensions(&a, &b).unwrap();
/// assert_eq!(a2.to_string(), "(batch=2, feature=8, head=4)");
/// assert_eq!(b2.to_string(), "(feature=8, head=4, batch=2)");
///
/// let ones = NamedShape::new([("feature", 1)]).unwrap();
/// assert!(broadcast_missing_dimensions(&a, &ones).is_err());
/// ```
pub fn broadcast_missing_dimensions(
    a: &NamedShape,
    b: &NamedShape,
) -> Result<(NamedShape, NamedShape), BroadcastError> {
    broadcast_named(a, b, NamedStrategy::MissingDimensions)
}

/// Broadcasts two named shapes with the chosen [`NamedStrategy`].
///
/// The output order is the one documented on [`broadcast_missing_dimensions`]: each side's own
/// dims first, then the dims it gains in the other side's order. With
/// [`NamedStrategy::StretchOnes`] a present size-1 dim also takes the other side's size.
///
/// ```
/// use shapes::broadcast::{broadcast_named, NamedShape, NamedStrategy};
///
/// let a = NamedShape::new([("batch", 2), ("feature", 1)]).unwrap();
/// let b = NamedShape::new([("feature", 8)]).unwrap();
/// let (a2, b2) = broadcast_named(&a, &b, NamedStrategy::StretchOnes).unwrap();
/// assert_eq!(a2.to_string(), "(batch=2, feature=8)");
/// assert_eq!(b2.to_string(), "(feature=8, batch=2)");
/// assert!(broadcast_named(&a, &b, NamedStrategy::MissingDimensions).is_err());
/// ```
pub fn broadcast_named(
    a: &NamedShape,
    b: &NamedShape,
    strategy: NamedStrategy,
) -> Result<(NamedShape, NamedShape), BroadcastError> {
    // Decide every shared dim's size once, so both sides agree and conflicts are found first.
    let mut shared = Vec::new();
    for (name, x) in a.iter() {
        let Some(y) = b.get(name) else { continue };
        let size = match strategy {
            _ if x == y => x,
            NamedStrategy::StretchOnes if x == 1 => y,
            NamedStrategy::StretchOnes if y == 1 => x,
            _ => {
                return Err(BroadcastErrorKind::NameConflict {
                    name: name.to_owned(),
                    lhs_dim: x,
                    rhs_dim: y,
                }
                .into());
            }
        };
        shared.push((name, size));
    }
    let size_of = |name: &str, own: usize| {
        shared
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(own, |&(_, s)| s)
    };
    let extend = |own: &NamedShape, other: &NamedShape| {
        let mut dims: Vec<(String, usize)> = own
            .iter()
            .map(|(n, s)| (n.to_owned(), size_of(n, s)))
            .collect();
        dims.extend(
            other
                .iter()
                .filter(|(n, _)| own.get(n).is_none())
                .map(|(n, s)| (n.to_owned(), s)),
        );
        NamedShape { dims }
    };
    Ok((extend(a, b), extend(b, a)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(dims: &[(&str, usize)]) -> NamedShape {
        NamedShape::new(dims.iter().copied()).unwrap()
    }

    #[test]
    fn conflict_names_dim_and_sizes() {
        let err = broadcast_missing_dimensions(&ns(&[("x", 1)]), &ns(&[("x", 5)])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "dim \"x\" has size 1 on the left but 5 on the right"
        );
    }

    #[test]
    fn disjoint_dims_union_both_ways() {
        let (a, b) = broadcast_missing_dimensions(&ns(&[("x", 2)]), &ns(&[("y", 3)])).unwrap();
        assert_eq!(a, ns(&[("x", 2), ("y", 3)]));
        assert_eq!(b, ns(&[("y", 3), ("x", 2)]));
    }

    #[test]
    fn stretch_ones_still_rejects_real_conflicts() {
        assert!(
            broadcast_named(
                &ns(&[("x", 2)]),
                &ns(&[("x", 3)]),
                NamedStrategy::StretchOnes
            )
            .is_err()
        );
        let (a, b) = broadcast_named(
            &ns(&[("x", 1)]),
            &ns(&[("x", 0)]),
            NamedStrategy::StretchOnes,
        )
        .unwrap();
        assert_eq!((a.get("x"), b.get("x")), (Some(0), Some(0)));
    }
}
