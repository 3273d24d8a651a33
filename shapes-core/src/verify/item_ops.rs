//! [`ItemOp`]: a pattern item as data, and [`run_items`], the one interpreter that makes, for a
//! list of them, the [`ItemChecks`] calls derived code makes for the same pattern (same order,
//! same meaning, same errors).
//!
//! Straight-line generated code is the fastest way to check a value in memory, and it is what
//! `check_in` keeps. Where a check costs a name lookup anyway, code size matters more: a
//! description of by-name checks holds its patterns as these ops, whether a run-time
//! [`Plan`](super::Plan) built it or a derived struct's `check_source_in` wrote it as a
//! constant (see `interpret.rs`): no code per field (a struct of thousands of fields compiles
//! in a fraction of the time).

use super::item_checks::ItemChecks;
use super::plan::SlotExpr;
use super::vars::SlotMap;

/// One pattern item, with its variables as local indices of the struct's table (mapped to
/// the scope's slots through the [`SlotMap`] the checks run with).
#[derive(Debug, Clone, Copy)]
pub enum ItemOp {
    /// A literal dim `3`.
    Lit(usize),
    /// A broadcastable literal `#3`.
    BcastLit(usize),
    /// A variable dim `n`.
    Var(u8),
    /// A broadcastable variable `#n`.
    BcastVar(u8),
    /// A dim given by arithmetic.
    Expr(&'static SlotExpr),
    /// A variadic `*batch`.
    Variadic(u8),
    /// An item that checks nothing (`_`, `...`).
    Skip,
}

/// The checks of `d` against a pattern whose items are `ops`, with its `...`/`*name` (if any)
/// at index `rest`: a rank check, then one [`ItemChecks`] call per item.
///
/// ```
/// use shapes::__private::{Checker, FieldInfo, ItemChecks, ItemOp, VarTable};
/// use shapes::__testing::run_items;
/// use shapes::Bindings;
///
/// static VARS: VarTable = VarTable::new().with("n");
/// static X: FieldInfo = FieldInfo { name: "x", pattern: "(n, 3)", place: shapes::verify::Place::UNKNOWN };
/// let map = VARS.identity();
/// let mut cx = Checker::new(&VARS, "f", &Bindings::new());
/// cx.field(&X);
/// run_items(&mut cx, &[ItemOp::Var(0), ItemOp::Lit(3)], None, &map, &[5, 3]);
/// ```
pub fn run_items<C: ItemChecks + ?Sized>(
    cx: &mut C,
    ops: &[ItemOp],
    rest: Option<usize>,
    map: &SlotMap,
    d: &[usize],
) {
    let len = ops.len();
    let fixed = len - usize::from(rest.is_some());
    let ok = match rest {
        Some(_) => cx.rank_at_least(d, fixed),
        None => cx.rank(d, fixed),
    };
    if !ok {
        return;
    }
    let n = d.len();
    for (i, op) in ops.iter().enumerate() {
        let axis = match rest {
            Some(r) if i > r => n - (len - i),
            _ => i,
        };
        let slot = |l: u8| map.get(usize::from(l));
        match *op {
            ItemOp::Lit(v) => cx.lit(v, d, axis),
            ItemOp::BcastLit(v) => cx.bcast_lit(v, d, axis),
            ItemOp::Var(l) => cx.var(slot(l), d, axis),
            ItemOp::BcastVar(l) => cx.bcast_var(slot(l), d, axis),
            ItemOp::Expr(e) => cx.expr(e, map, d, axis),
            ItemOp::Variadic(l) => cx.variadic(slot(l), d, i, n - (len - i - 1)),
            ItemOp::Skip => {}
        }
    }
}
