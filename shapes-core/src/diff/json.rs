//! A [`Diff`] as JSON for CI: every entry, unbounded, every key present whatever the outcome;
//! [`failure_json`] is the same schema for a diff that could not run (exit code 2).

use serde_json::{Value, json};

use super::{Diff, DiffTensor, Side};

/// The version of the diff's JSON schema, its `schema_version` key.
const SCHEMA_VERSION: u32 = 1;

fn tensor_json(t: &DiffTensor) -> Value {
    json!({ "name": t.name, "shape": t.shape.dims(), "dtype": t.dtype })
}

fn side_json(s: &Side) -> Value {
    json!({ "path": s.path, "format": s.format, "tensors": s.tensors })
}

impl Diff {
    /// The diff as JSON: what `shapes diff --json` prints. `same_shapes` is the verdict (the
    /// same names and shapes; dtypes may differ), `exit` the command's exit code (0 or 1),
    /// `error` `null`; `added`, `removed` and `changed` list every entry (`changed` with the
    /// shape and dtype in `a` and in `b`, and whether the shape changed).
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
    /// let v = shapes::diff::Diff::new(&a, &a).to_json();
    /// assert_eq!((v["same_shapes"].clone(), v["exit"].clone()), (true.into(), 0.into()));
    /// assert_eq!(v["a"]["tensors"], 1);
    /// assert_eq!(v["added"].as_array().map(Vec::len), Some(0));
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn to_json(&self) -> Value {
        let same = self.same_shapes();
        json!({
            "schema_version": SCHEMA_VERSION,
            "same_shapes": same,
            "identical": self.is_empty(),
            "exit": if same { 0 } else { 1 },
            "error": Value::Null,
            "a": side_json(&self.a),
            "b": side_json(&self.b),
            "common": self.common,
            "added": self.added.iter().map(tensor_json).collect::<Vec<_>>(),
            "removed": self.removed.iter().map(tensor_json).collect::<Vec<_>>(),
            "changed": self.changed.iter().map(|c| json!({
                "name": c.name,
                "shape_changed": c.shape_changed(),
                "shape_a": c.shape_a.dims(),
                "shape_b": c.shape_b.dims(),
                "dtype_a": c.dtype_a,
                "dtype_b": c.dtype_b,
            })).collect::<Vec<_>>(),
        })
    }
}

/// A diff that could not run (a checkpoint could not be read: exit code 2), in the schema of
/// [`Diff::to_json`]: `exit` 2, the message in `error`, the sides `null`, every list empty.
///
/// ```
/// let v = shapes::diff::failure_json("b.gguf: no such file");
/// assert_eq!((v["exit"].clone(), v["error"].clone()), (2.into(), "b.gguf: no such file".into()));
/// assert_eq!(v["changed"].as_array().map(Vec::len), Some(0));
/// ```
pub fn failure_json(error: &str) -> Value {
    json!({
        "schema_version": SCHEMA_VERSION,
        "same_shapes": false,
        "identical": false,
        "exit": 2,
        "error": error,
        "a": Value::Null,
        "b": Value::Null,
        "common": 0,
        "added": [],
        "removed": [],
        "changed": [],
    })
}
