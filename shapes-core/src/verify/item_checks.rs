//! [`ItemChecks`]: the one contract between generated code and the checkers.
//!
//! `#[derive(Shaped)]` and `#[shapes::check]` compile every pattern into straight-line calls
//! of these methods, one per pattern item, with variables already turned into [`Slot`]s. Two
//! checkers implement them with the same meaning: [`Checker`](super::Checker), which records
//! where each value came from and builds every error (`verify`, `verify_source`, a call's
//! report), and [`CallCx`](super::CallCx), the lean success path of a checked call, which only
//! notes that something failed. A plan built at run time drives the same methods.

use super::plan::{FieldInfo, SlotExpr};
use super::vars::{Slot, SlotMap};
use crate::expr::CmpOp;

/// The checks of one value against one pattern, in the order the pattern's items come.
///
/// ```
/// use shapes::__private::{Checker, FieldInfo, ItemChecks, Slot, VarTable};
/// use shapes::Bindings;
///
/// static VARS: VarTable = VarTable::new().with("n");
/// static X: FieldInfo = FieldInfo { name: "x", pattern: "(n, 3)" };
/// let mut cx = Checker::new(&VARS, "f", &Bindings::new());
/// let dims = [5, 3];
/// cx.field(&X);
/// if let Some(a) = cx.rank_n::<2>(&dims) {
///     cx.var_is(Slot::new(0), a[0], &dims, 0);
///     cx.lit_is(3, a[1], &dims, 1);
/// }
/// ```
pub trait ItemChecks {
    /// The item checks that follow are about `info`'s value.
    fn field(&mut self, info: &'static FieldInfo);

    /// `dims` has exactly `expected` dims. `false` (and a mismatch) when not; the caller then
    /// skips the value's item checks.
    fn rank(&mut self, dims: &[usize], expected: usize) -> bool;

    /// `dims` has at least `min` dims (a pattern with a variadic).
    fn rank_at_least(&mut self, dims: &[usize], min: usize) -> bool;

    /// `dims` has exactly `N` dims, handed back as an array so that the item checks that follow
    /// index it without bounds checks. `None` (and a mismatch) when not.
    fn rank_n<'d, const N: usize>(&mut self, dims: &'d [usize]) -> Option<&'d [usize; N]>;

    /// A literal dim: `dims[axis]` must be `expected`.
    fn lit(&mut self, expected: usize, dims: &[usize], axis: usize);

    /// A literal dim with the dim already read (`d == dims[axis]`).
    fn lit_is(&mut self, expected: usize, d: usize, dims: &[usize], axis: usize);

    /// A broadcastable literal `#3`: `dims[axis]` must be `expected` or 1.
    fn bcast_lit(&mut self, expected: usize, dims: &[usize], axis: usize);

    /// A variable dim with the dim already read (`d == dims[axis]`): binds `slot` to `d`, or
    /// compares `d` with the value it has.
    fn var_is(&mut self, slot: Slot, d: usize, dims: &[usize], axis: usize);

    /// A dim given by an arithmetic expression over the scope's variables (`expr`'s local
    /// indices mapped through `map`). With one unknown variable it is solved when the
    /// arithmetic can be undone; otherwise it waits for a later pass.
    fn expr(&mut self, expr: &'static SlotExpr, map: &SlotMap, dims: &[usize], axis: usize);

    /// The value `slot` is bound to, if it is: what the straight-line arithmetic generated
    /// for a dim expression reads.
    fn value_of(&self, slot: Slot) -> Option<usize>;

    /// `slot` is `value`, solved from the dim expression at `axis` by code generated for that
    /// expression: exactly what [`expr`](Self::expr) binds when it solves the same equation.
    /// Generated code calls it only with the value `expr` would find, and calls `expr` itself
    /// whenever its straight-line arithmetic finds no value (to wait, or to report).
    fn solved(&mut self, slot: Slot, value: usize, dims: &[usize], axis: usize);

    /// A variadic `*name` covering `dims[start..end]`.
    fn variadic(&mut self, slot: Slot, dims: &[usize], start: usize, end: usize);

    /// A `where` equation `lhs = rhs` (of a struct, or of a checked function): checked once
    /// both sides are known; with one unknown it is solved, like a dim.
    fn where_eq(&mut self, lhs: &'static SlotExpr, rhs: &'static SlotExpr, map: &SlotMap);

    /// A `where` comparison `lhs op rhs` (`head_dim <= 256`, `heads % kv_heads = 0`): `=` is
    /// [`where_eq`](Self::where_eq), any other [`where_order`](Self::where_order).
    #[inline(always)]
    fn where_cmp(
        &mut self,
        op: CmpOp,
        lhs: &'static SlotExpr,
        rhs: &'static SlotExpr,
        map: &SlotMap,
    ) {
        if op == CmpOp::Eq {
            self.where_eq(lhs, rhs, map);
        } else {
            self.where_order(op, lhs, rhs, map);
        }
    }

    /// A `where` comparison other than `=` (`head_dim <= 256`, `d_model != 0`): checked once
    /// both sides are known; it binds nothing.
    fn where_order(
        &mut self,
        op: CmpOp,
        lhs: &'static SlotExpr,
        rhs: &'static SlotExpr,
        map: &SlotMap,
    );

    /// A variable dim: [`var_is`](Self::var_is) on `dims[axis]`.
    #[inline(always)]
    fn var(&mut self, slot: Slot, dims: &[usize], axis: usize) {
        if let Some(&d) = dims.get(axis) {
            self.var_is(slot, d, dims, axis);
        }
    }

    /// A broadcastable variable `#name`: a size of 1 is accepted and binds nothing.
    #[inline(always)]
    fn bcast_var(&mut self, slot: Slot, dims: &[usize], axis: usize) {
        if dims.get(axis) != Some(&1) {
            self.var(slot, dims, axis);
        }
    }
}
