//! A [`Report`] as JSON for CI: every entry, unbounded, in one schema whatever the outcome
//! (every key present, empty when empty), documented as a JSON Schema in
//! `shapes-cli/report.schema.json`. [`failure_json`] is the same schema for a check that
//! could not run (exit code 2).

use serde_json::{Value, json};

use super::Report;
use crate::verify::{Bindings, Origin, ShapeError, ShapeErrorKind};

/// The version of the JSON schema, the `schema_version` key: raised when a key changes
/// meaning or goes away (adding keys keeps it).
pub const SCHEMA_VERSION: u32 = 1;

fn value_json(v: &crate::verify::Value) -> Value {
    match v {
        crate::verify::Value::Size(n) => json!(n),
        crate::verify::Value::Shape(s) => json!(s.dims()),
    }
}

/// The kind of an error as a JSON string: its `ShapeErrorKind` variant in snake case.
pub(super) fn kind_name(kind: &ShapeErrorKind) -> &'static str {
    match kind {
        ShapeErrorKind::Rank { .. } => "rank",
        ShapeErrorKind::Literal { .. } => "literal",
        ShapeErrorKind::Dim { .. } => "dim",
        ShapeErrorKind::Variadic { .. } => "variadic",
        ShapeErrorKind::Arithmetic { .. } => "arithmetic",
        ShapeErrorKind::Unsolved { .. } => "unsolved",
        ShapeErrorKind::NotGiven { .. } => "not_given",
        ShapeErrorKind::Where { .. } => "where",
        ShapeErrorKind::UnknownBinding { .. } => "unknown_binding",
        ShapeErrorKind::Missing { .. } => "missing",
        ShapeErrorKind::Unexpected { .. } => "unexpected",
        ShapeErrorKind::Gap { .. } => "gap",
        ShapeErrorKind::Count { .. } => "count",
        ShapeErrorKind::Transposed { .. } => "transposed",
        ShapeErrorKind::Source { .. } => "source",
        ShapeErrorKind::ConfigKey { .. } => "config_key",
        ShapeErrorKind::Layout { .. } => "layout",
        ShapeErrorKind::Untied { .. } => "untied",
    }
}

/// What an error expected and what it found, as numbers (a size, a rank, a count) or lists
/// of numbers (a shape), `null` when the error has none.
fn expected_found(e: &ShapeError) -> (Value, Value) {
    let found_dim = e.found().map_or(Value::Null, |f| json!(f));
    match &e.kind {
        ShapeErrorKind::Rank { expected, .. } => (
            json!(expected),
            e.shape.as_ref().map_or(Value::Null, |s| json!(s.rank())),
        ),
        ShapeErrorKind::Literal { expected } => (json!(expected), found_dim),
        ShapeErrorKind::Dim { value, .. } => (json!(value), found_dim),
        ShapeErrorKind::Variadic {
            expected, found, ..
        } => (json!(expected.dims()), json!(found.dims())),
        ShapeErrorKind::Count {
            expected, found, ..
        } => (json!(expected), json!(found)),
        ShapeErrorKind::Transposed { expected } => (
            json!(expected.dims()),
            e.shape.as_ref().map_or(Value::Null, |s| json!(s.dims())),
        ),
        _ => (Value::Null, found_dim),
    }
}

impl Report {
    /// Where a value came from, in the report's words.
    fn origin_json(&self, o: &Origin) -> String {
        match o {
            Origin::Given => self.given_by.clone(),
            o => o.to_string(),
        }
    }

    fn bindings_json(&self, b: &Bindings) -> Value {
        b.iter()
            .map(|x| {
                json!({
                    "variable": x.name,
                    "value": value_json(&x.value),
                    "bound_by": self.origin_json(&x.origin),
                })
            })
            .collect()
    }

    /// One error: its kind, where (the field path, the tensor, the axis), what was expected
    /// and found, the pattern and shape, every variable involved with its value and where it
    /// was bound, and the whole message.
    pub(super) fn error_json(&self, e: &ShapeError) -> Value {
        let (expected, found) = expected_found(e);
        let expected_text = match &e.kind {
            ShapeErrorKind::Dim { expected, .. } => json!(expected),
            _ => Value::Null,
        };
        let variables: Vec<Value> = e
            .provenance
            .iter()
            .map(|p| {
                let value = p
                    .value
                    .parse::<usize>()
                    .map_or_else(|_| json!(p.value), |n| json!(n));
                json!({ "name": p.name, "value": value, "bound_by": self.origin_json(&p.origin) })
            })
            .collect();
        json!({
            "kind": kind_name(&e.kind),
            "path": e.path.to_string(),
            "tensor": e.tensor,
            "axis": e.axis,
            "expected": expected,
            "expected_text": expected_text,
            "found": found,
            "pattern": e.pattern,
            "declared_at": e.declared_at.map(|p| json!({ "file": p.file, "line": p.line, "column": p.column })),
            "shape": e.shape.as_ref().map(|s| s.dims().to_vec()),
            "variables": variables,
            "message": self.error_text(e, false),
        })
    }

    /// The report as JSON: what `shapes check --json` prints, in the schema
    /// `shapes-cli/report.schema.json` documents. Every key is present whatever the outcome
    /// (`notes` is empty for a spec that describes the architecture; `bindings` and `tied`
    /// are empty on a mismatch; `errors`, `missing`, `unexpected`, `suggestions`,
    /// `wrong_dtypes` and `config_disagreements` on a match; `error` is `null` when the check
    /// ran), and every entry is listed, however many.
    ///
    /// ```
    /// # let ckpt = shapes::Checkpoint::from_bytes(&{
    /// #     let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    /// #     let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    /// #     npy.extend((dict.len() as u16).to_le_bytes());
    /// #     npy.extend(dict.as_bytes());
    /// #     npy.extend([0u8; 8]);
    /// #     npy
    /// # })?;
    /// let spec = shapes::Spec::from_toml("s.toml", "[tensors]\n\"array\" = \"(n,)\"\n")?;
    /// let v = spec.check(&ckpt).to_json();
    /// assert_eq!((v["ok"].clone(), v["exit"].clone()), (true.into(), 0.into()));
    /// assert_eq!(v["bindings"][0]["variable"], "n");
    /// assert_eq!(v["errors"].as_array().map(Vec::len), Some(0));
    ///
    /// let bad = shapes::Spec::from_toml("s.toml", "[tensors]\n\"array\" = \"(3,)\"\n")?;
    /// let v = bad.check(&ckpt).to_json();
    /// assert_eq!(v["errors"][0]["kind"], "literal");
    /// assert_eq!((v["errors"][0]["expected"].clone(), v["errors"][0]["found"].clone()), (3.into(), 2.into()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_json(&self) -> Value {
        let (bindings, tied) = match &self.result {
            Ok(b) => (
                self.bindings_json(b),
                b.tied()
                    .iter()
                    .map(|t| json!({ "tensor": t.tensor, "tied_to": t.to }))
                    .collect(),
            ),
            Err(_) => (json!([]), json!([])),
        };
        let (errors, missing, unexpected, suggestions) = match &self.result {
            Ok(_) => (json!([]), json!([]), json!([]), json!([])),
            Err(errors) => (
                errors
                    .errors()
                    .iter()
                    .filter(|e| {
                        !matches!(
                            e.kind,
                            ShapeErrorKind::Missing { .. } | ShapeErrorKind::Unexpected { .. }
                        )
                    })
                    .map(|e| self.error_json(e))
                    .collect(),
                json!(errors.missing_tensors()),
                json!(errors.unexpected_tensors()),
                errors
                    .suggestions()
                    .map(|(m, u)| json!({ "missing": m, "did_you_mean": u }))
                    .collect(),
            ),
        };
        let warnings: Vec<Value> = self
            .warnings()
            .iter()
            .map(|t| {
                json!({
                    "kind": "unexpected",
                    "tensor": t,
                    "message": format!("the spec does not describe tensor {t:?} (allowed: the check is not strict)"),
                })
            })
            .collect();
        json!({
            "schema_version": SCHEMA_VERSION,
            "ok": self.ok(),
            "exit": if self.ok() { 0 } else { 1 },
            "error": Value::Null,
            "path": self.source,
            "format": self.format,
            "tensors": self.tensors,
            "spec": { "name": self.spec_name, "file": self.spec_file },
            "notes": self.notes,
            "given": self.given.iter().map(|g| json!({
                "variable": g.var, "value": g.value, "source": g.source,
            })).collect::<Vec<_>>(),
            "bindings": bindings,
            "tied": tied,
            "errors": errors,
            "missing": missing,
            "unexpected": unexpected,
            "warnings": warnings,
            "suggestions": suggestions,
            "wrong_dtypes": self.dtypes.iter().map(|w| json!({
                "tensor": w.tensor, "dtype": w.dtype, "allowed": w.allowed,
            })).collect::<Vec<_>>(),
            "config_disagreements": self.disagreements.iter().map(|d| json!({
                "variable": d.var, "stated": d.stated, "source": d.source,
                "found": d.found, "bound_by": d.bound_by,
            })).collect::<Vec<_>>(),
            "config_not_found": self.not_found.iter().map(|(var, keys)| json!({
                "variable": var, "keys": keys,
            })).collect::<Vec<_>>(),
        })
    }
}

/// A check that could not run (the command's exit code 2: an unreadable file, a bad spec,
/// a wrong option), in the schema of [`Report::to_json`]: `ok` false, `exit` 2, the message
/// in `error`, what is known of the checkpoint and the spec (`null` otherwise), and every
/// list empty.
///
/// ```
/// let v = shapes::report::failure_json("no such file", Some("model.safetensors"), None);
/// assert_eq!((v["exit"].clone(), v["error"].clone()), (2.into(), "no such file".into()));
/// assert_eq!(v["path"], "model.safetensors");
/// assert_eq!(v["errors"].as_array().map(Vec::len), Some(0));
/// ```
pub fn failure_json(error: &str, path: Option<&str>, spec: Option<(&str, &str)>) -> Value {
    json!({
        "schema_version": SCHEMA_VERSION,
        "ok": false,
        "exit": 2,
        "error": error,
        "path": path,
        "format": Value::Null,
        "tensors": Value::Null,
        "spec": {
            "name": spec.map(|(n, _)| n),
            "file": spec.map(|(_, f)| f),
        },
        "notes": [],
        "given": [],
        "bindings": [],
        "tied": [],
        "errors": [],
        "missing": [],
        "unexpected": [],
        "warnings": [],
        "suggestions": [],
        "wrong_dtypes": [],
        "config_disagreements": [],
        "config_not_found": [],
    })
}
