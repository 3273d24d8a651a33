//! [`PlanError`]: why a plan cannot be built.

use core::fmt;

use crate::parse::ParseError;
use crate::verify::vars::MAX_VARS;

/// Why a [`Plan`](super::Plan) cannot be built: where, and what is wrong.
#[derive(Clone, PartialEq, Eq)]
pub struct PlanError {
    /// The node: its name under its prefixes, or `where` for an equation.
    pub at: String,
    /// What is wrong.
    pub kind: PlanErrorKind,
}

/// What is wrong with a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlanErrorKind {
    /// A pattern or equation does not parse.
    Parse(ParseError),
    /// An item that cannot be checked against a tensor (`D`, `Π`, `Σ`, indexing).
    Unsupported(&'static str),
    /// Kept for compatibility; no longer produced: a `where` clause may compare with `≠`,
    /// `<`, `≤`, `>`, `≥` as well as `=`.
    NotAnEquation,
    /// More variables than one scope holds.
    TooManyVariables,
    /// A count that is not a variable name.
    BadCount(String),
    /// A variable bound from checkpoint keys ([`Plan::bind_from`](super::Plan::bind_from)) that no pattern uses.
    UnknownVariable {
        /// The name given.
        name: String,
        /// The closest variable of the plan, if one is close.
        suggestion: Option<String>,
    },
    /// [`Plan::bind_from`](super::Plan::bind_from) without any key.
    NoKeys,
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.at)?;
        match &self.kind {
            PlanErrorKind::Parse(e) => write!(f, "{e}"),
            PlanErrorKind::Unsupported(what) => write!(
                f,
                "{what} cannot be checked against a tensor: use arithmetic on names and numbers"
            ),
            PlanErrorKind::NotAnEquation => f.write_str("only `=` is supported in a where clause"),
            PlanErrorKind::TooManyVariables => {
                write!(f, "more than {MAX_VARS} shape variables in one plan")
            }
            PlanErrorKind::UnknownVariable { name, suggestion } => {
                write!(f, "{name:?} is not a variable of the plan")?;
                match suggestion {
                    Some(s) => write!(f, " (did you mean {s:?}?)"),
                    None => Ok(()),
                }
            }
            PlanErrorKind::NoKeys => {
                f.write_str("a variable bound from keys needs at least one key")
            }
            PlanErrorKind::BadCount(c) => {
                write!(
                    f,
                    "a count takes a variable name like \"n_layers\", not {c:?}"
                )
            }
        }
    }
}

impl fmt::Debug for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for PlanError {}
