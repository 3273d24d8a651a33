//! Each dim of each role named, and each list's count bound: the decisions of `shapes spec`.
//!
//! The rules, in order, for a dim whose size is the same in every instance of its role:
//! 1. a size below 2 is written as its number;
//! 2. a size exactly one candidate config key states (a limit such as
//!    `max_position_embeddings` left out when a width states it too) is that key's variable
//!    (`hidden_size` → `d_model`, the name most built-in specs give the key; else the key's
//!    last segment), bound in `[config]`, so every dim the key explains is one variable and
//!    the config is checked against it;
//! 3. else, when several keys state it, the key bound to the count of a list directly inside
//!    the tensor's block (a router's rows: `n_experts`);
//! 4. else a size that exactly one pair of keys multiplies to, a count of heads and a width,
//!    each key the only one stating its value, is their product (`kv_heads * head_dim`), both bound in `[config]` and the
//!    ones used only in products `given` (a config of more than 1024 such keys gets none);
//! 5. else a bias whose length is its module's weight's first axis (PyTorch's `(out, in)`),
//!    or else its last (GPT-2's Conv1D `(in, out)`), shares one variable with it, named after
//!    the module (when two such names would read as a typo of each other to the spec
//!    reader, `Spec::infer` writes them all as numbers instead);
//! 6. else the size is written as its number: equal sizes the config does not explain are
//!    never taken for one variable (two widths of 64 may be a coincidence), and a size only
//!    one pattern holds is checked as well by its number as by a name.
//!
//! A dim whose size differs between the instances of its role is `_`. Sizes are unified
//! across the elements of a list by construction: a role's pattern is written once for all.
//!
//! A list's count is bound from the one candidate key stating it whose name says what it
//! counts (the list's name in the singular, or `layer`/`block` for an outermost list,
//! `expert` for a list of experts, never a key counting a choice such as the experts picked
//! per token); a key counting layers or blocks, or a choice (`keys::sizes_nothing`: the
//! groups picked, the leading dense layers), explains no dim. A count
//! no key states is pinned to its value by a `where` equation (`n_layer = 4`), as rule 6
//! pins a size: a checkpoint that lost its last layer is then rejected.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::blocks::{Folded, Role};
use super::keys::{Keys, conventional, picks};
use super::{BlockOut, ChoiceOut, Dim, ListOut, TensorOut};

/// `text` as a variable or field name: lowercase ASCII letters, digits and `_`, starting
/// with a letter.
pub(crate) fn identifier(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_matches('_').to_owned();
    match out.chars().next() {
        None => "d".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("d_{out}"),
        Some(_) => out,
    }
}

/// A variable name for `key` when no built-in names it: its last segment, as an identifier.
fn plain_name(key: &str) -> String {
    identifier(key.rsplit('.').next().unwrap_or(key))
}

/// `layers` → `layer`, `experts` → `expert`; a name of three letters or fewer is kept.
pub(crate) fn singular(segment: &str) -> &str {
    match segment.strip_suffix('s') {
        Some(s) if s.len() >= 3 && !s.ends_with('s') => s,
        _ => segment,
    }
}

/// Names handed out once each: `base`, then `base_2`, `base_3`, … (the next suffix of each
/// base remembered, so that many keys of one name cost linear time).
#[derive(Default)]
struct Names {
    taken: HashSet<String>,
    next: HashMap<String, usize>,
}

impl Names {
    fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_owned();
        let n = self.next.entry(base.to_owned()).or_insert(2);
        while self.taken.contains(&name) {
            name = format!("{base}_{n}");
            *n = n.saturating_add(1);
        }
        self.taken.insert(name.clone());
        name
    }
}

/// The most keys stating one value among which a list's count key is looked for.
const MAX_KEYS_OF_ONE_VALUE: usize = 64;

/// The most keys whose products are tried (pairs: half a million at most); a config stating
/// more sizes gets no products.
const MAX_PRODUCT_KEYS: usize = 1024;

/// What the decisions make: the blocks, lists and the variables the config binds.
pub(super) struct Decided {
    pub root: BlockOut,
    pub blocks: Vec<BlockOut>,
    pub lists: Vec<ListOut>,
    pub choices: Vec<ChoiceOut>,
    /// variable, key, value, sorted by variable.
    pub config: Vec<(String, String, usize)>,
    pub given: Vec<String>,
    /// `n_layer = 4` for a count no key states.
    pub wheres: Vec<String>,
    pub dtype: Option<String>,
}

/// Whether two keys make a product rule 4 writes: a count of heads and a width
/// (`num_key_value_heads` and `head_dim`), in either order. Other products of two sizes are
/// too often a coincidence (DeepSeek-V3's 12 block scales are 3 dense layers times a top-k of
/// 4) to be written as one.
fn heads_times_width(a: &str, b: &str) -> bool {
    let last = |k: &str| k.rsplit('.').next().unwrap_or(k).to_ascii_lowercase();
    let heads = |k: &str| {
        let k = last(k);
        k.contains("head")
            && !["dim", "size", "length", "width"]
                .iter()
                .any(|w| k.contains(w))
    };
    let width = |k: &str| {
        let k = last(k);
        ["dim", "size", "length", "width"]
            .iter()
            .any(|w| k.contains(w))
    };
    (heads(a) && width(b)) || (heads(b) && width(a))
}

/// The placeholder of a list `depth` lists deep.
fn placeholder(depth: usize) -> String {
    match depth {
        0 => "i".into(),
        1 => "j".into(),
        2 => "k".into(),
        d => format!("i{d}"),
    }
}

/// Whether `key` names what a list called `rel` (`depth` lists deep) counts.
fn counts(key: &str, rel: &str, depth: usize) -> bool {
    let key = key.to_ascii_lowercase();
    let last = rel.rsplit('.').next().unwrap_or(rel).to_ascii_lowercase();
    let mut words = vec![singular(&last).to_owned()];
    if depth == 0 {
        words.extend(["layer".to_owned(), "block".to_owned()]);
    }
    if last.contains("expert") {
        words.push("expert".into());
    }
    words
        .iter()
        .any(|w| w.len() >= 3 && key.contains(w.as_str()))
}

/// Names every dim of `folded` from `keys`; without `share_biases`, rule 5 is off (its
/// names are written as numbers).
pub(super) fn decide(folded: &Folded, mut keys: Keys, share_biases: bool) -> Decided {
    let mut names = Names::default();
    // Every candidate key's variable, decided up front (in key order) so names are stable.
    let mut var_of: BTreeMap<String, String> = BTreeMap::new();
    let all: Vec<(String, usize)> = keys.all().map(|(k, v)| (k.to_owned(), v)).collect();
    for (k, _) in &all {
        let base = conventional(k).unwrap_or_else(|| plain_name(k));
        var_of.insert(k.clone(), names.fresh(&base));
    }
    let mut used: BTreeMap<String, (String, usize)> = BTreeMap::new();
    let value_of: HashMap<&str, usize> = all.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let use_key = |key: &str, used: &mut BTreeMap<String, (String, usize)>| -> String {
        let var = var_of.get(key).cloned().unwrap_or_else(|| identifier(key));
        let value = value_of.get(key).copied().unwrap_or(0);
        used.insert(var.clone(), (key.to_owned(), value));
        var
    };

    // Lists: depth, placeholders, full names, counts.
    let mut depth = vec![0usize; folded.lists.len()];
    let mut lists: Vec<ListOut> = Vec::with_capacity(folded.lists.len());
    let mut blocks: Vec<BlockOut> = Vec::with_capacity(folded.lists.len());
    let mut block_names = Names::default();
    let mut wheres: Vec<String> = Vec::new();
    for (i, l) in folded.lists.iter().enumerate() {
        let parent = l.parent.filter(|p| *p < lists.len());
        // A block of a choice sits in its list's element: no placeholder of its own.
        let d = match parent {
            Some(p) if folded.lists[p].choice.is_some() => depth[p],
            Some(p) => depth[p] + 1,
            None => 0,
        };
        depth[i] = d;
        let full = match parent.and_then(|p| lists.get(p)) {
            Some(o) if o.choice.is_some() => format!("{}.{}", o.full, l.rel),
            Some(o) => format!("{}.{{{}}}.{}", o.full, o.placeholder, l.rel),
            None => l.rel.clone(),
        };
        let last = l.rel.rsplit('.').next().unwrap_or(&l.rel);
        let block = match l.choice {
            Some(_) => block_names.fresh(&identifier(last)),
            None => block_names.fresh(&identifier(singular(last))),
        };
        let count_var = l.count.map(|n| {
            // More keys stating it than a config has sizes of one value: none is told apart.
            let all = keys.stating(n);
            let all = if all.len() > MAX_KEYS_OF_ONE_VALUE {
                &[]
            } else {
                all
            };
            let stating: Vec<&String> = (all.iter())
                .filter(|k| counts(k, &l.rel, d) && !picks(k))
                .collect();
            match stating.as_slice() {
                [one] => use_key(one, &mut used),
                _ => {
                    // No key states it: pinned, as a size nothing explains is.
                    let var = names.fresh(&format!("n_{}", identifier(singular(last))));
                    wheres.push(format!("{var} = {n}"));
                    var
                }
            }
        });
        lists.push(ListOut {
            rel: l.rel.clone(),
            full,
            placeholder: placeholder(d),
            block: i,
            count_var,
            choice: l.choice,
        });
        blocks.push(BlockOut {
            name: block,
            tensors: Vec::new(),
            lists: Vec::new(),
        });
        if let Some(p) = parent {
            blocks[p].lists.push(i);
        }
    }
    // Each choice, and the key that counts the elements taking its first block: one whose
    // name says it counts leading layers (`first_k_dense_replace`).
    let choices: Vec<ChoiceOut> = folded
        .choices
        .iter()
        .map(|c| {
            let first = c.leading.and_then(|k| {
                let stating: Vec<&String> = keys
                    .stating(k)
                    .iter()
                    .filter(|key| {
                        let key = key.to_ascii_lowercase();
                        ["first", "dense", "start"].iter().any(|w| key.contains(w))
                    })
                    .collect();
                match stating.as_slice() {
                    [one] => Some(use_key(one, &mut used)),
                    _ => None,
                }
            });
            ChoiceOut {
                at: c.at.clone(),
                options: c.blocks.clone(),
                first,
            }
        })
        .collect();
    let mut root = BlockOut {
        name: String::new(),
        tensors: Vec::new(),
        lists: (0..lists.len())
            .filter(|i| folded.lists[*i].parent.is_none())
            .collect(),
    };
    // A key counting layers or blocks explains no dim.
    let count_vars: HashSet<&String> = lists.iter().filter_map(|l| l.count_var.as_ref()).collect();
    for (var, (key, _)) in &used {
        let k = key.to_ascii_lowercase();
        if count_vars.contains(var) && (k.contains("layer") || k.contains("block")) {
            keys.remove(key);
        }
    }

    // The counts bound from a key of the lists directly inside each block (`None`: the top).
    let mut inner_counts: HashMap<Option<usize>, Vec<(usize, String)>> = HashMap::new();
    for (i, l) in folded.lists.iter().enumerate() {
        let (Some(n), Some(var)) = (l.count, lists[i].count_var.as_ref()) else {
            continue;
        };
        if let Some((key, _)) = used.get(var) {
            inner_counts
                .entry(l.parent)
                .or_default()
                .push((n, key.clone()));
        }
    }

    // Products of two keys, each the only one stating its value.
    // The keys that explain each value (once per value: many keys may share one).
    let explaining: HashMap<usize, Vec<&str>> = keys
        .all()
        .map(|(_, v)| v)
        .collect::<BTreeSet<usize>>()
        .into_iter()
        .map(|v| (v, keys.explaining(v)))
        .collect();
    let mut unique: Vec<(&str, usize)> = explaining
        .iter()
        .filter_map(|(v, ks)| match ks[..] {
            [k] => Some((k, *v)),
            _ => None,
        })
        .collect();
    unique.sort_unstable();
    if unique.len() > MAX_PRODUCT_KEYS {
        unique.clear();
    }
    let mut products: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
    for (a, (ka, va)) in unique.iter().enumerate() {
        for (b, (kb, vb)) in unique.iter().enumerate().skip(a + 1) {
            if !heads_times_width(ka, kb) {
                continue;
            }
            if let Some(p) = va.checked_mul(*vb) {
                products.entry(p).or_default().push((a, b));
            }
        }
    }

    // Rule 5: each bias that shares its weight's axis, and that weight, by (list, name):
    // the module, the weight's axis and the length.
    let by_name: HashMap<(Option<usize>, &str), &Role> = folded
        .roles
        .iter()
        .map(|r| ((r.list, r.rel.as_str()), r))
        .collect();
    let mut shares: HashMap<(Option<usize>, String), (String, usize, usize)> = HashMap::new();
    for r in &folded.roles {
        let Some(module) = r.rel.strip_suffix("bias") else {
            continue;
        };
        let Some([Some(len)]) = r.dims.as_deref() else {
            continue;
        };
        let weight = format!("{module}weight");
        let Some(wd) = by_name
            .get(&(r.list, weight.as_str()))
            .and_then(|w| w.dims.as_deref())
        else {
            continue;
        };
        let axis = if wd.first() == Some(&Some(*len)) {
            0
        } else if wd.len() >= 2 && wd.last() == Some(&Some(*len)) {
            wd.len() - 1
        } else {
            continue;
        };
        let share = (module.trim_end_matches('.').to_owned(), axis, *len);
        shares.insert((r.list, weight), share.clone());
        shares.insert((r.list, r.rel.clone()), share);
    }
    let mut groups: HashMap<(Option<usize>, String), String> = HashMap::new();

    let total: usize = folded.roles.iter().map(|r| r.instances).sum();
    let mut dtype_counts: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &folded.roles {
        for d in &r.dtypes {
            *dtype_counts.entry(d.as_str()).or_insert(0) += r.instances;
        }
    }
    let dtype = dtype_counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(d, _)| (*d).to_owned())
        .filter(|_| total > 0);

    let mut in_products: BTreeSet<String> = BTreeSet::new();
    let mut alone: BTreeSet<String> = BTreeSet::new();
    for r in &folded.roles {
        let share = shares.get(&(r.list, r.rel.clone()));
        let dims = r.dims.as_ref().map(|dims| {
            dims.iter()
                .enumerate()
                .map(|(axis, d)| {
                    let Some(v) = *d else {
                        return Dim::Any;
                    };
                    if v < 2 {
                        return Dim::Size(v);
                    }
                    if let Some([key]) = explaining.get(&v).map(Vec::as_slice) {
                        let var = use_key(key, &mut used);
                        alone.insert(var.clone());
                        return Dim::Var(var);
                    }
                    // Several keys state it: a count of a list inside this block is
                    // taken (a router has a row for each expert).
                    if let Some((_, key)) = inner_counts
                        .get(&r.list)
                        .and_then(|c| c.iter().find(|(n, _)| *n == v))
                    {
                        let var = use_key(key, &mut used);
                        alone.insert(var.clone());
                        return Dim::Var(var);
                    }
                    if let Some([(a, b)]) = products.get(&v).map(Vec::as_slice) {
                        // The smaller factor first (a count of heads, then their width).
                        let (a, b) = if (unique[*a].1, unique[*a].0) <= (unique[*b].1, unique[*b].0)
                        {
                            (a, b)
                        } else {
                            (b, a)
                        };
                        let (ka, kb) = (unique[*a].0.to_owned(), unique[*b].0.to_owned());
                        let (va, vb) = (use_key(&ka, &mut used), use_key(&kb, &mut used));
                        in_products.insert(va.clone());
                        in_products.insert(vb.clone());
                        return Dim::Product(va, vb);
                    }
                    if let Some((module, wax, len)) = share.filter(|_| share_biases) {
                        let is_bias = r.rel.ends_with("bias");
                        if (is_bias && axis == 0) || (!is_bias && axis == *wax && v == *len) {
                            let key = (r.list, module.clone());
                            let var = groups
                                .entry(key)
                                .or_insert_with(|| {
                                    let base = module.rsplit('.').next().unwrap_or(module);
                                    let base = if base.is_empty() { "bias" } else { base };
                                    names.fresh(&identifier(base))
                                })
                                .clone();
                            return Dim::Var(var);
                        }
                    }
                    Dim::Size(v)
                })
                .collect()
        });
        let elements = r.list.map_or(1, |l| folded.lists[l].elements);
        let dtypes: Vec<String> = if dtype
            .as_ref()
            .is_some_and(|d| r.dtypes.len() == 1 && r.dtypes.contains(d))
        {
            Vec::new()
        } else {
            r.dtypes.iter().cloned().collect()
        };
        let out = TensorOut {
            name: r.rel.clone(),
            dims,
            optional: r.instances < elements,
            dtypes,
        };
        match r.list {
            Some(l) => blocks[l].tensors.push(out),
            None => root.tensors.push(out),
        }
    }
    for l in &lists {
        if let Some(v) = &l.count_var {
            alone.insert(v.clone());
        }
    }
    for c in &choices {
        if let Some(v) = &c.first {
            alone.insert(v.clone());
        }
    }
    let given = in_products.difference(&alone).cloned().collect();
    let config = used
        .into_iter()
        .map(|(var, (key, value))| (var, key, value))
        .collect();
    Decided {
        root,
        blocks,
        lists,
        choices,
        config,
        given,
        wheres,
        dtype,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_and_singulars() {
        assert_eq!(identifier("LayerNorm"), "layernorm");
        assert_eq!(identifier("0.weight"), "d_0_weight");
        assert_eq!(identifier("--"), "d");
        assert_eq!(plain_name("model.kernel_size"), "kernel_size");
        assert_eq!(singular("layers"), "layer");
        assert_eq!(singular("experts"), "expert");
        assert_eq!(singular("h"), "h");
        assert_eq!(singular("class"), "class");
    }

    #[test]
    fn products_are_heads_times_a_width() {
        assert!(heads_times_width("num_key_value_heads", "head_dim"));
        assert!(heads_times_width(
            "llama.attention.key_length",
            "llama.attention.head_count_kv"
        ));
        assert!(!heads_times_width("first_k_dense_replace", "topk_group"));
        assert!(!heads_times_width("qk_rope_head_dim", "kv_lora_rank"));
    }

    #[test]
    fn a_count_key_says_what_it_counts() {
        assert!(counts("num_hidden_layers", "model.layers", 0));
        assert!(counts("{arch}.block_count", "blk", 0));
        assert!(counts("num_local_experts", "block_sparse_moe.experts", 1));
        assert!(!counts("num_key_value_heads", "model.layers", 0));
        assert!(!counts("num_key_value_heads", "mlp.experts", 1));
    }
}
