//! [`Prefixed`]: the part of a source under one name prefix, seen as a source of its own (the
//! `vb.pp("bert")` of a checkpoint), so that a sub-model verifies against its part.

use super::ShapeSource;

/// The tensors of `S` whose names start with `prefix.`, named without it: in a view of
/// `"bert"`, the tensor `bert.embeddings.weight` is `embeddings.weight`, and tensors outside
/// `bert.` are not there. Made by [`ShapeSource::prefixed`].
///
/// ```
/// use std::collections::BTreeMap;
/// use shapes::{Shape, Shaped, ShapeSource};
///
/// #[derive(Shaped)]
/// struct Pooler { #[shape("(d, d)", name = "dense.weight")] dense: Shape }
///
/// let mut ckpt = BTreeMap::new();
/// ckpt.insert("bert.pooler.dense.weight".to_string(), Shape::from([8, 8]));
/// ckpt.insert("cls.bias".to_string(), Shape::from([2]));
/// let pooler = ckpt.prefixed("bert.pooler");
/// assert_eq!(pooler.tensor_names(), ["dense.weight"]);
/// assert_eq!(Pooler::verify_source(&pooler).unwrap().get("d"), Some(8));
/// // The views nest: a view of a view.
/// assert_eq!(ckpt.prefixed("bert").prefixed("pooler").shape_of("dense.weight"), Some(&[8, 8][..]));
/// ```
#[derive(Debug, Clone)]
pub struct Prefixed<S> {
    src: S,
    /// The prefix with its trailing `.` (empty for the whole source).
    prefix: String,
}

impl<S: ShapeSource> Prefixed<S> {
    /// The part of `src` under `prefix` (`""`: all of it).
    pub fn new(src: S, prefix: &str) -> Self {
        let prefix = if prefix.is_empty() {
            String::new()
        } else {
            format!("{prefix}.")
        };
        Prefixed { src, prefix }
    }

    /// The prefix, with its trailing `.` (empty for the whole source).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }
}

impl<S: ShapeSource> ShapeSource for Prefixed<S> {
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        if self.prefix.is_empty() {
            return self.src.shape_of(name);
        }
        let mut full = String::with_capacity(self.prefix.len() + name.len());
        full.push_str(&self.prefix);
        full.push_str(name);
        self.src.shape_of(&full)
    }

    fn tensor_names(&self) -> Vec<&str> {
        self.src
            .tensor_names()
            .into_iter()
            .filter_map(|n| n.strip_prefix(self.prefix.as_str()))
            .collect()
    }

    fn dtype_of(&self, name: &str) -> Option<&str> {
        if self.prefix.is_empty() {
            return self.src.dtype_of(name);
        }
        self.src.dtype_of(&format!("{}{name}", self.prefix))
    }

    /// The whole source's config and metadata: a sub-model is configured by the same file.
    fn config(&self, key: &str) -> Option<super::ConfigEntry> {
        self.src.config(key)
    }
    fn config_near(&self, key: &str) -> Option<super::ConfigEntry> {
        self.src.config_near(key)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crate::shape::Shape;
    use crate::source::ShapeSource;

    fn ckpt() -> BTreeMap<String, Shape> {
        let mut m = BTreeMap::new();
        for name in ["bert.a", "bert.b.c", "bertx.d", "bert", "e"] {
            m.insert(name.to_string(), Shape::from([1]));
        }
        m
    }

    #[test]
    fn only_names_under_the_prefix_and_a_dot_are_seen() {
        let m = ckpt();
        let v = m.prefixed("bert");
        assert_eq!(v.tensor_names(), ["a", "b.c"]);
        assert!(v.shape_of("a").is_some());
        assert!(v.shape_of("d").is_none());
        assert!(v.shape_of("").is_none());
        assert_eq!(m.prefixed("").tensor_names(), m.tensor_names());
    }
}
