//! [`ShapeError`] and [`ShapeErrors`]: what `verify` reports.

use core::fmt;
use std::borrow::Cow;

mod words;

pub(crate) use self::words::ErrorWords;
#[cfg(feature = "spec")]
pub(crate) use self::words::{Give, InWords};
use self::words::{join_names, write_count, write_found, write_layout, write_not_given};
use super::path::{FieldPath, Origin};
use super::plan::Place;
use crate::shape::Shape;

/// One variable's value and where it came from, as quoted in an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The variable.
    pub name: String,
    /// Its value (a size, or a sub-shape for a variadic), printed.
    pub value: String,
    /// Where it was bound.
    pub origin: Origin,
}

/// What kind of mismatch a [`ShapeError`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShapeErrorKind {
    /// The tensor has a different number of dims than the pattern.
    Rank {
        /// The rank the pattern needs.
        expected: usize,
        /// Whether the pattern has a variadic, so `expected` is a minimum.
        at_least: bool,
    },
    /// A literal dim differs: pattern `768`, tensor `512`.
    Literal {
        /// The pattern's value.
        expected: usize,
    },
    /// A dim differs from the value its variable (or expression) already has.
    Dim {
        /// The expression as written, with values: `heads * head_dim = 12 * 64 = 768`.
        expected: String,
        /// The value it evaluates to.
        value: usize,
    },
    /// A `*name` sub-shape differs from the one already bound.
    Variadic {
        /// The variable.
        name: String,
        /// Its bound sub-shape.
        expected: Shape,
        /// The sub-shape found.
        found: Shape,
    },
    /// A dim's expression cannot hold: an exact division with a remainder, a difference below
    /// zero, an overflow, a division by zero.
    Arithmetic {
        /// What went wrong, with the values.
        detail: String,
    },
    /// Some variables are never bound by any field, so these dims cannot be checked.
    Unsolved {
        /// The expression.
        expr: String,
        /// The variables that stay unknown.
        unknown: Vec<String>,
    },
    /// A dim cannot be checked because a variable the struct declares `given` was not
    /// passed: the caller is to bind it.
    NotGiven {
        /// The expression that waits for it.
        expr: String,
        /// The `given` variables that were not passed.
        names: Vec<String>,
    },
    /// A `where` equation of the struct does not hold.
    Where {
        /// The equation with values.
        detail: String,
    },
    /// A pre-bound name is not a variable of the struct.
    UnknownBinding {
        /// The name given.
        name: String,
        /// The closest variable name, if any is close.
        suggestion: Option<String>,
    },
    /// A tensor the struct needs is missing from a checkpoint.
    Missing {
        /// The tensor's name in the checkpoint.
        tensor: String,
        /// A tensor the source has that nothing asked for, close to this name (a renamed key,
        /// a wrong prefix).
        suggestion: Option<String>,
    },
    /// A checkpoint holds tensors the struct does not describe (strict mode).
    Unexpected {
        /// Their names.
        tensors: Vec<String>,
    },
    /// Elements of a list in a checkpoint (`prefix.0`, `prefix.1`, …) are not numbered
    /// without gaps: `prefix.{index}` has no tensor but later indices do. The elements before
    /// the gap are checked; the later ones are not.
    Gap {
        /// The list's name prefix, e.g. `encoder.layer`.
        prefix: String,
        /// The first index with no tensor.
        index: usize,
        /// The later indices that have tensors.
        later: Vec<usize>,
    },
    /// A list in a checkpoint (`prefix.0`, `prefix.1`, …) has fewer elements than its
    /// minimum (`min = …` on the field; 1 unless the list is declared optional with
    /// `Option<Vec<_>>` or `min = 0`), or another number than its `count` variable holds.
    Count {
        /// The list's name prefix, e.g. `encoder.layer`.
        prefix: String,
        /// The number of elements required.
        expected: usize,
        /// Whether `expected` is a minimum (`min`) rather than an exact count (`count`).
        at_least: bool,
        /// The `count` variable the exact number comes from.
        variable: Option<String>,
        /// The number of elements found.
        found: usize,
        /// A name the source has where the list was looked for, close to its last part (a
        /// wrong prefix: `layers` for `layer`).
        suggestion: Option<String>,
    },
    /// The tensor's shape is the expected one reversed (a weight stored transposed): one
    /// error instead of one per axis.
    Transposed {
        /// The shape the pattern wants.
        expected: Shape,
    },
    /// The shape source itself failed (a malformed header, an I/O error).
    Source {
        /// The source's message.
        detail: String,
    },
    /// A variable is bound from config keys none of which the checkpoint states, but it
    /// states a key a slip of the fingers away from one of them: a likely misspelling, which
    /// would leave the variable unchecked against the config. Reported before any tensor is
    /// checked.
    ConfigKey {
        /// The variable.
        variable: String,
        /// The key looked for.
        key: String,
        /// The key the checkpoint states instead, with its value.
        near: crate::source::ConfigEntry,
    },
    /// The checkpoint is saved in PyTorch's layout, not the framework's: read in the
    /// framework's layout (some tensors transposed, some renamed), it matches. Reported
    /// alone, in place of the mismatches the layout makes.
    Layout {
        /// The framework (`burn`).
        framework: String,
        /// The tensors PyTorch stores transposed (a `Linear`'s weight).
        transposed: Vec<String>,
        /// `(PyTorch's name, the framework's)` of the renamed tensors (`norm.weight`,
        /// `norm.gamma`).
        renamed: Vec<(String, String)>,
    },
    /// A tensor that may be left out when tied to another is missing, but the checkpoint
    /// states the tie is off (`tie_word_embeddings = false`).
    Untied {
        /// The missing tensor's name in the checkpoint.
        tensor: String,
        /// The tensor it would share weights with.
        to: String,
        /// What the checkpoint states: ``config `tie_word_embeddings` = false``.
        stated: String,
    },
}

/// One shape mismatch, with everything needed to act on it: the struct and field path, the
/// axis, the pattern, the expected value with the variables involved and where each was bound,
/// and the actual shape.
///
/// ```text
/// Model.layers[3].w_q: axis 1 expected heads * head_dim = 12 * 64 = 768, found 512
///   heads = 12 bound by Model.layers[0].w_q axis 1; head_dim = 64 bound by Model.layers[0].b_q axis 0
///   shape is (768, 512), pattern (d_model, heads * head_dim)
/// ```
///
/// The details live behind one box (a `ShapeError` is a pointer wide, so `Result<_,
/// ShapeError>` stays small); they are reached through `Deref`: `err.path`, `err.axis`,
/// `err.kind`.
#[derive(Clone, PartialEq, Eq)]
pub struct ShapeError(Box<ShapeErrorDetails>);

impl std::ops::Deref for ShapeError {
    type Target = ShapeErrorDetails;
    fn deref(&self) -> &ShapeErrorDetails {
        &self.0
    }
}

impl std::ops::DerefMut for ShapeError {
    fn deref_mut(&mut self) -> &mut ShapeErrorDetails {
        &mut self.0
    }
}

impl From<ShapeErrorDetails> for ShapeError {
    fn from(details: ShapeErrorDetails) -> Self {
        ShapeError(Box::new(details))
    }
}

impl ShapeError {
    /// The details by value.
    ///
    /// ```
    /// use shapes::{ShapeError, ShapeErrorKind, verify::{FieldPath, ShapeErrorDetails}};
    /// let kind = ShapeErrorKind::Missing { tensor: "w".into(), suggestion: None };
    /// let e = ShapeError::from(ShapeErrorDetails::new(FieldPath::new("M", &[]), kind.clone()));
    /// assert_eq!(e.into_details().kind, kind);
    /// ```
    pub fn into_details(self) -> ShapeErrorDetails {
        *self.0
    }

    /// What a failed check reports when it recorded no error of its own: a checker in a quiet
    /// pass (whose caller only needs to know that it failed), or a broken invariant, which
    /// then shows as this error rather than as a pass.
    #[cold]
    pub(crate) fn unrecorded(root: &'static str) -> ShapeError {
        ShapeErrorDetails::new(
            FieldPath::new(root, &[]),
            ShapeErrorKind::Source {
                detail: "verification failed without a recorded error".into(),
            },
        )
        .into()
    }
}

/// The contents of a [`ShapeError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeErrorDetails {
    /// The field (or pseudo-field for `where` clauses) the error is about.
    pub path: FieldPath,
    /// The axis, when the error is about one dim.
    pub axis: Option<usize>,
    /// The field's pattern, when there is one, in the names of the scope the error is
    /// about: as written, or under the renames of the nested fields it sits in
    /// (`(d_ff, d_model)` for a `Linear`'s `(d_out, d_in)` renamed so).
    pub pattern: Option<Cow<'static, str>>,
    /// The tensor's actual shape, when there is one.
    pub shape: Option<Shape>,
    /// What is wrong.
    pub kind: ShapeErrorKind,
    /// The variables the expectation depends on, with their values and origins.
    pub provenance: Vec<Provenance>,
    /// The checkpoint tensor the error is about, when the shapes came from a
    /// [`ShapeSource`](crate::ShapeSource) (`verify_source`); `None` for values in memory.
    pub tensor: Option<String>,
    /// Where what the error is about is declared: the `#[shape("…")]` string of a derived
    /// field, a `#[shapes::check]` pattern, a spec file's entry, a framework layer's
    /// declaration; for a failing `where` its string, for a list's count its `count = "…"`
    /// or `[repeat]` entry, for a config key its `config(…)` or `[config]` entry. `None` for an error about nothing declared (an unexpected tensor)
    /// or about what was built without a place (`PlanNode::tensor`). `{:#}` of the error adds
    /// it as a last line, and so does the report of a spec file read from disk
    /// (`shapes check --spec`).
    pub declared_at: Option<Place>,
}

impl ShapeErrorDetails {
    /// An error of `kind` about `path`, with no axis, pattern, shape, provenance or tensor yet.
    ///
    /// ```
    /// use shapes::{ShapeErrorKind, verify::{FieldPath, ShapeErrorDetails}};
    /// let e = ShapeErrorDetails::new(FieldPath::new("M", &[]), ShapeErrorKind::Missing { tensor: "w".into(), suggestion: None });
    /// assert_eq!(e.to_string(), "M: tensor \"w\" is missing from the source");
    /// ```
    pub fn new(path: FieldPath, kind: ShapeErrorKind) -> Self {
        ShapeErrorDetails {
            path,
            axis: None,
            pattern: None,
            shape: None,
            kind,
            provenance: Vec::new(),
            tensor: None,
            declared_at: None,
        }
    }

    /// The found size at the error's axis, when there is one.
    ///
    /// ```
    /// use shapes::{ShapeError, ShapeErrorKind, Shape, verify::{FieldPath, ShapeErrorDetails}};
    /// let e = ShapeError::from(ShapeErrorDetails {
    ///     path: FieldPath::new("M", &[]), axis: Some(1), pattern: Some("(a, 3)".into()),
    ///     shape: Some(Shape::from([2, 4])), kind: ShapeErrorKind::Literal { expected: 3 },
    ///     provenance: vec![], tensor: None, declared_at: None,
    /// });
    /// assert_eq!(e.found(), Some(4));
    /// assert_eq!(e.to_string(), "M: axis 1 expected 3, found 4\n  shape is (2, 4), pattern (a, 3)");
    /// ```
    pub fn found(&self) -> Option<usize> {
        let axis = self.axis?;
        self.shape.as_ref()?.get(axis).copied()
    }
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl ShapeErrorDetails {
    pub(super) fn fmt_in(&self, f: &mut fmt::Formatter<'_>, words: &ErrorWords<'_>) -> fmt::Result {
        if let Some(stated) = self.stated_mismatch() {
            return self.fmt_stated(f, stated, words);
        }
        match &self.tensor {
            Some(tensor) => write!(f, "{} (tensor {tensor:?}): ", self.path)?,
            None => write!(f, "{}: ", self.path)?,
        }
        let found = self.found();
        match &self.kind {
            ShapeErrorKind::Rank { expected, at_least } => {
                let rank = self.shape.as_ref().map_or(0, |s| s.rank());
                let least = if *at_least { "at least " } else { "" };
                write!(f, "expected {least}{expected} dims, found {rank}")?;
            }
            ShapeErrorKind::Literal { expected } => {
                write_axis(f, self.axis)?;
                write!(f, "expected {expected}")?;
                write_found(f, found)?;
            }
            ShapeErrorKind::Dim { expected, .. } => {
                write_axis(f, self.axis)?;
                write!(f, "expected {expected}")?;
                write_found(f, found)?;
            }
            ShapeErrorKind::Variadic {
                name,
                expected,
                found,
            } => {
                write_axis(f, self.axis)?;
                write!(f, "expected *{name} = {expected}, found {found}")?;
            }
            ShapeErrorKind::Arithmetic { detail } => {
                write_axis(f, self.axis)?;
                f.write_str(detail)?;
            }
            ShapeErrorKind::Unsolved { expr, unknown } => {
                write_axis(f, self.axis)?;
                write!(
                    f,
                    "cannot check {expr}: {} never bound by any field",
                    join_names(unknown)
                )?;
            }
            ShapeErrorKind::NotGiven { expr, names } => {
                write_axis(f, self.axis)?;
                write_not_given(f, expr, names, words.give)?;
            }
            ShapeErrorKind::Where { detail } => write!(f, "where clause fails: {detail}")?,
            ShapeErrorKind::UnknownBinding { name, suggestion } => {
                write!(f, "pre-bound variable {name:?} is not used by any field")?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean {s:?}?)")?;
                }
            }
            ShapeErrorKind::Missing { tensor, suggestion } => {
                write!(f, "tensor {tensor:?} is missing from the source")?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean {s:?}?)")?;
                }
            }
            ShapeErrorKind::Unexpected { tensors } => {
                write!(
                    f,
                    "the source has {} tensor(s) the struct does not describe: ",
                    super::names::thousands(tensors.len())
                )?;
                super::names::write_names(f, tensors.iter().map(String::as_str))?
            }
            ShapeErrorKind::Gap {
                prefix,
                index,
                later,
            } => {
                let later: Vec<String> = later
                    .iter()
                    .take(super::names::MAX_LINES + 1)
                    .map(|i| format!("{prefix}.{i}"))
                    .collect();
                write!(f, "no tensor under {prefix}.{index} but some under ")?;
                super::names::write_names(f, later.iter().map(String::as_str))?;
                write!(
                    f,
                    ": the elements must be numbered 0, 1, 2, … without gaps, so only the first {index} were checked"
                )?
            }
            kind @ ShapeErrorKind::Count { .. } => write_count(f, kind, words.absent_list)?,
            ShapeErrorKind::Transposed { expected } => {
                let found = self.shape.clone().unwrap_or_default();
                write!(
                    f,
                    "looks transposed: expected {expected}, found {found}, its reverse"
                )?
            }
            ShapeErrorKind::Source { detail } => f.write_str(detail)?,
            ShapeErrorKind::Layout {
                framework,
                transposed,
                renamed,
            } => write_layout(f, framework, transposed, renamed)?,
            ShapeErrorKind::ConfigKey {
                variable,
                key,
                near,
            } => write!(
                f,
                "`{variable}` is bound from the key `{key}`, which the checkpoint does not state, but it states {near}: a misspelt key leaves `{variable}` unchecked against the {place}; correct the key",
                place = near.place,
            )?,
            ShapeErrorKind::Untied { tensor, to, stated } => write!(
                f,
                "tensor {tensor:?} is missing, and {stated} says it is not tied to {to:?}"
            )?,
        }
        self.fmt_tail(f, words)
    }
    /// For a dim that differs from a variable a checkpoint states (its config), that one
    /// provenance: the error then leads with the key, the cause.
    fn stated_mismatch(&self) -> Option<&Provenance> {
        let ShapeErrorKind::Dim { expected, .. } = &self.kind else {
            return None;
        };
        let [p] = self.provenance.as_slice() else {
            return None;
        };
        let stated = matches!(p.origin, Origin::Config { .. } | Origin::Metadata { .. });
        let direct = expected.strip_prefix(p.name.as_str())?.starts_with(" = ");
        (stated && direct && self.found().is_some()).then_some(p)
    }

    /// `M.up: config `intermediate_size` = 4096, but "up.weight" axis 0 is 3072`.
    fn fmt_stated(
        &self,
        f: &mut fmt::Formatter<'_>,
        p: &Provenance,
        words: &ErrorWords<'_>,
    ) -> fmt::Result {
        write!(f, "{}: {} = {}, but ", self.path, p.origin, p.value)?;
        match &self.tensor {
            Some(tensor) => write!(f, "{tensor:?} ")?,
            None => f.write_str("the tensor's ")?,
        }
        write!(
            f,
            "axis {} is {}",
            self.axis.unwrap_or(0),
            self.found().unwrap_or(0)
        )?;
        self.fmt_tail(f, words)
    }
}

fn write_axis(f: &mut fmt::Formatter<'_>, axis: Option<usize>) -> fmt::Result {
    match axis {
        Some(a) => write!(f, "axis {a} "),
        None => Ok(()),
    }
}

/// Reads like `Display`, so that `fn main() -> Result<(), Box<dyn Error>>` prints the message.
impl core::fmt::Debug for ShapeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for ShapeError {}

/// Every mismatch found by one verification, in declaration order.
///
/// ```
/// # use shapes::{ShapeError, ShapeErrorKind, ShapeErrors, verify::{FieldPath, ShapeErrorDetails}};
/// # let e = ShapeError::from(ShapeErrorDetails { path: FieldPath::new("M", &[]), axis: None,
/// #     pattern: None, shape: None, kind: ShapeErrorKind::Missing { tensor: "w".into(), suggestion: None },
/// #     provenance: vec![], tensor: None, declared_at: None });
/// let errs = ShapeErrors::from(vec![e.clone(), e]);
/// assert_eq!(errs.len(), 2);
/// assert!(errs.to_string().starts_with("2 shape errors:"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ShapeErrors(Vec<ShapeError>, Vec<String>);

impl ShapeErrors {
    /// The most lines (an error, a folded group of errors, a cause) the `Display` of several
    /// errors shows; then it counts the rest (`… and 99,990 more errors`). A list of names in
    /// one error (unexpected tensors, the later elements of a gap) is folded and cut the same
    /// way, so a report stays a few kilobytes whatever the checkpoint.
    pub const MAX_LINES: usize = super::names::MAX_LINES;

    /// The errors in order.
    pub fn errors(&self) -> &[ShapeError] {
        &self.0
    }

    /// How many errors there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none (never true for an `Err` returned by `verify_all`).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The first error, if any.
    pub fn first(&self) -> Option<&ShapeError> {
        self.0.first()
    }

    /// The errors by value.
    pub fn into_vec(self) -> Vec<ShapeError> {
        self.0
    }

    /// The source's tensors that nothing describes, allowed by a non-strict `verify_source`
    /// ([`SourceOptions::strict`](crate::verify::SourceOptions::strict)): warnings, sorted, beside
    /// the errors; empty after a strict check, where they are
    /// [`unexpected_tensors`](Self::unexpected_tensors).
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use shapes::{Shape, Shaped, verify::SourceOptions};
    /// #[derive(Shaped)]
    /// struct Norm { #[shape("(d,)")] weight: Shape, #[shape("(d,)")] bias: Shape }
    /// let src = HashMap::from([("weight".to_string(), Shape::from([4])), ("step".to_string(), Shape::from([1]))]);
    /// let e = Norm::verify_source_options(&src, SourceOptions::new().strict(false)).unwrap_err();
    /// assert_eq!((e.missing_tensors(), e.allowed_unexpected()), (vec!["bias"], &["step".to_string()][..]));
    /// ```
    pub fn allowed_unexpected(&self) -> &[String] {
        &self.1
    }

    pub(crate) fn with_allowed_unexpected(mut self, names: Vec<String>) -> Self {
        self.1 = names;
        self
    }
}

/// The checkpoint view of a `verify_source` failure: PyTorch's two lists and the mismatches.
impl ShapeErrors {
    /// The tensors the struct needs that the source lacks, in declaration order (PyTorch's
    /// "missing keys").
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use shapes::{Shape, Shaped};
    ///
    /// #[derive(Shaped)]
    /// struct Linear {
    ///     #[shape("(d_out, d_in)")] weight: Shape,
    ///     #[shape("(d_out,)")] bias: Shape,
    /// }
    ///
    /// let mut src = BTreeMap::new();
    /// src.insert("weight".to_string(), Shape::from([4, 3]));
    /// src.insert("scale".to_string(), Shape::from([4]));
    /// let errs = Linear::verify_source(&src).unwrap_err();
    /// assert_eq!(errs.missing_tensors(), ["bias"]);
    /// assert_eq!(errs.unexpected_tensors(), ["scale"]);
    /// assert_eq!(errs.mismatches().count(), 0);
    /// ```
    pub fn missing_tensors(&self) -> Vec<&str> {
        self.errors()
            .iter()
            .filter_map(|e| match &e.kind {
                ShapeErrorKind::Missing { tensor, .. } | ShapeErrorKind::Untied { tensor, .. } => {
                    Some(tensor.as_str())
                }
                _ => None,
            })
            .collect()
    }

    /// The source's tensors the struct does not describe, sorted (PyTorch's "unexpected
    /// keys"); empty in non-strict mode. See [`missing_tensors`](Self::missing_tensors).
    ///
    /// ```
    /// let errs = shapes::ShapeErrors::from(Vec::new());
    /// assert!(errs.unexpected_tensors().is_empty());
    /// ```
    pub fn unexpected_tensors(&self) -> &[String] {
        self.errors()
            .iter()
            .find_map(|e| match &e.kind {
                ShapeErrorKind::Unexpected { tensors } => Some(tensors.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    /// Each missing tensor that has a close unexpected name, with that name ("did you mean"),
    /// in order.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use shapes::{Shape, Shaped};
    /// #[derive(Shaped)]
    /// struct Norm { #[shape("(d,)")] weight: Shape }
    /// let mut src = BTreeMap::new();
    /// src.insert("wieght".to_string(), Shape::from([4]));
    /// let errs = Norm::verify_source(&src).unwrap_err();
    /// assert_eq!(errs.suggestions().collect::<Vec<_>>(), [("weight", "wieght")]);
    /// ```
    pub fn suggestions(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.errors().iter().filter_map(|e| match &e.kind {
            ShapeErrorKind::Missing {
                tensor,
                suggestion: Some(s),
            } => Some((tensor.as_str(), s.as_str())),
            _ => None,
        })
    }

    /// Every error that is neither a missing nor an unexpected tensor: shape mismatches,
    /// unsolvable dims, gaps. See [`missing_tensors`](Self::missing_tensors).
    ///
    /// ```
    /// assert_eq!(shapes::ShapeErrors::from(Vec::new()).mismatches().count(), 0);
    /// ```
    pub fn mismatches(&self) -> impl Iterator<Item = &ShapeError> + '_ {
        self.errors().iter().filter(|e| {
            !matches!(
                e.kind,
                ShapeErrorKind::Missing { .. }
                    | ShapeErrorKind::Unexpected { .. }
                    | ShapeErrorKind::Untied { .. }
            )
        })
    }
}

impl From<Vec<ShapeError>> for ShapeErrors {
    fn from(errors: Vec<ShapeError>) -> Self {
        ShapeErrors(errors, Vec::new())
    }
}

impl From<ShapeError> for ShapeErrors {
    fn from(error: ShapeError) -> Self {
        ShapeErrors(vec![error], Vec::new())
    }
}

impl IntoIterator for ShapeErrors {
    type Item = ShapeError;
    type IntoIter = std::vec::IntoIter<ShapeError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// Reads like `Display`, so that `fn main() -> Result<(), Box<dyn Error>>` prints the message.
impl core::fmt::Debug for ShapeErrors {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for ShapeErrors {}
