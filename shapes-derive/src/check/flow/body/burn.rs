//! burn's own names in the vocabulary, on the rules of `ops`: what burn's `Tensor` spells
//! differently from candle's. The names both share (`matmul`, `narrow`, `permute`, `flatten`,
//! `reshape`, `Tensor::cat`, the element-wise ops) go through the common vocabulary.
//!
//! A body is read as burn's when a parameter's type is a `Tensor` with generic arguments
//! (`Tensor<3>`, `Tensor<B, 3>`): candle's `Tensor` has none. That decides the one name whose
//! meaning differs: burn's `argmax(dim)`/`argmin(dim)` keep the reduced axis (as size 1),
//! candle's drop it.

use super::super::ops::{self, Axis, Operand, Rule};
use super::Val;

/// The result of a burn-only method: a rule, a plain value, or not one of burn's names.
pub(super) enum Burn {
    Rule(Rule),
    Value(Val),
    Other,
}

/// What `a.name(args)` is under burn's names; `axis(i)` and `size(i)` read argument `i`.
pub(super) fn method(
    name: &str,
    a: &Operand<'_>,
    nargs: usize,
    burn_body: bool,
    axis: &dyn Fn(usize) -> Option<Axis>,
    size: &dyn Fn(usize) -> super::super::dims::Dim,
) -> Burn {
    let rank = a.dims.len();
    let rule = match (name, nargs) {
        // `swap_dims(a, b)` is candle's `transpose(a, b)`; burn's `transpose()` is `t()`.
        ("swap_dims", 2) => match (axis(0), axis(1)) {
            (Some(i), Some(j)) => ops::transpose(a, i, j),
            _ => Ok(Some(vec![None; rank])),
        },
        ("transpose", 0) => ops::t(a),
        ("unsqueeze_dim", 1) => match axis(0) {
            Some(k) => ops::unsqueeze(a, k),
            None => Ok(None),
        },
        ("sum_dim" | "mean_dim" | "max_dim" | "min_dim" | "prod_dim", 1) => match axis(0) {
            Some(k) => ops::reduce(a, k, true),
            None => Ok(Some(vec![None; rank])),
        },
        ("argmax" | "argmin", 1) if burn_body => match axis(0) {
            Some(k) => ops::reduce(a, k, true),
            None => Ok(Some(vec![None; rank])),
        },
        // Tiles along one axis, as `Tensor::cat` of `times` copies does.
        ("repeat_dim", 2) => match axis(0) {
            Some(k) => ops::cat_repeat(a, &size(1), k),
            None => Ok(Some(vec![None; rank])),
        },
        // `let [b, s, _] = x.dims();`
        ("dims", 0) => {
            return Burn::Value(Val::Tuple(a.dims.iter().cloned().map(Val::Size).collect()));
        }
        _ => return Burn::Other,
    };
    Burn::Rule(rule)
}

/// Whether `name` is one of burn's names the walk follows (its result on a tensor of unknown
/// shape is a tensor of unknown shape).
pub(super) fn is_vocabulary(name: &str) -> bool {
    matches!(
        name,
        "swap_dims"
            | "unsqueeze_dim"
            | "sum_dim"
            | "mean_dim"
            | "max_dim"
            | "min_dim"
            | "prod_dim"
            | "repeat_dim"
    )
}

/// Methods of burn's that keep their receiver's shape.
pub(super) const KEEP_SHAPE: &[&str] = &[
    "mask_fill",
    "mask_where",
    "add_scalar",
    "sub_scalar",
    "mul_scalar",
    "div_scalar",
    "powf_scalar",
    "powi_scalar",
    "clamp_min",
    "clamp_max",
    "erf",
    "set_require_grad",
    "require_grad",
];

/// Functions of `burn::tensor::activation` that keep their first argument's shape.
pub(super) const ACTIVATIONS_KEEP: &[&str] = &[
    "softmax",
    "log_softmax",
    "quiet_softmax",
    "sigmoid",
    "log_sigmoid",
    "silu",
    "gelu",
    "relu",
    "leaky_relu",
    "mish",
    "tanh",
    "softplus",
    "hard_sigmoid",
];
