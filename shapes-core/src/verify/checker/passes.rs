//! Pass control: [`Checker::run`] and what follows a first pass that was not clean.

use super::{Checker, report};
use crate::verify::bindings::Bindings;
use crate::verify::error::ShapeError;
use crate::verify::path::NO_FIELD;

impl Checker {
    /// Runs `checks` until every equation is settled: a first pass, then [`finish`](Self::finish).
    pub(crate) fn run(
        mut self,
        report: bool,
        mut checks: impl FnMut(&mut Checker),
    ) -> Result<Bindings, Vec<ShapeError>> {
        self.quiet = !report;
        self.begin_pass(false);
        checks(&mut self);
        if self.is_clean() {
            return Ok(self.take_bindings());
        }
        self.finish(report, checks)
    }

    /// What follows a first pass that was not clean: the passes that bind what equations
    /// waiting for later variables can now solve, while they make progress; then, if something
    /// is still wrong, the reporting pass that turns every mismatch and everything still
    /// pending into an error. With `report` false, the caller (a nested scope checked in a
    /// quiet pass of its parent) only learns that it failed.
    #[inline(never)]
    pub(crate) fn finish(
        mut self,
        report: bool,
        mut checks: impl FnMut(&mut Checker),
    ) -> Result<Bindings, Vec<ShapeError>> {
        // An error is never undone by a later pass (values are only ever added): a run that
        // asks only for the verdict has it.
        if !report && self.failed {
            return Err(vec![ShapeError::unrecorded(self.root)]);
        }
        while self.needs_another_pass() {
            self.begin_pass(false);
            checks(&mut self);
            if self.is_clean() {
                return Ok(self.take_bindings());
            }
        }
        if !report {
            return Err(vec![ShapeError::unrecorded(self.root)]);
        }
        self.begin_pass(true);
        checks(&mut self);
        let mut errors = self.errors;
        report::fold_transposed(&mut errors);
        if errors.is_empty() {
            errors.push(ShapeError::unrecorded(self.root));
        }
        Err(errors)
    }

    pub(crate) fn begin_pass(&mut self, report: bool) {
        self.pending = 0;
        self.progress = false;
        self.report = report;
        self.depth = 0;
        self.field = &NO_FIELD;
    }

    /// Whether a run that asks only for the verdict has it already (an error was found):
    /// the rest of its pass can be skipped.
    #[inline(always)]
    pub(crate) fn gave_up(&self) -> bool {
        self.quiet && self.failed
    }

    pub(crate) fn needs_another_pass(&self) -> bool {
        self.pending > 0 && self.progress
    }

    pub(crate) fn is_clean(&self) -> bool {
        self.pending == 0 && !self.failed
    }

    /// The bindings, taken out (only they are moved, not the whole checker).
    #[inline]
    pub(crate) fn take_bindings(&mut self) -> Bindings {
        std::mem::take(&mut self.out)
    }
}
