//! Where shapes come from: [`HasShape`] for a value that has a shape (a tensor type of another
//! crate, behind a feature of that crate's name), and [`ShapeSource`] for where `verify_source`
//! reads tensor shapes by name (a checkpoint's header, or a plain map) without touching tensor
//! data.

use std::collections::{BTreeMap, HashMap};

use crate::shape::Shape;

#[cfg(feature = "checkpoint")]
mod checkpoint;
#[cfg(feature = "gguf")]
mod gguf;
mod has_shape;
#[cfg(any(feature = "gguf", feature = "safetensors"))]
mod header;
mod integrations;
#[cfg(feature = "safetensors")]
mod opened;
mod prefixed;
#[cfg(feature = "safetensors")]
mod safetensors;
mod sorted;
mod stated;

pub use self::has_shape::{Dims, Element, HasShape, StaticShape, dims};
#[cfg(feature = "safetensors")]
pub use self::opened::ShapeIndex;
pub use self::prefixed::Prefixed;
#[cfg(feature = "spec")]
pub(crate) use self::sorted::SortedNames;
pub(crate) use self::sorted::sorted_names;
pub use self::stated::{ConfigEntry, ConfigPlace, ConfigValue};

#[cfg(feature = "safetensors")]
pub use self::safetensors::{SafetensorsError, SafetensorsHeader, TensorEntry};

#[cfg(feature = "checkpoint")]
#[doc(hidden)]
pub use self::checkpoint::fuzz as checkpoint_fuzz;
#[cfg(feature = "checkpoint")]
pub use self::checkpoint::{Checkpoint, CheckpointError, CheckpointFormat, CheckpointTensor};

#[cfg(feature = "gguf")]
pub use self::gguf::{GgmlType, GgufArray, GgufError, GgufHeader, GgufTensor, GgufType, GgufValue};

/// Anything that answers "what is the shape of the tensor named `name`" and lists its names.
///
/// ```
/// use std::collections::BTreeMap;
/// use shapes::{Shape, ShapeSource};
///
/// let mut m = BTreeMap::new();
/// m.insert("embed.weight".to_string(), Shape::from([1000, 64]));
/// assert_eq!(m.shape_of("embed.weight"), Some(&[1000, 64][..]));
/// assert_eq!(m.tensor_names(), ["embed.weight"]);
/// ```
pub trait ShapeSource {
    /// The shape of the tensor called `name`, when the source has one.
    fn shape_of(&self, name: &str) -> Option<&[usize]>;

    /// Every tensor name, in the source's order.
    fn tensor_names(&self) -> Vec<&str>;

    /// The value the source states under `key` (a `config.json` key, a metadata key), for
    /// the variables a struct or plan binds from keys; `None` when it states none. Plain maps
    /// state nothing; a [`Checkpoint`](crate::Checkpoint) answers from its `config.json` and
    /// its metadata.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use shapes::{Shape, ShapeSource};
    /// let m: BTreeMap<String, Shape> = BTreeMap::new();
    /// assert_eq!(m.config("hidden_size"), None);
    /// ```
    fn config(&self, key: &str) -> Option<ConfigEntry> {
        let _ = key;
        None
    }

    /// The element type of the tensor called `name`, in safetensors' spelling (`BF16`,
    /// `F8_E4M3`, `I64`; GGUF's quantized types by their ggml name), when the source knows it.
    /// Plain maps know none; a [`Checkpoint`](crate::Checkpoint) knows every tensor's.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use shapes::{Shape, ShapeSource};
    /// let m = BTreeMap::from([("w".to_string(), Shape::from([2]))]);
    /// assert_eq!(m.dtype_of("w"), None);
    /// ```
    fn dtype_of(&self, name: &str) -> Option<&str> {
        let _ = name;
        None
    }

    /// For a `key` the source does not state, a key it states a slip of the fingers away
    /// (one or two edits: `d_model` for `d_modle`), with its value: a likely misspelling,
    /// which would otherwise leave the variable bound from `key` unchecked against the
    /// config. `None` when the source states `key`, states nothing close, or states nothing
    /// at all (plain maps). A [`Checkpoint`](crate::Checkpoint) answers from its
    /// `config.json` and its metadata.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use shapes::{Shape, ShapeSource};
    /// let m: BTreeMap<String, Shape> = BTreeMap::new();
    /// assert_eq!(m.config_near("d_modle"), None);
    /// ```
    fn config_near(&self, key: &str) -> Option<ConfigEntry> {
        let _ = key;
        None
    }

    /// The part of this source under `prefix` (`"bert"`: the tensors named `bert.…`, without
    /// the prefix), what `VarBuilder::pp` is to candle: a sub-model verifies against it.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use shapes::{Shape, ShapeSource};
    ///
    /// let src = HashMap::from([("encoder.w".to_string(), Shape::from([2, 3]))]);
    /// assert_eq!(src.prefixed("encoder").shape_of("w"), Some(&[2, 3][..]));
    /// ```
    fn prefixed(&self, prefix: &str) -> Prefixed<&Self>
    where
        Self: Sized,
    {
        Prefixed::new(self, prefix)
    }
}

impl<S: ShapeSource + ?Sized> ShapeSource for &S {
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        (**self).shape_of(name)
    }
    fn tensor_names(&self) -> Vec<&str> {
        (**self).tensor_names()
    }
    fn config(&self, key: &str) -> Option<ConfigEntry> {
        (**self).config(key)
    }
    fn dtype_of(&self, name: &str) -> Option<&str> {
        (**self).dtype_of(name)
    }
    fn config_near(&self, key: &str) -> Option<ConfigEntry> {
        (**self).config_near(key)
    }
}

impl<K, V, H> ShapeSource for HashMap<K, V, H>
where
    K: std::borrow::Borrow<str> + std::hash::Hash + Eq,
    V: AsRef<[usize]>,
    H: std::hash::BuildHasher,
{
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        self.get(name).map(AsRef::as_ref)
    }
    /// Sorted, since a `HashMap` has no order of its own.
    fn tensor_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.keys().map(|k| k.borrow()).collect();
        names.sort_unstable();
        names
    }
}

impl<K, V> ShapeSource for BTreeMap<K, V>
where
    K: std::borrow::Borrow<str> + Ord,
    V: AsRef<[usize]>,
{
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        self.get(name).map(AsRef::as_ref)
    }
    fn tensor_names(&self) -> Vec<&str> {
        self.keys().map(|k| k.borrow()).collect()
    }
}

/// A list of `(name, shape)` pairs, in order.
///
/// ```
/// use shapes::{Shape, ShapeSource};
/// let v = vec![("w".to_string(), Shape::from([2, 3]))];
/// assert_eq!(v.as_slice().shape_of("w"), Some(&[2, 3][..]));
/// ```
impl ShapeSource for [(String, Shape)] {
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        self.iter().find(|(n, _)| n == name).map(|(_, s)| s.dims())
    }
    fn tensor_names(&self) -> Vec<&str> {
        self.iter().map(|(n, _)| n.as_str()).collect()
    }
}
