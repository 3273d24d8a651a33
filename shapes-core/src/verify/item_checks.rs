//! [`ItemChecks`]: the one contract between generated code and the checkers.
//!
//! `#[derive(Shaped)]` and `#[shapes::check]` compile every pattern into straight-line calls
//! of these methods, one per pattern item, with variables already turned into [`Slot`]s. Two
//! checkers implement them with the same meaning: [`Checker`](super::Checker), which records
//! where each value came from and builds every error (`verify`, `verify_source`, a call's
//! report), and [`FastCx`](super::FastCx), the success path of compiled checks (a struct's
//! `verify` and a checked call), which only
//! notes that something failed. A plan built at run time drives the same methods.

use super::plan::{FieldInfo, SlotExpr};
use super::vars::{Slot, SlotMap};
use crate::expr::{ArithOp, CmpOp, Int, Side, int};

/// The checks of one value against one pattern, in the order the pattern's items come.
///
/// ```
/// use shapes::__private::{Checker, FieldInfo, ItemChecks, Slot, VarTable};
/// use shapes::Bindings;
///
/// static VARS: VarTable = VarTable::new().with("n");
/// static X: FieldInfo = FieldInfo { name: "x", pattern: "(n, 3)", place: shapes::verify::Place::UNKNOWN };
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

    /// The value `slot` is bound to, if it is: what the inlined shortcuts
    /// ([`bin`](Self::bin), [`where_holds`](Self::where_holds)) read.
    fn value_of(&self, slot: Slot) -> Option<usize>;

    /// `slot` is `value`, solved from the dim expression at `axis` by [`bin`](Self::bin):
    /// exactly what [`expr`](Self::expr) binds when it solves the same equation. `bin` calls
    /// it only with the value `expr` would find, and calls `expr` itself whenever it finds no
    /// value (to wait, or to report).
    fn solved(&mut self, slot: Slot, value: usize, dims: &[usize], axis: usize);

    /// A variadic `*name` covering `dims[start..end]`.
    fn variadic(&mut self, slot: Slot, dims: &[usize], start: usize, end: usize);

    /// A `where` equation `lhs = rhs` (of a struct, or of a checked function): checked once
    /// both sides are known; with one unknown it is solved, like a dim. `info` is the
    /// relation's: no field, no pattern, the place the `where` is written.
    fn where_eq(
        &mut self,
        lhs: &'static SlotExpr,
        rhs: &'static SlotExpr,
        map: &SlotMap,
        info: &'static FieldInfo,
    );

    /// A `where` comparison `lhs op rhs` (`head_dim <= 256`, `heads % kv_heads = 0`): `=` is
    /// [`where_eq`](Self::where_eq), any other [`where_order`](Self::where_order).
    #[inline(always)]
    fn where_cmp(
        &mut self,
        op: CmpOp,
        lhs: &'static SlotExpr,
        rhs: &'static SlotExpr,
        map: &SlotMap,
        info: &'static FieldInfo,
    ) {
        if op == CmpOp::Eq {
            self.where_eq(lhs, rhs, map, info);
        } else {
            self.where_order(op, lhs, rhs, map, info);
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
        info: &'static FieldInfo,
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

    /// A dim `l op r` of two leaves (`heads * head_dim`, `h_wins * window`), `d` its size:
    /// decided here, inlined with the operator and the leaves known at compile time, when its
    /// leaves are bound and it holds, or when one variable is unknown and the arithmetic
    /// table undoes the operator to a size; anything else (a mismatch, a failed step, an
    /// unknown that waits) is [`expr`](Self::expr) on `expr`, the same dim as a tree. The
    /// shortcut only takes a path that `expr` would take to the same value.
    #[inline(always)]
    fn bin(
        &mut self,
        (op, l, r): (ArithOp, Leaf, Leaf),
        d: usize,
        expr: &'static SlotExpr,
        map: &SlotMap,
        dims: &[usize],
        axis: usize,
    ) {
        let t = int(d);
        let solved = match (l.value(self), r.value(self)) {
            (Some(a), Some(b)) => {
                if op.checked(a, b) == Ok(t) {
                    return;
                }
                None
            }
            (None, Some(k)) => l.slot().zip(op.undo_to_size(Side::Left, k, t)),
            (Some(k), None) => r.slot().zip(op.undo_to_size(Side::Right, k, t)),
            (None, None) => None,
        };
        match solved {
            Some((slot, value)) => self.solved(slot, value, dims, axis),
            None => self.expr(expr, map, dims, axis),
        }
    }

    /// A `where` relation `l op r` whose sides are leaves or one operator between two:
    /// nothing to do, inlined, when every leaf is bound and it holds; anything else (a side
    /// to solve, a failure to report) is [`where_cmp`](Self::where_cmp) on the trees.
    #[inline(always)]
    fn where_holds(
        &mut self,
        (l, op, r): (Arith, CmpOp, Arith),
        lhs: &'static SlotExpr,
        rhs: &'static SlotExpr,
        map: &SlotMap,
        info: &'static FieldInfo,
    ) {
        if let (Some(a), Some(b)) = (l.size(self), r.size(self))
            && op.holds(a, b)
        {
            return;
        }
        self.where_cmp(op, lhs, rhs, map, info);
    }
}

/// An operand of a dim's or a `where` side's one operator, as generated code hands it to
/// [`ItemChecks::bin`]: a literal, or a variable's slot.
///
/// ```
/// use shapes::__private::{Leaf, Slot};
/// assert_ne!(Leaf::Lit(2), Leaf::Var(Slot::new(0)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaf {
    /// A literal size.
    Lit(usize),
    /// A variable.
    Var(Slot),
}

impl Leaf {
    /// Its value, when it has one.
    #[inline(always)]
    fn value<C: ItemChecks + ?Sized>(self, cx: &C) -> Option<Int> {
        match self {
            Leaf::Lit(n) => Some(int(n)),
            Leaf::Var(slot) => cx.value_of(slot).map(int),
        }
    }

    /// The variable's slot.
    #[inline(always)]
    fn slot(self) -> Option<Slot> {
        match self {
            Leaf::Lit(_) => None,
            Leaf::Var(slot) => Some(slot),
        }
    }
}

/// A side of a `where` relation as generated code hands it to [`ItemChecks::where_holds`].
///
/// ```
/// use shapes::__private::{Arith, ArithOp, Leaf, Slot};
/// let heads_times_dim = Arith::Bin(ArithOp::Mul, Leaf::Var(Slot::new(1)), Leaf::Var(Slot::new(2)));
/// assert_ne!(heads_times_dim, Arith::Leaf(Leaf::Lit(768)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    /// A literal or a variable.
    Leaf(Leaf),
    /// One operator between two leaves.
    Bin(ArithOp, Leaf, Leaf),
}

impl Arith {
    /// Its value as a size, when every leaf is bound and the arithmetic gives one.
    #[inline(always)]
    fn size<C: ItemChecks + ?Sized>(self, cx: &C) -> Option<usize> {
        let v = match self {
            Arith::Leaf(l) => l.value(cx)?,
            Arith::Bin(op, l, r) => op.checked(l.value(cx)?, r.value(cx)?).ok()?,
        };
        usize::try_from(v).ok()
    }
}
