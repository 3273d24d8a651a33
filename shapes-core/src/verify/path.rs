//! Where a value came from: a field path like `Model.layers[3].w_q` and an axis.

use core::fmt;

use smallvec::SmallVec;

use super::plan::FieldInfo;

/// One step of a field path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Segment {
    /// A named field: `.w_q`.
    Field(&'static str),
    /// An element of a collection: `[3]`.
    Index(usize),
}

/// A field path from the verified struct down to one tensor: `Model.layers[3].w_q`.
///
/// ```
/// use shapes::{FieldPath, Segment};
/// let p = FieldPath::new("Model", &[Segment::Field("layers"), Segment::Index(3), Segment::Field("w_q")]);
/// assert_eq!(p.to_string(), "Model.layers[3].w_q");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FieldPath {
    root: &'static str,
    segments: SmallVec<[Segment; 6]>,
}

impl FieldPath {
    /// A path below the struct called `root`.
    pub fn new(root: &'static str, segments: &[Segment]) -> Self {
        FieldPath {
            root,
            segments: SmallVec::from_slice(segments),
        }
    }

    /// The name of the struct the path starts at.
    ///
    /// ```
    /// assert_eq!(shapes::FieldPath::new("Model", &[]).root(), "Model");
    /// ```
    pub fn root(&self) -> &'static str {
        self.root
    }

    /// The steps below the root.
    ///
    /// ```
    /// use shapes::{FieldPath, Segment};
    /// assert_eq!(FieldPath::new("M", &[Segment::Index(0)]).segments(), &[Segment::Index(0)]);
    /// ```
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.root)?;
        for s in &self.segments {
            match s {
                Segment::Field(name) => write!(f, ".{name}")?,
                Segment::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// Where a variable got its value: a field and an axis, or the caller (pre-bound).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Origin {
    /// Bound while matching `path`'s shape at `axis` (for a variadic, the first axis it covers).
    Field {
        /// The field.
        path: FieldPath,
        /// The axis.
        axis: usize,
    },
    /// Solved from an equation (a `where` clause or an arithmetic dim) at `path`.
    Solved {
        /// Where the equation was met.
        path: FieldPath,
    },
    /// Given by the caller through [`Bindings::bind`](crate::Bindings::bind).
    Given,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Field { path, axis } => write!(f, "{path} axis {axis}"),
            Origin::Solved { path } => write!(f, "solving {path}"),
            Origin::Given => f.write_str("the caller"),
        }
    }
}

/// How deep a recorded origin's path goes; deeper levels still check, their origins show the
/// outer levels.
pub(crate) const MAX_DEPTH: usize = 4;

/// The nested levels (below `root`, above the field) an origin was recorded under. A
/// [`Bindings`](crate::Bindings) keeps each distinct one once; its entries point at them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawPath {
    pub(crate) root: &'static str,
    pub(crate) segments: [Segment; MAX_DEPTH],
    pub(crate) depth: u8,
}

impl RawPath {
    /// Whether this is the path `root` / `segments`, told cheaply: names are compared as
    /// pointers to their static text, so two copies of one name may look different (the
    /// caller then records the path again, which costs one more entry).
    #[inline]
    pub(crate) fn is(&self, root: &'static str, segments: &[Segment]) -> bool {
        usize::from(self.depth) == segments.len()
            && core::ptr::eq(self.root, root)
            && self.segments.iter().zip(segments).all(|pair| match pair {
                (Segment::Field(a), Segment::Field(b)) => core::ptr::eq(*a, *b),
                (Segment::Index(a), Segment::Index(b)) => a == b,
                _ => false,
            })
    }

    /// The path with `field` (if not empty) as its last segment.
    pub(crate) fn with_field(&self, field: &'static str) -> FieldPath {
        let depth = usize::from(self.depth).min(MAX_DEPTH);
        // ok: `depth <= MAX_DEPTH == self.segments.len()`.
        let mut segments: SmallVec<[Segment; 6]> = SmallVec::from_slice(&self.segments[..depth]);
        if !field.is_empty() {
            segments.push(Segment::Field(field));
        }
        FieldPath {
            root: self.root,
            segments,
        }
    }
}

/// A compact [`Origin`] recorded on the success path (a plain copy, no allocation): the path
/// is an index into its `Bindings`' paths, the field a pointer to static data. Turned into an
/// [`Origin`] only when someone asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawOrigin {
    pub(crate) path: u8,
    pub(crate) field: &'static FieldInfo,
    pub(crate) axis: u32,
    pub(crate) kind: OriginKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OriginKind {
    Field,
    Solved,
    Given,
}

/// The field of an origin that has none (a pre-bound value, an equation at the root).
pub(crate) static NO_FIELD: FieldInfo = FieldInfo {
    name: "",
    pattern: "",
};

impl RawOrigin {
    pub(crate) const GIVEN: RawOrigin = RawOrigin {
        path: 0,
        field: &NO_FIELD,
        axis: 0,
        kind: OriginKind::Given,
    };

    /// The origin, with its path looked up in `paths`.
    pub(crate) fn origin(&self, paths: &[RawPath]) -> Origin {
        let path = || match paths.get(usize::from(self.path)) {
            Some(p) => p.with_field(self.field.name),
            // Unreachable for an origin recorded by the checker, which pushes its path first.
            None => FieldPath::new("?", &[]),
        };
        match self.kind {
            OriginKind::Field => Origin::Field {
                path: path(),
                axis: self.axis as usize,
            },
            OriginKind::Solved => Origin::Solved { path: path() },
            OriginKind::Given => Origin::Given,
        }
    }
}
