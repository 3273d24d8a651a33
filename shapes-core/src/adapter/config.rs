//! `adapter_config.json`, read for what fixes a LoRA adapter's shapes: `r`, `rank_pattern`,
//! `target_modules`, `exclude_modules`, `modules_to_save`, `fan_in_fan_out`,
//! `layers_to_transform` and `base_model_name_or_path`. The alphas scale values, not shapes,
//! and are not read.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::error::AdapterError;
use super::regex::Regex;

/// Which modules `target_modules` (or `exclude_modules`) names, matched as PEFT matches them.
#[derive(Debug, Clone)]
pub(crate) enum Targets {
    /// Not stated (`null`): nothing is named.
    Unstated,
    /// A list: a module whose name is one of them or ends with `.` and one of them.
    List(Vec<String>),
    /// A string: a regular expression the whole module name matches.
    Regex(Regex),
    /// A string that does not compile as a regular expression, or `all-linear` (which depends on the model's
    /// classes, not its tensors): which modules it names is not known.
    Unknown(String, String),
}

impl Targets {
    /// Whether `module` is named; `None` when that is not known.
    pub(crate) fn names(&self, module: &str) -> Option<bool> {
        match self {
            Targets::Unstated => Some(false),
            Targets::List(list) => Some(list.iter().any(|t| {
                module == t
                    || module
                        .strip_suffix(t.as_str())
                        .is_some_and(|rest| rest.ends_with('.'))
            })),
            Targets::Regex(re) => re.full_match(module),
            Targets::Unknown(..) => None,
        }
    }

    fn read(key: &str, v: Option<&Value>, file: &Path) -> Result<Targets, AdapterError> {
        match v {
            None | Some(Value::Null) => Ok(Targets::Unstated),
            Some(Value::String(s)) if s == "all-linear" => Ok(Targets::Unknown(
                s.clone(),
                "`all-linear` names the model's nn.Linear modules, which a checkpoint's tensors do not tell from other 2-D weights".into(),
            )),
            Some(Value::String(s)) => Ok(match Regex::new(s) {
                Ok(re) => Targets::Regex(re),
                Err(e) => Targets::Unknown(
                    s.clone(),
                    format!("the regular expression has {}, which this checker does not read", e.0),
                ),
            }),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| i.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .map(Targets::List)
                .ok_or_else(|| AdapterError::config(file, format!("`{key}` holds something other than strings: it is a list of module names or one regular expression"))),
            Some(other) => Err(AdapterError::config(
                file,
                format!("`{key}` is {other}: it is a list of module names or one regular expression"),
            )),
        }
    }
}

/// One `rank_pattern` entry: its key (a regular expression PEFT matches against the end of a
/// module's name, after a `.`), compiled when it compiles, and its rank.
#[derive(Debug, Clone)]
pub(crate) struct RankPattern {
    pub(crate) key: String,
    pub(crate) regex: Option<Regex>,
    pub(crate) r: usize,
}

/// What `adapter_config.json` says about shapes.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) file: PathBuf,
    pub(crate) r: usize,
    pub(crate) rank_pattern: Vec<RankPattern>,
    pub(crate) targets: Targets,
    pub(crate) exclude: Targets,
    pub(crate) modules_to_save: Vec<String>,
    pub(crate) fan_in_fan_out: bool,
    /// `layers_to_transform` is set: only some layers are adapted, by rules of PEFT's
    /// (`layers_pattern`) the missing-module check does not follow.
    pub(crate) some_layers: bool,
    pub(crate) base: Option<String>,
}

/// A whole number ≥ 1 from a JSON value, or why not.
fn rank(v: &Value) -> Result<usize, String> {
    match v.as_u64() {
        Some(0) => Err("0: a LoRA rank is at least 1".into()),
        Some(n) => usize::try_from(n).map_err(|_| format!("{n}, too large")),
        None => Err(format!("{v}, not a whole number")),
    }
}

impl Config {
    /// Reads `text`, the contents of `file`.
    pub(crate) fn parse(file: &Path, text: &str) -> Result<Config, AdapterError> {
        let v: Value = serde_json::from_str(text)
            .map_err(|e| AdapterError::config(file, format!("not JSON: {e}")))?;
        let Value::Object(map) = &v else {
            return Err(AdapterError::config(file, "not a JSON object"));
        };
        if let Some(t) = map.get("peft_type").and_then(Value::as_str)
            && !t.eq_ignore_ascii_case("lora")
        {
            return Err(AdapterError::config(
                file,
                format!("peft_type is {t:?}: only LoRA adapters (\"LORA\") are checked"),
            ));
        }
        let r = match map.get("r") {
            None | Some(Value::Null) => {
                return Err(AdapterError::config(
                    file,
                    "`r` is missing: state the LoRA rank the adapter was trained with, e.g. \"r\": 8",
                ));
            }
            Some(v) => rank(v).map_err(|e| AdapterError::config(file, format!("`r` is {e}")))?,
        };
        let mut rank_pattern = Vec::new();
        match map.get("rank_pattern") {
            None | Some(Value::Null) => {}
            Some(Value::Object(p)) => {
                for (key, v) in p {
                    let r = rank(v).map_err(|e| {
                        AdapterError::config(file, format!("rank_pattern {key:?} is {e}"))
                    })?;
                    // PEFT: re.match(rf"(.*\.)?({key})$", module).
                    let regex = Regex::new(&format!("(.*\\.)?({key})")).ok();
                    rank_pattern.push(RankPattern {
                        key: key.clone(),
                        regex,
                        r,
                    });
                }
            }
            Some(other) => {
                return Err(AdapterError::config(
                    file,
                    format!(
                        "`rank_pattern` is {other}, not an object of module patterns and ranks"
                    ),
                ));
            }
        }
        let modules_to_save =
            match Targets::read("modules_to_save", map.get("modules_to_save"), file)? {
                Targets::List(l) => l,
                Targets::Unstated => Vec::new(),
                _ => {
                    return Err(AdapterError::config(
                        file,
                        "`modules_to_save` is a list of module names",
                    ));
                }
            };
        Ok(Config {
            file: file.to_path_buf(),
            r,
            rank_pattern,
            targets: Targets::read("target_modules", map.get("target_modules"), file)?,
            exclude: Targets::read("exclude_modules", map.get("exclude_modules"), file)?,
            modules_to_save,
            fan_in_fan_out: map
                .get("fan_in_fan_out")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            some_layers: map.get("layers_to_transform").is_some_and(|v| !v.is_null()),
            base: map
                .get("base_model_name_or_path")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
    }

    /// The rank of `module` and where it is stated: the first `rank_pattern` key that matches
    /// it, as PEFT picks it, else `r`. `None` when a key this checker cannot read might match.
    pub(crate) fn rank_of(&self, module: &str) -> Option<(usize, String)> {
        for p in &self.rank_pattern {
            match p.regex.as_ref().map(|re| re.full_match(module)) {
                Some(Some(true)) => return Some((p.r, format!("rank_pattern {:?}", p.key))),
                Some(Some(false)) => {}
                // A key that cannot be read, or that took too long on this name.
                Some(None) | None => return None,
            }
        }
        Some((self.r, "`r`".into()))
    }
}
