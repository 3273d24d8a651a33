//! The library on a real candle model, with no shadow struct: the fracast-0 checkpoint loaded
//! by candle's `VarBuilder` into a model of `candle_nn` layers, `#[derive(Shaped)]` on the
//! model struct itself, verified after loading and from the header (and a corrupted copy named
//! in the error); `#[shapes::check]` on an `impl candle_core::Module`'s `forward`.
//!
//! Needs the `candle` feature (`cargo test --features candle --test it frameworks::`). The burn
//! counterpart (a `Module` built from its config) is in shapes-core's burn_nn.rs, beside the
//! CPU backend its tests build.

use candle_core::safetensors::BufferedSafetensors;
use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{LayerNorm, Linear, RmsNorm, VarBuilder};
use shapes::{Bindings, ShapeSource, Shaped, checkpoint::ShapeIndex};

use crate::common::fracast;

/// A gated FFN: `up` gives the value and gate halves (`2 * d_ff` rows).
#[derive(Shaped)]
#[shapes(where = "d_up = 2 * d_ff")]
struct Ffn {
    #[shape(nested, rename(d_in = "d_model", d_out = "d_up"))]
    up: Linear,
    #[shape(nested, rename(d_in = "d_ff", d_out = "d_model"))]
    down: Linear,
}

impl Ffn {
    fn load(vb: VarBuilder) -> candle_core::Result<Self> {
        Ok(Ffn {
            up: linear(vb.pp("up"))?,
            down: linear(vb.pp("down"))?,
        })
    }
}

/// The gated FFN's forward, checked: a `(batch, seq, d_model)` input gives an output of the
/// same shape.
#[shapes::check]
impl Module for Ffn {
    #[shapes::check(self, ret = "(batch, seq, d_model)", trace)]
    fn forward(
        &self,
        #[shape("(batch, seq, d_model)")] xs: &Tensor,
    ) -> candle_core::Result<Tensor> {
        let h = self.up.forward(xs)?;
        let half = h.dim(candle_core::D::Minus1)? / 2;
        let (value, gate) = (
            h.narrow(candle_core::D::Minus1, 0, half)?,
            h.narrow(candle_core::D::Minus1, half, half)?,
        );
        self.down
            .forward(&(value * candle_nn::ops::sigmoid(&gate)?)?)
    }
}

#[derive(Shaped)]
#[shapes(where = "2 * ffn_hidden = 3 * d_model")]
struct ConvBlock {
    #[shape("(d_model, 1, kernel_size)")]
    dw_weight: Tensor,
    #[shape("(d_model,)")]
    dw_bias: Tensor,
    #[shape(nested, rename(d_ff = "ffn_hidden", d_up = "ffn_up"))]
    ffn: Ffn,
    #[shape(nested)]
    norm1: LayerNorm,
    #[shape(nested)]
    norm2: RmsNorm,
    #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
    pw: Linear,
}

#[derive(Shaped)]
#[shapes(where = "n_periodic = 2 * periodic_topk", where = "d_gb = 2 * d_model")]
struct Core {
    #[shape(nested)]
    block: ConvBlock,
    #[shape(nested, rename(d_in = "n_in_features", d_out = "d_model"))]
    in_proj: Linear,
    #[shape(nested)]
    norm: RmsNorm,
    #[shape(
        nested,
        prefix = "periodic.proj",
        rename(d_in = "n_periodic", d_out = "d_model")
    )]
    periodic: Linear,
    #[shape(
        nested,
        prefix = "scale.to_gb",
        rename(d_in = "scale_cond_dim", d_out = "d_gb")
    )]
    film: Linear,
}

#[derive(Shaped)]
struct FcBlock {
    #[shape("(d_model, 1, head_fc_kernel)")]
    dw_weight: Tensor,
    #[shape("(d_model,)")]
    dw_bias: Tensor,
    #[shape(nested)]
    norm: RmsNorm,
}

#[derive(Shaped)]
struct FutureConv {
    #[shape(nested)]
    block: ConvBlock,
    #[shape(nested, rename(d_in = "max_future_patches", d_out = "d_model"))]
    in_proj: Linear,
    #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
    out_proj: Linear,
}

#[derive(Shaped)]
struct Head {
    #[shape(
        nested,
        count = "head_layers",
        rename(d_ff = "head_d_ff", d_up = "head_up")
    )]
    decoder_ffns: Vec<Ffn>,
    #[shape(nested, count = "head_layers")]
    decoder_norms: Vec<RmsNorm>,
    #[shape(nested, count = "head_fc_layers")]
    fc_blocks: Vec<FcBlock>,
    #[shape(nested)]
    future_conv: FutureConv,
    #[shape(nested, rename(d_in = "d_model", d_out = "n_quantiles"))]
    out_proj: Linear,
    #[shape("(horizon, d_model)")]
    queries: Tensor,
    #[shape(nested, rename(d_in = "n_summary_features", d_out = "d_model"))]
    summary_proj: Linear,
}

/// The fracast-0 model as a candle user writes it: `candle_nn` layers, `#[derive(Shaped)]` on
/// the model struct itself.
#[derive(Shaped)]
struct Fracast {
    #[shape(nested)]
    core: Core,
    #[shape(nested)]
    head: Head,
}

/// A method that shares the model's variables: `n_in_features` and `d_model` are read from
/// the input projection's weight (one dim each), not given again, and the input is checked
/// against them.
impl Fracast {
    #[shapes::check(self, ret = "(batch, seq, d_model)")]
    fn embed(
        &self,
        #[shape("(batch, seq, n_in_features)")] x: &Tensor,
    ) -> candle_core::Result<Tensor> {
        self.core.in_proj.forward(x)
    }
}

/// A linear layer as the checkpoint has it: `weight`, and `bias` when there is one. The
/// shapes are left to `verify()`, so the loader needs no sizes.
fn linear(vb: VarBuilder) -> candle_core::Result<Linear> {
    let bias = match vb.contains_tensor("bias") {
        true => Some(vb.get_unchecked("bias")?),
        false => None,
    };
    Ok(Linear::new(vb.get_unchecked("weight")?, bias))
}

fn rms_norm(vb: VarBuilder) -> candle_core::Result<RmsNorm> {
    Ok(RmsNorm::new(vb.get_unchecked("weight")?, 1e-5))
}

fn conv_block(vb: VarBuilder) -> candle_core::Result<ConvBlock> {
    Ok(ConvBlock {
        dw_weight: vb.get_unchecked("dw_weight")?,
        dw_bias: vb.get_unchecked("dw_bias")?,
        ffn: Ffn::load(vb.pp("ffn"))?,
        norm1: LayerNorm::new_no_bias(vb.pp("norm1").get_unchecked("weight")?, 1e-5),
        norm2: rms_norm(vb.pp("norm2"))?,
        // The standard constructor, which checks the shape it is given as it loads.
        pw: candle_nn::linear(64, 64, vb.pp("pw"))?,
    })
}

fn list<T>(
    vb: &VarBuilder,
    first: &str,
    load: impl Fn(VarBuilder) -> candle_core::Result<T>,
) -> candle_core::Result<Vec<T>> {
    (0..)
        .take_while(|i| vb.contains_tensor(&format!("{i}.{first}")))
        .map(|i| load(vb.pp(i)))
        .collect()
}

fn load_model(vb: VarBuilder) -> candle_core::Result<Fracast> {
    let (core, head) = (vb.pp("core"), vb.pp("head"));
    Ok(Fracast {
        core: Core {
            block: conv_block(core.pp("block"))?,
            in_proj: linear(core.pp("in_proj"))?,
            norm: rms_norm(core.pp("norm"))?,
            periodic: linear(core.pp("periodic.proj"))?,
            film: linear(core.pp("scale.to_gb"))?,
        },
        head: Head {
            decoder_ffns: list(&head.pp("decoder_ffns"), "up.weight", Ffn::load)?,
            decoder_norms: list(&head.pp("decoder_norms"), "weight", rms_norm)?,
            fc_blocks: list(&head.pp("fc_blocks"), "dw_weight", |vb| {
                Ok(FcBlock {
                    dw_weight: vb.get_unchecked("dw_weight")?,
                    dw_bias: vb.get_unchecked("dw_bias")?,
                    norm: rms_norm(vb.pp("norm"))?,
                })
            })?,
            future_conv: FutureConv {
                block: conv_block(head.pp("future_conv.block"))?,
                in_proj: linear(head.pp("future_conv.in_proj"))?,
                out_proj: linear(head.pp("future_conv.out_proj"))?,
            },
            out_proj: linear(head.pp("out_proj"))?,
            queries: head.get_unchecked("queries")?,
            summary_proj: linear(head.pp("summary_proj"))?,
        },
    })
}

fn checkpoint_bytes() -> Vec<u8> {
    std::fs::read(fracast::checkpoint()).expect("the shipped checkpoint is readable")
}

fn config() -> Vec<(&'static str, usize)> {
    let text = std::fs::read_to_string(fracast::config()).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    fracast::config_values(&json).unwrap()
}

#[test]
fn a_model_of_candle_nn_layers_verifies_after_loading_and_from_the_header() {
    let bytes = checkpoint_bytes();
    let vb = VarBuilder::from_slice_safetensors(&bytes, DType::F32, &Device::Cpu).unwrap();
    let model = load_model(vb).unwrap();
    let bindings = model.verify().unwrap_or_else(|e| panic!("{e}"));
    for (name, value) in config() {
        assert_eq!(bindings.get(name), Some(value), "{name}");
    }
    assert_eq!(bindings.get("n_in_features"), Some(7));
    assert_eq!(bindings.get("n_summary_features"), Some(133));

    // The same struct against the open file's header, strictly: all 47 tensors are described.
    let open = BufferedSafetensors::new(bytes).unwrap();
    let index = ShapeIndex::from(&open);
    assert_eq!(index.len(), 47);
    let from_header = Fracast::verify_source(&index).unwrap_or_else(|e| panic!("{e}"));
    for b in bindings.iter() {
        assert_eq!(from_header.value(&b.name), Some(b.value), "{}", b.name);
    }
    // A sub-model verifies against its part of the checkpoint.
    let head = Head::verify_source(&index.prefixed("head")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(head.get("horizon"), Some(48));
}

#[test]
fn a_corrupted_copy_is_named_in_the_error_before_and_after_loading() {
    let mut tensors =
        candle_core::safetensors::load_buffer(&checkpoint_bytes(), &Device::Cpu).unwrap();
    // The core FFN's up projection with 190 rows instead of 2 * 96.
    let bad = Tensor::zeros((190, 64), DType::F32, &Device::Cpu).unwrap();
    tensors.insert("core.block.ffn.up.weight".into(), bad);
    let path = std::env::temp_dir().join(format!(
        "shapes-frameworks-corrupt-{}.safetensors",
        std::process::id()
    ));
    candle_core::safetensors::save(&tensors, &path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();

    let index = ShapeIndex::from(&BufferedSafetensors::new(bytes.clone()).unwrap());
    let errors = Fracast::verify_source(&index).unwrap_err();
    // Every mismatch, each naming its field and its tensor; the first names the corrupted one.
    assert_eq!(errors.len(), 5, "{errors}");
    assert_eq!(
        errors.first().unwrap().to_string(),
        "Fracast.core.block.ffn.up.bias (tensor \"core.block.ffn.up.bias\"): axis 0 expected ffn_up = 190, found 192\n  \
         ffn_up = 190 bound by Fracast.core.block.ffn.up.weight axis 0\n  \
         shape is (192,), pattern (ffn_up,)"
    );
    assert!(
        errors
            .to_string()
            .contains("where clause fails: ffn_up = 190 but 2 * ffn_hidden = 2 * 96 = 192"),
        "{errors}"
    );

    let vb = VarBuilder::from_slice_safetensors(&bytes, DType::F32, &Device::Cpu).unwrap();
    let e = load_model(vb).unwrap().verify().unwrap_err();
    assert_eq!(e.path.to_string(), "Fracast.core.block.ffn.up.bias");
    assert_eq!((e.axis, e.found()), (Some(0), Some(192)));
    // The pattern is candle's `Linear` bias, declared by the layer's description.
    let place = e
        .declared_at
        .expect("a framework layer's pattern has a place");
    assert!(
        place.file.ends_with("candle_nn.rs") && place.line > 0,
        "{place}"
    );
}

#[test]
fn a_checked_module_forward_returns_a_candle_error() {
    let bytes = checkpoint_bytes();
    let vb = VarBuilder::from_slice_safetensors(&bytes, DType::F32, &Device::Cpu).unwrap();
    let ffn = Ffn::load(vb.pp("core.block.ffn")).unwrap();
    let b = ffn.verify().unwrap();
    assert_eq!((b.get("d_model"), b.get("d_ff")), (Some(64), Some(96)));

    let x = Tensor::zeros((2, 5, 64), DType::F32, &Device::Cpu).unwrap();
    assert_eq!(ffn.forward(&x).unwrap().dims(), &[2, 5, 64]);
    // A bare vector: the check returns the shape report as a candle error before the body
    // runs (and before candle's matmul would complain about its own operands).
    let wrong = Tensor::zeros(64, DType::F32, &Device::Cpu).unwrap();
    let e: candle_core::Error = ffn.forward(&wrong).unwrap_err();
    let expected =
        "forward.xs: expected 3 dims, found 1\n  shape is (64,), pattern (batch, seq, d_model)";
    assert!(e.to_string().starts_with(expected), "{e}");
}

#[test]
fn a_layer_verifies_with_values_from_a_config() {
    let bytes = checkpoint_bytes();
    let vb = VarBuilder::from_slice_safetensors(&bytes, DType::F32, &Device::Cpu).unwrap();
    let model = load_model(vb).unwrap();
    let mut bindings = Bindings::new();
    for (name, value) in config() {
        bindings = bindings.bind(name, value);
    }
    assert!(model.verify_with(bindings).is_ok());
    let e = model
        .verify_with(Bindings::new().bind("head_fc_kernel", 5))
        .unwrap_err();
    assert!(
        e.to_string().starts_with(
            "Fracast.head.fc_blocks[0].dw_weight: axis 2 expected head_fc_kernel = 5, found 3"
        ),
        "{e}"
    );
}

#[test]
fn a_method_checks_its_input_against_the_loaded_weights() {
    let bytes = checkpoint_bytes();
    let vb = VarBuilder::from_slice_safetensors(&bytes, DType::F32, &Device::Cpu).unwrap();
    let model = load_model(vb).unwrap();
    let x = Tensor::zeros((2, 5, 7), DType::F32, &Device::Cpu).unwrap();
    assert_eq!(model.embed(&x).unwrap().dims(), &[2, 5, 64]);
    // The last dim differs from the weights': the error names the weight that bound it.
    let wrong = Tensor::zeros((2, 5, 8), DType::F32, &Device::Cpu).unwrap();
    let e: candle_core::Error = model.embed(&wrong).unwrap_err();
    let expected = "embed.x: axis 2 expected n_in_features = 7, found 8\n  \
                    n_in_features = 7 bound by Fracast.core.in_proj.weight axis 1\n  \
                    shape is (2, 5, 8), pattern (batch, seq, n_in_features)";
    assert!(e.to_string().starts_with(expected), "{e}");
}

#[test]
fn a_layer_that_disagrees_with_widths_bound_before_it_is_named() {
    // `down` is checked knowing `d_ff` and `d_model` bound by `up`: one comparison per dim,
    // and a mismatch still names the field, the axis and where the value was bound.
    #[derive(Shaped)]
    struct Mlp {
        #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
        up: Linear,
        #[shape(nested, rename(d_in = "d_ff", d_out = "d_model"))]
        down: Linear,
    }
    let t = |dims: &[usize]| Tensor::zeros(dims, DType::F32, &Device::Cpu).unwrap();
    let mlp = |down: &[usize], bias: usize| Mlp {
        up: Linear::new(t(&[8, 4]), Some(t(&[8]))),
        down: Linear::new(t(down), Some(t(&[bias]))),
    };
    let b = mlp(&[4, 8], 4).verify().unwrap();
    assert_eq!((b.get("d_model"), b.get("d_ff")), (Some(4), Some(8)));
    let errors = mlp(&[4, 6], 5).verify_all().unwrap_err();
    let lines: Vec<String> = errors.errors().iter().map(|e| e.to_string()).collect();
    assert_eq!(lines.len(), 2, "{errors}");
    assert!(
        lines[0].starts_with(
            "Mlp.down.weight: axis 1 expected d_ff = 8, found 6\n  \
             d_ff = 8 bound by Mlp.up.weight axis 0"
        ),
        "{errors}"
    );
    assert!(
        lines[1].starts_with(
            "Mlp.down.bias: axis 0 expected d_model = 4, found 5\n  \
             d_model = 4 bound by Mlp.up.weight axis 1"
        ),
        "{errors}"
    );
}
