//! The vocabulary's shape rules, on tracked shapes alone: what each candle op makes of its
//! operands' shapes, or why it provably fails.
//!
//! Each rule returns `Ok(Some(shape))` when the result's rank is known (its dims may still be
//! unknown), `Ok(None)` when the result cannot be tracked, and `Err(detail)` only for a
//! mismatch [`compare`] proves (or ranks that are both known and wrong). `detail` names the
//! operands by the `text` they are given, and is completed with the op by the caller.

mod forward;
mod layout;
mod pairs;
#[cfg(test)]
mod tests;

use super::diag::Quote;
use super::dims::{Dim, show_shape};

pub use forward::{call, forward};
pub use layout::{
    Target, cat, cat_repeat, dims_n, flatten, index_select, narrow, permute, reduce, reshape,
    squeeze, stack, t, transpose, unsqueeze,
};
pub use pairs::{broadcast, broadcast_matmul, elementwise, matmul};

/// A tracked tensor operand: how it is written, and its shape.
pub struct Operand<'a> {
    pub text: Quote<'a>,
    pub dims: &'a [Dim],
}

/// An axis as written: a literal index, or `D::Minus1` (`-1`), `D::Minus2`, `D::Minus(n)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    Index(usize),
    FromEnd(usize),
}

/// The result of a rule.
pub type Rule = Result<Option<Vec<Dim>>, String>;

/// `axis` as an index into a shape of `rank` dims (`rank + 1` positions with `extra`, as for
/// `unsqueeze`), or the error.
pub fn resolve(
    axis: Axis,
    rank: usize,
    of: impl std::fmt::Display,
    extra: bool,
) -> Result<usize, String> {
    let len = rank + usize::from(extra);
    let idx = match axis {
        Axis::Index(i) => Some(i).filter(|i| *i < len),
        Axis::FromEnd(n) => len.checked_sub(n).filter(|_| n >= 1),
    };
    idx.ok_or_else(|| {
        let shown = match axis {
            Axis::Index(i) => i.to_string(),
            Axis::FromEnd(n) => format!("D::Minus({n})"),
        };
        format!("axis {shown} is out of range: `{of}` has rank {rank}")
    })
}

pub(super) fn rank_at_least(a: &Operand<'_>, n: usize, op: &str) -> Result<(), String> {
    if a.dims.len() < n {
        return Err(format!(
            "`{op}` needs a tensor of rank {n} or more, but `{}` is {} (rank {})",
            a.text,
            show_shape(a.dims),
            a.dims.len()
        ));
    }
    Ok(())
}
