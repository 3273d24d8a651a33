//! [`ScopeChecks`]: what a struct's `check_in` drives, the item checks of its tensors plus its
//! path levels and nested scopes.
//!
//! `#[derive(Shaped)]` and the framework layers write a struct's checks once, generic over
//! this trait, and `verify` runs them against two checkers:
//!
//! - [`StructCx`](super::StructCx), the success path (the fast checker a checked call uses
//!   too): the variables' sizes and the order they were bound in, no path, no origin, no
//!   error; it stops at the first thing it cannot settle on its own;
//! - [`Checker`](super::Checker), which records where each value came from and builds every
//!   error: the passes that settle what the fast pass could not, and the report.

use super::error::ShapeError;
use super::item_checks::ItemChecks;
use super::path::Segment;
use super::plan::FieldInfo;
use super::vars::Slot;

/// The checks of one struct's scope: [`ItemChecks`] for each tensor's pattern, the nesting
/// levels of its fields (what an error's path names), and a nested struct in a scope of its
/// own.
///
/// ```
/// use shapes::__private::{Checker, FieldInfo, ScopeChecks, Segment, Slot, VarTable};
/// use shapes::Bindings;
///
/// static VARS: VarTable = VarTable::new().with("d");
/// static W: FieldInfo = FieldInfo { name: "w", pattern: "(d, d)", place: shapes::verify::Place::UNKNOWN };
/// fn checks<C: ScopeChecks>(cx: &mut C, dims: &[usize]) {
///     let level = cx.level();
///     cx.enter_at(level, &Segment::Field("block"));
///     cx.plain_tensor(&W, dims, [Slot::new(0), Slot::new(0)], [false, true]);
///     cx.leave_to(level);
/// }
/// let mut cx = Checker::new(&VARS, "M", &Bindings::new());
/// checks(&mut cx, &[4, 4]);
/// ```
pub trait ScopeChecks: ItemChecks {
    /// The nesting level the checks running now are at: derived code reads it once per
    /// struct and passes it (plus the collection levels it enters) to the methods below.
    fn level(&self) -> usize;

    /// Enters `segment` at `level` (the level of the struct entering it, so the path is then
    /// `level + 1` deep): a field holding nested structs, or a collection, whose element
    /// index [`index_at`](Self::index_at) sets.
    fn enter_at(&mut self, level: usize, segment: &'static Segment);

    /// Sets the element index of the collection entered at `level`.
    fn index_at(&mut self, level: usize, i: usize);

    /// Leaves every level entered at `level` or deeper: the path is `level` deep again.
    fn leave_to(&mut self, level: usize);

    /// Names level `level` `segment`, the path being `level + 1` deep already.
    fn name_at(&mut self, level: usize, segment: &'static Segment);

    /// The structs checked below `level` (a nested field named at `level`) have their
    /// variables renamed into this scope's by `renames` (`rename(inner = "outer")` pairs,
    /// `(inner, outer)`): an error under it writes its pattern in this scope's names, like
    /// its explanation. Until [`renames_end`](Self::renames_end) at `level`, which derived
    /// code calls once the field is checked. Nothing by default (a checker that writes no
    /// error).
    #[inline(always)]
    fn renames_at(&mut self, level: usize, renames: &'static [(&'static str, &'static str)]) {
        let _ = (level, renames);
    }

    /// Ends the renames of [`renames_at`](Self::renames_at) at `level` (and deeper): the
    /// nested field that had them is checked. Called only after such a field, so that the
    /// path's other moves (`name_at`, `leave_to`), inlined at every field, need not look
    /// for renames.
    #[inline(always)]
    fn renames_end(&mut self, level: usize) {
        let _ = level;
    }

    /// [`var_is`](ItemChecks::var_is) for a variable that the checks before this one bound
    /// for sure: one comparison.
    fn var_bound(&mut self, slot: Slot, d: usize, dims: &[usize], axis: usize);

    /// The checks of one tensor of `field` whose pattern is `R` plain variables, in `slots`:
    /// its rank, then each axis. `known[axis]` says the checks before this one bound that
    /// variable for sure.
    fn plain_tensor<const R: usize>(
        &mut self,
        field: &'static FieldInfo,
        dims: &[usize],
        slots: [Slot; R],
        known: [bool; R],
    );

    /// Whether errors are being built (the general checker's reporting pass): a nested struct
    /// in a scope of its own ([`isolated`](super::isolated)) is then verified with its report.
    fn is_reporting(&self) -> bool;

    /// Takes the errors of a nested struct in a scope of its own (`#[shape(nested, scope =
    /// "own")]`, verified by [`isolated`](super::isolated)): its variables are not this
    /// scope's, only its mismatches are.
    fn absorb_isolated(&mut self, errors: Vec<ShapeError>);
}
