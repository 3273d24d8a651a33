//! What a local (or an expression) of a checked body is known to hold, as the walk (`body`)
//! and `self`'s fields (`fields`) give it.

use std::rc::Rc;

use shapes_core::expr::Pattern;

use super::dims::Dim;
use std::collections::{BTreeMap, BTreeSet};

use super::contract::Contract;

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
    /// A list of values of one shape, read by indexing: the pieces of `chunk`.
    Pieces(Box<Val>),
    /// A framework layer held by a field of `self`: its forward contract.
    Layer(Layer),
    /// A struct of the user's held by a field of `self`: its checked methods' contracts.
    Struct(Rc<Methods>),
    /// A struct of the user's held by a field of `self` whose checked methods are not beside
    /// the function (declared in another file or module, or none): its type's name, for the
    /// gap its calls make.
    Unread(String),
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

/// Another struct's methods as a field of `self` holding it offers them: the contracts in
/// the holder's names (the field's `rename(…)` applied), and which of those names are the
/// holder's variables (none for a struct in a scope of its own).
#[derive(Debug, PartialEq)]
pub struct Methods {
    /// The struct's name, for messages.
    pub ty: String,
    pub methods: BTreeMap<String, Contract>,
    pub shared: BTreeSet<String>,
}

impl Methods {
    /// Whether `var`, in `contract`, is the holder's variable rather than the method's own.
    pub fn is_shared(&self, contract: &Contract, var: &str) -> bool {
        contract.shares_self && self.shared.contains(var)
    }
}

/// Where the checked methods of a struct of the user's are found, by the type of the field
/// holding it (`neighbours::Neighbours`, the items beside the struct in its file).
pub trait MethodsOf {
    /// The checked methods of the struct a field of type `ty` holds, in the holder's names:
    /// `renames` (inner, outer) are the field's, and `shared` whether it is checked in the
    /// holder's scope (not `scope = "own"`).
    fn methods_of(
        &self,
        ty: &syn::Type,
        renames: &[(String, String)],
        shared: bool,
    ) -> Option<Methods>;
}
