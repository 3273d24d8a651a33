//! Where a value came from: a field path like `Model.layers[3].w_q` and an axis.

use core::fmt;

use smallvec::SmallVec;

use super::plan::FieldInfo;
use super::vars::str_eq;

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
/// use shapes::verify::{FieldPath, Segment};
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
    /// assert_eq!(shapes::verify::FieldPath::new("Model", &[]).root(), "Model");
    /// ```
    pub fn root(&self) -> &'static str {
        self.root
    }

    /// The steps below the root.
    ///
    /// ```
    /// use shapes::verify::{FieldPath, Segment};
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

/// Where a variable got its value: a field and an axis, the caller (pre-bound), or a key of
/// the checkpoint's config or metadata. New origins may be added: match with a `_` arm.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
    /// Stated by the checkpoint's `config.json` under `key` (bound by `verify_source` from a
    /// key the struct or plan declares).
    Config {
        /// The key, as found.
        key: String,
    },
    /// Stated by the weights file's own metadata under `key` (a GGUF key such as
    /// `llama.embedding_length`).
    Metadata {
        /// The key, as found.
        key: String,
    },
}

impl Origin {
    /// The origin of a value a checkpoint states under a key.
    ///
    /// ```
    /// use shapes::{checkpoint::ConfigPlace, verify::Origin};
    /// let o = Origin::stated(ConfigPlace::ConfigJson, "hidden_size");
    /// assert_eq!(o.to_string(), "config `hidden_size`");
    /// ```
    pub fn stated(place: crate::source::ConfigPlace, key: &str) -> Origin {
        match place {
            crate::source::ConfigPlace::ConfigJson => Origin::Config {
                key: key.to_owned(),
            },
            crate::source::ConfigPlace::Metadata => Origin::Metadata {
                key: key.to_owned(),
            },
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Field { path, axis } => write!(f, "{path} axis {axis}"),
            Origin::Solved { path } => write!(f, "solving {path}"),
            Origin::Given => f.write_str("the caller"),
            Origin::Config { key } => write!(f, "config `{key}`"),
            Origin::Metadata { key } => write!(f, "metadata `{key}`"),
        }
    }
}

/// How a variable got its value (the kind of its [`Origin`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OriginKind {
    Field,
    Solved,
    Given,
}

/// One level of an origin's path: a segment below its parent level (`ROOT_LEVEL`: the root
/// struct). The levels of a verification's origins form a tree, so that bindings made under
/// the same nested struct share their levels; [`Bindings`](super::Bindings) holds it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PathNode {
    pub(crate) segment: Segment,
    pub(crate) parent: u16,
}

/// The parent of a level directly below the root struct, and the level of an origin bound
/// directly in it.
pub(crate) const ROOT_LEVEL: u16 = u16::MAX;

/// The path levels a [`KnownLevels`] holds.
const KNOWN_LEVELS: usize = 32;

/// Path levels known before a verification runs, each once: where a struct's variables are
/// bound first, computed at compile time from its binders (`Binders::bind_order`). A table
/// of fixed size, so that [`Bindings`](super::Bindings) points at it with one word.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KnownLevels {
    levels: [PathNode; KNOWN_LEVELS],
    len: usize,
}

impl KnownLevels {
    /// No levels.
    pub(crate) const EMPTY: KnownLevels = KnownLevels {
        levels: [PathNode {
            segment: Segment::Index(0),
            parent: ROOT_LEVEL,
        }; KNOWN_LEVELS],
        len: 0,
    };

    /// The levels, by id.
    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[PathNode] {
        self.levels.get(..self.len).unwrap_or(&self.levels)
    }

    /// The id of the level `segment` below `parent`, added if it is not there yet; `None`
    /// when the table is full.
    pub(crate) const fn find_or_add(&mut self, segment: Segment, parent: u16) -> Option<u16> {
        let mut id = 0;
        while id < self.len && id < KNOWN_LEVELS {
            // ok: `id < KNOWN_LEVELS`, the array's length.
            if self.levels[id].is(segment, parent) {
                return Some(id as u16);
            }
            id += 1;
        }
        if self.len >= KNOWN_LEVELS {
            return None;
        }
        // ok: `len < KNOWN_LEVELS`, checked just above.
        self.levels[self.len] = PathNode { segment, parent };
        self.len += 1;
        // `KNOWN_LEVELS` is far below `ROOT_LEVEL`.
        Some((self.len - 1) as u16)
    }
}

impl PathNode {
    /// Whether this level is `segment` below `parent`, at compile time: names compared by
    /// their bytes.
    pub(crate) const fn is(&self, segment: Segment, parent: u16) -> bool {
        if self.parent != parent {
            return false;
        }
        match (self.segment, segment) {
            (Segment::Field(a), Segment::Field(b)) => str_eq(a, b),
            (Segment::Index(a), Segment::Index(b)) => a == b,
            _ => false,
        }
    }
}

/// The field of an origin that has none (a pre-bound value, an equation at the root): what
/// a `where` equation's checks name while they run, in the general checker and in generated
/// code alike.
#[doc(hidden)]
pub static NO_FIELD: FieldInfo = FieldInfo {
    name: "",
    pattern: "",
    place: crate::verify::Place::UNKNOWN,
};
