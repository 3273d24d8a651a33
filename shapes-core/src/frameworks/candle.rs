//! # Using shapes with candle
//!
//! With the `candle` feature, the layers of `candle_nn` are [`Shaped`](crate::Shaped) (see the
//! [table of variables](super)), a `#[shapes::check]` function may return
//! `candle_core::Result` (a mismatch becomes a `candle_core::Error`), and candle's open
//! safetensors files are a [`ShapeSource`](crate::ShapeSource) through
//! [`ShapeIndex`](crate::checkpoint::ShapeIndex).
//!
//! The whole path, on a model as a candle user writes it:
//!
//! ```
//! use std::collections::HashMap;
//!
//! use candle_core::{DType, Device, Module, Tensor};
//! use candle_nn::{LayerNorm, Linear, VarBuilder};
//! use shapes::{ShapeSource, Shaped, checkpoint::ShapeIndex};
//!
//! #[derive(Shaped)]
//! struct SelfAttention {
//!     #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
//!     query: Linear,
//!     #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
//!     key: Linear,
//!     #[shape(nested, rename(d_in = "d_model", d_out = "d_model"))]
//!     value: Linear,
//!     #[shape(nested)]
//!     norm: LayerNorm,
//! }
//!
//! impl SelfAttention {
//!     fn load(d_model: usize, vb: VarBuilder) -> candle_core::Result<Self> {
//!         Ok(SelfAttention {
//!             query: candle_nn::linear(d_model, d_model, vb.pp("query"))?,
//!             key: candle_nn::linear(d_model, d_model, vb.pp("key"))?,
//!             value: candle_nn::linear(d_model, d_model, vb.pp("value"))?,
//!             norm: candle_nn::layer_norm(d_model, 1e-5, vb.pp("norm"))?,
//!         })
//!     }
//! }
//!
//! impl Module for SelfAttention {
//!     // Checked on every call; a mismatch is returned as a `candle_core::Error`. With `self`,
//!     // `d_model` is the model's own: read from the query weight, not bound by `xs`.
//!     #[shapes::check(self, ret = "(batch, seq, d_model)")]
//!     fn forward(&self, #[shape("(batch, seq, d_model)")] xs: &Tensor) -> candle_core::Result<Tensor> {
//!         let q = self.query.forward(xs)?;
//!         let k = self.key.forward(xs)?;
//!         let v = self.value.forward(xs)?;
//!         let scores = candle_nn::ops::softmax_last_dim(&q.matmul(&k.transpose(1, 2)?)?)?;
//!         self.norm.forward(&(scores.matmul(&v)? + xs)?)
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A checkpoint as candle sees it (here built in memory; usually
//! // `VarBuilder::from_mmaped_safetensors` on a downloaded file).
//! let dev = Device::Cpu;
//! let mut tensors = HashMap::new();
//! for name in ["query", "key", "value"] {
//!     tensors.insert(format!("attn.{name}.weight"), Tensor::zeros((8, 8), DType::F32, &dev)?);
//!     tensors.insert(format!("attn.{name}.bias"), Tensor::zeros(8, DType::F32, &dev)?);
//! }
//! tensors.insert("attn.norm.weight".into(), Tensor::ones(8, DType::F32, &dev)?);
//! tensors.insert("attn.norm.bias".into(), Tensor::zeros(8, DType::F32, &dev)?);
//! let bytes = safetensors::serialize(&tensors, None)?;
//!
//! // 1. Before loading: the checkpoint's header against the struct, under its prefix.
//! let open = candle_core::safetensors::BufferedSafetensors::new(bytes.clone())?;
//! let header = ShapeIndex::from(&open);
//! let b = SelfAttention::verify_source(&header.prefixed("attn"))?;
//! assert_eq!(b.get("d_model"), Some(8));
//!
//! // 2. After loading: the model itself, no shadow struct.
//! let vb = VarBuilder::from_slice_safetensors(&bytes, DType::F32, &dev)?;
//! let attn = SelfAttention::load(8, vb.pp("attn"))?;
//! assert_eq!(attn.verify()?.get("d_model"), Some(8));
//!
//! // 3. At every call.
//! let x = Tensor::zeros((2, 5, 8), DType::F32, &dev)?;
//! assert_eq!(attn.forward(&x)?.dims(), &[2, 5, 8]);
//! let e = attn.forward(&Tensor::zeros((5, 8), DType::F32, &dev)?).unwrap_err();
//! assert!(e.to_string().starts_with("forward.xs: expected 3 dims, found 2"), "{e}");
//! // An input whose last dim is not the weights' width: the error says which weight bound it.
//! let e = attn.forward(&Tensor::zeros((2, 5, 6), DType::F32, &dev)?).unwrap_err();
//! assert!(e.to_string().starts_with(
//!     "forward.xs: axis 2 expected d_model = 8, found 6\n  \
//!      d_model = 8 bound by SelfAttention.query.weight axis 0"
//! ), "{e}");
//!
//! // A wrong checkpoint is named in the error, field and tensor.
//! tensors.insert("attn.key.bias".into(), Tensor::zeros(6, DType::F32, &dev)?);
//! let bad = safetensors::serialize(&tensors, None)?;
//! let open = candle_core::safetensors::BufferedSafetensors::new(bad)?;
//! let e = SelfAttention::verify_source(&ShapeIndex::from(&open).prefixed("attn")).unwrap_err();
//! assert!(e.to_string().contains(
//!     "SelfAttention.key.bias (tensor \"key.bias\"): axis 0 expected d_model = 8, found 6"
//! ), "{e}");
//! # Ok(())
//! # }
//! ```
//!
//! `#[shapes::check(self)]` shares the model's variables with a method's patterns: each is
//! read from the first layer that binds it (one dim of one weight, no verification of the
//! model per call), so an input is checked against the loaded weights, and a mismatch names
//! the weight. Variables of the patterns that the model does not have stay the method's own.
//!
//! `Option<&Tensor>` parameters of a checked function (attention masks) are checked when
//! `Some`. A checked function that cannot return an error panics on a mismatch, at the line
//! that called it; `#[shapes::check(panic)]` makes a `Result` function panic too, and
//! `#[shapes::check(map_err = "path")]` maps the error for an error type without
//! `From<ShapeError>`.
