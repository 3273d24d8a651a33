//! safetensors: a loaded `TensorView`, and the [`TensorEntry`] of a header read without loading
//! any data.

use ::safetensors::tensor::TensorView;

use crate::source::has_shape::HasShape;
use crate::source::safetensors::TensorEntry;

/// The dims of a tensor in a deserialized safetensors buffer, borrowed from the view.
///
/// ```
/// use safetensors::tensor::{Dtype, SafeTensors, TensorView};
/// use shapes::{Shaped, verify::HasShape};
///
/// #[derive(Shaped)]
/// struct Linear<'a> {
///     #[shape("(d_out, d_in)")]
///     weight: TensorView<'a>,
///     #[shape("(d_out,)")]
///     bias: TensorView<'a>,
/// }
///
/// let (w, b) = (vec![0u8; 4 * 6], vec![0u8; 4 * 2]);
/// let file = safetensors::serialize(
///     [
///         ("weight", TensorView::new(Dtype::F32, vec![2, 3], &w).unwrap()),
///         ("bias", TensorView::new(Dtype::F32, vec![2], &b).unwrap()),
///     ],
///     None,
/// )
/// .unwrap();
/// let st = SafeTensors::deserialize(&file).unwrap();
/// let layer = Linear { weight: st.tensor("weight").unwrap(), bias: st.tensor("bias").unwrap() };
/// assert_eq!(HasShape::shape(&layer.weight).as_ref(), &[2, 3]);
/// assert_eq!(layer.verify().unwrap().get("d_in"), Some(3));
/// ```
impl HasShape for TensorView<'_> {
    type Dims<'a>
        = &'a [usize]
    where
        Self: 'a;

    #[inline]
    fn shape(&self) -> &[usize] {
        TensorView::shape(self)
    }
}

/// The shape recorded for a tensor in a safetensors header: a struct of `TensorEntry` checks a
/// checkpoint's layout from its header alone, before (or instead of) loading any data.
///
/// ```
/// use shapes::{Shaped, verify::HasShape, checkpoint::{SafetensorsHeader, TensorEntry}};
///
/// #[derive(Shaped)]
/// struct Linear<'a> {
///     #[shape("(d_out, d_in)")]
///     weight: &'a TensorEntry,
///     #[shape("(d_out,)")]
///     bias: &'a TensorEntry,
/// }
///
/// let json = br#"{"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},
///                 "b":{"dtype":"F32","shape":[3],"data_offsets":[24,36]}}"#;
/// let mut file = (json.len() as u64).to_le_bytes().to_vec();
/// file.extend_from_slice(json);
/// file.extend_from_slice(&[0u8; 36]);
/// let header = SafetensorsHeader::from_bytes(&file).unwrap();
/// let layer = Linear { weight: header.get("w").unwrap(), bias: header.get("b").unwrap() };
/// assert_eq!(HasShape::shape(&layer.weight).as_ref(), &[2, 3]);
/// let e = layer.verify().unwrap_err();
/// assert!(e.to_string().starts_with("Linear.bias: axis 0 expected d_out = 2, found 3"), "{e}");
/// ```
impl HasShape for TensorEntry {
    type Dims<'a> = &'a [usize];

    #[inline]
    fn shape(&self) -> &[usize] {
        self.shape.dims()
    }
}

#[cfg(test)]
mod tests {
    use ::safetensors::tensor::{Dtype, SafeTensors, TensorView};

    use crate::source::safetensors::{SafetensorsHeader, TensorEntry};
    use crate::verify::{ShapeErrorKind, Shaped};

    #[derive(shapes::Shaped)]
    #[shapes(crate = "crate")]
    struct DepthwiseConv<T> {
        #[shape("(channels, 1, kernel)")]
        weight: T,
        #[shape("(channels,)")]
        bias: T,
    }

    fn file(bias_len: usize) -> Vec<u8> {
        let w = vec![0u8; 4 * 8 * 3];
        let b = vec![0u8; 4 * bias_len];
        safetensors::serialize(
            [
                ("w", TensorView::new(Dtype::F32, vec![8, 1, 3], &w).unwrap()),
                (
                    "b",
                    TensorView::new(Dtype::F32, vec![bias_len], &b).unwrap(),
                ),
            ],
            None,
        )
        .unwrap()
    }

    fn views<'a>(st: &'a SafeTensors<'a>) -> DepthwiseConv<TensorView<'a>> {
        DepthwiseConv {
            weight: st.tensor("w").unwrap(),
            bias: st.tensor("b").unwrap(),
        }
    }

    fn entries(h: &SafetensorsHeader) -> DepthwiseConv<&TensorEntry> {
        DepthwiseConv {
            weight: h.get("w").unwrap(),
            bias: h.get("b").unwrap(),
        }
    }

    #[test]
    fn tensor_views_and_header_entries_verify() {
        let bytes = file(8);
        let st = SafeTensors::deserialize(&bytes).unwrap();
        let b = views(&st).verify().unwrap();
        assert_eq!((b.get("channels"), b.get("kernel")), (Some(8), Some(3)));
        let h = SafetensorsHeader::from_bytes(&bytes).unwrap();
        assert_eq!(entries(&h).verify().unwrap(), b);
    }

    #[test]
    fn a_wrong_tensor_is_reported_from_views_and_from_the_header() {
        let bytes = file(7);
        let st = SafeTensors::deserialize(&bytes).unwrap();
        let h = SafetensorsHeader::from_bytes(&bytes).unwrap();
        for e in [
            views(&st).verify().unwrap_err(),
            entries(&h).verify().unwrap_err(),
        ] {
            assert_eq!(e.path.to_string(), "DepthwiseConv.bias");
            assert_eq!(e.axis, Some(0));
            assert_eq!(e.found(), Some(7));
            assert!(
                matches!(e.kind, ShapeErrorKind::Dim { value: 8, .. }),
                "{e}"
            );
        }
    }
}
