//! A spec checked against a checkpoint: the sizes the checkpoint states (its config, its
//! metadata) and the caller's values bound first, then every tensor checked; a stated value
//! that the tensors alone contradict is named as the one cause of the mismatches it makes.

use std::fmt;

use super::Spec;
use std::collections::HashMap;

use crate::report::{Disagreement, Given, Report, WrongDtype};
use crate::source::{Checkpoint, ConfigValue, ShapeSource, SortedNames};
use crate::verify::{Bindings, SourceOptions, closest};

/// How [`Spec::check_with`] checks: values given before checking, whether tensors the spec
/// does not describe are errors, and how the report names the caller's values.
///
/// ```
/// let o = shapes::CheckOptions::new().set("heads", 9).strict(false).given_by("--set");
/// assert_eq!(o.sets(), [("heads".to_string(), 9)]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOptions {
    sets: Vec<(String, usize)>,
    strict: bool,
    given_by: String,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            sets: Vec::new(),
            strict: true,
            given_by: "the caller".into(),
        }
    }
}

impl CheckOptions {
    /// Strict, nothing given.
    ///
    /// ```
    /// assert!(shapes::CheckOptions::new().sets().is_empty());
    /// ```
    pub fn new() -> Self {
        CheckOptions::default()
    }

    /// Gives `var` the value `value` before checking; it wins over what the checkpoint
    /// states.
    ///
    /// ```
    /// let o = shapes::CheckOptions::new().set("heads", 9).set("heads", 8);
    /// assert_eq!(o.sets(), [("heads".to_string(), 8)]);
    /// ```
    pub fn set(mut self, var: impl Into<String>, value: usize) -> Self {
        let var = var.into();
        self.sets.retain(|(v, _)| *v != var);
        self.sets.push((var, value));
        self
    }

    /// With `strict` false, tensors the spec does not describe are allowed.
    ///
    /// ```
    /// let o = shapes::CheckOptions::new().strict(false);
    /// # let _ = o;
    /// ```
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// How the report names where given values come from (`--set` in the command; "the
    /// caller" by default).
    ///
    /// ```
    /// let o = shapes::CheckOptions::new().given_by("--set");
    /// # let _ = o;
    /// ```
    pub fn given_by(mut self, name: impl Into<String>) -> Self {
        self.given_by = name.into();
        self
    }

    /// The values given, in order.
    ///
    /// ```
    /// assert_eq!(shapes::CheckOptions::new().set("d", 4).sets()[0].1, 4);
    /// ```
    pub fn sets(&self) -> &[(String, usize)] {
        &self.sets
    }
}

/// Why a check could not run: the values it was given do not fit the spec.
///
/// ```
/// use shapes::{CheckOptions, Checkpoint, Spec, spec::CheckError};
/// let spec = Spec::builtin("llama", shapes::spec::Naming::HuggingFace).unwrap();
/// # let ckpt = Checkpoint::from_bytes(&{
/// #     let mut npy = b"\x93NUMPY\x01\x00".to_vec();
/// #     let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
/// #     npy.extend((dict.len() as u16).to_le_bytes());
/// #     npy.extend(dict.as_bytes());
/// #     npy.extend([0u8; 8]);
/// #     npy
/// # }).unwrap();
/// let e = spec.check_with(&ckpt, &CheckOptions::new().set("head", 8)).unwrap_err();
/// assert!(matches!(&e, CheckError::UnknownVariable { suggestion: Some(s), .. } if s == "heads"));
/// assert_eq!(e.to_string(), "the spec Llama has no variable `head` (did you mean `heads`?); its variables are vocab, d_model, n_layers, heads, head_dim, kv_heads, d_ff");
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CheckError {
    /// A value was given for a variable the spec does not have.
    UnknownVariable {
        /// The spec's name.
        spec: String,
        /// The variable given.
        var: String,
        /// The spec's variable closest to it, when close.
        suggestion: Option<String>,
        /// Every variable of the spec.
        variables: Vec<String>,
    },
    /// A `given` variable that the checkpoint does not state and that was not given.
    GivenNotStated {
        /// The variable.
        var: String,
        /// The keys looked for.
        keys: Vec<String>,
    },
    /// A variable the spec binds from config keys none of which the checkpoint states,
    /// while it states a key a slip of the fingers away from one of them: a likely
    /// misspelling in the spec, which would leave the variable unchecked against the config.
    MisspeltKey {
        /// The variable.
        var: String,
        /// The spec's key.
        key: String,
        /// What the checkpoint states instead (``config `d_model` = 64``).
        near: crate::source::ConfigEntry,
    },
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::UnknownVariable {
                spec,
                var,
                suggestion,
                variables,
            } => {
                write!(f, "the spec {spec} has no variable `{var}`")?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean `{s}`?)")?;
                }
                write!(f, "; its variables are {}", variables.join(", "))
            }
            CheckError::GivenNotStated { var, keys } => {
                write!(
                    f,
                    "`{var}` shows in no tensor's shape and the checkpoint does not state it"
                )?;
                if !keys.is_empty() {
                    write!(f, " (looked for {})", keys.join(", "))?;
                }
                write!(f, ": give its value before checking")
            }
            CheckError::MisspeltKey { var, key, near } => write!(
                f,
                "the spec binds `{var}` from the key `{key}`, which the checkpoint does not state, but it states {near}: a misspelt key leaves `{var}` unchecked against the {}; correct the key in the spec's [config] (or give `{var}` before checking)",
                near.place
            ),
        }
    }
}

impl fmt::Debug for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for CheckError {}

/// A source that states nothing under some keys: the check without one stated value.
struct Hiding<'a, S: ?Sized> {
    src: &'a S,
    keys: &'a [String],
}

impl<S: ShapeSource + ?Sized> ShapeSource for Hiding<'_, S> {
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        self.src.shape_of(name)
    }
    fn tensor_names(&self) -> Vec<&str> {
        self.src.tensor_names()
    }
    fn config(&self, key: &str) -> Option<crate::source::ConfigEntry> {
        if self.keys.iter().any(|k| k == key) {
            return None;
        }
        self.src.config(key)
    }
    fn dtype_of(&self, name: &str) -> Option<&str> {
        self.src.dtype_of(name)
    }
}

impl Spec {
    /// Checks `ckpt` against the spec, strictly, with the sizes it states bound first: the
    /// report the `shapes check` command prints (its `Display`) and serialises with `--json`.
    ///
    /// ```
    /// use shapes::{Checkpoint, Spec};
    /// # let dir = std::env::temp_dir().join(format!("shapes-doc-spec-check-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # let path = dir.join("model.safetensors");
    /// # let header = r#"{"w":{"dtype":"F32","shape":[3,4],"data_offsets":[0,48]}}"#;
    /// # let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    /// # bytes.extend(header.as_bytes());
    /// # bytes.extend([0u8; 48]);
    /// # std::fs::write(&path, bytes).unwrap();
    /// let spec = Spec::from_toml("s.toml", "[tensors]\n\"w\" = \"(n, n)\"\n")?;
    /// let report = spec.check(&Checkpoint::open(&path)?);
    /// assert!(!report.ok());
    /// assert!(report.to_string().contains("axis 1 expected n = 3, found 4"), "{report}");
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check(&self, ckpt: &Checkpoint) -> Report {
        self.run(ckpt, &CheckOptions::new())
    }

    /// Checks `ckpt` against the spec with `options`: the values given win over what the
    /// checkpoint states; an unknown variable given, or a `given` variable nobody states, is
    /// an error before any tensor is checked.
    ///
    /// ```
    /// use shapes::{CheckOptions, Checkpoint, Spec, spec::CheckError};
    /// # let npy = {
    /// #     let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    /// #     let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }";
    /// #     npy.extend((dict.len() as u16).to_le_bytes());
    /// #     npy.extend(dict.as_bytes());
    /// #     npy.extend([0u8; 24]);
    /// #     npy
    /// # };
    /// let ckpt = Checkpoint::from_bytes(&npy)?;
    /// let spec = Spec::from_toml("s.toml", "given = [\"heads\"]\n[tensors]\n\"array\" = \"(heads * head_dim,)\"\n")?;
    /// let e = spec.check_with(&ckpt, &CheckOptions::new()).unwrap_err();
    /// assert!(matches!(e, CheckError::GivenNotStated { .. }));
    /// let report = spec.check_with(&ckpt, &CheckOptions::new().set("heads", 2))?;
    /// assert!(report.ok());
    /// assert_eq!(report.bindings().unwrap().get("head_dim"), Some(3));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_with(
        &self,
        ckpt: &Checkpoint,
        options: &CheckOptions,
    ) -> Result<Report, CheckError> {
        let variables = self.plan().variables();
        for (var, _) in &options.sets {
            if !variables.contains(&var.as_str()) {
                return Err(CheckError::UnknownVariable {
                    spec: self.name.clone(),
                    var: var.clone(),
                    suggestion: closest(var, variables),
                    variables: variables.iter().map(|v| (*v).to_owned()).collect(),
                });
            }
        }
        for (var, keys) in &self.config {
            if options.sets.iter().any(|(v, _)| v == var)
                || keys.iter().any(|k| ckpt.config(k).is_some())
            {
                continue;
            }
            if let Some((key, near)) = keys.iter().find_map(|k| Some((k, ckpt.config_near(k)?))) {
                return Err(CheckError::MisspeltKey {
                    var: var.clone(),
                    key: key.clone(),
                    near,
                });
            }
        }
        let report = self.run(ckpt, options);
        for g in &self.given {
            if !report.given().iter().any(|x| x.var == *g) {
                let keys = self
                    .config
                    .iter()
                    .find(|(v, _)| v == g)
                    .map(|(_, k)| k.clone())
                    .unwrap_or_default();
                return Err(CheckError::GivenNotStated {
                    var: g.clone(),
                    keys,
                });
            }
        }
        Ok(report)
    }

    /// The values `ckpt` states for the spec's variables, then the given ones (which win).
    fn givens(&self, ckpt: &Checkpoint, options: &CheckOptions) -> Vec<Given> {
        let mut out: Vec<Given> = self
            .config
            .iter()
            .filter_map(|(var, keys)| {
                let (value, entry) = keys.iter().find_map(|k| {
                    let e = ckpt.config(k)?;
                    match e.value {
                        ConfigValue::Size(n) => Some((n, e)),
                        _ => None,
                    }
                })?;
                Some(Given {
                    var: var.clone(),
                    value,
                    source: format!("{} `{}`", entry.place, entry.key),
                    keys: keys.clone(),
                })
            })
            .collect();
        for (var, value) in &options.sets {
            out.retain(|g| g.var != *var);
            out.push(Given {
                var: var.clone(),
                value: *value,
                source: options.given_by.clone(),
                keys: Vec::new(),
            });
        }
        out
    }

    fn run(&self, ckpt: &Checkpoint, options: &CheckOptions) -> Report {
        let given = self.givens(ckpt, options);
        let pre = options
            .sets
            .iter()
            .fold(Bindings::new(), |b, (var, value)| {
                b.bind(var.clone(), *value)
            });
        let layout = self.layout(Some(ckpt));
        let plan = &layout.plan;
        let result = plan.verify_source_options(
            ckpt,
            SourceOptions::new()
                .strict(options.strict && !self.lenient)
                .bindings(pre.clone()),
        );
        let mut disagreements = Vec::new();
        if let Err(errors) = &result {
            // A value given before checking that the checkpoint contradicts: checking without
            // it passes. A stated value is hidden from the source; the caller's is not set.
            // Only the verdict counts (no report), and the names are sorted once for all.
            let sorted = SortedNames::new(ckpt);
            for g in &given {
                let by_caller = g.keys.is_empty();
                let again = if by_caller {
                    let pre = options
                        .sets
                        .iter()
                        .filter(|(v, _)| *v != g.var)
                        .fold(Bindings::new(), |b, (var, value)| {
                            b.bind(var.clone(), *value)
                        });
                    plan.passes(
                        &sorted,
                        &SourceOptions::new()
                            .strict(options.strict && !self.lenient)
                            .bindings(pre),
                    )
                } else {
                    let hiding = Hiding {
                        src: &sorted,
                        keys: &g.keys,
                    };
                    plan.passes(
                        &hiding,
                        &SourceOptions::new()
                            .strict(options.strict && !self.lenient)
                            .bindings(pre.clone()),
                    )
                };
                if let Some(b) = again
                    && let Some(found) = b.get(&g.var)
                    && found != g.value
                {
                    disagreements.push(Disagreement {
                        var: g.var.clone(),
                        stated: g.value,
                        source: g.source.clone(),
                        found,
                        bound_by: b.origin(&g.var).map_or_else(String::new, |o| o.to_string()),
                        errors: errors.len(),
                        by_caller,
                    });
                }
            }
        }
        let typed = (ckpt.tensors().iter()).map(|t| (t.name.as_str(), t.dtype.as_str()));
        let dtypes = wrong_dtypes(&layout.dtypes, typed);
        // The variables bound from keys the checkpoint states none of.
        let not_found = self
            .config
            .iter()
            .filter(|(var, _)| !given.iter().any(|g| g.var == *var))
            .map(|(var, keys)| (var.clone(), keys.clone()))
            .collect();
        Report::new(
            ckpt,
            (&self.name, &self.file, &self.notes),
            given,
            result,
            disagreements,
            &options.given_by,
        )
        .with_dtypes(dtypes)
        .with_not_found(not_found)
        .with_places(self.read)
    }
}

/// A name with each list index (a placeholder, or a number) written `{}`: a spec's name
/// and the names of a checkpoint it stands for read the same.
fn skeleton(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    skeleton_into(name, &mut out);
    out
}

/// [`skeleton`] written into `out` (cleared first), so that a loop over many names reuses one
/// buffer.
fn skeleton_into(name: &str, out: &mut String) {
    out.clear();
    for (i, s) in name.split('.').enumerate() {
        if i > 0 {
            out.push('.');
        }
        let index = s.starts_with('{') && s.ends_with('}')
            || (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
        out.push_str(if index { "{}" } else { s });
    }
}

/// The `tensors` (name, dtype) whose dtype is not one the spec allows for them (`rules`: each
/// tensor's name, with placeholders, and its dtypes), in their order. A checkpoint's tensors
/// are passed with their dtypes, not looked up again by name.
fn wrong_dtypes<'a>(
    rules: &[(String, Vec<String>)],
    tensors: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Vec<WrongDtype> {
    if rules.is_empty() {
        return Vec::new();
    }
    let mut by_name: HashMap<String, &[String]> = HashMap::new();
    for (name, allowed) in rules {
        by_name.entry(skeleton(name)).or_insert(allowed);
    }
    let mut buf = String::new();
    tensors
        .into_iter()
        .filter_map(|(name, dtype)| {
            skeleton_into(name, &mut buf);
            let allowed = by_name.get(buf.as_str())?;
            (!allowed.iter().any(|a| a == dtype)).then(|| WrongDtype {
                tensor: name.to_owned(),
                dtype: dtype.to_owned(),
                allowed: allowed.to_vec(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_name_and_the_names_it_stands_for_share_a_skeleton() {
        assert_eq!(
            skeleton("model.layers.{i}.mlp.experts.{e}.w1.weight"),
            "model.layers.{}.mlp.experts.{}.w1.weight"
        );
        assert_eq!(
            skeleton("model.layers.12.mlp.experts.0.w1.weight"),
            "model.layers.{}.mlp.experts.{}.w1.weight"
        );
        assert_eq!(skeleton("h.0x.w"), "h.0x.w");
    }

    #[test]
    fn only_tensors_of_a_dtype_not_allowed_are_reported() {
        let src = [("l.0.w", "BF16"), ("l.1.w", "F32"), ("other", "I8")];
        let rules = vec![("l.{i}.w".to_string(), vec!["BF16".to_string()])];
        let wrong = wrong_dtypes(&rules, src);
        assert_eq!(
            wrong,
            [WrongDtype {
                tensor: "l.1.w".into(),
                dtype: "F32".into(),
                allowed: vec!["BF16".into()],
            }]
        );
    }
}
