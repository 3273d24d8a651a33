//! The checks of a LoRA adapter against its base checkpoint, each adapter tensor looked up
//! by name in the base's index (linear in the tensor count):
//!
//! - `lora_A`/`lora_B` of a base weight `(out, in, *kernel)`: `(r, in, *kernel)` and
//!   `(out, r, 1, …)` (`fan_in_fan_out`: the base is `(in, out)`);
//! - `lora_embedding_A`/`lora_embedding_B` of a base embedding `(num, dim)`: `(r, num)` and
//!   `(dim, r)`;
//! - DoRA's `lora_magnitude_vector`: `(out,)`;
//! - anything else (`modules_to_save`, biases): a full copy, the base tensor's shape;
//! - a module the base lacks: unknown, with the closest base module;
//! - a base module `target_modules` names without its pair of tensors: missing; an adapted
//!   module it does not name: PEFT creates no layer for it, so its tensors would be dropped.

use std::borrow::Cow;
use std::collections::HashMap;

use super::config::Config;
use crate::shape::Shape;
use crate::source::{Checkpoint, CheckpointTensor};
use crate::verify::{FieldPath, ShapeError, ShapeErrorDetails, ShapeErrorKind};

/// The prefix PEFT gives every saved key.
pub(crate) const PREFIX: &str = "base_model.model.";

/// How many unknown modules get a "did you mean": each suggestion compares with the base
/// modules of the same last part, at most [`MAX_CANDIDATES`] of them.
const MAX_SUGGESTED: usize = 50;
const MAX_CANDIDATES: usize = 1000;

/// What an adapter tensor is to its module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    A,
    B,
    EmbeddingA,
    EmbeddingB,
    Magnitude,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::A => "lora_A",
            Role::B => "lora_B",
            Role::EmbeddingA => "lora_embedding_A",
            Role::EmbeddingB => "lora_embedding_B",
            Role::Magnitude => "lora_magnitude_vector",
        }
    }

    fn pattern(self) -> &'static str {
        match self {
            Role::A => "(r, in_features, *kernel)",
            Role::B => "(out_features, r, *1)",
            Role::EmbeddingA => "(r, num_embeddings)",
            Role::EmbeddingB => "(embedding_dim, r)",
            Role::Magnitude => "(out_features,)",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// `module` and the role of an adapter key without its prefix, or `None` for a full copy.
fn split(key: &str) -> Option<(&str, Role)> {
    const SUFFIXES: &[(&str, Role)] = &[
        (".lora_A.weight", Role::A),
        (".lora_B.weight", Role::B),
        (".lora_embedding_A", Role::EmbeddingA),
        (".lora_embedding_B", Role::EmbeddingB),
        (".lora_embedding_A.weight", Role::EmbeddingA),
        (".lora_embedding_B.weight", Role::EmbeddingB),
        (".lora_magnitude_vector", Role::Magnitude),
        (".lora_magnitude_vector.weight", Role::Magnitude),
    ];
    SUFFIXES
        .iter()
        .find_map(|(s, role)| Some((key.strip_suffix(s)?, *role)))
}

/// The shape `role` must have over the base weight `base` with rank `r`, or why there is none.
fn expected(role: Role, base: &[usize], r: usize, fan_in_fan_out: bool) -> Result<Shape, String> {
    let (out, input, kernel) = match (base, fan_in_fan_out) {
        ([i, o], true) => (*o, *i, &[][..]),
        ([o, i, k @ ..], _) => (*o, *i, k),
        _ => {
            return Err(format!(
                "has {} dims: LoRA adapts a Linear, Embedding or convolution weight, of 2 dims or more",
                base.len()
            ));
        }
    };
    Ok(match role {
        Role::A => [r, input].iter().chain(kernel).copied().collect(),
        Role::B => [out, r]
            .into_iter()
            .chain(kernel.iter().map(|_| 1))
            .collect(),
        Role::EmbeddingA => [r, base.first().copied().unwrap_or(0)].into(),
        Role::EmbeddingB => [base.get(1).copied().unwrap_or(0), r].into(),
        Role::Magnitude => [out].into(),
    })
}

/// One error about adapter tensor `tensor`.
fn error(
    tensor: &str,
    shape: Option<&Shape>,
    pattern: Option<&'static str>,
    detail: String,
) -> ShapeError {
    let mut d = ShapeErrorDetails::new(
        FieldPath::new("adapter", &[]),
        ShapeErrorKind::Source { detail },
    );
    d.tensor = Some(tensor.to_owned());
    d.shape = shape.cloned();
    d.pattern = pattern.map(Cow::Borrowed);
    d.into()
}

/// What the checks found: the errors, and notes on what could not be checked.
pub(crate) struct Found {
    pub(crate) errors: Vec<ShapeError>,
    pub(crate) notes: Vec<String>,
    /// How many modules the adapter adapts.
    pub(crate) modules: usize,
    /// When every error is a tensor of another rank than the config states, the same for
    /// all of them: where the rank is stated, its value, the tensors' rank, the first such
    /// tensor, and how many.
    pub(crate) other_rank: Option<OtherRank>,
}

/// A rank the tensors agree on against the config: see [`Found::other_rank`].
pub(crate) struct OtherRank {
    pub(crate) stated_in: String,
    pub(crate) stated: usize,
    pub(crate) found: usize,
    pub(crate) first: String,
    pub(crate) count: usize,
}

/// The rank `tensor` has as `role`: where `r` is in its shape.
fn rank_in(role: Role, tensor: &Shape) -> Option<usize> {
    match role {
        Role::A | Role::EmbeddingA => tensor.dims().first().copied(),
        Role::B | Role::EmbeddingB => tensor.dims().get(1).copied(),
        Role::Magnitude => None,
    }
}

/// The base modules by their last part and by their parent, for "did you mean".
struct Modules<'a> {
    by_leaf: HashMap<&'a str, Vec<&'a str>>,
    by_parent: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Modules<'a> {
    fn new(base: &'a Checkpoint) -> Modules<'a> {
        let mut by_leaf: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut by_parent: HashMap<&str, Vec<&str>> = HashMap::new();
        for t in base.tensors() {
            if let Some(m) = t.name.strip_suffix(".weight") {
                let (parent, leaf) = m.rsplit_once('.').unwrap_or(("", m));
                for (map, k) in [(&mut by_leaf, leaf), (&mut by_parent, parent)] {
                    let v = map.entry(k).or_default();
                    if v.len() < MAX_CANDIDATES {
                        v.push(m);
                    }
                }
            }
        }
        Modules { by_leaf, by_parent }
    }

    /// The base module `module` most likely means: the same path under another prefix (the
    /// first parts added or dropped), else the closest of its siblings, else the closest of
    /// those with its last part.
    fn closest(&self, module: &str, base: &Checkpoint) -> Option<String> {
        let mut rest = module;
        while let Some((_, tail)) = rest.split_once('.') {
            if base.get(&format!("{tail}.weight")).is_some() {
                return Some(tail.to_owned());
            }
            rest = tail;
        }
        for head in ["model.", "model.model.", "transformer."] {
            let longer = format!("{head}{module}");
            if base.get(&format!("{longer}.weight")).is_some() {
                return Some(longer);
            }
        }
        let (parent, leaf) = module.rsplit_once('.').unwrap_or(("", module));
        [self.by_parent.get(parent), self.by_leaf.get(leaf)]
            .into_iter()
            .flatten()
            .find_map(|candidates| crate::verify::suggest::closest(module, candidates))
    }
}

/// Checks the adapter's tensors against the base's.
pub(crate) fn check(config: &Config, adapter: &Checkpoint, base: &Checkpoint) -> Found {
    let mut errors = Vec::new();
    let mut notes = Vec::new();
    // Each adapted module's roles, as bits, in order of first appearance.
    let mut seen: HashMap<&str, u8> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    let modules = Modules::new(base);
    let mut suggested = 0usize;
    let mut unread_rank = false;
    // The errors a single other rank explains, with the rank and where it is stated.
    let mut other: Vec<(String, usize, &str)> = Vec::new();
    let mut other_ranks: Vec<usize> = Vec::new();
    for t in adapter.tensors() {
        let Some(key) = t.name.strip_prefix(PREFIX) else {
            errors.push(error(
                &t.name,
                None,
                None,
                format!("not a PEFT key: every key PEFT saves starts with {PREFIX:?}, then the base model's module path"),
            ));
            continue;
        };
        let Some((module, role)) = split(key) else {
            full_copy(t, key, base, &mut errors);
            continue;
        };
        let bits = seen.entry(module).or_insert_with(|| {
            order.push(module);
            0
        });
        *bits |= role.bit();
        let base_name = format!("{module}.weight");
        let Some(b) = base.get(&base_name) else {
            let hint = if suggested < MAX_SUGGESTED {
                suggested += 1;
                modules
                    .closest(module, base)
                    .map(|c| format!("; did you mean {c}?"))
                    .unwrap_or_default()
            } else {
                String::new()
            };
            errors.push(error(
                &t.name,
                Some(&t.shape),
                None,
                format!("unknown base module {module}: the base checkpoint has no tensor {base_name}{hint}"),
            ));
            continue;
        };
        let Some((r, r_from)) = config.rank_of(module) else {
            unread_rank = true;
            continue;
        };
        match expected(role, b.shape.dims(), r, config.fan_in_fan_out) {
            Err(why) => errors.push(error(
                &t.name,
                Some(&t.shape),
                Some(role.pattern()),
                format!("the base layer {base_name} is {} and {why}", b.shape),
            )),
            Ok(want) if want != t.shape => {
                if let Some(k) = rank_in(role, &t.shape)
                    && expected(role, b.shape.dims(), k, config.fan_in_fan_out).as_ref()
                        == Ok(&t.shape)
                {
                    other.push((r_from.clone(), r, &t.name));
                    other_ranks.push(k);
                }
                let turned = t.shape.dims().iter().rev().eq(want.dims().iter()) && want.rank() > 1;
                let rank = if matches!(role, Role::Magnitude) {
                    String::new()
                } else {
                    format!(" and r = {r} ({r_from})")
                };
                errors.push(error(
                    &t.name,
                    Some(&t.shape),
                    Some(role.pattern()),
                    format!(
                        "size mismatch for {}: {} where the base layer {base_name} is {}{rank}, so {} must be {want}{}",
                        role.name(),
                        t.shape,
                        b.shape,
                        role.name(),
                        if turned { " (it is transposed)" } else { "" }
                    ),
                ));
            }
            Ok(_) => {}
        }
    }
    if unread_rank {
        notes.push(format!(
            "rank_pattern has a key this checker cannot read as a regular expression: the tensors of modules it might match are checked for their base layer, not for r ({})",
            config.file.display()
        ));
    }
    for module in &order {
        let bits = seen.get(module).copied().unwrap_or(0);
        let pair = |a: Role, b: Role| bits & (a.bit() | b.bit());
        let linear = pair(Role::A, Role::B);
        let embedding = pair(Role::EmbeddingA, Role::EmbeddingB);
        for (have, a, b) in [
            (linear, Role::A, Role::B),
            (embedding, Role::EmbeddingA, Role::EmbeddingB),
        ] {
            for role in [a, b] {
                if have != 0 && have & role.bit() == 0 {
                    errors.push(missing(module, role));
                }
            }
        }
    }
    let explained = other.len() == errors.len()
        && other.windows(2).all(|w| w[0].0 == w[1].0)
        && other_ranks.windows(2).all(|w| w[0] == w[1]);
    let other_rank = match (explained, other.first(), other_ranks.first()) {
        (true, Some((stated_in, stated, first)), Some(&found)) => Some(OtherRank {
            stated_in: stated_in.clone(),
            stated: *stated,
            found,
            first: (*first).to_owned(),
            count: other.len(),
        }),
        _ => None,
    };
    targets(config, base, &seen, &order, &mut errors, &mut notes);
    Found {
        other_rank: other_rank.filter(|o| o.count == errors.len()),
        errors,
        notes,
        modules: order.len(),
    }
}

/// The key PEFT saves `role` of `module` under.
fn key(module: &str, role: Role) -> String {
    match role {
        Role::A | Role::B => format!("{PREFIX}{module}.{}.weight", role.name()),
        _ => format!("{PREFIX}{module}.{}", role.name()),
    }
}

fn missing(module: &str, role: Role) -> ShapeError {
    ShapeErrorDetails::new(
        FieldPath::new("adapter", &[]),
        ShapeErrorKind::Missing {
            tensor: key(module, role),
            suggestion: None,
        },
    )
    .into()
}

/// A tensor saved in full (`modules_to_save`, a bias): the base tensor's shape.
fn full_copy(t: &CheckpointTensor, key: &str, base: &Checkpoint, errors: &mut Vec<ShapeError>) {
    match base.get(key) {
        None => errors.push(error(
            &t.name,
            Some(&t.shape),
            None,
            format!("unknown base tensor {key}: a tensor an adapter saves in full (modules_to_save, a bias) replaces the base tensor of that name, which the base checkpoint does not have"),
        )),
        Some(b) if b.shape != t.shape => errors.push(error(
            &t.name,
            Some(&t.shape),
            None,
            format!(
                "size mismatch for {key}: {} where the base tensor is {}: a module saved in full (modules_to_save) replaces the base's and has its shape",
                t.shape, b.shape
            ),
        )),
        Some(_) => {}
    }
}

/// The modules `target_modules` names against those the adapter adapts.
fn targets(
    config: &Config,
    base: &Checkpoint,
    seen: &HashMap<&str, u8>,
    order: &[&str],
    errors: &mut Vec<ShapeError>,
    notes: &mut Vec<String>,
) {
    use super::config::Targets;
    if let Targets::Unknown(text, why) = &config.targets {
        notes.push(format!(
            "target_modules is {text:?}: {why}; checked only by the tensors present"
        ));
        return;
    }
    if matches!(config.targets, Targets::Unstated) {
        notes.push("target_modules is not stated: checked only by the tensors present".into());
        return;
    }
    let excluded = |m: &str| config.exclude.names(m).unwrap_or(false);
    let saved = |m: &str| {
        config
            .modules_to_save
            .iter()
            .any(|s| m == s || m.strip_suffix(s.as_str()).is_some_and(|r| r.ends_with('.')))
    };
    if config.some_layers {
        notes.push("layers_to_transform is set: which base modules must be adapted is not checked, only the tensors present".into());
    } else {
        for t in base.tensors() {
            let Some(m) = t.name.strip_suffix(".weight") else {
                continue;
            };
            if t.shape.rank() < 2 || seen.contains_key(m) || excluded(m) || saved(m) {
                continue;
            }
            if config.targets.names(m) == Some(true) {
                errors.push(missing(m, Role::A));
                errors.push(missing(m, Role::B));
            }
        }
    }
    for m in order {
        if config.targets.names(m) == Some(false) || excluded(m) {
            let name = key(
                m,
                if seen.get(m).is_some_and(|b| b & Role::A.bit() != 0) {
                    Role::A
                } else {
                    Role::EmbeddingA
                },
            );
            errors.push(error(
                &name,
                None,
                None,
                format!("module {m} is not among target_modules (or is in exclude_modules): PEFT creates no LoRA layer for it, so loading drops its tensors with only a warning"),
            ));
        }
    }
}
