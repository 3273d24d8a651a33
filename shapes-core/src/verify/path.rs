//! Where a value came from: a field path like `Model.layers[3].w_q` and an axis.

use core::fmt;

use smallvec::SmallVec;

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

/// A compact [`Origin`] recorded on the success path (a plain copy, no allocation); turned into
/// an [`Origin`] only when someone asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawOrigin {
    pub(crate) root: &'static str,
    pub(crate) segments: [Segment; MAX_DEPTH],
    pub(crate) depth: u8,
    pub(crate) field: &'static str,
    pub(crate) axis: u32,
    pub(crate) kind: OriginKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OriginKind {
    Field,
    Solved,
    Given,
}

impl RawOrigin {
    pub(crate) const GIVEN: RawOrigin = RawOrigin {
        root: "",
        segments: [Segment::Index(0); MAX_DEPTH],
        depth: 0,
        field: "",
        axis: 0,
        kind: OriginKind::Given,
    };

    pub(crate) fn path(&self) -> FieldPath {
        let depth = usize::from(self.depth).min(MAX_DEPTH);
        // ok: `depth <= MAX_DEPTH == self.segments.len()`.
        let mut segments: SmallVec<[Segment; 6]> = SmallVec::from_slice(&self.segments[..depth]);
        if !self.field.is_empty() {
            segments.push(Segment::Field(self.field));
        }
        FieldPath {
            root: self.root,
            segments,
        }
    }

    pub(crate) fn origin(&self) -> Origin {
        match self.kind {
            OriginKind::Field => Origin::Field {
                path: self.path(),
                axis: self.axis as usize,
            },
            OriginKind::Solved => Origin::Solved { path: self.path() },
            OriginKind::Given => Origin::Given,
        }
    }
}
