//! burn: `burn_tensor::Tensor<D, K>` (burn 0.22, where a tensor no longer names its backend),
//! whose rank `D` is a const generic, so its dims come back as a `[usize; D]` by value.

use ::burn_tensor::Tensor;
use ::burn_tensor::kind::Basic;

use crate::source::has_shape::HasShape;

/// The dims of a burn tensor of any kind (`Float`, `Int`, `Bool`), as the `[usize; D]` that
/// `Tensor::dims` returns: by value, with nothing allocated by `shapes`. Burn's own inherent
/// `shape()` (its `Shape` type) wins in method syntax; write `HasShape::shape(&t)` for this one.
///
/// ```
/// use burn_tensor::{Int, Tensor};
/// use shapes::{Shaped, verify::HasShape};
///
/// #[derive(Shaped)]
/// struct Embedding {
///     #[shape("(vocab, d_model)")]
///     table: Tensor<2>,
///     #[shape("(batch, seq)")]
///     tokens: Tensor<2, Int>,
///     #[shape("(batch, seq, d_model)")]
///     out: Tensor<3>,
/// }
///
/// let device = Default::default();
/// let e = Embedding {
///     table: Tensor::zeros([100, 16], &device),
///     tokens: Tensor::zeros([2, 7], &device),
///     out: Tensor::zeros([2, 7, 16], &device),
/// };
/// assert_eq!(HasShape::shape(&e.table), [100, 16]);
/// let b = e.verify().unwrap();
/// assert_eq!((b.get("vocab"), b.get("seq")), (Some(100), Some(7)));
/// ```
impl<const D: usize, K: Basic> HasShape for Tensor<D, K> {
    type Dims<'a>
        = [usize; D]
    where
        Self: 'a;

    #[inline]
    fn shape(&self) -> [usize; D] {
        self.dims()
    }
}

#[cfg(test)]
mod tests {
    use ::burn_tensor::{Bool, Tensor};

    use crate::verify::{ShapeErrorKind, Shaped};

    #[derive(shapes::Shaped)]
    #[shapes(crate = "crate")]
    struct Masked {
        #[shape("(batch, heads, seq, seq)")]
        scores: Tensor<4>,
        #[shape("(#batch, 1, seq, seq)")]
        mask: Tensor<4, Bool>,
        #[shape("(heads,)")]
        temperature: Vec<Tensor<1>>,
    }

    fn masked(mask: [usize; 4]) -> Masked {
        let device = Default::default();
        Masked {
            scores: Tensor::zeros([2, 4, 9, 9], &device),
            mask: Tensor::empty(mask, &device),
            temperature: vec![Tensor::zeros([4], &device); 2],
        }
    }

    #[test]
    fn burn_tensors_verify() {
        let b = masked([1, 1, 9, 9]).verify().unwrap();
        assert_eq!(
            [b.get("batch"), b.get("heads"), b.get("seq")],
            [Some(2), Some(4), Some(9)]
        );
    }

    #[test]
    fn a_wrong_burn_tensor_is_reported() {
        let e = masked([1, 1, 9, 8]).verify().unwrap_err();
        assert_eq!(e.path.to_string(), "Masked.mask");
        assert_eq!(e.axis, Some(3));
        assert_eq!(e.found(), Some(8));
        assert!(
            matches!(e.kind, ShapeErrorKind::Dim { value: 9, .. }),
            "{e}"
        );
    }
}
