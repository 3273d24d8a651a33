//! What [`Bindings`](super::Bindings) hands out: a variable's [`Value`] with where it came
//! from ([`Binding`]), and a tensor left out because it is tied to another ([`Tie`]).

use core::fmt;
use std::borrow::Cow;

use crate::shape::Shape;
use crate::verify::path::Origin;

/// A variable's value: one size, or a sub-shape for a variadic `*name`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    /// A dim variable's size.
    Size(usize),
    /// A variadic's sub-shape.
    Shape(Shape),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Size(n) => write!(f, "{n}"),
            Value::Shape(s) => write!(f, "{s}"),
        }
    }
}

/// One bound variable, as [`Bindings::iter`](super::Bindings::iter) hands it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The variable's name.
    pub name: Cow<'static, str>,
    /// Its value.
    pub value: Value,
    /// Where the value came from.
    pub origin: Origin,
}

/// A tensor a checkpoint leaves out because it is tied to another (an output head that shares
/// the token embedding's weights): what `verify_source` reports in [`Bindings::tied`](super::Bindings::tied).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tie {
    /// The absent tensor's name.
    pub tensor: String,
    /// The tensor it shares its weights with.
    pub to: String,
    /// The checkpoint key that says so, when it states one (`tie_word_embeddings = true`).
    pub stated: Option<crate::source::ConfigEntry>,
}

impl fmt::Display for Tie {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is tied to {}", self.tensor, self.to)?;
        match &self.stated {
            Some(e) => write!(f, " ({e})"),
            None => f.write_str(" (absent from the checkpoint)"),
        }
    }
}
