//! A description verified against a checkpoint by name: what a derived struct's
//! `verify_source` and a [`Plan`](crate::Plan)'s do, in one place. The variables its config
//! keys state are bound, the one interpreter runs, the unexpected tensors are listed, a dim
//! that waits for a `given` variable says so, and a framework layout PyTorch's differs from
//! is named as the one cause when it is.

use super::by_name::{ConfigKey, SourceCx, SourceOptions, stated};
use crate::source::ShapeSource;
use crate::verify::bindings::Bindings;
use crate::verify::checker::Checker;
use crate::verify::description::Description;
use crate::verify::error::{ShapeError, ShapeErrorDetails, ShapeErrorKind, ShapeErrors};
use crate::verify::path::FieldPath;
use crate::verify::plan::Place;
use crate::verify::vars::VarTable;

/// What is verified by name: the root of error paths, the scope's variables, and its
/// description (`None` for a type whose by-name checks are written by hand: no config keys,
/// nothing given).
#[derive(Clone, Copy)]
pub(crate) struct Described<'d> {
    pub(crate) root: &'static str,
    pub(crate) table: &'static VarTable,
    pub(crate) description: Option<&'d Description>,
}

/// One pass of a description's checks, shapes read from the source, with the values the
/// config stated.
pub(crate) type Run<'r> = dyn Fn(&mut Checker, &mut SourceCx<'_>, &Bindings) + 'r;

/// Verifies `src` against `what`, whose checks one pass of `run` makes.
pub(crate) fn verify_by_name(
    what: Described<'_>,
    src: &dyn ShapeSource,
    options: &SourceOptions,
    run: &Run<'_>,
) -> Result<Bindings, ShapeErrors> {
    let given = what.description.map_or(&[][..], |d| d.given);
    let pre = stated(
        options.pre(),
        &scope_config(what.description),
        src,
        what.root,
    )?;
    let checked = |scx: &mut SourceCx<'_>, report: bool| {
        Checker::new(what.table, what.root, &pre).run(report, |cx| run(cx, scx, &pre))
    };
    let mut scx = SourceCx::new(src);
    let result = checked(&mut scx, true).map_err(|e| name_given(e, given, Some(&pre)));
    let ignore: Vec<&str> = options.ignored().iter().map(String::as_str).collect();
    let report = scx.report(what.root, result, options.is_strict(), &ignore);
    if report.is_ok() {
        return report;
    }
    // A framework's layers whose layout PyTorch's differs from (burn's): when the
    // checkpoint read in the framework's layout matches, the layout is the one cause.
    if let Some(view) = scx.torch_view() {
        let mut again = SourceCx::new(&view);
        let result = checked(&mut again, false);
        if again
            .report(what.root, result, options.is_strict(), &ignore)
            .is_ok()
        {
            return Err(ShapeErrors::from(ShapeError::from(ShapeErrorDetails::new(
                FieldPath::new(what.root, &[]),
                ShapeErrorKind::Layout {
                    framework: "burn".into(),
                    transposed: view.transposed.clone(),
                    renamed: view.renamed.clone(),
                },
            ))));
        }
    }
    report
}

/// The config keys of a description's scope, nested structs included, the first for each
/// variable, each with the place it is declared.
pub(crate) fn scope_config(description: Option<&Description>) -> Vec<(ConfigKey, Place)> {
    let mut keys = Vec::new();
    if let Some(d) = description {
        d.config_keys(&mut keys);
    }
    let mut seen: Vec<&'static str> = Vec::new();
    keys.retain(|(k, _)| {
        let first = !seen.contains(&k.var);
        seen.push(k.var);
        first
    });
    keys
}

/// `errors` with each dim that waits for a `given` variable the caller did not pass
/// (`pre` lacks it) said so: the caller is to pass it, not a field to bind it.
#[cold]
pub(crate) fn name_given(
    mut errors: Vec<ShapeError>,
    given: &[&str],
    pre: Option<&Bindings>,
) -> Vec<ShapeError> {
    if given.is_empty() {
        return errors;
    }
    for e in &mut errors {
        if let ShapeErrorKind::Unsolved { expr, unknown } = &e.kind {
            let names: Vec<String> = unknown
                .iter()
                .filter(|u| given.contains(&u.as_str()) && pre.is_none_or(|p| p.value(u).is_none()))
                .cloned()
                .collect();
            if !names.is_empty() {
                e.kind = ShapeErrorKind::NotGiven {
                    expr: expr.clone(),
                    names,
                };
            }
        }
    }
    errors
}
