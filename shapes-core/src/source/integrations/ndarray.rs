//! ndarray: every `ArrayBase` (owned arrays, views, `ArcArray`, `CowArray`, of any dimension
//! type) and the `ArrayRef` that ndarray 0.17's functions take by reference.

use ::ndarray::{ArrayBase, ArrayRef, Dimension, LayoutRef, RawData};

use crate::source::has_shape::HasShape;

/// The dims of an ndarray array or view, borrowed from the array, for any dimension type
/// (`Ix1` … `Ix6`, `IxDyn`).
///
/// ```
/// use ndarray::{Array1, Array2, ArrayView2, ArrayD, IxDyn};
/// use shapes::{Shaped, verify::HasShape};
///
/// #[derive(Shaped)]
/// struct Linear<'a> {
///     #[shape("(d_out, d_in)")]
///     weight: ArrayView2<'a, f32>,
///     #[shape("(d_out,)")]
///     bias: Array1<f32>,
///     #[shape("(*batch, d_in)")]
///     input: ArrayD<f32>,
/// }
///
/// let w = Array2::<f32>::zeros((4, 3));
/// let layer = Linear {
///     weight: w.view(),
///     bias: Array1::zeros(4),
///     input: ArrayD::zeros(IxDyn(&[2, 5, 3])),
/// };
/// assert_eq!(HasShape::shape(&layer.weight).as_ref(), &[4, 3]);
/// let b = layer.verify().unwrap();
/// assert_eq!((b.get("d_out"), b.get("d_in")), (Some(4), Some(3)));
///
/// let bad = Linear { bias: Array1::zeros(5), ..layer };
/// let e = bad.verify().unwrap_err();
/// assert!(e.to_string().starts_with("Linear.bias: axis 0 expected d_out = 4, found 5"), "{e}");
/// ```
impl<S: RawData, D: Dimension> HasShape for ArrayBase<S, D> {
    type Dims<'a>
        = &'a [usize]
    where
        Self: 'a;

    #[inline]
    fn shape(&self) -> &[usize] {
        ArrayBase::shape(self)
    }
}

/// The dims of an `ArrayRef`, what ndarray 0.17's functions take as `&ArrayRef<A, D>`.
///
/// ```
/// use ndarray::{Array2, ArrayRef2};
/// use shapes::verify::HasShape;
///
/// fn dims_of(a: &ArrayRef2<f64>) -> Vec<usize> {
///     HasShape::shape(a).as_ref().to_vec()
/// }
/// assert_eq!(dims_of(&Array2::<f64>::zeros((2, 7))), [2, 7]);
/// ```
impl<A, D: Dimension> HasShape for ArrayRef<A, D> {
    type Dims<'a>
        = &'a [usize]
    where
        Self: 'a;

    #[inline]
    fn shape(&self) -> &[usize] {
        let layout: &LayoutRef<A, D> = self;
        layout.shape()
    }
}

#[cfg(test)]
mod tests {
    use ::ndarray::{Array, Array1, Array2, Array3, ArrayView1, Axis, IxDyn};

    use crate::source::has_shape::HasShape;
    use crate::verify::{ShapeErrorKind, Shaped};

    #[derive(shapes::Shaped)]
    #[shapes(crate = "crate")]
    struct Conv<'a> {
        #[shape("(c_out, c_in, k)")]
        weight: Array3<f32>,
        #[shape("(c_out,)")]
        bias: ArrayView1<'a, f32>,
        #[shape("(n, c_in, l)")]
        input: Array<f32, IxDyn>,
        #[shape("(n, c_out, l - k + 1)")]
        output: Array<f32, IxDyn>,
    }

    #[test]
    fn arrays_views_and_dynamic_dims_verify() {
        let bias = Array1::<f32>::zeros(8);
        let conv = Conv {
            weight: Array3::zeros((8, 3, 5)),
            bias: bias.view(),
            input: Array::zeros(IxDyn(&[2, 3, 32])),
            output: Array::zeros(IxDyn(&[2, 8, 28])),
        };
        let b = conv.verify().unwrap();
        assert_eq!(
            [
                b.get("c_out"),
                b.get("c_in"),
                b.get("k"),
                b.get("n"),
                b.get("l")
            ],
            [Some(8), Some(3), Some(5), Some(2), Some(32)]
        );
    }

    #[test]
    fn a_wrong_array_is_named_with_its_axis() {
        let bias = Array1::<f32>::zeros(8);
        let conv = Conv {
            weight: Array3::zeros((8, 3, 5)),
            bias: bias.view(),
            input: Array::zeros(IxDyn(&[2, 3, 32])),
            output: Array::zeros(IxDyn(&[2, 8, 27])),
        };
        let e = conv.verify().unwrap_err();
        assert_eq!(e.path.to_string(), "Conv.output");
        assert_eq!(e.axis, Some(2));
        assert_eq!(e.found(), Some(27));
        assert!(
            matches!(e.kind, ShapeErrorKind::Dim { value: 28, .. }),
            "{e}"
        );
    }

    #[test]
    fn views_of_slices_and_array_refs_report_their_own_dims() {
        let a = Array2::<u8>::zeros((6, 4));
        let col = a.index_axis(Axis(1), 2);
        assert_eq!(HasShape::shape(&col), &[6]);
        let r: &::ndarray::ArrayRef2<u8> = &a;
        assert_eq!(HasShape::shape(r), &[6, 4]);
    }
}
