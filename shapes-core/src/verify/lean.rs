//! [`Lean`]: the first pass of an in-memory `verify`, for a struct whose every variable has a
//! static binder ([`Binders::all_static`](super::Binders::all_static)) and whose scope holds
//! at most [`LEAN_VARS`] variables.
//!
//! It holds the variables' sizes and the order they were bound in, nothing else: no path
//! levels (entering a nested field costs nothing), no field being checked, no origin, no
//! error. Every check is inlined, so its state can live in registers. It stops, and leaves the
//! verification to the general [`Checker`](super::Checker), at the first thing it cannot settle
//! alone: a mismatch, a dim that would solve a variable or wait for one, a variadic.
//!
//! On success each variable was bound first at its static binder: nothing checked before the
//! binder may bind it (the table counts every dim that may, a broadcastable `#name` and a
//! list's `count = "n"` included), so the bindings name the binder as where each value came
//! from, read from the struct's table only when asked for. They are what the general checker
//! would have returned.

use super::bindings::Bindings;
use super::item_checks::ItemChecks;
use super::path::Segment;
use super::plan::{Eval, FieldInfo, Outcome, SlotExpr};
use super::scope_checks::ScopeChecks;
use super::vars::{Slot, SlotMap, VarTable};
use crate::expr::CmpOp;

/// The most variables a scope checked by the lean pass holds: its state is then a few cache
/// lines, set up with a few stores. A model has a handful; a scope with more is verified by
/// the general checker alone.
pub const LEAN_VARS: usize = 16;

/// The lean first pass's state (see the module docs).
///
/// ```
/// use shapes::__private::{FieldInfo, ScopeChecks, Slot};
/// use shapes::__testing::Lean;
///
/// static W: FieldInfo = FieldInfo { name: "w", pattern: "(d_out, d_in)" };
/// let mut cx = Lean::new();
/// cx.plain_tensor(&W, &[4, 3], [Slot::new(0), Slot::new(1)], [false, false]);
/// cx.plain_tensor(&W, &[4, 3], [Slot::new(0), Slot::new(1)], [true, true]);
/// assert!(cx.is_settled());
/// cx.plain_tensor(&W, &[5, 3], [Slot::new(0), Slot::new(1)], [true, true]);
/// assert!(!cx.is_settled());
/// ```
pub struct Lean {
    sizes: [usize; LEAN_VARS],
    /// Bit `i`: slot `i` is bound.
    bound: u64,
    /// The slots in the order they were bound, `count` of them.
    order: [u8; LEAN_VARS],
    count: usize,
    /// Something failed, or needs the general checker.
    stopped: bool,
}

impl Default for Lean {
    fn default() -> Self {
        Lean::new()
    }
}

impl Lean {
    /// Nothing bound yet.
    #[inline(always)]
    pub fn new() -> Self {
        Lean {
            sizes: [0; LEAN_VARS],
            bound: 0,
            order: [0; LEAN_VARS],
            count: 0,
            stopped: false,
        }
    }

    /// Whether every check so far held and settled on this pass alone.
    #[inline(always)]
    pub fn is_settled(&self) -> bool {
        !self.stopped
    }

    /// Whether the pass settled and every variable it bound has a static binder in
    /// `binders` (the struct's table): then [`bindings`](Self::bindings) are the result.
    /// Otherwise the caller runs the general checker.
    #[inline(always)]
    pub(crate) fn is_done(&self, binders: &'static super::Binders) -> bool {
        !self.stopped && self.bound & !binders.first() == 0
    }

    /// The bindings of a pass that [`is_done`](Self::is_done), over the struct whose scope is
    /// `table`, named `root`: each origin is read from `binders` when asked for.
    #[inline(always)]
    pub(crate) fn bindings(
        &self,
        table: &'static VarTable,
        root: &'static str,
        binders: &'static super::Binders,
    ) -> Bindings {
        let mut out = Bindings::in_scope(table, root);
        out.set_binders(binders);
        for &slot in self.order.iter().take(self.count) {
            let size = self.sizes.get(usize::from(slot)).copied().unwrap_or(0);
            out.push_by_binder(slot, size);
        }
        out
    }

    #[inline(always)]
    fn stop_if(&mut self, cond: bool) {
        // A branch, not `stopped |= cond` (see `CallCx::fail_if`: rust-lang/rust#150904).
        if cond {
            self.stopped = true;
        }
    }

    /// The index of `slot` in `sizes`: the slot itself in a scope the lean pass checks (the
    /// mask only tells the compiler it is in bounds). A slot past [`LEAN_VARS`] would be a
    /// bug in the caller: it stops the pass, so the general checker verifies instead.
    #[inline(always)]
    fn at(&mut self, slot: Slot) -> usize {
        self.stop_if(slot.index() >= LEAN_VARS);
        slot.index() & (LEAN_VARS - 1)
    }

    #[inline(always)]
    fn value(&self, slot: Slot) -> Option<usize> {
        let i = slot.index() & (LEAN_VARS - 1);
        (self.bound & slot.bit() != 0 && i == slot.index()).then(|| self.sizes[i])
    }

    /// `d` at a dim of the plain variable `slot`: binds it, or compares.
    #[inline(always)]
    fn dim(&mut self, slot: Slot, d: usize) {
        let i = self.at(slot);
        if self.bound & slot.bit() == 0 {
            self.sizes[i] = d;
            self.bound |= slot.bit();
            if let Some(o) = self.order.get_mut(self.count) {
                *o = slot.to_u8();
            }
            self.count += 1;
        } else {
            self.stop_if(self.sizes[i] != d);
        }
    }

    /// Both sides of a `where` comparison, when both are known; stops otherwise.
    #[inline(always)]
    fn sides(
        &mut self,
        lhs: &'static SlotExpr,
        rhs: &'static SlotExpr,
        map: &SlotMap,
    ) -> Option<(usize, usize)> {
        let value = |v: u8| self.value(map.get(usize::from(v)));
        match (lhs.eval(&value), rhs.eval(&value)) {
            (Eval::Value(a), Eval::Value(b)) => Some((a, b)),
            _ => {
                self.stopped = true;
                None
            }
        }
    }
}

impl ItemChecks for Lean {
    #[inline(always)]
    fn field(&mut self, _: &'static FieldInfo) {}

    #[inline(always)]
    fn rank(&mut self, dims: &[usize], expected: usize) -> bool {
        let ok = dims.len() == expected;
        self.stop_if(!ok);
        ok
    }

    #[inline(always)]
    fn rank_at_least(&mut self, dims: &[usize], min: usize) -> bool {
        let ok = dims.len() >= min;
        self.stop_if(!ok);
        ok
    }

    #[inline(always)]
    fn rank_n<'d, const N: usize>(&mut self, dims: &'d [usize]) -> Option<&'d [usize; N]> {
        let a = <&[usize; N]>::try_from(dims).ok();
        self.stop_if(a.is_none());
        a
    }

    #[inline(always)]
    fn lit(&mut self, expected: usize, dims: &[usize], axis: usize) {
        self.stop_if(dims.get(axis) != Some(&expected));
    }

    #[inline(always)]
    fn lit_is(&mut self, expected: usize, d: usize, _: &[usize], _: usize) {
        self.stop_if(d != expected);
    }

    #[inline(always)]
    fn bcast_lit(&mut self, expected: usize, dims: &[usize], axis: usize) {
        let d = dims.get(axis).copied();
        self.stop_if(d != Some(expected) && d != Some(1));
    }

    #[inline(always)]
    fn var_is(&mut self, slot: Slot, d: usize, _: &[usize], _: usize) {
        self.dim(slot, d);
    }

    /// Holds, or stops: solving a variable gives it an origin that is not its binder, and a
    /// wait needs another pass.
    #[inline]
    fn expr(&mut self, expr: &'static SlotExpr, map: &SlotMap, dims: &[usize], axis: usize) {
        let Some(&target) = dims.get(axis) else {
            return;
        };
        let value = |v: u8| self.value(map.get(usize::from(v)));
        let holds = matches!(expr.step(target, &value), Outcome::Holds);
        self.stop_if(!holds);
    }

    #[inline(always)]
    fn value_of(&self, slot: Slot) -> Option<usize> {
        self.value(slot)
    }

    #[inline(always)]
    fn solved(&mut self, _: Slot, _: usize, _: &[usize], _: usize) {
        self.stopped = true;
    }

    #[inline(always)]
    fn variadic(&mut self, _: Slot, _: &[usize], _: usize, _: usize) {
        self.stopped = true;
    }

    #[inline]
    fn where_eq(&mut self, lhs: &'static SlotExpr, rhs: &'static SlotExpr, map: &SlotMap) {
        if let Some((a, b)) = self.sides(lhs, rhs, map) {
            self.stop_if(a != b);
        }
    }

    #[inline]
    fn where_order(
        &mut self,
        op: CmpOp,
        lhs: &'static SlotExpr,
        rhs: &'static SlotExpr,
        map: &SlotMap,
    ) {
        if let Some((a, b)) = self.sides(lhs, rhs, map) {
            self.stop_if(!op.holds(a, b));
        }
    }
}

impl ScopeChecks for Lean {
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
        let i = self.at(slot);
        self.stop_if(self.sizes[i] != d);
    }

    #[inline(always)]
    fn plain_tensor<const R: usize>(
        &mut self,
        _: &'static FieldInfo,
        dims: &[usize],
        slots: [Slot; R],
        known: [bool; R],
    ) {
        let Ok(a) = <&[usize; R]>::try_from(dims) else {
            self.stopped = true;
            return;
        };
        for axis in 0..R {
            if known[axis] {
                let i = self.at(slots[axis]);
                self.stop_if(self.sizes[i] != a[axis]);
            } else {
                self.dim(slots[axis], a[axis]);
            }
        }
    }

    fn is_reporting(&self) -> bool {
        false
    }

    /// A nested scope of its own binds nothing here: it holds, or the general checker
    /// reports why not.
    #[inline]
    fn absorb_isolated(&mut self, _errors: Vec<super::error::ShapeError>) {
        self.stop_if(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static W: FieldInfo = FieldInfo {
        name: "w",
        pattern: "(a, b)",
    };

    #[test]
    fn binds_in_order_and_stops_at_a_mismatch_a_solve_or_a_variadic() {
        let (a, b) = (Slot::new(3), Slot::new(1));
        let mut cx = Lean::new();
        cx.plain_tensor(&W, &[2, 5], [a, b], [false, false]);
        cx.var_is(a, 2, &[2], 0);
        assert!(cx.is_settled());
        assert_eq!((cx.value_of(a), cx.value_of(b)), (Some(2), Some(5)));
        assert_eq!(&cx.order[..cx.count], &[3, 1]);
        cx.var_is(b, 6, &[6], 0);
        assert!(!cx.is_settled());

        for stop in [
            |cx: &mut Lean| cx.solved(Slot::new(0), 1, &[], 0),
            |cx: &mut Lean| cx.variadic(Slot::new(0), &[1, 2], 0, 2),
            |cx: &mut Lean| {
                let _ = cx.rank_n::<3>(&[1, 2]);
            },
            |cx: &mut Lean| cx.plain_tensor(&W, &[1], [Slot::new(0), Slot::new(1)], [false; 2]),
            |cx: &mut Lean| cx.bcast_lit(3, &[2], 0),
        ] {
            let mut cx = Lean::new();
            stop(&mut cx);
            assert!(!cx.is_settled());
        }
        let mut cx = Lean::new();
        cx.bcast_lit(3, &[1], 0);
        cx.lit(4, &[4], 0);
        assert!(cx.is_settled());
    }
}
