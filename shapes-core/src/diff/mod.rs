//! [`Diff`]: what differs between two checkpoints, tensor by tensor: the names only one of
//! them has, and the tensors both have whose shape or dtype differs. Any two formats compare
//! (a safetensors file with a GGUF file, a sharded checkpoint with one file): names are
//! compared as each file spells them, shapes row-major, dtypes in
//! [`CheckpointTensor::dtype`]'s spelling.
//!
//! Each checkpoint's names are looked up in the other's index, so a diff takes time linear in
//! the tensor count (times a logarithm). Its text (`text.rs`) is folded across layers and
//! bounded like a [`Report`](crate::report::Report)'s; its JSON (`json.rs`) lists everything.

mod json;
mod text;

use crate::shape::Shape;
use crate::source::{Checkpoint, CheckpointTensor};

pub use self::json::failure_json;

/// One tensor only one of two checkpoints has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffTensor {
    /// Its name.
    pub name: String,
    /// Its shape.
    pub shape: Shape,
    /// Its dtype.
    pub dtype: String,
}

impl DiffTensor {
    fn of(t: &CheckpointTensor) -> DiffTensor {
        DiffTensor {
            name: t.name.clone(),
            shape: t.shape.clone(),
            dtype: t.dtype.clone(),
        }
    }
}

/// A tensor both checkpoints have, with a different shape or dtype: its name, then its shape
/// and dtype in the first (`a`) and in the second (`b`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    /// Its name.
    pub name: String,
    /// Its shape in the first checkpoint.
    pub shape_a: Shape,
    /// Its shape in the second.
    pub shape_b: Shape,
    /// Its dtype in the first checkpoint.
    pub dtype_a: String,
    /// Its dtype in the second.
    pub dtype_b: String,
}

impl Changed {
    /// Whether its shape differs (else only its dtype does).
    ///
    /// ```
    /// let c = shapes::diff::Changed {
    ///     name: "w".into(),
    ///     shape_a: [2, 3].into(),
    ///     shape_b: [2, 3].into(),
    ///     dtype_a: "F32".into(),
    ///     dtype_b: "F16".into(),
    /// };
    /// assert!(!c.shape_changed());
    /// ```
    pub fn shape_changed(&self) -> bool {
        self.shape_a != self.shape_b
    }
}

/// What is known of one side of a diff: its path, its format and how many tensors it has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    /// The path it was opened by.
    pub path: String,
    /// Its format, with the number of files when there are several.
    pub format: String,
    /// How many tensors it has.
    pub tensors: usize,
}

impl Side {
    fn of(c: &Checkpoint) -> Side {
        Side {
            path: c.path().display().to_string(),
            format: c.format_and_files(),
            tensors: c.tensors().len(),
        }
    }
}

/// The differences between two checkpoints: the tensors only the second has (added), those
/// only the first has (removed), and those both have whose shape or dtype differs, each list
/// in its checkpoint's file order.
///
/// Two checkpoints with the same names and shapes [`match in shape`](Diff::same_shapes) even
/// when dtypes differ (a BF16 and an F16 export of one model): `shapes diff` exits 0 then, and
/// lists the dtype changes. Its `Display` folds repeated layers (`layers.{0..29}.w`) and shows
/// at most 50 lines of each kind, then a count of the rest ([`all`](Diff::all) shows every
/// line); [`to_json`](Diff::to_json) lists everything.
///
/// ```
/// use shapes::Checkpoint;
/// use shapes::diff::Diff;
///
/// fn safetensors(json: &str, data: usize) -> Vec<u8> {
///     let mut f = (json.len() as u64).to_le_bytes().to_vec();
///     f.extend_from_slice(json.as_bytes());
///     f.resize(f.len() + data, 0);
///     f
/// }
/// let a = Checkpoint::from_bytes(&safetensors(
///     r#"{"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},"b":{"dtype":"F32","shape":[3],"data_offsets":[24,36]}}"#,
///     36,
/// ))?;
/// let b = Checkpoint::from_bytes(&safetensors(
///     r#"{"w":{"dtype":"F32","shape":[2,4],"data_offsets":[0,32]},"c":{"dtype":"F16","shape":[3],"data_offsets":[32,38]}}"#,
///     38,
/// ))?;
/// let d = Diff::new(&a, &b);
/// assert!(!d.same_shapes());
/// assert_eq!(d.added()[0].name, "c");
/// assert_eq!(d.removed()[0].name, "b");
/// assert_eq!(d.changed()[0].name, "w");
/// assert!(d.to_string().contains("w: (2, 3) → (2, 4)"));
/// assert_eq!(d.to_json()["changed"][0]["shape_b"], serde_json::json!([2, 4]));
/// # Ok::<(), shapes::CheckpointError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Diff {
    a: Side,
    b: Side,
    added: Vec<DiffTensor>,
    removed: Vec<DiffTensor>,
    changed: Vec<Changed>,
    common: usize,
    all: bool,
}

impl Diff {
    /// The differences from `a` to `b`.
    ///
    /// ```
    /// # let bytes = {
    /// #     let json = r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
    /// #     let mut f = (json.len() as u64).to_le_bytes().to_vec();
    /// #     f.extend_from_slice(json.as_bytes());
    /// #     f.extend([0u8; 8]);
    /// #     f
    /// # };
    /// let a = shapes::Checkpoint::from_bytes(&bytes)?;
    /// let d = shapes::diff::Diff::new(&a, &a);
    /// assert!(d.is_empty() && d.same_shapes());
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn new(a: &Checkpoint, b: &Checkpoint) -> Diff {
        let mut removed = Vec::new();
        let mut changed = Vec::new();
        let mut common = 0usize;
        for t in a.tensors() {
            match b.get(&t.name) {
                None => removed.push(DiffTensor::of(t)),
                Some(u) => {
                    common = common.saturating_add(1);
                    if t.shape != u.shape || t.dtype != u.dtype {
                        changed.push(Changed {
                            name: t.name.clone(),
                            shape_a: t.shape.clone(),
                            shape_b: u.shape.clone(),
                            dtype_a: t.dtype.clone(),
                            dtype_b: u.dtype.clone(),
                        });
                    }
                }
            }
        }
        let added = b
            .tensors()
            .iter()
            .filter(|u| a.get(&u.name).is_none())
            .map(DiffTensor::of)
            .collect();
        Diff {
            a: Side::of(a),
            b: Side::of(b),
            added,
            removed,
            changed,
            common,
            all: false,
        }
    }

    /// The same diff, whose text shows every line (`shapes diff --all`) instead of at most 50
    /// of each kind.
    ///
    /// ```
    /// # let bytes = {
    /// #     let json = r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
    /// #     let mut f = (json.len() as u64).to_le_bytes().to_vec();
    /// #     f.extend_from_slice(json.as_bytes());
    /// #     f.extend([0u8; 8]);
    /// #     f
    /// # };
    /// let a = shapes::Checkpoint::from_bytes(&bytes)?;
    /// let d = shapes::diff::Diff::new(&a, &a).all(true);
    /// assert!(d.is_empty());
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn all(mut self, all: bool) -> Diff {
        self.all = all;
        self
    }

    /// The first checkpoint.
    ///
    /// ```
    /// # let bytes = {
    /// #     let json = r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
    /// #     let mut f = (json.len() as u64).to_le_bytes().to_vec();
    /// #     f.extend_from_slice(json.as_bytes());
    /// #     f.extend([0u8; 8]);
    /// #     f
    /// # };
    /// let a = shapes::Checkpoint::from_bytes(&bytes)?;
    /// assert_eq!(shapes::diff::Diff::new(&a, &a).a().tensors, 1);
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn a(&self) -> &Side {
        &self.a
    }

    /// The second checkpoint.
    ///
    /// ```
    /// # let bytes = {
    /// #     let json = r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
    /// #     let mut f = (json.len() as u64).to_le_bytes().to_vec();
    /// #     f.extend_from_slice(json.as_bytes());
    /// #     f.extend([0u8; 8]);
    /// #     f
    /// # };
    /// let a = shapes::Checkpoint::from_bytes(&bytes)?;
    /// assert_eq!(shapes::diff::Diff::new(&a, &a).b().format, "safetensors");
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn b(&self) -> &Side {
        &self.b
    }

    /// The tensors only the second checkpoint has, in its file order.
    ///
    /// ```
    /// # let bytes = {
    /// #     let json = r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
    /// #     let mut f = (json.len() as u64).to_le_bytes().to_vec();
    /// #     f.extend_from_slice(json.as_bytes());
    /// #     f.extend([0u8; 8]);
    /// #     f
    /// # };
    /// let a = shapes::Checkpoint::from_bytes(&bytes)?;
    /// assert!(shapes::diff::Diff::new(&a, &a).added().is_empty());
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn added(&self) -> &[DiffTensor] {
        &self.added
    }

    /// The tensors only the first checkpoint has, in its file order.
    ///
    /// ```
    /// # let bytes = {
    /// #     let json = r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
    /// #     let mut f = (json.len() as u64).to_le_bytes().to_vec();
    /// #     f.extend_from_slice(json.as_bytes());
    /// #     f.extend([0u8; 8]);
    /// #     f
    /// # };
    /// let a = shapes::Checkpoint::from_bytes(&bytes)?;
    /// assert!(shapes::diff::Diff::new(&a, &a).removed().is_empty());
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn removed(&self) -> &[DiffTensor] {
        &self.removed
    }

    /// The tensors both have whose shape or dtype differs, in the first checkpoint's order.
    ///
    /// ```
    /// # let bytes = {
    /// #     let json = r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
    /// #     let mut f = (json.len() as u64).to_le_bytes().to_vec();
    /// #     f.extend_from_slice(json.as_bytes());
    /// #     f.extend([0u8; 8]);
    /// #     f
    /// # };
    /// let a = shapes::Checkpoint::from_bytes(&bytes)?;
    /// assert!(shapes::diff::Diff::new(&a, &a).changed().is_empty());
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn changed(&self) -> &[Changed] {
        &self.changed
    }

    /// How many names both checkpoints have.
    ///
    /// ```
    /// # let bytes = {
    /// #     let json = r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
    /// #     let mut f = (json.len() as u64).to_le_bytes().to_vec();
    /// #     f.extend_from_slice(json.as_bytes());
    /// #     f.extend([0u8; 8]);
    /// #     f
    /// # };
    /// let a = shapes::Checkpoint::from_bytes(&bytes)?;
    /// assert_eq!(shapes::diff::Diff::new(&a, &a).common(), 1);
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn common(&self) -> usize {
        self.common
    }

    /// Whether both have the same names with the same shapes (dtypes may differ): the diff
    /// `shapes diff` exits 0 on.
    ///
    /// ```
    /// # let bytes = {
    /// #     let json = r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
    /// #     let mut f = (json.len() as u64).to_le_bytes().to_vec();
    /// #     f.extend_from_slice(json.as_bytes());
    /// #     f.extend([0u8; 8]);
    /// #     f
    /// # };
    /// let a = shapes::Checkpoint::from_bytes(&bytes)?;
    /// assert!(shapes::diff::Diff::new(&a, &a).same_shapes());
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn same_shapes(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && !self.changed.iter().any(Changed::shape_changed)
    }

    /// Whether nothing differs: names, shapes and dtypes.
    ///
    /// ```
    /// # let bytes = {
    /// #     let json = r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
    /// #     let mut f = (json.len() as u64).to_le_bytes().to_vec();
    /// #     f.extend_from_slice(json.as_bytes());
    /// #     f.extend([0u8; 8]);
    /// #     f
    /// # };
    /// let a = shapes::Checkpoint::from_bytes(&bytes)?;
    /// assert!(shapes::diff::Diff::new(&a, &a).is_empty());
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}
