//! A spec's variables checked before any file is: the rules `#[derive(Shaped)]` applies at
//! compile time (`verify::rules`, worded once), with a spec's words and pointing at the
//! spec's text.

use std::ops::Range;

use super::{Parsed, SpecError, SpecText};
use crate::expr::{CmpOp, DimExpr, Pattern};
use crate::verify::analysis::Scope;
use crate::verify::rules::{self, Declared, Words};

/// How the rules speak in a spec file.
const WORDS: Words = Words {
    item: "tensor",
    config: "[config]",
    declare_given: |name| format!("declare it with given = [\"{name}\"]"),
    unsolved_advice: |best| {
        format!(
            "Declare one with given = [\"{best}\"] (and bind it in [config] or with --set), or give it a dim of its own"
        )
    },
};

/// Checks the variables of `spec`, whose patterns and `where` clauses are already known to
/// parse (`patterns` in the order of `spec.entries`; `wheres` every clause of every `where`
/// string, each with its string's index in `spec.wheres`): the first finding is the error.
pub(super) fn check(
    src: &SpecText<'_>,
    spec: &Parsed,
    patterns: &[Pattern],
    wheres: &[(usize, DimExpr, CmpOp, DimExpr)],
) -> Result<(), SpecError> {
    let mut scope: Scope<'_, Range<usize>> = Scope::default();
    // A block used under several prefixes is written once: its patterns count once (once
    // per distinct rename), so a typo inside a block used twice is still used once.
    let mut seen = std::collections::BTreeSet::new();
    for (e, p) in spec.entries.iter().zip(patterns) {
        if seen.insert((e.span.start, e.span.end, e.pattern.as_str())) {
            scope.set_owner(e.owner);
            scope.add_pattern(p, &e.span);
        }
    }
    scope.set_owner(0);
    for (_, count, span) in &spec.repeats {
        scope.add_count(count, span);
    }
    for (i, l, op, r) in wheres {
        let Some((_, span)) = spec.wheres.get(*i) else {
            continue;
        };
        if *op == CmpOp::Eq {
            scope.add_equation(l, r, span);
        } else {
            scope.add_comparison(l, r, span);
        }
    }
    let declared = Declared {
        given: spec.given.iter().map(|(g, s)| (g.as_str(), s)).collect(),
        config: spec
            .config
            .iter()
            .map(|(c, _, s)| (c.as_str(), s))
            .collect(),
        config_is_known: true,
        shares_scope: false,
    };
    match rules::check(&scope, &declared, &WORDS).into_iter().next() {
        Some(f) => Err(SpecError::span(src.file, src.text, f.at, f.message)),
        None => Ok(()),
    }
}
