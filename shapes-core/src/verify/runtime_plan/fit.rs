//! What [`Spec::guess`](crate::Spec::guess) and a report's second looks ask of a plan: a
//! check's verdict without its report (no did-you-mean, no list of the undescribed tensors),
//! which costs a fraction of it on a checkpoint of 100,000 tensors.

use super::Plan;
use crate::source::ShapeSource;
use crate::verify::bindings::Bindings;
use crate::verify::by_name::{SourceCx, SourceOptions, stated};
use crate::verify::checker::Checker;
use crate::verify::error::ShapeErrorKind;
use crate::verify_impl::drive::scope_config;

impl Plan {
    /// The bindings when `src` passes the check [`verify_source_options`] makes, else
    /// `None`: the same verdict, without a report of what fails.
    ///
    /// [`verify_source_options`]: Self::verify_source_options
    pub(crate) fn passes<S: ShapeSource + ?Sized>(
        &self,
        src: &S,
        options: &SourceOptions,
    ) -> Option<Bindings> {
        let src = &src;
        let keys = scope_config(Some(&self.description));
        let pre = stated(options.pre(), &keys, src, self.root).ok()?;
        let mut scx = SourceCx::new(src);
        let bindings = Checker::new(self.table, self.root, &pre)
            .run(false, |cx| self.check_source_in(cx, &mut scx, &pre))
            .ok()?;
        // The plan's own `ignore` globs are the description's, which the walk noted.
        let ignore: Vec<&str> = options.ignored().iter().map(String::as_str).collect();
        (!options.is_strict() || scx.unexpected_count(&ignore) == 0).then_some(bindings)
    }

    /// How `src` fits the plan, checked strictly with nothing pre-bound but without the
    /// report: no did-you-mean, no list of the tensors it leaves undescribed, only their
    /// count. What [`Spec::guess`](crate::Spec::guess) asks of each built-in.
    pub(crate) fn fit<S: ShapeSource + ?Sized>(&self, src: &S) -> Fit {
        let src = &src;
        let keys = scope_config(Some(&self.description));
        let Ok(pre) = stated(&Bindings::new(), &keys, src, self.root) else {
            return Fit::Partly(0);
        };
        let mut scx = SourceCx::new(src);
        let result = Checker::new(self.table, self.root, &pre)
            .run(true, |cx| self.check_source_in(cx, &mut scx, &pre));
        let absent = result.as_ref().err().is_some_and(|errors| {
            errors.iter().any(|e| {
                matches!(
                    e.kind,
                    ShapeErrorKind::Missing { .. }
                        | ShapeErrorKind::Untied { .. }
                        | ShapeErrorKind::Count { found: 0, .. }
                )
            })
        });
        match (absent, result.is_ok(), scx.unexpected_count(&[])) {
            (true, _, _) => Fit::Absent,
            (false, true, 0) => Fit::Passes,
            (false, _, n) => Fit::Partly(n),
        }
    }
}

/// How a source fits a plan ([`Plan::fit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    /// A strict check passes.
    Passes,
    /// A tensor or a list the plan needs is absent, or a tie it needs is off.
    Absent,
    /// Nothing is absent; this many of the source's tensors are undescribed.
    Partly(usize),
}
