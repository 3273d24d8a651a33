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
    /// At a dim of the variable's binder, the first that can bind it (see `Checker::use_binders`).
    Binder,
    Solved,
    Given,
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
