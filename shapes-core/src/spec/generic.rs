//! The checks an architecture no spec describes still gets, from its format's conventions:
//! for GGUF, llama.cpp's standard `{arch}.*` keys against its standard tensor names; for a
//! checkpoint with a `config.json`, transformers' common keys against the tensors of its
//! common decoder layout. Non-strict (tensors the conventions do not name are not checked),
//! every per-layer tensor optional (architectures differ in what a layer holds), and the
//! report says which checks ran and that the architecture was not recognised.

use std::collections::{BTreeMap, BTreeSet};

use super::{Layout, Spec};
use crate::source::{Checkpoint, CheckpointFormat};
use crate::verify::{Plan, PlanNode};

/// What the generic checks are made of, before they are compiled.
#[derive(Default)]
struct Parts {
    nodes: Vec<PlanNode>,
    wheres: Vec<String>,
    /// variable ← the key it is bound from.
    config: Vec<(String, Vec<String>)>,
    notes: Vec<String>,
}

impl Parts {
    fn bind(&mut self, var: &str, keys: &[String]) {
        self.config.push((var.to_owned(), keys.to_vec()));
    }

    /// Compiles the parts into a lenient spec called `name`, shown as `file`; `None` when
    /// nothing is checked.
    fn spec(self, name: &str, file: String) -> Option<Spec> {
        if self.nodes.is_empty() {
            return None;
        }
        let wheres: Vec<&str> = self.wheres.iter().map(String::as_str).collect();
        let mut plan = Plan::build(name, &self.nodes, &wheres).ok()?;
        let mut config = Vec::new();
        for (var, keys) in self.config {
            if !plan.variables().contains(&var.as_str()) {
                continue;
            }
            let k: Vec<&str> = keys.iter().map(String::as_str).collect();
            plan = plan.bind_from(&var, &k).ok()?;
            config.push((var, keys));
        }
        Some(Spec {
            name: name.to_owned(),
            file,
            first: Layout {
                prefix: String::new(),
                plan,
                probes: Vec::new(),
                dtypes: Vec::new(),
            },
            others: Vec::new(),
            config,
            given: Vec::new(),
            notes: self.notes,
            lenient: true,
            ignore: Vec::new(),
            read: false,
        })
    }
}

/// The tensors of a list `prefix.N.leaf`: each leaf, and the number of elements holding it.
fn leaves<'n>(names: &[&'n str], prefix: &str) -> BTreeMap<&'n str, usize> {
    let mut out = BTreeMap::new();
    let start = format!("{prefix}.");
    for n in names {
        let Some(rest) = n.strip_prefix(start.as_str()) else {
            continue;
        };
        let Some((index, leaf)) = rest.split_once('.') else {
            continue;
        };
        if !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()) {
            *out.entry(leaf).or_insert(0) += 1;
        }
    }
    out
}

/// The tensors `names` holds of `wanted`, each with its pattern, as optional plan nodes.
fn known(found: &BTreeSet<&str>, wanted: &[(&str, String)]) -> Vec<PlanNode> {
    wanted
        .iter()
        .filter(|(n, _)| found.contains(n))
        .map(|(n, p)| PlanNode::tensor(*n, p.clone()).optional())
        .collect()
}

impl Spec {
    /// The checks an architecture that no built-in spec describes still gets, from its
    /// format's conventions, or `None` when they check nothing (a checkpoint neither GGUF nor
    /// with a `config.json`, or without a tensor they know):
    ///
    /// - GGUF: the `{arch}.*` keys llama.cpp writes for every architecture against its
    ///   standard tensor names: `block_count` against the number of `blk.N` blocks,
    ///   `embedding_length` against `token_embd`, `output` and the norms, `feed_forward_length`
    ///   against `ffn_gate`/`ffn_up`/`ffn_down`, `head_count`, `head_count_kv`, `key_length`
    ///   and `value_length` against the rows of `attn_q`/`attn_k`/`attn_v`/`attn_qkv` and
    ///   `attn_output`, `expert_count` and `expert_feed_forward_length` against the router
    ///   and the `*_exps` tensors, the vocabulary against `token_embd` and `output`. A key
    ///   stated per layer (an array) leaves its tensors unchecked.
    /// - A `config.json`: `hidden_size`, `num_hidden_layers`, `intermediate_size`,
    ///   `num_attention_heads`, `num_key_value_heads`, `head_dim` and `vocab_size` against the
    ///   tensors transformers' common decoder layout names (`*.layers.N.self_attn.q_proj`,
    ///   `mlp.gate_proj`, `input_layernorm`, `embed_tokens`, `lm_head`, …).
    ///
    /// The spec is lenient (tensors it does not know are allowed whatever the options say)
    /// and its [`notes`](Self::notes) say which checks ran.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("shapes-doc-generic-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # let path = dir.join("model.safetensors");
    /// # let header = r#"{"model.embed_tokens.weight":{"dtype":"F16","shape":[10,4],"data_offsets":[0,80]},"model.layers.0.mlp.up_proj.weight":{"dtype":"F16","shape":[6,4],"data_offsets":[80,128]}}"#;
    /// # let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    /// # bytes.extend(header.as_bytes());
    /// # bytes.extend([0u8; 128]);
    /// # std::fs::write(&path, bytes).unwrap();
    /// # std::fs::write(dir.join("config.json"), r#"{"model_type":"newarch","hidden_size":4,"intermediate_size":8}"#).unwrap();
    /// let ckpt = shapes::Checkpoint::open(&path)?;
    /// assert!(shapes::Spec::for_checkpoint(&ckpt).is_err());
    /// let spec = shapes::Spec::generic(&ckpt).unwrap();
    /// assert!(spec.notes()[0].starts_with("architecture `newarch` is not recognised"));
    /// let report = spec.check(&ckpt);
    /// assert!(report.to_string().contains("config `intermediate_size` = 8, but \"model.layers.0.mlp.up_proj.weight\" axis 0 is 6"), "{report}");
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn generic(ckpt: &Checkpoint) -> Option<Spec> {
        match ckpt.format() {
            CheckpointFormat::Gguf | CheckpointFormat::SplitGguf => gguf(ckpt),
            _ => hf(ckpt),
        }
    }
}

/// The standard norms of a GGUF block, each d_model wide.
const GGUF_NORMS: &[&str] = &[
    "attn_norm",
    "attn_norm_2",
    "ffn_norm",
    "post_attention_norm",
    "post_ffw_norm",
    "attn_output_norm",
    "layer_output_norm",
];

fn gguf(ckpt: &Checkpoint) -> Option<Spec> {
    let arch = ckpt.architecture()?.to_owned();
    let meta = ckpt.gguf_metadata();
    let value = |k: &str| {
        let key = format!("{arch}.{k}");
        meta.iter().find(|(n, _)| *n == key).map(|(_, v)| v)
    };
    let scalar = |k: &str| value(k).filter(|v| v.as_array().is_none())?.as_usize();
    let per_layer = |k: &str| value(k).is_some_and(|v| v.as_array().is_some());
    let key = |k: &str| vec![format!("{{arch}}.{k}")];
    let names: Vec<&str> = ckpt.tensors().iter().map(|t| t.name.as_str()).collect();
    let top: BTreeSet<&str> = names.iter().copied().collect();
    let layer = leaves(&names, "blk");
    let found: BTreeSet<&str> = layer.keys().copied().collect();
    let mut p = Parts::default();
    p.notes.push(format!(
        "architecture `{arch}` is not recognised: the generic checks of llama.cpp's GGUF conventions ran, and tensors they do not name are not checked"
    ));
    p.bind("d_model", &key("embedding_length"));
    p.bind("n_layers", &key("block_count"));
    p.bind(
        "vocab",
        &[
            "{arch}.vocab_size".to_owned(),
            "tokenizer.ggml.tokens".into(),
        ],
    );
    let mut top_nodes = known(
        &top,
        &[
            ("token_embd.weight", "(vocab, d_model)".into()),
            ("output.weight", "(vocab, d_model)".into()),
            ("output_norm.weight", "(d_model,)".into()),
            ("output_norm.bias", "(d_model,)".into()),
            ("token_embd_norm.weight", "(d_model,)".into()),
            ("token_embd_norm.bias", "(d_model,)".into()),
        ],
    );
    if !top_nodes.is_empty() {
        p.notes.push(
            "`embedding_length` and the vocabulary (`vocab_size` or `tokenizer.ggml.tokens`) against token_embd, output and the output norm".into(),
        );
    }
    let mut blk = Vec::new();
    if !layer.is_empty() {
        p.notes
            .push("`block_count` against the number of `blk.N` blocks".into());
        let norms: Vec<(String, String)> = GGUF_NORMS
            .iter()
            .flat_map(|n| [format!("{n}.weight"), format!("{n}.bias")])
            .map(|n| (n, "(d_model,)".to_owned()))
            .collect();
        let norms: Vec<(&str, String)> =
            norms.iter().map(|(n, s)| (n.as_str(), s.clone())).collect();
        let norm_nodes = known(&found, &norms);
        if !norm_nodes.is_empty() {
            p.notes
                .push("`embedding_length` against each block's norms".into());
        }
        blk.extend(norm_nodes);
    }
    // Attention: heads of key_length (queries, keys) and value_length (values), llama.cpp's
    // default for either being d_model / heads.
    if scalar("attention.head_count").is_some() && !per_layer("attention.head_count_kv") {
        let mut wanted = vec![
            ("attn_q.weight", "(heads * hd_k, d_model)".to_owned()),
            ("attn_q.bias", "(heads * hd_k,)".to_owned()),
            ("attn_k.weight", "(kv_heads * hd_k, d_model)".to_owned()),
            ("attn_k.bias", "(kv_heads * hd_k,)".to_owned()),
            ("attn_v.weight", "(kv_heads * hd_v, d_model)".to_owned()),
            ("attn_v.bias", "(kv_heads * hd_v,)".to_owned()),
            ("attn_output.weight", "(d_model, heads * hd_v)".to_owned()),
        ];
        let (k, v) = (
            scalar("attention.key_length"),
            scalar("attention.value_length"),
        );
        if k == v {
            wanted.push((
                "attn_qkv.weight",
                "((heads + 2 * kv_heads) * hd_k, d_model)".into(),
            ));
        }
        let nodes = known(&found, &wanted);
        if !nodes.is_empty() {
            blk.extend(nodes);
            p.bind("heads", &key("attention.head_count"));
            p.bind("kv_heads", &key("attention.head_count_kv"));
            p.bind("hd_k", &key("attention.key_length"));
            p.bind("hd_v", &key("attention.value_length"));
            if value("attention.head_count_kv").is_none() {
                p.wheres.push("kv_heads = heads".into());
            }
            if k.is_none() {
                p.wheres.push("d_model = heads * hd_k".into());
            }
            if v.is_none() {
                p.wheres.push("d_model = heads * hd_v".into());
            }
            p.notes.push(
                "`attention.head_count`, `head_count_kv`, `key_length` and `value_length` (d_model / head_count when not stated) against the rows of attn_q, attn_k, attn_v, attn_qkv and attn_output".into(),
            );
        }
    }
    if !per_layer("feed_forward_length") {
        let nodes = known(
            &found,
            &[
                ("ffn_gate.weight", "(d_ff, d_model)".into()),
                ("ffn_up.weight", "(d_ff, d_model)".into()),
                ("ffn_down.weight", "(d_model, d_ff)".into()),
            ],
        );
        if !nodes.is_empty() {
            blk.extend(nodes);
            p.bind("d_ff", &key("feed_forward_length"));
            p.notes
                .push("`feed_forward_length` against ffn_gate, ffn_up and ffn_down".into());
        }
    }
    let nodes = known(
        &found,
        &[
            ("ffn_gate_inp.weight", "(n_experts, d_model)".into()),
            (
                "ffn_gate_exps.weight",
                "(n_experts, d_ff_exp, d_model)".into(),
            ),
            (
                "ffn_up_exps.weight",
                "(n_experts, d_ff_exp, d_model)".into(),
            ),
            (
                "ffn_down_exps.weight",
                "(n_experts, d_model, d_ff_exp)".into(),
            ),
        ],
    );
    if !nodes.is_empty() {
        blk.extend(nodes);
        p.bind("n_experts", &key("expert_count"));
        p.bind("d_ff_exp", &key("expert_feed_forward_length"));
        p.notes.push(
            "`expert_count` and `expert_feed_forward_length` against ffn_gate_inp and the ffn_*_exps tensors".into(),
        );
    }
    p.nodes.append(&mut top_nodes);
    if !layer.is_empty() {
        p.nodes
            .push(PlanNode::group("blk", blk).repeated(Some("n_layers")));
    }
    p.spec(
        "GenericGguf",
        format!("<generic GGUF checks: architecture `{arch}` not recognised>"),
    )
}

/// The leaves of a layer in transformers' common decoder layout, with their patterns.
fn hf_layer(heads: bool) -> Vec<(&'static str, String)> {
    let mut wanted: Vec<(&str, String)> = vec![
        ("input_layernorm.weight", "(d_model,)".into()),
        ("post_attention_layernorm.weight", "(d_model,)".into()),
        ("mlp.gate_proj.weight", "(d_ff, d_model)".into()),
        ("mlp.up_proj.weight", "(d_ff, d_model)".into()),
        ("mlp.down_proj.weight", "(d_model, d_ff)".into()),
    ];
    if heads {
        wanted.extend([
            (
                "self_attn.q_proj.weight",
                "(heads * head_dim, d_model)".into(),
            ),
            (
                "self_attn.k_proj.weight",
                "(kv_heads * head_dim, d_model)".into(),
            ),
            (
                "self_attn.v_proj.weight",
                "(kv_heads * head_dim, d_model)".into(),
            ),
            (
                "self_attn.o_proj.weight",
                "(d_model, heads * head_dim)".into(),
            ),
            ("self_attn.q_proj.bias", "(heads * head_dim,)".into()),
            ("self_attn.k_proj.bias", "(kv_heads * head_dim,)".into()),
            ("self_attn.v_proj.bias", "(kv_heads * head_dim,)".into()),
        ]);
    }
    wanted
}

/// The names of a token embedding in transformers' models.
const HF_EMBEDDINGS: &[&str] = &[
    "embed_tokens.weight",
    "wte.weight",
    "word_embeddings.weight",
    "embed_in.weight",
    "tok_embeddings.weight",
];

fn hf(ckpt: &Checkpoint) -> Option<Spec> {
    let config = ckpt.config_json()?;
    let arch = ckpt.architecture().unwrap_or("(none named)").to_owned();
    let stated = |k: &str| config.get(k).and_then(serde_json::Value::as_u64).is_some();
    let names: Vec<&str> = ckpt.tensors().iter().map(|t| t.name.as_str()).collect();
    let mut p = Parts::default();
    p.notes.push(format!(
        "architecture `{arch}` is not recognised: the generic checks of transformers' common config keys and decoder layout ran, and tensors they do not name are not checked"
    ));
    for (var, k) in [
        ("d_model", "hidden_size"),
        ("n_layers", "num_hidden_layers"),
        ("d_ff", "intermediate_size"),
        ("heads", "num_attention_heads"),
        ("kv_heads", "num_key_value_heads"),
        ("head_dim", "head_dim"),
        ("vocab", "vocab_size"),
    ] {
        p.bind(var, &[k.to_owned()]);
    }
    // The layer list: the `prefix.N.…` whose elements hold the most tensors of the layout.
    let heads = stated("num_attention_heads");
    let wanted = hf_layer(heads);
    let leaf_names: BTreeSet<&str> = wanted.iter().map(|(n, _)| *n).collect();
    let mut lists: BTreeMap<String, usize> = BTreeMap::new();
    for n in &names {
        let segments: Vec<&str> = n.split('.').collect();
        let Some(i) = segments
            .iter()
            .position(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let leaf = segments
            .get(i + 1..)
            .map(|s| s.join("."))
            .unwrap_or_default();
        if i > 0 && leaf_names.contains(leaf.as_str()) {
            *lists.entry(segments[..i].join(".")).or_insert(0) += 1;
        }
    }
    let list = lists
        .iter()
        .max_by_key(|(prefix, n)| (**n, std::cmp::Reverse(prefix.len())))
        .map(|(prefix, _)| prefix.clone());
    let parent = list
        .as_deref()
        .and_then(|l| l.rsplit_once('.'))
        .map(|(p, _)| format!("{p}."))
        .unwrap_or_default();
    let top: BTreeSet<&str> = names.iter().copied().collect();
    let mut top_wanted: Vec<(String, String)> = HF_EMBEDDINGS
        .iter()
        .map(|e| (format!("{parent}{e}"), "(vocab, d_model)".to_owned()))
        .collect();
    top_wanted.push(("lm_head.weight".into(), "(vocab, d_model)".into()));
    top_wanted.push((format!("{parent}norm.weight"), "(d_model,)".into()));
    let top_wanted: Vec<(&str, String)> = top_wanted
        .iter()
        .map(|(n, s)| (n.as_str(), s.clone()))
        .collect();
    let top_nodes = known(&top, &top_wanted);
    if !top_nodes.is_empty() {
        p.notes.push(
            "`hidden_size` and `vocab_size` against the token embedding, `lm_head` and the final norm".into(),
        );
    }
    p.nodes.extend(top_nodes);
    if let Some(list) = list {
        let found: BTreeSet<&str> = leaves(&names, &list).keys().copied().collect();
        let nodes = known(&found, &wanted);
        let attn = nodes.iter().any(
            |n| matches!(n, PlanNode::Group { prefix, .. } if prefix.starts_with("self_attn.")),
        );
        if attn {
            if !stated("num_key_value_heads") {
                p.wheres.push("kv_heads = heads".into());
            }
            if !stated("head_dim") {
                p.wheres.push("head_dim = d_model // heads".into());
            }
            p.notes.push(
                "`num_attention_heads`, `num_key_value_heads` and `head_dim` (hidden_size // num_attention_heads when not stated) against self_attn.q_proj, k_proj, v_proj and o_proj".into(),
            );
        }
        if found.iter().any(|l| l.starts_with("mlp.")) {
            p.notes.push(
                "`intermediate_size` against mlp.gate_proj, mlp.up_proj and mlp.down_proj".into(),
            );
        }
        p.notes.push(format!(
            "`num_hidden_layers` against the number of `{list}.N` layers, `hidden_size` against their norms"
        ));
        p.nodes
            .push(PlanNode::group(list, nodes).repeated(Some("n_layers")));
    }
    p.spec(
        "Generic",
        format!("<generic config.json checks: architecture `{arch}` not recognised>"),
    )
}
