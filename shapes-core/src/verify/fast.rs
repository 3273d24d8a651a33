//! [`FastCx`]: the one success-path checker of compiled checks, for `verify` of a derived
//! struct and for a `#[shapes::check]` call alike.
//!
//! It holds the variables' sizes, which are bound, and a [`Journal`] of the bindings made,
//! nothing else: no path levels (entering a nested field costs nothing), no origin, no error.
//! Every check is inlined, so its state can live in registers. A check that fails, or that it
//! cannot settle, only sets a flag; the general [`Checker`](super::Checker) then verifies the
//! same checks from the start and builds the report. Like every checker it runs its checks in
//! passes ([`Passes`]), so that an expression may wait for a variable bound later.
//!
//! The two uses differ only in their journal:
//!
//! - [`AtBinders`], for a struct's `verify`: nothing. Each variable must be bound by a dim at
//!   its static binder (see [`Binders`](super::Binders)), whose origin and place in the order
//!   of bindings the bindings then read; a variable solved from an expression, or a variadic,
//!   stops the pass.
//! - [`CallLog`], for a call: each binding with its parameter, axis and how it was made, so
//!   that the return value's report can quote where every value came from.

use smallvec::SmallVec;

use super::binders::BindingOrder;
use super::bindings::Bindings;
use super::checker::Passes;
use super::error::ShapeError;
use super::item_checks::ItemChecks;
use super::path::{NO_FIELD, OriginKind, Segment};
use super::plan::{Eval, FieldInfo, Outcome, SlotExpr};
use super::scope_checks::ScopeChecks;
use super::vars::{Slot, SlotMap};
use crate::expr::CmpOp;
use crate::hint::unlikely;

/// The most variables a struct checked by the fast pass holds ([`StructCx`]): its state is
/// then a few cache lines, set up with a few stores. A model has a handful; a scope with more
/// is verified by the general checker alone.
pub const STRUCT_VARS: usize = 16;

/// How a variable got its value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum How {
    /// A dim of a value: `dims[axis]`. (First, so that an unused log entry is all zeros.)
    Dim,
    /// Solved from an expression met at `axis`.
    Solved,
    /// A variadic whose dims start at `axis`.
    Variadic,
}

/// What a [`FastCx`] remembers of the bindings it makes (see the module docs).
pub trait Journal {
    /// Whether a variable may be bound otherwise than by a dim (solved, or as a variadic).
    /// When not, such a binding stops the fast pass.
    const SOLVES: bool;

    /// Nothing noted.
    fn empty() -> Self;

    /// The checks of `info`'s field run now.
    fn field(&mut self, info: &'static FieldInfo);

    /// `slot` was bound, `how`, at `axis` of the field whose checks run.
    #[allow(private_interfaces)]
    fn note(&mut self, slot: Slot, how: How, axis: usize);

    /// Keeps a variadic's dims: where they are kept, or `None` when this journal keeps none.
    fn keep(&mut self, dims: &[usize]) -> Option<usize>;

    /// The dims kept at `at`.
    fn kept(&self, at: usize) -> Option<&[usize]>;
}

/// The journal of a struct's `verify`: nothing. A pass that succeeds bound each variable at
/// its static first binder, so its bindings' order and origins are the struct's binders'
/// ([`Binders::bind_order`](super::Binders::bind_order)), known at compile time; nothing is
/// stored at a binding but its size.
pub struct AtBinders;

impl Journal for AtBinders {
    const SOLVES: bool = false;

    #[inline(always)]
    fn empty() -> Self {
        AtBinders
    }

    #[inline(always)]
    fn field(&mut self, _: &'static FieldInfo) {}

    #[inline(always)]
    #[allow(private_interfaces)]
    fn note(&mut self, _: Slot, _: How, _: usize) {}

    #[inline(always)]
    fn keep(&mut self, _: &[usize]) -> Option<usize> {
        None
    }

    #[inline(always)]
    fn kept(&self, _: usize) -> Option<&[usize]> {
        None
    }
}

/// One binding of a call, in the order it was made.
#[derive(Clone, Copy)]
pub(crate) struct Bound {
    pub(crate) slot: Slot,
    pub(crate) how: How,
    pub(crate) axis: usize,
    pub(crate) field: &'static FieldInfo,
}

/// The journal of a `#[shapes::check]` call of `N` variables: every binding with its
/// parameter and axis, and the variadics' dims.
pub struct CallLog<const N: usize> {
    entries: [Bound; N],
    len: usize,
    /// The parameter whose checks run now.
    field: &'static FieldInfo,
    /// Variadic values: the length then the dims, for each (inline up to 8 in all).
    pool: SmallVec<[usize; 8]>,
}

impl<const N: usize> CallLog<N> {
    /// The bindings noted, in order.
    pub(crate) fn entries(&self) -> &[Bound] {
        self.entries.get(..self.len).unwrap_or(&self.entries)
    }
}

impl<const N: usize> Journal for CallLog<N> {
    const SOLVES: bool = true;

    #[inline(always)]
    fn empty() -> Self {
        const UNUSED: Bound = Bound {
            slot: Slot::new(0),
            how: How::Dim,
            axis: 0,
            field: &NO_FIELD,
        };
        CallLog {
            entries: [UNUSED; N],
            len: 0,
            field: &NO_FIELD,
            pool: SmallVec::new(),
        }
    }

    #[inline(always)]
    fn field(&mut self, info: &'static FieldInfo) {
        self.field = info;
    }

    #[inline(always)]
    #[allow(private_interfaces)]
    fn note(&mut self, slot: Slot, how: How, axis: usize) {
        if let Some(entry) = self.entries.get_mut(self.len) {
            *entry = Bound {
                slot,
                how,
                axis,
                field: self.field,
            };
            self.len += 1;
        }
    }

    #[inline]
    fn keep(&mut self, dims: &[usize]) -> Option<usize> {
        let at = self.pool.len();
        self.pool.push(dims.len());
        self.pool.extend_from_slice(dims);
        Some(at)
    }

    #[inline]
    fn kept(&self, at: usize) -> Option<&[usize]> {
        let len = *self.pool.get(at)?;
        self.pool
            .get(at.checked_add(1)?..at.checked_add(1)?.checked_add(len)?)
    }
}

/// The fast checker of a struct's `verify`.
pub type StructCx = FastCx<STRUCT_VARS, AtBinders>;

/// The fast checker of a `#[shapes::check]` call with `N` shape variables (at most 64).
pub type CallCx<const N: usize> = FastCx<N, CallLog<N>>;

/// The success-path checker of compiled checks (see the module docs): `N` variables, at most
/// 64, and a journal `J` of the bindings.
///
/// ```
/// use shapes::__private::{FieldInfo, ScopeChecks, Slot};
/// use shapes::__testing::StructCx;
///
/// static W: FieldInfo = FieldInfo { name: "w", pattern: "(d_out, d_in)", place: shapes::verify::Place::UNKNOWN };
/// let mut cx = StructCx::new();
/// cx.plain_tensor(&W, &[4, 3], [Slot::new(0), Slot::new(1)], [false, false]);
/// cx.plain_tensor(&W, &[4, 3], [Slot::new(0), Slot::new(1)], [true, true]);
/// assert!(cx.is_settled());
/// cx.plain_tensor(&W, &[5, 3], [Slot::new(0), Slot::new(1)], [true, true]);
/// assert!(!cx.is_settled());
/// ```
pub struct FastCx<const N: usize, J> {
    sizes: [usize; N],
    /// Bit `i`: slot `i` is bound.
    bound: u64,
    /// The bindings made; a variadic's size is where the journal keeps its dims.
    journal: J,
    /// Checks of this pass waiting for a variable.
    pending: u32,
    /// Whether this pass bound something.
    progress: bool,
    /// Something failed, or needs the general checker.
    failed: bool,
}

impl<const N: usize, J: Journal> Default for FastCx<N, J> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, J: Journal> FastCx<N, J> {
    /// Nothing bound yet.
    #[inline(always)]
    pub fn new() -> Self {
        FastCx {
            sizes: [0; N],
            bound: 0,
            journal: J::empty(),
            pending: 0,
            progress: false,
            failed: false,
        }
    }

    /// Whether every check so far held and none is waiting: the checks settled on this
    /// checker alone.
    #[inline(always)]
    pub fn is_settled(&self) -> bool {
        !self.failed && self.pending == 0
    }

    /// Notes a mismatch, or a check this checker leaves to the general one. Written as a
    /// branch, not `failed |= cond`: rustc 1.92–1.97 miscompile an inlined `bool |=` / `&=`
    /// followed by a branch on the same condition at `-O` (rust-lang/rust#150904); with `|=`,
    /// a passing call was reported as failing.
    #[inline(always)]
    fn fail_if(&mut self, cond: bool) {
        if cond {
            unlikely();
            self.failed = true;
        }
    }

    #[inline(always)]
    fn is_bound(&self, slot: Slot) -> bool {
        self.bound & slot.bit() != 0
    }

    #[inline(always)]
    pub(crate) fn value(&self, slot: Slot) -> Option<usize> {
        if self.is_bound(slot) {
            self.sizes.get(slot.index()).copied()
        } else {
            None
        }
    }

    /// Binds `slot` to `value`. A slot past `N` would be a bug in generated code: it stops
    /// the pass, so the general checker verifies instead.
    #[inline(always)]
    fn set(&mut self, slot: Slot, value: usize, how: How, axis: usize) {
        if how != How::Dim && !J::SOLVES {
            self.failed = true;
            return;
        }
        match self.sizes.get_mut(slot.index()) {
            Some(s) => *s = value,
            None => {
                self.failed = true;
                return;
            }
        }
        self.bound |= slot.bit();
        self.progress = true;
        self.journal.note(slot, how, axis);
    }

    /// `d` at a dim of the variable `slot`: binds it, or compares.
    #[inline(always)]
    fn dim(&mut self, slot: Slot, d: usize, axis: usize) {
        if self.is_bound(slot) {
            self.fail_if(self.sizes.get(slot.index()) != Some(&d));
        } else {
            self.set(slot, d, How::Dim, axis);
        }
    }

    /// Binds `slot` to a value read from a struct before the checks run
    /// (`#[shapes::check(self)]`): not noted, the call records its origin itself.
    #[inline(always)]
    pub(crate) fn preset(&mut self, slot: Slot, value: usize) {
        if let Some(s) = self.sizes.get_mut(slot.index()) {
            *s = value;
            self.bound |= slot.bit();
        }
    }

    /// The journal of the bindings made.
    pub(crate) fn journal(&self) -> &J {
        &self.journal
    }

    /// The sub-shape a bound variadic holds.
    #[inline]
    pub(crate) fn variadic_value(&self, slot: Slot) -> Option<&[usize]> {
        self.journal.kept(*self.sizes.get(slot.index())?)
    }

    /// `expr = target` for a dim or a `where` equation met at `axis`.
    #[inline]
    fn equation(&mut self, expr: &'static SlotExpr, map: &SlotMap, target: usize, axis: usize) {
        let value = |v: u8| self.value(map.get(usize::from(v)));
        match expr.step(target, &value) {
            Outcome::Holds => {}
            Outcome::Bind { local, value } => {
                self.set(map.get(usize::from(local)), value, How::Solved, axis)
            }
            Outcome::Wait => self.pending += 1,
            Outcome::Differs(_) | Outcome::Fails(_) | Outcome::NoWholeSolution(_) => {
                self.failed = true
            }
        }
    }
}

impl<const N: usize> FastCx<N, AtBinders> {
    /// Whether the checks settled and every variable bound is in `order` (the struct's
    /// binders' [`bind_order`](super::Binders::bind_order): bound at its first binder): then
    /// [`bindings`](Self::bindings) are the result. Otherwise the caller runs the general
    /// checker.
    #[inline(always)]
    pub(crate) fn is_done(&self, order: &BindingOrder<STRUCT_VARS>) -> bool {
        self.is_settled() && self.bound & !order.mask() == 0
    }

    /// Records the bindings of checks that are [`is_done`](Self::is_done) with the identity
    /// slot map into `out`, bindings made with `order`'s known levels
    /// ([`Bindings::with_known_levels`]) that hold nothing yet: the variables bound, in
    /// `order` (the binders' [`bind_order`](super::Binders::bind_order)), each recorded as the
    /// general checker records a binding, at the path and axis `order` computed for it. The
    /// caller makes `out` where it returns it (see `shaped::run_with`).
    #[inline(always)]
    pub(crate) fn record_into(
        &self,
        out: &mut Bindings,
        order: &'static BindingOrder<STRUCT_VARS>,
    ) {
        for (&var, site) in order.vars().iter().zip(order.sites()) {
            if let Some(size) = self.value(Slot::new(usize::from(var))) {
                out.push_slot(
                    var,
                    size,
                    &NO_FIELD,
                    site.axis as usize,
                    site.level,
                    OriginKind::Field,
                );
            }
        }
    }
}

/// Driven by the one pass loop, [`Passes::passes`]. A mismatch ends the passes: only the
/// verdict is asked of this checker, the general [`Checker`](super::Checker) builds the error.
impl<const N: usize, J: Journal> Passes for FastCx<N, J> {
    #[inline(always)]
    fn begin_quiet_pass(&mut self) {
        self.pending = 0;
        self.progress = false;
        self.journal.field(&NO_FIELD);
    }

    #[inline(always)]
    fn is_clean(&self) -> bool {
        self.is_settled()
    }

    #[inline(always)]
    fn needs_another_pass(&self) -> bool {
        !self.failed && self.pending > 0 && self.progress
    }
}

impl<const N: usize, J: Journal> ItemChecks for FastCx<N, J> {
    #[inline(always)]
    fn field(&mut self, info: &'static FieldInfo) {
        self.journal.field(info);
    }

    #[inline(always)]
    fn rank(&mut self, dims: &[usize], expected: usize) -> bool {
        let ok = dims.len() == expected;
        self.fail_if(!ok);
        ok
    }

    #[inline(always)]
    fn rank_at_least(&mut self, dims: &[usize], min: usize) -> bool {
        let ok = dims.len() >= min;
        self.fail_if(!ok);
        ok
    }

    #[inline(always)]
    fn rank_n<'d, const R: usize>(&mut self, dims: &'d [usize]) -> Option<&'d [usize; R]> {
        let a = <&[usize; R]>::try_from(dims).ok();
        self.fail_if(a.is_none());
        a
    }

    #[inline(always)]
    fn lit(&mut self, expected: usize, dims: &[usize], axis: usize) {
        self.fail_if(dims.get(axis) != Some(&expected));
    }

    #[inline(always)]
    fn lit_is(&mut self, expected: usize, d: usize, _: &[usize], _: usize) {
        self.fail_if(d != expected);
    }

    #[inline(always)]
    fn bcast_lit(&mut self, expected: usize, dims: &[usize], axis: usize) {
        self.fail_if(!matches!(dims.get(axis), Some(&d) if d == expected || d == 1));
    }

    /// One load and one compare when the variable is bound; a few stores when it binds it,
    /// which a model or a call does for every variable it has, so that is kept inline too.
    #[inline(always)]
    fn var_is(&mut self, slot: Slot, d: usize, _: &[usize], axis: usize) {
        self.dim(slot, d, axis);
    }

    #[inline]
    fn expr(&mut self, expr: &'static SlotExpr, map: &SlotMap, dims: &[usize], axis: usize) {
        if let Some(&target) = dims.get(axis) {
            self.equation(expr, map, target, axis);
        }
    }

    #[inline(always)]
    fn value_of(&self, slot: Slot) -> Option<usize> {
        self.value(slot)
    }

    #[inline(always)]
    fn solved(&mut self, slot: Slot, value: usize, _: &[usize], axis: usize) {
        self.set(slot, value, How::Solved, axis);
    }

    #[inline]
    fn variadic(&mut self, slot: Slot, dims: &[usize], start: usize, end: usize) {
        let Some(sub) = dims.get(start..end) else {
            return;
        };
        if !J::SOLVES || slot.index() >= N {
            self.failed = true;
        } else if self.is_bound(slot) {
            let same = self.variadic_value(slot) == Some(sub);
            self.fail_if(!same);
        } else {
            match self.journal.keep(sub) {
                Some(at) => self.set(slot, at, How::Variadic, start),
                None => self.failed = true,
            }
        }
    }

    #[inline]
    fn where_eq(
        &mut self,
        lhs: &'static SlotExpr,
        rhs: &'static SlotExpr,
        map: &SlotMap,
        info: &'static FieldInfo,
    ) {
        self.journal.field(info);
        let value = |v: u8| self.value(map.get(usize::from(v)));
        match (lhs.eval(&value), rhs.eval(&value)) {
            (Eval::Value(a), Eval::Value(b)) => self.fail_if(a != b),
            (Eval::Value(a), _) => self.equation(rhs, map, a, 0),
            (_, Eval::Value(b)) => self.equation(lhs, map, b, 0),
            (Eval::Failed(_), _) | (_, Eval::Failed(_)) => self.failed = true,
            _ => self.pending += 1,
        }
    }

    #[inline]
    fn where_order(
        &mut self,
        op: CmpOp,
        lhs: &'static SlotExpr,
        rhs: &'static SlotExpr,
        map: &SlotMap,
        _: &'static FieldInfo,
    ) {
        let value = |v: u8| self.value(map.get(usize::from(v)));
        match (lhs.eval(&value), rhs.eval(&value)) {
            (Eval::Value(a), Eval::Value(b)) => self.fail_if(!op.holds(a, b)),
            (Eval::Failed(_), _) | (_, Eval::Failed(_)) => self.failed = true,
            _ => self.pending += 1,
        }
    }
}

/// A struct's path levels cost nothing here: the bindings' origins are read from its static
/// binders, and errors are the general checker's.
impl<const N: usize, J: Journal> ScopeChecks for FastCx<N, J> {
    #[inline(always)]
    fn level(&self) -> usize {
        0
    }

    #[inline(always)]
    fn enter_at(&mut self, _: usize, _: &'static Segment) {}

    #[inline(always)]
    fn index_at(&mut self, _: usize, _: usize) {}

    #[inline(always)]
    fn leave_to(&mut self, _: usize) {}

    #[inline(always)]
    fn name_at(&mut self, _: usize, _: &'static Segment) {}

    #[inline(always)]
    fn var_bound(&mut self, slot: Slot, d: usize, _: &[usize], _: usize) {
        self.fail_if(self.sizes.get(slot.index()) != Some(&d));
    }

    #[inline(always)]
    fn plain_tensor<const R: usize>(
        &mut self,
        field: &'static FieldInfo,
        dims: &[usize],
        slots: [Slot; R],
        known: [bool; R],
    ) {
        self.journal.field(field);
        let Ok(a) = <&[usize; R]>::try_from(dims) else {
            self.fail_if(true);
            return;
        };
        if known.iter().all(|&k| k) {
            // Every variable is bound: the dims against their sizes as one array comparison,
            // which compiles to one branch for the tensor, as a hand-written `dims == [o, i]`
            // does (compared axis by axis, the compiler branches at each).
            let mut expected = [0; R];
            for axis in 0..R {
                match self.sizes.get(slots[axis].index()) {
                    Some(&n) => expected[axis] = n,
                    None => self.fail_if(true),
                }
            }
            self.fail_if(*a != expected);
            return;
        }
        for axis in 0..R {
            if known[axis] {
                self.var_bound(slots[axis], a[axis], dims, axis);
            } else {
                self.dim(slots[axis], a[axis], axis);
            }
        }
    }

    fn is_reporting(&self) -> bool {
        false
    }

    /// A nested scope of its own binds nothing here: it holds, or the general checker
    /// reports why not.
    #[inline]
    fn absorb_isolated(&mut self, _errors: Vec<ShapeError>) {
        self.failed = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static W: FieldInfo = FieldInfo {
        name: "w",
        pattern: "(a, b)",
        place: crate::verify::Place::UNKNOWN,
    };

    #[test]
    fn a_struct_binds_in_order_and_stops_at_a_mismatch_a_solve_or_a_variadic() {
        let (a, b) = (Slot::new(3), Slot::new(1));
        let mut cx = StructCx::new();
        cx.plain_tensor(&W, &[2, 5], [a, b], [false, false]);
        cx.var_is(a, 2, &[2], 0);
        assert!(cx.is_settled());
        assert_eq!((cx.value_of(a), cx.value_of(b)), (Some(2), Some(5)));
        // Which are bound; their order is their binders' (`Binders::bind_order`).
        assert_eq!(cx.bound, (1 << 3) | (1 << 1));
        cx.var_is(b, 6, &[6], 0);
        assert!(!cx.is_settled());

        for stop in [
            |cx: &mut StructCx| cx.solved(Slot::new(0), 1, &[], 0),
            |cx: &mut StructCx| cx.variadic(Slot::new(0), &[1, 2], 0, 2),
            |cx: &mut StructCx| {
                let _ = cx.rank_n::<3>(&[1, 2]);
            },
            |cx: &mut StructCx| cx.plain_tensor(&W, &[1], [Slot::new(0), Slot::new(1)], [false; 2]),
            |cx: &mut StructCx| cx.bcast_lit(3, &[2], 0),
            |cx: &mut StructCx| cx.var_is(Slot::new(STRUCT_VARS), 1, &[1], 0),
        ] {
            let mut cx = StructCx::new();
            stop(&mut cx);
            assert!(!cx.is_settled());
        }
        let mut cx = StructCx::new();
        cx.bcast_lit(3, &[1], 0);
        cx.lit(4, &[4], 0);
        assert!(cx.is_settled());
    }

    #[test]
    fn a_call_solves_and_binds_variadics_and_logs_where_each_came_from() {
        let mut cx = CallCx::<3>::new();
        cx.field(&W);
        cx.var_is(Slot::new(0), 4, &[4], 0);
        cx.solved(Slot::new(1), 2, &[8], 1);
        cx.variadic(Slot::new(2), &[7, 8, 9], 1, 3);
        assert!(cx.is_settled());
        assert_eq!(cx.variadic_value(Slot::new(2)), Some(&[8, 9][..]));
        let how: Vec<_> = cx
            .journal()
            .entries()
            .iter()
            .map(|b| (b.slot.index(), b.how, b.axis))
            .collect();
        assert_eq!(
            how,
            [(0, How::Dim, 0), (1, How::Solved, 1), (2, How::Variadic, 1)]
        );
        cx.variadic(Slot::new(2), &[8, 8], 0, 2);
        assert!(!cx.is_settled());
    }

    /// The largest size is a size like any other: bound by its first dim, compared after.
    #[test]
    fn the_largest_size_binds_like_any_other() {
        let mut cx = CallCx::<1>::new();
        cx.var_is(Slot::new(0), usize::MAX, &[usize::MAX], 0);
        assert_eq!(cx.value_of(Slot::new(0)), Some(usize::MAX));
        cx.var_is(Slot::new(0), 5, &[5], 1);
        assert!(!cx.is_settled());
    }
}
