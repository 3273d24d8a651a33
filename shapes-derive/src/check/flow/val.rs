//! What a local (or an expression) of a checked body is known to hold, as the walk (`body`)
//! and `self`'s fields (`fields`) give it.

use shapes_core::expr::Pattern;

use super::dims::Dim;

/// What a local (or an expression) is known to hold.
#[derive(Clone, PartialEq, Debug)]
pub enum Val {
    /// A tensor (or a `Result` of one): its dims when its rank is known.
    Tensor(Option<Vec<Dim>>),
    /// An integer size: `b` of `let (b, s, _) = x.dims3()?`.
    Size(Dim),
    /// A tuple of values: what `dims3()` returns.
    Tuple(Vec<Val>),
    /// `Some` of a value: an optional parameter (an attention mask), read by `if let Some(m)`,
    /// `match` and `?`.
    Some(Box<Val>),
    /// A framework layer held by a field of `self`: its forward contract.
    Layer(Layer),
    /// Anything else, or a value nothing is known about.
    Other,
}

impl Val {
    pub(super) fn dims(&self) -> Option<&[Dim]> {
        match self {
            Val::Tensor(Some(d)) => Some(d),
            _ => None,
        }
    }

    pub(super) fn is_tracked(&self) -> bool {
        self.dims().is_some()
    }
}

/// A layer's forward: the pattern its input must match and its output's, in the struct's
/// names, and the layer type they are read from (what messages name).
#[derive(Clone, PartialEq, Debug)]
pub struct Layer {
    pub kind: &'static str,
    pub input: Pattern,
    pub output: Pattern,
}
