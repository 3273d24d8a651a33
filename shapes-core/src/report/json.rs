//! A [`Report`] as JSON for CI: every entry, unbounded, in one schema whatever the outcome
//! (every key present, empty when empty).

use serde_json::{Value, json};

use super::Report;
use crate::verify::{Bindings, ShapeErrorKind};

fn value_json(v: &crate::verify::Value) -> Value {
    match v {
        crate::verify::Value::Size(n) => json!(n),
        crate::verify::Value::Shape(s) => json!(s.dims()),
    }
}

impl Report {
    fn bindings_json(&self, b: &Bindings) -> Value {
        b.iter()
            .map(|x| {
                json!({
                    "variable": x.name,
                    "value": value_json(&x.value),
                    "bound_by": match &x.origin {
                        crate::verify::Origin::Given => self.given_by.clone(),
                        o => o.to_string(),
                    },
                })
            })
            .collect()
    }

    /// The report as JSON: what `shapes check --json` prints. Every key is present whatever
    /// the outcome (`notes` is empty for a spec that describes the architecture; `bindings`
    /// and `tied` are empty on a mismatch; `errors`, `missing`,
    /// `unexpected`, `suggestions`, `wrong_dtypes` and `config_disagreements` on a match), and every entry is
    /// listed, however many.
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
    /// assert_eq!(v["ok"], true);
    /// assert_eq!(v["bindings"][0]["variable"], "n");
    /// assert_eq!(v["errors"].as_array().map(Vec::len), Some(0));
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
                    .map(|e| {
                        json!({
                            "path": e.path.to_string(),
                            "tensor": e.tensor,
                            "axis": e.axis,
                            "message": e.to_string(),
                        })
                    })
                    .collect(),
                json!(errors.missing_tensors()),
                json!(errors.unexpected_tensors()),
                errors
                    .suggestions()
                    .map(|(m, u)| json!({ "missing": m, "did_you_mean": u }))
                    .collect(),
            ),
        };
        json!({
            "path": self.source,
            "format": self.format,
            "tensors": self.tensors,
            "spec": { "name": self.spec_name, "file": self.spec_file },
            "notes": self.notes,
            "ok": self.ok(),
            "given": self.given.iter().map(|g| json!({
                "variable": g.var, "value": g.value, "source": g.source,
            })).collect::<Vec<_>>(),
            "bindings": bindings,
            "tied": tied,
            "errors": errors,
            "missing": missing,
            "unexpected": unexpected,
            "suggestions": suggestions,
            "wrong_dtypes": self.dtypes.iter().map(|w| json!({
                "tensor": w.tensor, "dtype": w.dtype, "allowed": w.allowed,
            })).collect::<Vec<_>>(),
            "config_disagreements": self.disagreements.iter().map(|d| json!({
                "variable": d.var, "stated": d.stated, "source": d.source,
                "found": d.found, "bound_by": d.bound_by,
            })).collect::<Vec<_>>(),
        })
    }
}
