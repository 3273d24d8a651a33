//! Using `shapes` with a framework's own model types: `frameworks::candle` (feature `candle`,
//! candle 0.11: `candle-core` and `candle-nn` 0.11.1) and `frameworks::burn` (feature `burn`,
//! burn 0.22: `burn-tensor`, `burn-core` and `burn-nn` 0.22.1), the documentation; the private
//! modules beside them
//! hold the layer types' `Shaped` impls (one macro, `layers`), which sit above the
//! verification runtime they drive.
//!
//! A model struct holds the framework's layers, not raw tensors. Each layer type below is
//! [`Shaped`](crate::Shaped), so `#[derive(Shaped)]` goes on the model struct itself, each
//! layer a `#[shape(nested)]` field whose variables are renamed into the model's
//! (`rename(d_in = "d_model", d_out = "d_ff")`). One field declaration serves both
//! [`verify`](crate::Shaped::verify) on the loaded model and
//! [`verify_source`](crate::Shaped::verify_source) on the checkpoint: the tensor names are the
//! ones the framework saves.
//!
//! # The layer types and their variables
//!
//! The same concept has the same variable names in both frameworks, so renames carry over.
//! A `?` marks a tensor a layer may lack (it is checked when present).
//!
//! | layer | variables | candle (`candle_nn`) | burn (`burn_nn`) |
//! |---|---|---|---|
//! | `Linear` | `d_in`, `d_out` | `weight (d_out, d_in)`, `bias? (d_out,)` | `weight (d_in, d_out)`, `bias? (d_out,)` |
//! | `Embedding` | `vocab`, `d_model` | `weight (vocab, d_model)` | `weight (vocab, d_model)` |
//! | `LayerNorm` | `d_model` | `weight (d_model,)`, `bias? (d_model,)` | `gamma (d_model,)`, `beta? (d_model,)` |
//! | `RmsNorm` | `d_model` | `weight (d_model,)` | `gamma (d_model,)` |
//! | `Conv1d` | `c_out`, `c_in`, `k` | `weight (c_out, c_in, k)`, `bias? (c_out,)` | the same |
//! | `Conv2d` | `c_out`, `c_in`, `k_h`, `k_w` | `weight (c_out, c_in, k_h, k_w)`, `bias? (c_out,)` | the same |
//! | `ConvTranspose1d` | `c_in`, `c_out`, `k` | `weight (c_in, c_out, k)`, `bias? (c_out,)` | — |
//! | `ConvTranspose2d` | `c_in`, `c_out`, `k_h`, `k_w` | `weight (c_in, c_out, k_h, k_w)`, `bias? (c_out,)` | — |
//!
//! - **burn's `Linear` weight is `[d_in, d_out]`**, the reverse of PyTorch and candle: the
//!   pattern says so, and `d_in`/`d_out` keep their meaning.
//! - A convolution's weight holds the input channels of one group: `c_in` is the layer's
//!   input channels divided by `groups` (all of them for the default `groups = 1`). A
//!   checkpoint does not record `groups`, so it is not a variable. For the transposed
//!   convolutions `c_out` is per group the same way; with `groups > 1` their bias has all
//!   the output channels and its check does not hold.
//! - The layers' own names in error paths are their type names (`Linear`), under the field
//!   that holds them: `Model.attention.query.weight`.

#[cfg(feature = "burn")]
pub mod burn;
#[cfg(all(test, feature = "burn"))]
mod burn_flow_tests;
#[cfg(feature = "burn")]
mod burn_nn;
#[cfg(feature = "candle")]
pub mod candle;
#[cfg(feature = "candle")]
mod candle_nn;
#[cfg(any(feature = "candle", feature = "burn"))]
mod layers;
