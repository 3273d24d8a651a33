//! Pass control: the one pass loop ([`Passes::passes`]), [`Checker::run`] and what follows a
//! first pass that was not clean.
//!
//! Every checker that runs its checks in passes drives them here: [`Checker::run`]/[`finish`]
//! (`verify_source`, a plan, the error of a checked call), `verify`'s settle after its inlined
//! first pass (`shaped.rs`, through [`Passes::settle_passes`]), and the fast checker of
//! compiled checks, [`FastCx`] (`verify`'s first pass and `CallScope::check`, through
//! [`Passes::passes`]).
//!
//! [`finish`]: Checker::finish
//! [`FastCx`]: crate::verify_impl::FastCx

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
    /// waiting for later variables can now solve, while they make progress
    /// ([`settle_passes`](Passes::settle_passes)); then, if something
    /// is still wrong, the reporting pass that turns every mismatch and everything still
    /// pending into an error. With `report` false, the caller (a nested scope checked in a
    /// quiet pass of its parent) only learns that it failed.
    #[inline(never)]
    pub(crate) fn finish(
        mut self,
        report: bool,
        mut checks: impl FnMut(&mut Checker),
    ) -> Result<Bindings, Vec<ShapeError>> {
        self.quiet = !report;
        // An error is never undone by a later pass (values are only ever added): a run that
        // asks only for the verdict has it.
        if !report && self.failed {
            return Err(vec![ShapeError::unrecorded(self.root)]);
        }
        if self.settle_passes(&mut checks) {
            return Ok(self.take_bindings());
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
        // A pass that gave up inside a renaming nested field did not end its renames.
        self.renames.clear();
    }

    /// Whether a run that asks only for the verdict has it already (an error was found):
    /// the rest of its pass can be skipped.
    #[inline(always)]
    pub(crate) fn gave_up(&self) -> bool {
        self.quiet && self.failed
    }

    /// The bindings, taken out (only they are moved, not the whole checker).
    #[inline]
    pub(crate) fn take_bindings(&mut self) -> Bindings {
        std::mem::take(&mut self.out)
    }
}

impl Passes for Checker {
    #[inline(always)]
    fn begin_quiet_pass(&mut self) {
        self.begin_pass(false);
    }

    #[inline(always)]
    fn is_clean(&self) -> bool {
        self.pending == 0 && !self.failed
    }

    /// An error does not end the passes: the reporting pass quotes what later ones bind.
    #[inline(always)]
    fn needs_another_pass(&self) -> bool {
        self.pending > 0 && self.progress
    }
}

/// A checker that runs its checks in passes: the general [`Checker`], and the fast checker of
/// compiled checks ([`FastCx`]). What the one pass loop,
/// [`passes`](Passes::passes), drives.
pub(crate) trait Passes {
    /// Starts a pass that reports nothing: nothing pending, nothing bound by it yet.
    fn begin_quiet_pass(&mut self);

    /// Whether the last pass settled every check and found nothing wrong.
    fn is_clean(&self) -> bool;

    /// Whether the last pass left checks pending and bound something new, so that another
    /// pass may settle them.
    fn needs_another_pass(&self) -> bool;

    /// The one pass loop: runs passes of `checks` until one is clean (`true`) or another
    /// would change nothing (`false`).
    #[inline(always)]
    fn passes(&mut self, mut checks: impl FnMut(&mut Self)) -> bool
    where
        Self: Sized,
    {
        loop {
            self.begin_quiet_pass();
            checks(self);
            if self.is_clean() {
                return true;
            }
            if !self.needs_another_pass() {
                return false;
            }
        }
    }

    /// What follows a first pass that was not clean: [`passes`](Passes::passes), if the
    /// first one made progress with work still pending. Whether one came out clean.
    #[inline(always)]
    fn settle_passes(&mut self, checks: impl FnMut(&mut Self)) -> bool
    where
        Self: Sized,
    {
        self.needs_another_pass() && self.passes(checks)
    }
}
