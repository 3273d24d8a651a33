//! [`HasShape`](super::has_shape::HasShape) for the tensor types of other crates, each behind a cargo
//! feature of the crate's name: `ndarray`, `candle`, `burn`, `nalgebra` and `safetensors`.
//!
//! Every impl only reads the shape the tensor already knows: a borrowed slice where the crate
//! stores its dims (ndarray, candle, safetensors), an array by value where it computes them
//! (burn, nalgebra). None of them allocates.
//!
//! The layer types of candle-nn and burn-nn are `Shaped`: those impls are in
//! `crate::frameworks`, above the verification runtime they use.

#[cfg(feature = "burn")]
mod burn;
#[cfg(feature = "candle")]
mod candle;
#[cfg(feature = "nalgebra")]
mod nalgebra;
#[cfg(feature = "ndarray")]
mod ndarray;
#[cfg(feature = "safetensors")]
mod tensor_view;
