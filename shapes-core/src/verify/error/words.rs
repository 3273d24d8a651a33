//! What an error's text says differently in each front end ([`ErrorWords`]: Rust's for the
//! API, the command's for the report `shapes check` prints), and the longer texts of some
//! error kinds.

use core::fmt;

use super::{ShapeErrorDetails, ShapeErrorKind};
use crate::verify::path::Origin;

/// What an error's text says differently in each front end: Rust's words for the API, the
/// command's for the report `shapes check` prints.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ErrorWords<'a> {
    /// Who gives values before checking (an origin [`Origin::Given`]).
    pub caller: &'a str,
    /// How to let a list be absent.
    pub absent_list: &'a str,
    /// How a value is given before checking: in Rust, or with the command's flag.
    pub give: Give<'a>,
    /// Whether an error names where its pattern is declared (the report's text does for a
    /// spec file it read; Rust's `Display` does under `{:#}`).
    pub declared: bool,
}

/// How a `given` variable is passed, in a front end's words (the report's two are the `spec`
/// feature's).
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "spec"), allow(dead_code))]
pub(crate) enum Give<'a> {
    /// `verify_with(Bindings::new().bind("heads", …))`.
    Rust,
    /// `CheckOptions::new().set("heads", …)`: a spec checked from Rust.
    CheckOptions,
    /// A command's flag: `--set heads=…`.
    Flag(&'a str),
}

/// The Rust API's words.
pub(crate) const RUST_WORDS: ErrorWords<'static> = ErrorWords {
    caller: "the caller",
    absent_list: "declare it `Option<Vec<_>>` or `min = 0`",
    give: Give::Rust,
    declared: false,
};

impl fmt::Display for ShapeErrorDetails {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_in(f, &RUST_WORDS)
    }
}

impl ShapeErrorDetails {
    /// The provenance and shape lines that end every error.
    pub(super) fn fmt_tail(
        &self,
        f: &mut fmt::Formatter<'_>,
        words: &ErrorWords<'_>,
    ) -> fmt::Result {
        if !self.provenance.is_empty() {
            f.write_str("\n  ")?;
            for (i, p) in self.provenance.iter().enumerate() {
                if i > 0 {
                    f.write_str("; ")?;
                }
                match &p.origin {
                    Origin::Given => {
                        write!(f, "{} = {} bound by {}", p.name, p.value, words.caller)?
                    }
                    o => write!(f, "{} = {} bound by {o}", p.name, p.value)?,
                }
            }
        }
        match (&self.shape, self.pattern.as_deref()) {
            (Some(shape), Some(pattern)) => write!(f, "\n  shape is {shape}, pattern {pattern}")?,
            (Some(shape), None) => write!(f, "\n  shape is {shape}")?,
            (None, Some(pattern)) => write!(f, "\n  pattern {pattern}")?,
            (None, None) => {}
        }
        match self.declared_at {
            Some(place) if f.alternate() || words.declared => {
                write!(f, "\n  declared at {place}")
            }
            _ => Ok(()),
        }
    }
}

/// A [`ShapeErrorDetails`] written in some front end's words.
#[cfg(feature = "spec")]
pub(crate) struct InWords<'e, 'w>(pub &'e ShapeErrorDetails, pub &'e ErrorWords<'w>);

#[cfg(feature = "spec")]
impl fmt::Display for InWords<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_in(f, self.1)
    }
}

/// `cannot check heads * head_dim: `heads` is `given`: pass it with …`.
pub(super) fn write_not_given(
    f: &mut fmt::Formatter<'_>,
    expr: &str,
    names: &[String],
    give: Give<'_>,
) -> fmt::Result {
    let (list, verb, it) = match names {
        [one] => (format!("`{one}`"), "is", "it"),
        _ => (
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", "),
            "are",
            "them",
        ),
    };
    write!(
        f,
        "cannot check {expr}: {list} {verb} `given`: pass {it} with "
    )?;
    match give {
        Give::Rust => {
            let binds: String = names.iter().map(|n| format!(".bind({n:?}, …)")).collect();
            write!(
                f,
                "`verify_with(Bindings::new(){binds})` (`verify_source_with` for a checkpoint)"
            )
        }
        Give::CheckOptions => {
            let sets: String = names.iter().map(|n| format!(".set({n:?}, …)")).collect();
            write!(f, "`CheckOptions::new(){sets}`")
        }
        Give::Flag(flag) => {
            let flags: Vec<String> = names.iter().map(|n| format!("{flag} {n}=…")).collect();
            write!(f, "`{}`", flags.join(" "))
        }
    }
}

/// The layout of a checkpoint in PyTorch's layout checked against a framework's layers.
pub(super) fn write_layout(
    f: &mut fmt::Formatter<'_>,
    framework: &str,
    transposed: &[String],
    renamed: &[(String, String)],
) -> fmt::Result {
    write!(
        f,
        "the checkpoint is in PyTorch's layout, not {framework}'s: read in {framework}'s layout, every tensor matches ("
    )?;
    let mut parts = Vec::new();
    if let Some(first) = transposed.first() {
        parts.push(format!(
            "{} `Linear` weight{} transposed, PyTorch's (d_out, d_in) to {framework}'s (d_in, d_out), as `{first}`",
            transposed.len(),
            if transposed.len() == 1 { "" } else { "s" }
        ));
    }
    if let Some((from, to)) = renamed.first() {
        parts.push(format!(
            "{} norm parameter{} renamed, as `{from}` to `{to}`",
            renamed.len(),
            if renamed.len() == 1 { "" } else { "s" }
        ));
    }
    write!(
        f,
        "{}); convert it as it is loaded (burn-import's `PyTorchFileRecorder` transposes and renames), or check it against structs in PyTorch's layout",
        parts.join("; ")
    )?;
    Ok(())
}

/// `expected 6 elements (n_layers = 6), found 5: missing layers.5.*`, or
/// `expected at least 1 element under "layers.", found none (did you mean "layer"?) …`.
pub(super) fn write_count(
    f: &mut fmt::Formatter<'_>,
    kind: &ShapeErrorKind,
    absent_list: &str,
) -> fmt::Result {
    let ShapeErrorKind::Count {
        prefix,
        expected,
        at_least,
        variable,
        found,
        suggestion,
    } = kind
    else {
        return Ok(());
    };
    let (expected, at_least, found) = (*expected, *at_least, *found);
    let dot = if prefix.is_empty() { "" } else { "." };
    let plural = if expected == 1 { "" } else { "s" };
    let least = if at_least { "at least " } else { "" };
    write!(
        f,
        "expected {least}{expected} element{plural} under {prefix}{dot}*"
    )?;
    if let Some(v) = variable {
        write!(f, " ({v} = {expected})")?;
    }
    match found {
        0 => f.write_str(", found none")?,
        n => write!(f, ", found {n}")?,
    }
    if found < expected && !at_least {
        write!(f, ": missing {prefix}{dot}{found}.*")?;
        if expected - found > 1 {
            write!(f, " to {prefix}{dot}{}.*", expected - 1)?;
        }
    } else if found > expected && !at_least {
        write!(
            f,
            ": {prefix}{dot}{expected}.* and later are more than expected"
        )?;
    }
    if let Some(s) = suggestion {
        write!(f, " (did you mean {s:?}?)")?;
    }
    if at_least && found == 0 {
        write!(f, "; if the list may be absent, {absent_list}")?;
    }
    Ok(())
}

pub(super) fn write_found(f: &mut fmt::Formatter<'_>, found: Option<usize>) -> fmt::Result {
    match found {
        Some(v) => write!(f, ", found {v}"),
        None => Ok(()),
    }
}

pub(super) fn join_names(names: &[String]) -> String {
    match names {
        [one] => format!("{one} is"),
        _ => format!("{} are", names.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `given` variable is asked for in the words of where the error is read.
    #[test]
    fn a_given_variable_is_asked_for_in_each_front_ends_words() {
        struct NotGiven(Give<'static>, &'static [&'static str]);
        impl fmt::Display for NotGiven {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let names: Vec<String> = self.1.iter().map(|n| (*n).to_owned()).collect();
                write_not_given(f, "heads * head_dim", &names, self.0)
            }
        }
        assert_eq!(
            NotGiven(Give::Rust, &["heads"]).to_string(),
            "cannot check heads * head_dim: `heads` is `given`: pass it with `verify_with(Bindings::new().bind(\"heads\", …))` (`verify_source_with` for a checkpoint)"
        );
        assert_eq!(
            NotGiven(Give::CheckOptions, &["heads", "head_dim"]).to_string(),
            "cannot check heads * head_dim: `heads`, `head_dim` are `given`: pass them with `CheckOptions::new().set(\"heads\", …).set(\"head_dim\", …)`"
        );
        assert_eq!(
            NotGiven(Give::Flag("--set"), &["heads", "head_dim"]).to_string(),
            "cannot check heads * head_dim: `heads`, `head_dim` are `given`: pass them with `--set heads=… --set head_dim=…`"
        );
    }
}
