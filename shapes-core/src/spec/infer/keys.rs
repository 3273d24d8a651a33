//! The sizes a checkpoint's config states, as the keys a spec's `[config]` binds, and the
//! variable names the built-in specs give those keys.
//!
//! A key is a candidate when it states a whole number of at least 2: a `config.json` key at
//! the top level or one object down (`text_config.hidden_size`), a GGUF `{arch}.*` key (a
//! scalar), and GGUF's token list (`tokenizer.ggml.tokens`, the vocabulary's length). Token
//! ids (`…_id`, `…_ids`) are left out: they are not sizes. A key naming a limit (a context
//! or position length, a window) explains a size only when no other key states it.

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use crate::Spec;
use crate::source::Checkpoint;
use crate::spec::Naming;

/// The candidate keys of one checkpoint.
#[derive(Debug, Default)]
pub(super) struct Keys {
    /// Each key, as a spec writes it, with its value.
    values: BTreeMap<String, usize>,
    /// The keys stating each value, sorted.
    by_value: HashMap<usize, Vec<String>>,
}

fn is_id(key: &str) -> bool {
    key.ends_with("_id") || key.ends_with("_ids")
}

/// Whether `key` counts layers or a choice the model makes rather than sizing a tensor: the
/// layers (`num_hidden_layers`, `{arch}.block_count`), experts or groups picked per token
/// (`num_experts_per_tok`, `topk_group`, `n_group`), leading or interleaved layers
/// (`first_k_dense_replace`, `moe_layer_freq`, `decoder_sparse_step`), prediction depth
/// (`num_nextn_predict_layers`). Such a key explains no dim: an axis of that length is a
/// coincidence (DeepSeek-V3's 4 groups and a block scale's 4 columns). It may still count a
/// list (`[repeat]`) or a choice's leading layers (`first`).
pub(super) fn sizes_nothing(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    picks(key)
        || ["layers", "n_layer", "block_count"]
            .iter()
            .any(|w| lower.contains(w))
}

/// Whether `key` counts a choice the model makes (experts per token, groups, leading or
/// interleaved layers): it counts no list either.
pub(super) fn picks(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    [
        "topk", "top_k", "per_tok", "group", "first_k", "nextn", "freq", "step", "interval",
    ]
    .iter()
    .any(|w| key.contains(w))
}

/// Whether `key` names a limit rather than a width: a context or position length, a window,
/// a RoPE parameter (`max_position_embeddings`, `sliding_window`, `{arch}.context_length`).
pub(super) fn is_limit(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    [
        "max_", "position", "window", "context", "rope", "seq_len", "ctx",
    ]
    .iter()
    .any(|w| key.contains(w))
}

impl Keys {
    /// The keys `ckpt` states.
    pub fn of(ckpt: &Checkpoint) -> Keys {
        let mut values = BTreeMap::new();
        if let Some(serde_json::Value::Object(top)) = ckpt.config_json() {
            for (k, v) in top {
                match v {
                    serde_json::Value::Object(inner) => {
                        for (i, v) in inner {
                            if let Some(n) = size(v) {
                                values.insert(format!("{k}.{i}"), n);
                            }
                        }
                    }
                    v => {
                        if let Some(n) = size(v) {
                            values.insert(k.clone(), n);
                        }
                    }
                }
            }
        }
        let arch = ckpt.architecture().map(|a| format!("{a}."));
        for (k, v) in ckpt.gguf_metadata() {
            let key = match &arch {
                Some(a) if k.starts_with(a.as_str()) => format!("{{arch}}.{}", &k[a.len()..]),
                _ if k == "tokenizer.ggml.tokens" => k.clone(),
                _ => continue,
            };
            let n = match v.as_array() {
                Some(a) if k == "tokenizer.ggml.tokens" => usize::try_from(a.len()).ok(),
                Some(_) => None,
                None => v.as_usize(),
            };
            if let Some(n) = n.filter(|n| *n >= 2) {
                values.insert(key, n);
            }
        }
        values.retain(|k, _| !is_id(k));
        let mut by_value: HashMap<usize, Vec<String>> = HashMap::new();
        for (k, v) in &values {
            by_value.entry(*v).or_default().push(k.clone());
        }
        Keys { values, by_value }
    }

    /// The keys stating `value`, sorted.
    pub fn stating(&self, value: usize) -> &[String] {
        self.by_value.get(&value).map_or(&[], Vec::as_slice)
    }

    /// The keys that explain a size of `value`: those stating it, less the ones counting a
    /// choice ([`sizes_nothing`]), and less the limits ([`is_limit`]) when another key states
    /// it too (Llama-2's `hidden_size` and `max_position_embeddings` are both 4096: the
    /// width is the first).
    pub fn explaining(&self, value: usize) -> Vec<&str> {
        let all: Vec<&str> = (self.stating(value).iter())
            .filter(|k| !sizes_nothing(k))
            .map(String::as_str)
            .collect();
        let widths: Vec<&str> = all.iter().copied().filter(|k| !is_limit(k)).collect();
        if widths.is_empty() { all } else { widths }
    }

    /// Each key with its value, sorted by key.
    pub fn all(&self) -> impl Iterator<Item = (&str, usize)> {
        self.values.iter().map(|(k, v)| (k.as_str(), *v))
    }

    /// Drops `key` (a list's count: it explains no dim).
    pub fn remove(&mut self, key: &str) {
        if let Some(v) = self.values.remove(key)
            && let Some(keys) = self.by_value.get_mut(&v)
        {
            keys.retain(|k| k != key);
        }
    }
}

/// A JSON size: a whole number of at least 2.
fn size(v: &serde_json::Value) -> Option<usize> {
    v.as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .filter(|n| *n >= 2)
}

/// The variable the built-in specs bind from `key` (`hidden_size` → `d_model`), the one most
/// of them use (the first in alphabetical order on a tie).
pub(super) fn conventional(key: &str) -> Option<String> {
    static TABLE: OnceLock<HashMap<String, String>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let mut votes: BTreeMap<(String, String), usize> = BTreeMap::new();
            for family in Spec::builtin_families() {
                for naming in [Naming::HuggingFace, Naming::Gguf] {
                    let Some(spec) = Spec::builtin(family, naming) else {
                        continue;
                    };
                    for (var, keys) in spec.config_keys() {
                        for k in keys {
                            *votes.entry((k.clone(), var.clone())).or_insert(0) += 1;
                        }
                    }
                }
            }
            let mut best: HashMap<String, (usize, String)> = HashMap::new();
            for ((key, var), n) in votes {
                let e = best.entry(key).or_insert((0, String::new()));
                if n > e.0 {
                    *e = (n, var);
                }
            }
            best.into_iter().map(|(k, (_, v))| (k, v)).collect()
        })
        .get(key)
        .cloned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_key_counting_a_choice_sizes_nothing() {
        for k in [
            "num_experts_per_tok",
            "topk_group",
            "n_group",
            "first_k_dense_replace",
            "moe_layer_freq",
            "decoder_sparse_step",
            "num_nextn_predict_layers",
            "num_hidden_layers",
            "{arch}.block_count",
        ] {
            assert!(super::sizes_nothing(k), "{k}");
        }
        for k in [
            "hidden_size",
            "n_routed_experts",
            "num_key_value_heads",
            "head_dim",
            "{arch}.embedding_length",
        ] {
            assert!(!super::sizes_nothing(k), "{k}");
        }
    }

    use super::*;

    #[test]
    fn the_built_ins_name_the_common_keys() {
        assert_eq!(conventional("hidden_size").as_deref(), Some("d_model"));
        assert_eq!(conventional("intermediate_size").as_deref(), Some("d_ff"));
        assert_eq!(conventional("vocab_size").as_deref(), Some("vocab"));
        assert_eq!(
            conventional("num_hidden_layers").as_deref(),
            Some("n_layers")
        );
        assert_eq!(
            conventional("{arch}.embedding_length").as_deref(),
            Some("d_model")
        );
        assert_eq!(conventional("no_such_key"), None);
        assert!(is_limit("max_position_embeddings") && is_limit("{arch}.context_length"));
        assert!(!is_limit("hidden_size"));
    }
}
