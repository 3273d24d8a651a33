//! `shapes check`: a checkpoint against a spec. The spec's plan binds the sizes the
//! checkpoint's config and metadata state (`Plan::bind_from`) and checks them against the
//! tensors; a stated value the tensors alone contradict is named as the one cause of the
//! mismatches it makes.

use std::path::Path;

use shapes::{Bindings, ShapeErrors, ShapeSource, SourceOptions};

use crate::arch;
use crate::open::{Opened, Without};
use crate::spec::{self, Compiled, SpecText};

/// A failure that is not a mismatch: exit code 2.
pub struct Fail(pub String);

/// A value given before checking: stated by the checkpoint, or by `--set`.
pub struct Given {
    pub var: String,
    pub value: usize,
    /// ``config `hidden_size` ``, ``metadata `llama.block_count` ``, `--set`.
    pub source: String,
    /// The keys the spec binds it from (empty for `--set`).
    pub keys: Vec<String>,
}

/// A stated value the tensors contradict.
pub struct Disagreement {
    pub var: String,
    pub stated: usize,
    pub source: String,
    pub found: usize,
    pub bound_by: String,
    /// How many errors this one value caused.
    pub errors: usize,
}

/// What a check found.
pub struct Outcome {
    pub spec_name: String,
    pub spec_file: String,
    pub given: Vec<Given>,
    pub result: Result<Bindings, ShapeErrors>,
    pub disagreements: Vec<Disagreement>,
}

impl Outcome {
    /// Whether the checkpoint matches.
    pub fn ok(&self) -> bool {
        self.result.is_ok()
    }
}

/// Loads the spec: a file, a built-in by `--arch`, or the built-in the checkpoint names.
pub fn load_spec(
    opened: &Opened,
    file: Option<&Path>,
    arch_name: Option<&str>,
) -> Result<(String, Compiled), Fail> {
    let (shown, text) = match (file, arch_name) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Fail(format!("{}: {e}", path.display())))?;
            (path.display().to_string(), text)
        }
        (None, Some(a)) => {
            let (shown, text) = arch::find(a, opened.is_gguf()).ok_or_else(|| {
                Fail(format!(
                    "no built-in architecture `{a}`: the built-ins are {}; or give --spec FILE",
                    arch::names().join(", ")
                ))
            })?;
            (shown, text.to_owned())
        }
        (None, None) => {
            let named = opened.architecture().ok_or_else(|| {
                Fail(format!(
                    "{}: the file names no architecture (no GGUF general.architecture, no config.json model_type): give --spec FILE or --arch NAME ({})",
                    opened.path.display(),
                    arch::names().join(", ")
                ))
            })?;
            let (shown, text) = arch::find(&named, opened.is_gguf()).ok_or_else(|| {
                Fail(format!(
                    "architecture `{named}` has no built-in spec (the built-ins are {}): give --spec FILE",
                    arch::names().join(", ")
                ))
            })?;
            (shown, text.to_owned())
        }
    };
    let compiled = spec::compile(&SpecText {
        file: &shown,
        text: &text,
    })
    .map_err(|e| Fail(e.to_string()))?;
    Ok((shown, compiled))
}

/// The values the checkpoint states for the spec's variables, then `--set` (which wins).
pub fn givens(opened: &Opened, spec: &Compiled, sets: &[(String, usize)]) -> Vec<Given> {
    let mut out: Vec<Given> = spec
        .config
        .iter()
        .filter_map(|(var, keys)| {
            let (value, entry) = opened.stated_size(keys)?;
            Some(Given {
                var: var.clone(),
                value,
                source: format!("{} `{}`", entry.place, entry.key),
                keys: keys.clone(),
            })
        })
        .collect();
    for (var, value) in sets {
        out.retain(|g| g.var != *var);
        out.push(Given {
            var: var.clone(),
            value: *value,
            source: "--set".into(),
            keys: Vec::new(),
        });
    }
    out
}

/// Checks `opened` against `spec`.
pub fn run(
    opened: &Opened,
    spec_file: String,
    spec: &Compiled,
    sets: &[(String, usize)],
    strict: bool,
) -> Result<Outcome, Fail> {
    for (var, _) in sets {
        if !spec.plan.variables().contains(&var.as_str()) {
            let hint = shapes::__private::closest(var, spec.plan.variables())
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            return Err(Fail(format!(
                "--set {var}: the spec {} has no variable `{var}`{hint}; its variables are {}",
                spec.name,
                spec.plan.variables().join(", ")
            )));
        }
    }
    let given = givens(opened, spec, sets);
    for g in &spec.given {
        if !given.iter().any(|x| x.var == *g) {
            let keys = spec
                .config
                .iter()
                .find(|(v, _)| v == g)
                .map(|(_, k)| format!(" (looked for {})", k.join(", ")))
                .unwrap_or_default();
            return Err(Fail(format!(
                "`{g}` shows in no tensor's shape and neither the file nor a config.json states it{keys}: give --config config.json or --set {g}=N"
            )));
        }
    }
    let pre = sets.iter().fold(Bindings::new(), |b, (var, value)| {
        b.bind(var.clone(), *value)
    });
    let check = |src: &dyn ShapeSource| {
        spec.plan.verify_source_options(
            src,
            SourceOptions::new().strict(strict).bindings(pre.clone()),
        )
    };
    let result = check(opened);
    let mut disagreements = Vec::new();
    if let Err(errors) = &result {
        // A stated value that the tensors alone contradict: checking without it passes.
        for g in given.iter().filter(|g| !g.keys.is_empty()) {
            let without = Without {
                opened,
                keys: &g.keys,
            };
            if let Ok(b) = check(&without)
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
                });
            }
        }
    }
    Ok(Outcome {
        spec_name: spec.name.clone(),
        spec_file,
        given,
        result,
        disagreements,
    })
}
