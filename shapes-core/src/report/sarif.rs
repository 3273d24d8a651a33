//! A [`Report`] as SARIF 2.1.0, the format code-scanning dashboards read (GitHub's among
//! them): one result per error and per warning, each located at the checkpoint file and,
//! logically, at its tensor's name.

use serde_json::{Value, json};

use super::Report;
use super::json::kind_name;
use crate::verify::{ShapeError, ShapeErrorKind};

/// What each rule (an error's kind) is about, for the SARIF rule list.
const RULES: &[(&str, &str)] = &[
    (
        "rank",
        "a tensor has another number of dims than its pattern",
    ),
    (
        "literal",
        "a dim differs from the number its pattern states",
    ),
    ("dim", "a dim differs from the value its variable has"),
    (
        "variadic",
        "a sub-shape differs from the one its variadic has",
    ),
    ("arithmetic", "a dim's arithmetic cannot hold"),
    (
        "unsolved",
        "a dim cannot be checked: a variable is never bound",
    ),
    (
        "not_given",
        "a dim cannot be checked: a given variable was not passed",
    ),
    ("where", "a where clause does not hold"),
    (
        "unknown_binding",
        "a value was given for a variable the spec does not have",
    ),
    ("missing", "a tensor the spec needs is missing"),
    ("unexpected", "a tensor the spec does not describe"),
    ("gap", "a list's elements are not numbered without gaps"),
    ("count", "a list has another number of elements"),
    ("transposed", "a tensor is stored transposed"),
    ("source", "the checkpoint could not be read"),
    ("config_key", "a config key is likely misspelt"),
    ("layout", "the checkpoint is in another framework's layout"),
    (
        "untied",
        "a tied tensor is missing while the checkpoint says it is not tied",
    ),
];

fn driver() -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|(id, text)| json!({ "id": id, "shortDescription": { "text": text } }))
        .collect();
    json!({
        "name": "shapes",
        "informationUri": "https://github.com/shapes-rs/shapes",
        "version": env!("CARGO_PKG_VERSION"),
        "rules": rules,
    })
}

/// A check that could not run (an unreadable file, a bad spec: the command's exit code 2) as
/// a SARIF 2.1.0 log: one run whose invocation failed, with the message as its
/// notification, and no results.
///
/// ```
/// let log = shapes::report::failure_sarif("no such file", Some("model.safetensors"));
/// let inv = &log["runs"][0]["invocations"][0];
/// assert_eq!(inv["executionSuccessful"], false);
/// assert_eq!(inv["toolExecutionNotifications"][0]["message"]["text"], "no such file");
/// ```
pub fn failure_sarif(error: &str, path: Option<&str>) -> Value {
    let artifacts: Vec<Value> = path
        .map(|p| json!({ "location": { "uri": p } }))
        .into_iter()
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": driver() },
            "invocations": [{
                "executionSuccessful": false,
                "toolExecutionNotifications": [{ "level": "error", "message": { "text": error } }],
            }],
            "artifacts": artifacts,
            "results": [],
        }],
    })
}

impl Report {
    fn sarif_result(&self, rule: &str, level: &str, text: &str, tensor: Option<&str>) -> Value {
        let mut location = json!({
            "physicalLocation": { "artifactLocation": { "uri": self.source } },
        });
        if let Some(t) = tensor {
            location["logicalLocations"] =
                json!([{ "name": t, "fullyQualifiedName": t, "kind": "member" }]);
        }
        json!({
            "ruleId": rule,
            "level": level,
            "message": { "text": text },
            "locations": [location],
        })
    }

    fn sarif_error(&self, e: &ShapeError) -> Value {
        let tensor = match &e.kind {
            ShapeErrorKind::Missing { tensor, .. } | ShapeErrorKind::Untied { tensor, .. } => {
                Some(tensor.as_str())
            }
            _ => e.tensor.as_deref(),
        };
        let mut result = self.sarif_result(
            kind_name(&e.kind),
            "error",
            &self.error_text(e, false),
            tensor,
        );
        // The spec file's line that declares what the error is about (a pattern, a `where`, a
        // `[repeat]`), when the spec was read from a file a viewer can open (not a built-in
        // spec's text, not a string).
        if let Some(p) = e.declared_at.filter(|p| self.places && p.line > 0) {
            result["relatedLocations"] = json!([{
                "id": 0,
                "message": { "text": "declared here" },
                "physicalLocation": {
                    "artifactLocation": { "uri": p.file },
                    "region": { "startLine": p.line, "startColumn": p.column.max(1) },
                },
            }]);
        }
        result
    }

    /// The report as a SARIF 2.1.0 log (`shapes check --format sarif`): one run of the tool
    /// `shapes`, one result per error (level `error`; an unexpected-tensors error gives one
    /// result per tensor) and per warning (level `warning`), each located at the checkpoint
    /// (its path as the artifact) and at the tensor's name (a logical location).
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
    /// let spec = shapes::Spec::from_toml("s.toml", "[tensors]\n\"array\" = \"(3,)\"\n")?;
    /// let log = spec.check(&ckpt).to_sarif();
    /// assert_eq!(log["version"], "2.1.0");
    /// let result = &log["runs"][0]["results"][0];
    /// assert_eq!((result["ruleId"].clone(), result["level"].clone()), ("literal".into(), "error".into()));
    /// assert_eq!(result["locations"][0]["logicalLocations"][0]["name"], "array");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_sarif(&self) -> Value {
        let mut results: Vec<Value> = Vec::new();
        if let Err(errors) = &self.result {
            for e in errors.errors() {
                match &e.kind {
                    ShapeErrorKind::Unexpected { tensors } => {
                        results.extend(tensors.iter().map(|t| {
                            self.sarif_result(
                                "unexpected",
                                "error",
                                &format!(
                                    "the spec {} does not describe tensor {t:?}",
                                    self.spec_name
                                ),
                                Some(t),
                            )
                        }));
                    }
                    _ => results.push(self.sarif_error(e)),
                }
            }
        }
        results.extend(self.warnings().iter().map(|t| {
            self.sarif_result(
                "unexpected",
                "warning",
                &format!(
                    "the spec {} does not describe tensor {t:?} (allowed: the check is not strict)",
                    self.spec_name
                ),
                Some(t),
            )
        }));
        json!({
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [{
                "tool": { "driver": driver() },
                "invocations": [{ "executionSuccessful": true }],
                "artifacts": [{ "location": { "uri": self.source } }],
                "results": results,
            }],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_one_rule_and_every_rule_a_kind() {
        use crate::source::{ConfigEntry, ConfigPlace, ConfigValue};
        let shape = crate::Shape::from([1]);
        let s = String::new;
        let kinds = [
            ShapeErrorKind::Rank {
                expected: 1,
                at_least: false,
            },
            ShapeErrorKind::Literal { expected: 1 },
            ShapeErrorKind::Dim {
                expected: s(),
                value: 1,
            },
            ShapeErrorKind::Variadic {
                name: s(),
                expected: shape.clone(),
                found: shape.clone(),
            },
            ShapeErrorKind::Arithmetic { detail: s() },
            ShapeErrorKind::Unsolved {
                expr: s(),
                unknown: vec![],
            },
            ShapeErrorKind::NotGiven {
                expr: s(),
                names: vec![],
            },
            ShapeErrorKind::Where { detail: s() },
            ShapeErrorKind::UnknownBinding {
                name: s(),
                suggestion: None,
            },
            ShapeErrorKind::Missing {
                tensor: s(),
                suggestion: None,
            },
            ShapeErrorKind::Unexpected { tensors: vec![] },
            ShapeErrorKind::Gap {
                prefix: s(),
                index: 0,
                later: vec![],
            },
            ShapeErrorKind::Count {
                prefix: s(),
                expected: 1,
                at_least: true,
                variable: None,
                found: 0,
                suggestion: None,
            },
            ShapeErrorKind::Transposed { expected: shape },
            ShapeErrorKind::Source { detail: s() },
            ShapeErrorKind::ConfigKey {
                variable: s(),
                key: s(),
                near: ConfigEntry {
                    key: s(),
                    value: ConfigValue::Size(1),
                    place: ConfigPlace::ConfigJson,
                },
            },
            ShapeErrorKind::Layout {
                framework: s(),
                transposed: vec![],
                renamed: vec![],
            },
            ShapeErrorKind::Untied {
                tensor: s(),
                to: s(),
                stated: s(),
            },
        ];
        let mut names: Vec<&str> = kinds.iter().map(kind_name).collect();
        names.sort_unstable();
        let mut ids: Vec<&str> = RULES.iter().map(|(id, _)| *id).collect();
        ids.sort_unstable();
        assert_eq!(names, ids);
    }
}
