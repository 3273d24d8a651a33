//! candle-nn: `Shaped` for the layer types a candle model holds (`Linear`, `Embedding`,
//! `LayerNorm`, `RmsNorm`, the convolutions), with the tensor names candle's `VarBuilder` gives
//! them, and `From<ShapeError>` for `candle_core::Error`, so that a `#[shapes::check]`
//! function may return `candle_core::Result`.

use ::candle_nn::{
    Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d, Embedding, LayerNorm, Linear, RmsNorm,
};

use super::layers::layer;
use crate::verify::ShapeError;

// `y = x W^T + b`: candle stores the weight as PyTorch does, output rows first.
layer! {
    Linear, "Linear", [d_out, d_in],
    weight(required): "(d_out, d_in)" [d_out, d_in] = |l| Some(l.weight()),
    bias(optional): "(d_out,)" [d_out] = |l| l.bias(),
}

layer! {
    Embedding, "Embedding", [vocab, d_model],
    weight(required): "(vocab, d_model)" [vocab, d_model] = |l| Some(l.embeddings()),
}

layer! {
    LayerNorm, "LayerNorm", [d_model],
    weight(required): "(d_model,)" [d_model] = |l| Some(l.weight()),
    bias(optional): "(d_model,)" [d_model] = |l| l.bias(),
}

layer! {
    RmsNorm, "RmsNorm", [d_model],
    weight(required): "(d_model,)" [d_model] = |l| Some(l.weight()),
}

// Convolutions: the weight's input-channel axis holds the input channels of one group, so
// `c_in` is the layer's input channels divided by its `groups` (all of them when `groups` is
// 1, the default); a checkpoint does not record `groups`.
layer! {
    Conv1d, "Conv1d", [c_out, c_in, k],
    weight(required): "(c_out, c_in, k)" [c_out, c_in, k] = |l| Some(l.weight()),
    bias(optional): "(c_out,)" [c_out] = |l| l.bias(),
}

layer! {
    Conv2d, "Conv2d", [c_out, c_in, k_h, k_w],
    weight(required): "(c_out, c_in, k_h, k_w)" [c_out, c_in, k_h, k_w] = |l| Some(l.weight()),
    bias(optional): "(c_out,)" [c_out] = |l| l.bias(),
}

// Transposed convolutions store input channels first, and the output channels of one group:
// here `c_out` is the layer's output channels divided by `groups`; the bias has all of them,
// so with `groups` > 1 it is `(c_out * groups,)` and this layer's bias check does not hold.
layer! {
    ConvTranspose1d, "ConvTranspose1d", [c_in, c_out, k],
    weight(required): "(c_in, c_out, k)" [c_in, c_out, k] = |l| Some(l.weight()),
    bias(optional): "(c_out,)" [c_out] = |l| l.bias(),
}

layer! {
    ConvTranspose2d, "ConvTranspose2d", [c_in, c_out, k_h, k_w],
    weight(required): "(c_in, c_out, k_h, k_w)" [c_in, c_out, k_h, k_w] = |l| Some(l.weight()),
    bias(optional): "(c_out,)" [c_out] = |l| l.bias(),
}

/// A shape mismatch as a candle error, so that a `#[shapes::check]` function returning
/// `candle_core::Result` (every `forward`, every `impl Module`) returns it with `?`'s
/// conversion: the message is the mismatch's whole report.
///
/// ```
/// use candle_core::{DType, Device, Tensor};
///
/// #[shapes::check]
/// fn scores(#[shape("(seq, d)")] q: &Tensor, #[shape("(seq, d)")] k: &Tensor) -> candle_core::Result<Tensor> {
///     q.matmul(&k.t()?)
/// }
///
/// let t = |dims: &[usize]| Tensor::zeros(dims, DType::F32, &Device::Cpu).unwrap();
/// assert_eq!(scores(&t(&[4, 8]), &t(&[4, 8])).unwrap().dims(), &[4, 4]);
/// let e = scores(&t(&[4, 8]), &t(&[4, 6])).unwrap_err();
/// assert!(e.to_string().starts_with("scores.k: axis 1 expected d = 8, found 6"), "{e}");
/// ```
impl From<ShapeError> for ::candle_core::Error {
    fn from(e: ShapeError) -> Self {
        ::candle_core::Error::wrap(e)
    }
}

#[cfg(test)]
mod tests {
    use ::candle_core::{DType, Device, Tensor};
    use ::candle_nn::{
        Conv1d, Conv1dConfig, Conv2d, Conv2dConfig, ConvTranspose1d, ConvTranspose1dConfig,
        ConvTranspose2d, ConvTranspose2dConfig, Embedding, LayerNorm, Linear, RmsNorm,
    };

    use crate::frameworks::layers::assert_described;
    use crate::verify::{ShapeErrorKind, Shaped};

    fn zeros(dims: &[usize]) -> Tensor {
        Tensor::zeros(dims, DType::F32, &Device::Cpu).expect("a CPU tensor of zeros")
    }

    #[test]
    fn every_pattern_text_says_what_is_checked() {
        assert_described::<Linear>();
        assert_described::<Embedding>();
        assert_described::<LayerNorm>();
        assert_described::<RmsNorm>();
        assert_described::<Conv1d>();
        assert_described::<Conv2d>();
        assert_described::<ConvTranspose1d>();
        assert_described::<ConvTranspose2d>();
    }

    #[test]
    fn each_layer_binds_its_variables() {
        let b = Linear::new(zeros(&[8, 3]), Some(zeros(&[8])))
            .verify()
            .unwrap();
        assert_eq!((b.get("d_out"), b.get("d_in")), (Some(8), Some(3)));
        let b = Embedding::new(zeros(&[100, 16]), 16).verify().unwrap();
        assert_eq!((b.get("vocab"), b.get("d_model")), (Some(100), Some(16)));
        let b = LayerNorm::new(zeros(&[16]), zeros(&[16]), 1e-5)
            .verify()
            .unwrap();
        assert_eq!(b.get("d_model"), Some(16));
        let b = RmsNorm::new(zeros(&[12]), 1e-5).verify().unwrap();
        assert_eq!(b.get("d_model"), Some(12));
        let b = Conv1d::new(zeros(&[6, 2, 3]), None, Conv1dConfig::default())
            .verify()
            .unwrap();
        assert_eq!(
            [b.get("c_out"), b.get("c_in"), b.get("k")],
            [Some(6), Some(2), Some(3)]
        );
        let conv2 = Conv2d::new(
            zeros(&[6, 2, 3, 5]),
            Some(zeros(&[6])),
            Conv2dConfig::default(),
        );
        assert_eq!(conv2.verify().unwrap().get("k_w"), Some(5));
        let t1 = ConvTranspose1d::new(
            zeros(&[4, 7, 3]),
            Some(zeros(&[7])),
            ConvTranspose1dConfig::default(),
        );
        assert_eq!(t1.verify().unwrap().get("c_out"), Some(7));
        let t2 = ConvTranspose2d::new(zeros(&[4, 7, 3, 3]), None, ConvTranspose2dConfig::default());
        assert_eq!(t2.verify().unwrap().get("c_in"), Some(4));
    }

    #[test]
    fn a_wrong_bias_is_named_by_its_tensor() {
        let e = Linear::new(zeros(&[8, 3]), Some(zeros(&[7])))
            .verify()
            .unwrap_err();
        assert_eq!(e.path.to_string(), "Linear.bias");
        assert_eq!((e.axis, e.found()), (Some(0), Some(7)));
        assert!(
            matches!(e.kind, ShapeErrorKind::Dim { value: 8, .. }),
            "{e}"
        );
        let e = LayerNorm::new(zeros(&[16]), zeros(&[16, 1]), 1e-5)
            .verify()
            .unwrap_err();
        assert!(matches!(e.kind, ShapeErrorKind::Rank { .. }), "{e}");
    }

    #[test]
    fn a_layer_reads_candle_names_from_a_checkpoint() {
        use std::collections::BTreeMap;

        use crate::shape::Shape;
        let mut src = BTreeMap::new();
        src.insert("weight".to_string(), Shape::from([8, 3]));
        let b = Linear::verify_source(&src).unwrap();
        assert_eq!(b.get("d_in"), Some(3));
        src.insert("bias".to_string(), Shape::from([9]));
        let e = Linear::verify_source(&src).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("Linear.bias (tensor \"bias\"): axis 0 expected d_out = 8, found 9"),
            "{e}"
        );
    }
}
