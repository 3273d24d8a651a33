//! What the framework layers' `forward` takes and gives, as patterns over each layer's own
//! variables: the contracts `#[shapes::check]` follows a forward pass through.
//!
//! A model struct holds its layers as `#[shape(nested)]` fields, their variables renamed into
//! the model's (`rename(d_in = "d_model", d_out = "d_ff")`; see `frameworks`). Inside a checked
//! method of that struct, `self.up.forward(&x)` is read with the contract of `up`'s layer type,
//! in the model's names: `x` must end in `d_model` and the result is `x`'s leading dims and
//! `d_ff`. The variables are the ones candle's and burn's layers declare (the same names in
//! both), which the `frameworks` tests hold to these contracts.
//!
//! ```
//! use shapes_core::forwards::{FORWARDS, forward_of};
//! let linear = forward_of("Linear").unwrap();
//! assert_eq!((linear.input, linear.output), ("(*batch, d_in)", "(*batch, d_out)"));
//! assert!(FORWARDS.iter().all(|f| f.input.starts_with("(*")));
//! ```

/// One layer type's forward: the pattern its input must match and the pattern of its output,
/// sharing the leading `*` variable (the batch dims, passed through).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Forward {
    /// The layer type's name, as candle and burn spell it.
    pub layer: &'static str,
    /// All of the layer's variables: those its `rename(…)` may name.
    pub vars: &'static [&'static str],
    /// The input's pattern.
    pub input: &'static str,
    /// The output's pattern.
    pub output: &'static str,
}

/// The layers whose forward is a contract on shapes alone. A convolution's contract says only
/// what its weights record: its output's channels (`c_out`) and rank. The output's length
/// depends on padding, stride and dilation, which they do not record, and its input's channels
/// are `c_in` times `groups`, which they do not record either (a grouped convolution's weight
/// holds one group's input channels): both are `_`. Transposed convolutions are not here (their
/// weights hold one group's output channels).
pub const FORWARDS: &[Forward] = &[
    Forward {
        layer: "Linear",
        vars: &["d_out", "d_in"],
        input: "(*batch, d_in)",
        output: "(*batch, d_out)",
    },
    Forward {
        layer: "Embedding",
        vars: &["vocab", "d_model"],
        input: "(*ids)",
        output: "(*ids, d_model)",
    },
    Forward {
        layer: "LayerNorm",
        vars: &["d_model"],
        input: "(*batch, d_model)",
        output: "(*batch, d_model)",
    },
    Forward {
        layer: "RmsNorm",
        vars: &["d_model"],
        input: "(*batch, d_model)",
        output: "(*batch, d_model)",
    },
    Forward {
        layer: "Conv1d",
        vars: &["c_out", "c_in", "k"],
        input: "(*batch, _, _)",
        output: "(*batch, c_out, _)",
    },
    Forward {
        layer: "Conv2d",
        vars: &["c_out", "c_in", "k_h", "k_w"],
        input: "(*batch, _, _, _)",
        output: "(*batch, c_out, _, _)",
    },
];

/// The contract of the layer type named `layer`, if it has one.
///
/// ```
/// assert!(shapes_core::forwards::forward_of("RmsNorm").is_some());
/// assert!(shapes_core::forwards::forward_of("ConvTranspose2d").is_none());
/// ```
pub fn forward_of(layer: &str) -> Option<&'static Forward> {
    FORWARDS.iter().find(|f| f.layer == layer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{Item, parse_pattern};

    /// Each contract parses, starts with its batch variable, and its output passes that
    /// variable on.
    #[test]
    fn each_contract_parses_and_passes_its_batch_dims_on() {
        for f in FORWARDS {
            let input = parse_pattern(f.input).expect(f.input);
            let output = parse_pattern(f.output).expect(f.output);
            let Some(Item::Variadic(batch)) = input.items.first() else {
                panic!("{}: no leading variadic", f.layer);
            };
            assert_eq!(output.items.first(), Some(&Item::Variadic(batch.clone())));
            // Every other variable is one of the layer's.
            for item in input.items.iter().chain(&output.items) {
                if let Item::Dim(crate::expr::DimExpr::Var(v)) = item {
                    assert!(f.vars.contains(&v.as_str()), "{}: {v}", f.layer);
                }
            }
        }
    }
}
