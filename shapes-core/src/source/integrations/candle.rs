//! candle: `candle_core::Tensor`, whose dims are stored in its layout and lent out.

use ::candle_core::Tensor;

use crate::source::has_shape::HasShape;

/// The dims of a candle tensor, borrowed from its layout. Candle's inherent `shape()` (its
/// `Shape` type) wins in method syntax; write `HasShape::shape(&t)` for this one.
///
/// ```
/// use candle_core::{DType, Device, Tensor};
/// use shapes::{Shaped, verify::HasShape};
///
/// #[derive(Shaped)]
/// struct Attention {
///     #[shape("(heads * head_dim, d_model)")]
///     w_q: Tensor,
///     #[shape("(heads,)")]
///     scale: Tensor,
/// }
///
/// let zeros = |dims: &[usize]| Tensor::zeros(dims, DType::F32, &Device::Cpu).unwrap();
/// let a = Attention { w_q: zeros(&[64, 32]), scale: zeros(&[8]) };
/// assert_eq!(HasShape::shape(&a.w_q).as_ref(), &[64, 32]);
/// let b = a.verify().unwrap();
/// assert_eq!(b.get("head_dim"), Some(8));
///
/// let bad = Attention { w_q: zeros(&[60, 32]), scale: zeros(&[8]) };
/// assert!(bad.verify().unwrap_err().to_string().starts_with("Attention.w_q: axis 0"));
/// ```
impl HasShape for Tensor {
    type Dims<'a> = &'a [usize];

    #[inline]
    fn shape(&self) -> &[usize] {
        self.dims()
    }
}

#[cfg(test)]
mod tests {
    use ::candle_core::{DType, Device, Tensor};

    use crate::verify::{ShapeErrorKind, Shaped};

    #[derive(shapes::Shaped)]
    #[shapes(crate = "crate")]
    struct Block {
        #[shape("(2 * d_ff, d_model)")]
        up: Tensor,
        #[shape("(d_model, d_ff)")]
        down: Tensor,
        #[shape("(d_model,)")]
        norm: Option<Tensor>,
    }

    fn zeros(dims: &[usize]) -> Tensor {
        Tensor::zeros(dims, DType::F32, &Device::Cpu).expect("a CPU tensor of zeros")
    }

    #[test]
    fn candle_tensors_verify() {
        let block = Block {
            up: zeros(&[192, 64]),
            down: zeros(&[64, 96]),
            norm: Some(zeros(&[64])),
        };
        let b = block.verify().unwrap();
        assert_eq!((b.get("d_model"), b.get("d_ff")), (Some(64), Some(96)));
    }

    #[test]
    fn a_reshaped_candle_tensor_is_reported() {
        let block = Block {
            up: zeros(&[192, 64]),
            down: zeros(&[64, 96]).reshape((32, 192)).unwrap(),
            norm: None,
        };
        let e = block.verify().unwrap_err();
        assert_eq!(e.path.to_string(), "Block.down");
        assert_eq!(e.axis, Some(0));
        assert_eq!(e.found(), Some(32));
        assert!(
            matches!(e.kind, ShapeErrorKind::Dim { value: 64, .. }),
            "{e}"
        );
    }
}
