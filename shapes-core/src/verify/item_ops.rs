//! [`ItemOp`]: a pattern item as data, and [`run_items`], the one interpreter that makes, for a
//! list of them, the [`ItemChecks`] calls derived code makes for the same pattern (same order,
//! same meaning, same errors).
//!
//! Straight-line generated code is the fastest way to check a value in memory, and it is what
//! `check_in` keeps. Where a check costs a name lookup anyway, code size matters more: a
//! run-time [`Plan`](super::Plan) compiles its patterns to these ops, and a derived struct's
//! `check_source_in` describes each plain tensor field by a `static` [`SourceTensor`] and calls
//! [`source_tensor`], one call per field instead of a block of inlined checks (a struct of
//! thousands of fields compiles in a fraction of the time).

use super::by_name::SourceCx;
use super::checker::Checker;
use super::item_checks::ItemChecks;
use super::plan::{FieldInfo, SlotExpr};
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
/// static X: FieldInfo = FieldInfo { name: "x", pattern: "(n, 3)" };
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

/// A plain tensor field of a derived struct (one tensor, perhaps in an `Option`), as
/// `check_source_in` reads it by name: generated as a `static`, checked by [`source_tensor`].
#[derive(Debug)]
pub struct SourceTensor {
    /// The field's name and pattern text, for errors.
    pub info: FieldInfo,
    /// The tensor's name under the current prefix.
    pub name: &'static str,
    /// The pattern's items.
    pub ops: &'static [ItemOp],
    /// Where the pattern's `...`/`*name` is, if it has one.
    pub rest: Option<usize>,
    /// An `Option` field: absent from the source is `None`, not missing.
    pub optional: bool,
}

/// Checks the tensor `t` describes, read by name from `src`: what the derive's
/// `check_source_in` does for a plain tensor field, out of line so that each field is one call.
///
/// ```
/// use std::collections::BTreeMap;
/// use shapes::{Shape, Shaped};
///
/// #[derive(Shaped)]
/// struct Linear {
///     #[shape("(d_out, d_in)")] weight: Shape,
///     #[shape("(d_out,)")] bias: Option<Shape>,
/// }
///
/// // Each field's `verify_source` check is one `source_tensor` call.
/// let mut header = BTreeMap::from([("weight".to_string(), Shape::from([4, 3]))]);
/// assert!(Linear::verify_source(&header).is_ok());
/// header.insert("bias".to_string(), Shape::from([5]));
/// let err = Linear::verify_source(&header).unwrap_err();
/// assert!(err.to_string().starts_with(
///     "Linear.bias (tensor \"bias\"): axis 0 expected d_out = 4, found 5"
/// ), "{err}");
/// ```
#[inline(never)]
pub fn source_tensor(
    cx: &mut Checker,
    src: &mut SourceCx<'_>,
    map: &SlotMap,
    t: &'static SourceTensor,
) {
    let mark = src.push(t.name);
    if !t.optional || src.present() {
        cx.field(&t.info);
        let start = src.mark(cx);
        if let Some(d) = src.tensor(cx) {
            run_items(cx, t.ops, t.rest, map, d);
        }
        src.tag(cx, start);
    }
    src.pop(mark);
}
