//! The plans built, remembered by what they were built from, so that a plan built again is
//! the one built before and its names are leaked once (see the parent module's doc).

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, OnceLock, PoisonError};

use super::{Plan, PlanError, PlanNode};
use crate::verify::Place;
use crate::verify::by_name::ConfigKey;

/// What a plan is built from: its root, nodes and `where` clauses with their places.
type Built = (String, Vec<PlanNode>, Vec<(String, Place)>);

/// The most plans remembered: a program that builds many distinct plans (a fuzzer) leaks
/// each, as it would without them. The built-in specs alone are 60 plans (each naming, each
/// layout of its prefixes, each placed in its own text), so the room is a few times that.
const MAX_REMEMBERED: usize = 256;

/// The plans built, by what they were built from.
static REMEMBERED: OnceLock<Mutex<HashMap<Built, Plan>>> = OnceLock::new();

/// The value `memory` holds for `key`, if any. A poisoned lock only means a panic elsewhere
/// while it was held: the map is whole.
fn recall<K: Hash + Eq, V: Clone>(memory: &OnceLock<Mutex<HashMap<K, V>>>, key: &K) -> Option<V> {
    let map = memory.get_or_init(Default::default);
    map.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(key)
        .cloned()
}

/// Remembers `value` for `key` while `memory` holds fewer than `max` values; returns it.
fn keep<K: Hash + Eq, V: Clone>(
    memory: &OnceLock<Mutex<HashMap<K, V>>>,
    key: K,
    value: V,
    max: usize,
) -> V {
    let map = memory.get_or_init(Default::default);
    let mut map = map.lock().unwrap_or_else(PoisonError::into_inner);
    if map.len() < max {
        map.insert(key, value.clone());
    }
    value
}

/// The plan remembered for `root`, `nodes` and `wheres`, else `build`'s (remembered while
/// fewer than [`MAX_REMEMBERED`] are).
pub(super) fn build(
    root: &str,
    nodes: &[PlanNode],
    wheres: &[(&str, Place)],
    build: impl FnOnce() -> Result<Plan, PlanError>,
) -> Result<Plan, PlanError> {
    let key: Built = (
        root.to_owned(),
        nodes.to_vec(),
        wheres.iter().map(|(w, p)| ((*w).to_owned(), *p)).collect(),
    );
    if let Some(plan) = recall(&REMEMBERED, &key) {
        return Ok(plan);
    }
    Ok(keep(&REMEMBERED, key, build()?, MAX_REMEMBERED))
}

/// The most lists of config keys remembered ([`key_list`]).
const MAX_KEY_LISTS: usize = 4096;

/// The lists of config keys leaked, by their keys.
static KEY_LISTS: OnceLock<Mutex<HashMap<Vec<String>, &'static [&'static str]>>> = OnceLock::new();

/// `keys` as the `&'static` list a [`ConfigKey`](crate::verify::by_name::ConfigKey) holds:
/// the one leaked before for the same keys (while fewer than [`MAX_KEY_LISTS`] are
/// remembered), else a new one.
pub(super) fn key_list(keys: &[&str]) -> &'static [&'static str] {
    let owned: Vec<String> = keys.iter().map(|k| (*k).to_owned()).collect();
    if let Some(list) = recall(&KEY_LISTS, &owned) {
        return list;
    }
    let list: Vec<&'static str> = keys.iter().map(|k| super::leak(k)).collect();
    keep(
        &KEY_LISTS,
        owned,
        Box::leak(list.into_boxed_slice()),
        MAX_KEY_LISTS,
    )
}

/// The names of the files places name ([`Place::file`](crate::verify::Place::file)), leaked.
#[cfg(feature = "spec")]
static FILE_NAMES: OnceLock<Mutex<HashMap<String, &'static str>>> = OnceLock::new();

/// `name` as the `&'static str` a [`Place`](crate::verify::Place) holds: the one leaked
/// before for the same name (while fewer than [`MAX_KEY_LISTS`] are remembered), else a new
/// one. A spec loaded for each checkpoint names its file once.
#[cfg(feature = "spec")]
pub(crate) fn file_name(name: &str) -> &'static str {
    if let Some(leaked) = recall(&FILE_NAMES, &name.to_owned()) {
        return leaked;
    }
    keep(
        &FILE_NAMES,
        name.to_owned(),
        super::leak(name),
        MAX_KEY_LISTS,
    )
}

/// The lists of places leaked, by their places.
static PLACE_LISTS: OnceLock<Mutex<HashMap<Vec<Place>, &'static [Place]>>> = OnceLock::new();

/// `places` as the `&'static` list a [`Description`](crate::verify::Description) holds
/// beside its config bindings: the one leaked before for the same places (while fewer than
/// [`MAX_KEY_LISTS`] are remembered), else a new one.
pub(super) fn place_list(places: &[Place]) -> &'static [Place] {
    if let Some(list) = recall(&PLACE_LISTS, &places.to_vec()) {
        return list;
    }
    let list: &'static [Place] = Box::leak(places.to_vec().into_boxed_slice());
    keep(&PLACE_LISTS, places.to_vec(), list, MAX_KEY_LISTS)
}

/// The lists of config bindings leaked, by their variables and keys.
static CONFIG_LISTS: OnceLock<Mutex<HashMap<OwnedConfig, &'static [ConfigKey]>>> = OnceLock::new();

/// A list of config bindings by value: each variable with its keys.
type OwnedConfig = Vec<(String, Vec<String>)>;

/// `keys` as the `&'static` list a [`Description`](crate::verify::Description) holds: the one
/// leaked before for the same bindings (while fewer than [`MAX_KEY_LISTS`] are remembered),
/// else a new one. Its names and keys are already `'static`.
pub(super) fn config_list(keys: &[ConfigKey]) -> &'static [ConfigKey] {
    let owned: OwnedConfig = keys
        .iter()
        .map(|k| {
            let list = k.keys.iter().map(|s| (*s).to_owned()).collect();
            (k.var.to_owned(), list)
        })
        .collect();
    if let Some(list) = recall(&CONFIG_LISTS, &owned) {
        return list;
    }
    let list: &'static [ConfigKey] = Box::leak(keys.to_vec().into_boxed_slice());
    keep(&CONFIG_LISTS, owned, list, MAX_KEY_LISTS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_built_again_is_the_one_built_before() {
        let nodes = [PlanNode::tensor("remembered.w", "(d_remembered, 2)")];
        let a = Plan::build("Remembered", &nodes, &["d_remembered >= 1"]).expect("builds");
        let b = Plan::build("Remembered", &nodes, &["d_remembered >= 1"]).expect("builds");
        assert!(std::ptr::eq(a.table, b.table));
        assert!(std::ptr::eq(a.root, b.root));
        // Another `where` is another plan.
        let c = Plan::build("Remembered", &nodes, &["d_remembered >= 2"]).expect("builds");
        assert!(!std::ptr::eq(a.table, c.table));
        let mut src = std::collections::BTreeMap::new();
        src.insert("remembered.w".to_string(), crate::Shape::from([1, 2]));
        assert!(b.verify_source(&src).is_ok());
        assert!(c.verify_source(&src).is_err());
        assert!(std::ptr::eq(
            key_list(&["hidden_size", "n_embd"]),
            key_list(&["hidden_size", "n_embd"])
        ));
        #[cfg(feature = "spec")]
        assert!(std::ptr::eq(file_name("m.toml"), file_name("m.toml")));
    }

    /// Loading a built-in spec for each checkpoint leaks it once: 2,000 loads of the llama
    /// spec grew a process by 23 MB before, by nothing measurable since.
    #[cfg(feature = "spec")]
    #[test]
    fn a_spec_loaded_again_shares_what_it_leaked() {
        use crate::spec::{Naming, Spec};
        let keys = |s: &Spec| -> Vec<*const [&'static str]> {
            s.plan()
                .key_bindings()
                .map(|(_, k)| k as *const _)
                .collect()
        };
        let a = Spec::builtin("llama", Naming::HuggingFace).expect("built in");
        let b = Spec::builtin("llama", Naming::HuggingFace).expect("built in");
        assert!(!keys(&a).is_empty());
        assert_eq!(keys(&a), keys(&b));
    }
}
