//! [`ShapeIndex`]: the names and shapes of a safetensors file the user already has open (a
//! `safetensors::SafeTensors`, candle's `MmapedSafetensors`), as a [`ShapeSource`].

use std::collections::BTreeMap;

use super::ShapeSource;
use crate::shape::Shape;

/// The name and shape of every tensor of an open checkpoint, sorted by name: what
/// `verify_source` reads. Only the header's shapes are copied (inline, up to rank 8), never
/// tensor data. Neither `SafeTensors` nor `MmapedSafetensors` lends out its shapes (each
/// hands back a fresh `TensorView` per tensor), so the index is built once and kept.
///
/// ```
/// use safetensors::tensor::{Dtype, SafeTensors, TensorView};
/// use shapes::{ShapeSource, Shaped, checkpoint::ShapeIndex};
///
/// #[derive(Shaped)]
/// struct Linear {
///     #[shape("(d_out, d_in)")] weight: shapes::Shape,
/// }
///
/// let w = vec![0u8; 4 * 6];
/// let file = safetensors::serialize(
///     [("encoder.weight", TensorView::new(Dtype::F32, vec![2, 3], &w).unwrap())],
///     None,
/// )
/// .unwrap();
/// let st = SafeTensors::deserialize(&file).unwrap();
/// let index = ShapeIndex::from(&st);
/// assert_eq!(index.shape_of("encoder.weight"), Some(&[2, 3][..]));
/// let b = Linear::verify_source(&index.prefixed("encoder")).unwrap();
/// assert_eq!(b.get("d_in"), Some(3));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShapeIndex {
    shapes: BTreeMap<String, Shape>,
}

impl ShapeIndex {
    /// How many tensors.
    pub fn len(&self) -> usize {
        self.shapes.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }
}

/// A later entry of the same name replaces an earlier one (as candle's `MmapedSafetensors`
/// routes a name found in several files to the last).
impl<N: Into<String>> FromIterator<(N, Shape)> for ShapeIndex {
    fn from_iter<I: IntoIterator<Item = (N, Shape)>>(iter: I) -> Self {
        ShapeIndex {
            shapes: iter.into_iter().map(|(n, s)| (n.into(), s)).collect(),
        }
    }
}

impl ShapeSource for ShapeIndex {
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        self.shapes.get(name).map(Shape::dims)
    }
    fn tensor_names(&self) -> Vec<&str> {
        self.shapes.keys().map(String::as_str).collect()
    }
}

/// The shapes of a deserialized safetensors buffer.
impl From<&::safetensors::SafeTensors<'_>> for ShapeIndex {
    fn from(st: &::safetensors::SafeTensors<'_>) -> Self {
        st.iter()
            .map(|(name, view)| (name, Shape::new(view.shape())))
            .collect()
    }
}

/// `From` for candle's open safetensors types: each lists its tensors as `(name, view)`.
#[cfg(feature = "candle")]
macro_rules! from_candle {
    ($($(#[$doc:meta])* $ty:ty),+) => {$(
        $(#[$doc])*
        impl From<&$ty> for ShapeIndex {
            fn from(st: &$ty) -> Self {
                st.tensors()
                    .into_iter()
                    .map(|(name, view)| {
                        let shape = Shape::new(view.shape());
                        (name, shape)
                    })
                    .collect()
            }
        }
    )+};
}

#[cfg(feature = "candle")]
from_candle!(
    /// The shapes of candle's memory-mapped safetensors file (or files,
    /// `MmapedSafetensors::multi`, where a name in several files is the last file's), what
    /// `VarBuilder::from_mmaped_safetensors` loads from.
    ::candle_core::safetensors::MmapedSafetensors,
    /// The shapes of candle's safetensors file read into memory
    /// (`VarBuilder::from_buffered_safetensors`).
    ::candle_core::safetensors::BufferedSafetensors,
    /// The shapes of candle's safetensors buffer borrowed from the caller
    /// (`VarBuilder::from_slice_safetensors`).
    ::candle_core::safetensors::SliceSafetensors<'_>
);
