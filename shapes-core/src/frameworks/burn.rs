//! # Using shapes with burn
//!
//! With the `burn` feature, a module's `Param<T>` has a shape (read without initializing a
//! lazy parameter), and the layers of `burn_nn` are [`Shaped`](crate::Shaped) (see the
//! [table of variables](super)), so `#[derive(Module, Shaped)]` goes on a burn module as it is.
//! Their tensor names are burn's field names (`weight`, `bias`, `gamma`, `beta`).
//!
//! **burn's `Linear` stores its weight as `[d_in, d_out]`**, the reverse of PyTorch and
//! candle; the pattern is `(d_in, d_out)` and the variables mean the same as in candle.
//!
//! ```
//! use burn_core as burn; // burn's derive names its crate `burn`; with the `burn` crate, skip this
//! use burn_core::module::{Module, Param};
//! use burn_nn::{Embedding, EmbeddingConfig, LayerNorm, LayerNormConfig, Linear, LinearConfig};
//! use burn_tensor::{Device, Tensor};
//! use shapes::{Bindings, Shaped};
//!
//! #[derive(Module, Debug, Shaped)]
//! struct Mlp {
//!     #[shape(nested)]
//!     embed: Embedding,
//!     #[shape(nested)]
//!     norm: LayerNorm,
//!     #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
//!     up: Linear,
//!     #[shape(nested, rename(d_in = "d_ff", d_out = "d_model"))]
//!     down: Linear,
//!     #[shape("(d_model,)")]
//!     scale: Param<Tensor<1>>,
//! }
//!
//! struct MlpConfig { vocab: usize, d_model: usize, d_ff: usize, d_down: usize }
//!
//! impl MlpConfig {
//!     fn init(&self, device: &Device) -> Mlp {
//!         Mlp {
//!             embed: EmbeddingConfig::new(self.vocab, self.d_model).init(device),
//!             norm: LayerNormConfig::new(self.d_model).init(device),
//!             up: LinearConfig::new(self.d_model, self.d_ff).init(device),
//!             down: LinearConfig::new(self.d_ff, self.d_down).init(device),
//!             scale: Param::from_tensor(Tensor::ones([self.d_model], device)),
//!         }
//!     }
//! }
//!
//! let device = Default::default();
//! let mlp = MlpConfig { vocab: 100, d_model: 16, d_ff: 64, d_down: 16 }.init(&device);
//! let b = mlp.verify().unwrap();
//! assert_eq!((b.get("vocab"), b.get("d_ff")), (Some(100), Some(64)));
//! // Checked against the config's values too.
//! assert!(mlp.verify_with(Bindings::new().bind("d_model", 16)).is_ok());
//!
//! // A wrong config is named in the error.
//! let bad = MlpConfig { vocab: 100, d_model: 16, d_ff: 64, d_down: 12 }.init(&device);
//! let e = bad.verify().unwrap_err();
//! assert!(e.to_string().starts_with("Mlp.down.weight: axis 1 expected d_model = 16, found 12"), "{e}");
//! ```
