//! burn: `HasShape` for a module's `Param<T>`, and `Shaped` for the layer types of `burn_nn`
//! (`Linear`, `Embedding`, `LayerNorm`, `RmsNorm`, `Conv1d`, `Conv2d`), with the names burn
//! records them under (its field names: `weight`, `bias`, `gamma`, `beta`).

use ::burn_core::module::{Param, Parameter};
use ::burn_nn::conv::{Conv1d, Conv2d};
use ::burn_nn::{Embedding, LayerNorm, Linear, RmsNorm};

use super::layers::layer;
use crate::source::HasShape;

/// The dims of a module parameter, read **without initializing it**: `LinearConfig::init`
/// and its kin create their parameters lazily, and reading a shape does not allocate the
/// tensor (burn's `Param::lazy_shape`). Dims up to rank 5 come back inline, nothing allocated.
///
/// ```
/// use burn_core::module::Param;
/// use burn_tensor::Tensor;
/// use shapes::{Shaped, verify::HasShape};
///
/// #[derive(Shaped)]
/// struct Scale {
///     #[shape("(d_model,)")]
///     gamma: Param<Tensor<1>>,
///     #[shape("(d_model, d_ff)")]
///     proj: Param<Tensor<2>>,
/// }
///
/// let device = Default::default();
/// let s = Scale {
///     gamma: Param::from_tensor(Tensor::ones([16], &device)),
///     proj: Param::from_tensor(Tensor::zeros([16, 64], &device)),
/// };
/// assert_eq!(HasShape::shape(&s.proj).as_ref(), &[16, 64]);
/// assert_eq!(s.verify().unwrap().get("d_ff"), Some(64));
/// ```
impl<T: Parameter> HasShape for Param<T> {
    type Dims<'a>
        = ::burn_tensor::Shape
    where
        Self: 'a;

    #[inline]
    fn shape(&self) -> ::burn_tensor::Shape {
        self.lazy_shape()
    }
}

// `y = x W + b`: burn stores a linear weight input rows first, `[d_in, d_out]`, the reverse of
// PyTorch and candle (`(d_out, d_in)`). The variables mean the same in both.
layer! {
    Linear, "Linear", [d_in, d_out],
    weight(required, torch = crate::verify::TorchLayout::Transposed): "(d_in, d_out)" [d_in, d_out] = |l| Some(&l.weight),
    bias(optional): "(d_out,)" [d_out] = |l| l.bias.as_ref(),
}

layer! {
    Embedding, "Embedding", [vocab, d_model],
    weight(required): "(vocab, d_model)" [vocab, d_model] = |l| Some(&l.weight),
}

layer! {
    LayerNorm, "LayerNorm", [d_model],
    gamma(required, torch = crate::verify::TorchLayout::Named("weight")): "(d_model,)" [d_model] = |l| Some(&l.gamma),
    beta(optional, torch = crate::verify::TorchLayout::Named("bias")): "(d_model,)" [d_model] = |l| l.beta.as_ref(),
}

layer! {
    RmsNorm, "RmsNorm", [d_model],
    gamma(required, torch = crate::verify::TorchLayout::Named("weight")): "(d_model,)" [d_model] = |l| Some(&l.gamma),
}

// As in candle: `c_in` is the input channels of one group (the layer's `channels_in /
// groups`).
layer! {
    Conv1d, "Conv1d", [c_out, c_in, k],
    weight(required): "(c_out, c_in, k)" [c_out, c_in, k] = |l| Some(&l.weight),
    bias(optional): "(c_out,)" [c_out] = |l| l.bias.as_ref(),
}

layer! {
    Conv2d, "Conv2d", [c_out, c_in, k_h, k_w],
    weight(required): "(c_out, c_in, k_h, k_w)" [c_out, c_in, k_h, k_w] = |l| Some(&l.weight),
    bias(optional): "(c_out,)" [c_out] = |l| l.bias.as_ref(),
}

#[cfg(test)]
mod tests {
    use ::burn_core::module::{Module, Param};
    use ::burn_nn::conv::{Conv1d, Conv1dConfig, Conv2d, Conv2dConfig};
    use ::burn_nn::{
        Embedding, EmbeddingConfig, LayerNorm, LayerNormConfig, Linear, LinearConfig, RmsNorm,
        RmsNormConfig,
    };
    use ::burn_tensor::Tensor;

    use crate::frameworks::layers::assert_described;
    use crate::verify::{Bindings, ShapeErrorKind, Shaped};

    // What a burn user writes: burn's derive names its crate `burn`.
    use ::burn_core as burn;

    /// A small encoder, `#[derive(Module, Shaped)]` on the module itself.
    #[derive(Module, Debug, shapes::Shaped)]
    #[shapes(crate = "crate")]
    struct Encoder {
        #[shape(nested)]
        embed: Embedding,
        #[shape(nested)]
        norm: LayerNorm,
        #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
        up: Linear,
        #[shape(nested, rename(d_in = "d_ff", d_out = "d_model"))]
        down: Linear,
        #[shape(nested, rename(d_in = "d_model", d_out = "vocab"))]
        head: Linear,
    }

    /// The encoder's sizes, as a burn config carries them.
    struct EncoderConfig {
        vocab: usize,
        d_model: usize,
        d_ff: usize,
        /// The width the head is built with: `d_model` unless the config is wrong.
        head_in: usize,
    }

    impl EncoderConfig {
        /// A consistent small encoder.
        const SMALL: EncoderConfig = EncoderConfig {
            vocab: 50,
            d_model: 16,
            d_ff: 64,
            head_in: 16,
        };

        fn init(&self, device: &burn_tensor::Device) -> Encoder {
            Encoder {
                embed: EmbeddingConfig::new(self.vocab, self.d_model).init(device),
                norm: LayerNormConfig::new(self.d_model).init(device),
                up: LinearConfig::new(self.d_model, self.d_ff).init(device),
                down: LinearConfig::new(self.d_ff, self.d_model).init(device),
                head: LinearConfig::new(self.head_in, self.vocab).init(device),
            }
        }
    }

    impl Encoder {
        /// A method sharing the module's variables: `d_model` is read from the embedding's
        /// weight (its shape only: the parameter stays lazy).
        #[shapes::check(self, crate = "crate")]
        fn width(
            &self,
            #[shape("(batch, d_model)")] x: &crate::Shape,
        ) -> Result<usize, crate::ShapeError> {
            Ok(x.dims()[1])
        }
    }

    #[test]
    fn a_method_shares_the_modules_variables() {
        let device = Default::default();
        let encoder = EncoderConfig::SMALL.init(&device);
        assert_eq!(encoder.width(&crate::Shape::from([2, 16])), Ok(16));
        let e = encoder.width(&crate::Shape::from([2, 15])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "width.x: axis 1 expected d_model = 16, found 15\n  \
             d_model = 16 bound by Encoder.embed.weight axis 1\n  \
             shape is (2, 15), pattern (batch, d_model)"
        );
        assert!(!encoder.embed.weight.is_initialized());
    }

    #[test]
    fn a_module_built_from_its_config_verifies() {
        let device = Default::default();
        let encoder = EncoderConfig::SMALL.init(&device);
        let b = encoder.verify().unwrap();
        assert_eq!(
            [b.get("vocab"), b.get("d_model"), b.get("d_ff")],
            [Some(50), Some(16), Some(64)]
        );
        // burn's own view of the same module: every parameter counted, still lazy.
        assert!(!encoder.up.weight.is_initialized());
        assert_eq!(
            encoder.num_params(),
            50 * 16 + 2 * 16 + 2 * 16 * 64 + 64 + 16 + 16 * 50 + 50
        );
    }

    #[test]
    fn a_wrong_config_is_named_in_the_error() {
        let device = Default::default();
        let config = EncoderConfig {
            head_in: 32,
            ..EncoderConfig::SMALL
        };
        let e = config.init(&device).verify().unwrap_err();
        assert_eq!(
            e.to_string(),
            "Encoder.head.weight: axis 0 expected d_model = 16, found 32\n  \
             d_model = 16 bound by Encoder.embed.weight axis 1\n  \
             shape is (32, 50), pattern (d_model, vocab)"
        );
    }

    #[test]
    fn every_pattern_text_says_what_is_checked() {
        assert_described::<Linear>();
        assert_described::<Embedding>();
        assert_described::<LayerNorm>();
        assert_described::<RmsNorm>();
        assert_described::<Conv1d>();
        assert_described::<Conv2d>();
    }

    #[test]
    fn each_module_binds_its_variables_from_its_config() {
        let device = Default::default();
        let b = LinearConfig::new(3, 8).init(&device).verify().unwrap();
        assert_eq!((b.get("d_in"), b.get("d_out")), (Some(3), Some(8)));
        let b = EmbeddingConfig::new(100, 16)
            .init(&device)
            .verify()
            .unwrap();
        assert_eq!((b.get("vocab"), b.get("d_model")), (Some(100), Some(16)));
        let b = LayerNormConfig::new(16).init(&device).verify().unwrap();
        assert_eq!(b.get("d_model"), Some(16));
        let b = RmsNormConfig::new(12).init(&device).verify().unwrap();
        assert_eq!(b.get("d_model"), Some(12));
        let b = Conv1dConfig::new(2, 6, 3).init(&device).verify().unwrap();
        assert_eq!(
            [b.get("c_out"), b.get("c_in"), b.get("k")],
            [Some(6), Some(2), Some(3)]
        );
        let b = Conv2dConfig::new([2, 6], [3, 5])
            .init(&device)
            .verify()
            .unwrap();
        assert_eq!((b.get("k_h"), b.get("k_w")), (Some(3), Some(5)));
    }

    #[test]
    fn a_wrong_weight_is_named_and_the_param_stays_lazy() {
        let device = Default::default();
        let mut linear = LinearConfig::new(3, 8).init(&device);
        linear.weight = Param::from_tensor(Tensor::zeros([3, 7], &device));
        let e = linear.verify().unwrap_err();
        assert_eq!(e.path.to_string(), "Linear.bias");
        assert!(
            matches!(e.kind, ShapeErrorKind::Dim { value: 7, .. }),
            "{e}"
        );
        // A lazily created parameter is read without being initialized.
        let norm = LayerNormConfig::new(16).init(&device);
        assert!(!norm.gamma.is_initialized());
        norm.verify_with(Bindings::new().bind("d_model", 16))
            .unwrap();
        assert!(!norm.gamma.is_initialized());
        assert_eq!(norm.num_params(), 32);
    }

    /// The encoder's tensors as PyTorch saves them: `Linear` weights `(d_out, d_in)`, the
    /// norm's `weight` and `bias`.
    fn torch_layout(d_ff: usize) -> std::collections::BTreeMap<String, crate::Shape> {
        [
            ("embed.weight", vec![50, 16]),
            ("norm.weight", vec![16]),
            ("norm.bias", vec![16]),
            ("up.weight", vec![d_ff, 16]),
            ("up.bias", vec![64]),
            ("down.weight", vec![16, 64]),
            ("down.bias", vec![16]),
            ("head.weight", vec![50, 16]),
            ("head.bias", vec![50]),
        ]
        .into_iter()
        .map(|(n, d)| (n.to_string(), crate::Shape::new(&d)))
        .collect()
    }

    #[test]
    fn a_checkpoint_in_pytorchs_layout_is_named_as_the_one_cause() {
        let e = Encoder::verify_source(&torch_layout(64)).unwrap_err();
        assert_eq!(e.len(), 1, "{e}");
        assert!(
            matches!(&e.errors()[0].kind, ShapeErrorKind::Layout { transposed, renamed, .. }
                if transposed.len() == 3 && renamed.len() == 2),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "Encoder: the checkpoint is in PyTorch's layout, not burn's: read in burn's layout, every tensor matches \
             (3 `Linear` weights transposed, PyTorch's (d_out, d_in) to burn's (d_in, d_out), as `down.weight`; \
             2 norm parameters renamed, as `norm.bias` to `norm.beta`); convert it as it is loaded \
             (burn-import's `PyTorchFileRecorder` transposes and renames), or check it against structs in PyTorch's layout"
        );
        // Wrong in PyTorch's layout too: the mismatches, not the layout.
        let e = Encoder::verify_source(&torch_layout(63)).unwrap_err();
        assert!(
            !e.errors()
                .iter()
                .any(|e| matches!(e.kind, ShapeErrorKind::Layout { .. })),
            "{e}"
        );
    }
}
