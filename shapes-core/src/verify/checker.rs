//! [`Checker`]: the one checker behind `verify`, `verify_all` and `verify_with`.
//!
//! Derived code drives it with straight-line calls, one per pattern item, with variables already
//! turned into slot indices. The success path touches no name, allocates nothing and hashes
//! nothing: a bound variable is a bit in a `u64` and a `usize` in an array. Names, paths and
//! expression texts are only read to build an error.
//!
//! Order independence comes from passes: a dim whose expression still has unknown variables is
//! counted as pending and skipped; if a pass leaves work pending but bound something new, the
//! checks run again. Once nothing changes, a final pass runs in reporting mode and turns every
//! mismatch and everything still pending into a [`ShapeError`]. A struct whose fields bind
//! variables before using them needs one pass.

use smallvec::SmallVec;

use super::bindings::{Bindings, Value};
use super::error::{Provenance, ShapeError, ShapeErrorDetails, ShapeErrorKind};
use super::path::{FieldPath, NO_FIELD, Origin, OriginKind, Segment};
use super::plan::{Eval, FieldInfo, SlotExpr};
use super::vars::{MAX_VARS, SlotMap, VarTable};
use crate::shape::Shape;

/// Nesting tracked by the checker: paths in errors and origins show the outer `PATH_DEPTH`
/// levels (deeper levels are still checked).
const PATH_DEPTH: usize = 8;

/// What an unbound slot of `sizes` holds: see [`Checker::var_is`].
const UNBOUND: usize = usize::MAX;

/// The verification state. Created by `Shaped::verify*`; derived code calls its methods.
pub struct Checker {
    table: &'static VarTable,
    root: &'static str,
    sizes: [usize; MAX_VARS],
    bound: u64,
    /// What `verify` returns on success, filled as variables are bound (so success only moves
    /// it out).
    out: Bindings,
    /// The nested levels entered, the outer `PATH_DEPTH` of them.
    path: [Segment; PATH_DEPTH],
    depth: usize,
    /// `node_at[l]`: the id in `out` of the level `path[..=l]` as it was when a variable was
    /// last bound under it (checked against `path` before it is reused).
    node_at: [u16; PATH_DEPTH],
    field: &'static FieldInfo,
    pending: u32,
    progress: bool,
    failed: bool,
    report: bool,
    errors: Vec<ShapeError>,
}

impl Checker {
    /// A checker for the struct `root` whose scope holds `table`'s variables, with `pre`'s
    /// values already bound. A pre-bound name that is not in `table` becomes an error.
    #[inline(always)]
    pub fn new(table: &'static VarTable, root: &'static str, pre: &Bindings) -> Self {
        let mut cx = Self::empty(table, root);
        if !pre.is_empty() {
            cx.preset(pre);
        }
        cx
    }

    /// A checker with nothing bound.
    #[inline(always)]
    pub(crate) fn empty(table: &'static VarTable, root: &'static str) -> Self {
        Checker {
            table,
            root,
            sizes: [UNBOUND; MAX_VARS],
            bound: 0,
            out: Bindings::in_scope(table, root),
            path: [Segment::Index(0); PATH_DEPTH],
            depth: 0,
            node_at: [Bindings::ROOT_NODE; PATH_DEPTH],
            field: &NO_FIELD,
            pending: 0,
            progress: false,
            failed: false,
            report: false,
            errors: Vec::new(),
        }
    }

    /// Binds `pre`'s values (kept out of line: `verify()` has none).
    #[inline(never)]
    pub(crate) fn preset(&mut self, pre: &Bindings) {
        for b in pre.iter() {
            match self.table.index_of(&b.name) {
                Some(slot) => {
                    match &b.value {
                        Value::Size(n) => self.set(slot, *n, 0, OriginKind::Given),
                        Value::Shape(s) => self.set_shape(slot, s.clone(), 0, OriginKind::Given),
                    };
                }
                None => {
                    let error = self.error(
                        None,
                        None,
                        ShapeErrorKind::UnknownBinding {
                            name: b.name.to_string(),
                            suggestion: closest(&b.name, self.table.names()),
                        },
                        Vec::new(),
                    );
                    self.errors.push(error);
                    self.failed = true;
                }
            }
        }
    }

    // ----- pass control (used by `Shaped::verify*`) -----

    pub(crate) fn begin_pass(&mut self, report: bool) {
        self.pending = 0;
        self.progress = false;
        self.report = report;
        self.depth = 0;
        self.field = &NO_FIELD;
    }

    pub(crate) fn needs_another_pass(&self) -> bool {
        self.pending > 0 && self.progress
    }

    pub(crate) fn is_clean(&self) -> bool {
        self.pending == 0 && !self.failed
    }

    pub(crate) fn into_errors(self) -> Vec<ShapeError> {
        self.errors
    }

    /// The bindings, taken out (only they are moved, not the whole checker).
    #[inline]
    pub(crate) fn take_bindings(&mut self) -> Bindings {
        std::mem::take(&mut self.out)
    }

    // ----- navigation -----

    /// Enters a nested level of the path: a field holding nested structs, or a collection
    /// element.
    #[inline(always)]
    pub fn enter(&mut self, segment: Segment) {
        if let Some(s) = self.path.get_mut(self.depth) {
            *s = segment;
        }
        self.depth += 1;
    }

    /// Sets the index of the innermost level, entered as a `Segment::Index`: the next element
    /// of a collection.
    #[inline(always)]
    pub fn index(&mut self, i: usize) {
        if let Some(s) = self.depth.checked_sub(1).and_then(|l| self.path.get_mut(l)) {
            *s = Segment::Index(i);
        }
    }

    /// Leaves the level entered last.
    #[inline(always)]
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Starts checking a field; the following item checks are about it.
    #[inline(always)]
    pub fn field(&mut self, info: &'static FieldInfo) {
        self.field = info;
    }

    // ----- item checks -----

    /// Checks that `dims` has exactly `expected` dims. `false` (and an error) when not; the
    /// caller then skips the field's item checks.
    #[inline(always)]
    pub fn rank(&mut self, dims: &[usize], expected: usize) -> bool {
        if dims.len() == expected {
            true
        } else {
            self.rank_mismatch(dims, expected, false);
            false
        }
    }

    /// Checks that `dims` has at least `min` dims (a pattern with a variadic).
    #[inline(always)]
    pub fn rank_at_least(&mut self, dims: &[usize], min: usize) -> bool {
        if dims.len() >= min {
            true
        } else {
            self.rank_mismatch(dims, min, true);
            false
        }
    }

    /// A literal dim: `dims[axis]` must be `expected`.
    #[inline(always)]
    pub fn lit(&mut self, expected: usize, dims: &[usize], axis: usize) {
        match dims.get(axis) {
            Some(&d) if d == expected => {}
            _ => self.lit_mismatch(expected, dims, axis),
        }
    }

    /// A broadcastable literal `#3`: `dims[axis]` must be `expected` or 1.
    #[inline(always)]
    pub fn bcast_lit(&mut self, expected: usize, dims: &[usize], axis: usize) {
        match dims.get(axis) {
            Some(&d) if d == expected || d == 1 => {}
            _ => self.lit_mismatch(expected, dims, axis),
        }
    }

    /// A variable dim: binds `slot` to `dims[axis]`, or checks it against the bound value.
    #[inline(always)]
    pub fn var(&mut self, slot: usize, dims: &[usize], axis: usize) {
        let Some(&d) = dims.get(axis) else { return };
        self.var_is(slot, d, dims, axis);
    }

    /// Like [`var`](Self::var) with the dim already read (`d == dims[axis]`): what derived
    /// code calls after [`rank_n`](Self::rank_n) proved the rank, so no bounds check is left.
    ///
    /// The success path is one load and two compares: an unbound slot holds a sentinel
    /// (`usize::MAX`) that no other dim equals, and a dim that *is* `usize::MAX` always takes
    /// the cold path, which tells bound from unbound with the bound bit.
    #[inline(always)]
    pub fn var_is(&mut self, slot: usize, d: usize, dims: &[usize], axis: usize) {
        let slot = slot % MAX_VARS;
        // ok (here and in `bind_or_mismatch`, which gets this `slot`): `slot < MAX_VARS`.
        if self.sizes[slot] != d || d == UNBOUND {
            self.bind_or_mismatch(slot, d, dims, axis);
        }
    }

    /// [`var_is`](Self::var_is) for a variable that the checks before this one bound for sure
    /// (derived code knows which: see the derive's `items_check_known`): one comparison.
    ///
    /// Should the slot be unbound after all, a dim that differs from the sentinel still takes
    /// the cold path and binds it; only a dim of exactly `usize::MAX` would pass unbound.
    #[inline(always)]
    pub fn var_bound(&mut self, slot: usize, d: usize, dims: &[usize], axis: usize) {
        let slot = slot % MAX_VARS;
        // ok: `slot < MAX_VARS`.
        if self.sizes[slot] != d {
            self.bind_or_mismatch(slot, d, dims, axis);
        }
    }

    // Each variable is bound once per verification, and a mismatch is an error: keep both
    // out of the hot path.
    #[cold]
    #[inline(never)]
    fn bind_or_mismatch(&mut self, slot: usize, d: usize, dims: &[usize], axis: usize) {
        if self.bound & (1 << slot) == 0 {
            self.set(slot, d, axis, OriginKind::Field);
        } else if self.sizes[slot] != d {
            self.var_mismatch(slot, dims, axis);
        }
    }

    /// Checks that `dims` has exactly `N` dims and hands them back as an array, so the item
    /// checks that follow index it without bounds checks. `None` (and an error) when not.
    #[inline(always)]
    pub fn rank_n<'d, const N: usize>(&mut self, dims: &'d [usize]) -> Option<&'d [usize; N]> {
        match <&[usize; N]>::try_from(dims) {
            Ok(a) => Some(a),
            Err(_) => {
                self.rank_mismatch(dims, N, false);
                None
            }
        }
    }

    /// A literal dim with the dim already read (`d == dims[axis]`).
    #[inline(always)]
    pub fn lit_is(&mut self, expected: usize, d: usize, dims: &[usize], axis: usize) {
        if d != expected {
            self.lit_mismatch(expected, dims, axis);
        }
    }

    /// A broadcastable variable `#name`: a size of 1 is accepted and binds nothing.
    #[inline(always)]
    pub fn bcast_var(&mut self, slot: usize, dims: &[usize], axis: usize) {
        if dims.get(axis) != Some(&1) {
            self.var(slot, dims, axis);
        }
    }

    /// A dim given by an arithmetic expression over the struct's variables (`local` indices
    /// mapped through `map`). With one unknown variable it is solved when invertible;
    /// otherwise it waits for a later pass.
    #[inline]
    pub fn expr(&mut self, expr: &'static SlotExpr, map: &SlotMap, dims: &[usize], axis: usize) {
        let Some(&d) = dims.get(axis) else { return };
        self.equation(expr, map, d, Some((dims, axis)));
    }

    /// A `where` equation `lhs = rhs` of the struct.
    #[inline]
    pub fn where_eq(
        &mut self,
        lhs: &'static SlotExpr,
        rhs: &'static SlotExpr,
        text: &'static FieldInfo,
        map: &SlotMap,
    ) {
        self.field = text;
        let value = |v: u8| self.value(map.get(usize::from(v)));
        match (lhs.eval(&value), rhs.eval(&value)) {
            (Eval::Value(a), Eval::Value(b)) => {
                if a != b {
                    self.where_mismatch(lhs, rhs, map, a, b);
                }
            }
            (Eval::Value(a), _) => self.equation(rhs, map, a, None),
            (_, Eval::Value(b)) => self.equation(lhs, map, b, None),
            (Eval::Failed(f), _) | (_, Eval::Failed(f)) => {
                self.arith_failure(f.to_string(), None, None)
            }
            _ => self.unsolved(&[lhs, rhs], map, None, None),
        }
    }

    /// A variadic `*name` covering `dims[start..end]`.
    #[inline]
    pub fn variadic(&mut self, slot: usize, dims: &[usize], start: usize, end: usize) {
        let Some(sub) = dims.get(start..end) else {
            return;
        };
        let slot = slot % MAX_VARS;
        if self.bound & (1 << slot) != 0 {
            let same = self
                .out
                .shape_of_slot(slot)
                .is_some_and(|shape| shape.dims() == sub);
            if !same {
                self.variadic_mismatch(slot, dims, start, end);
            }
        } else {
            self.set_shape(slot, Shape::new(sub), start, OriginKind::Field);
        }
    }

    // ----- internals -----

    #[inline]
    fn value(&self, slot: usize) -> Option<usize> {
        let slot = slot % MAX_VARS;
        (self.bound & (1 << slot) != 0).then(|| self.sizes[slot]) // ok: `slot < MAX_VARS`.
    }

    /// The id in `out` of the current nesting level, recording the levels not recorded yet.
    /// Runs once per bound variable: each level is compared with the one recorded last time
    /// at its depth, so entering and leaving levels costs nothing extra.
    #[inline(always)]
    fn node(&mut self) -> u16 {
        let mut parent = Bindings::ROOT_NODE;
        for (slot, level) in self.node_at.iter_mut().zip(&self.path).take(self.depth) {
            // Rebuilt rather than copied: `enter` wrote the segment a word at a time, and a
            // 16-byte copy of it would stall on those stores (store-to-load forwarding).
            #[allow(clippy::needless_match)]
            let segment = match *level {
                Segment::Field(name) => Segment::Field(name),
                Segment::Index(i) => Segment::Index(i),
            };
            if !self.out.is_node(*slot, segment, parent) {
                match self.out.push_node(segment, parent) {
                    Some(id) => *slot = id,
                    // Too many levels to number: the origin stops at the level above.
                    None => return parent,
                }
            }
            parent = *slot;
        }
        parent
    }

    #[inline(always)]
    fn set(&mut self, slot: usize, value: usize, axis: usize, kind: OriginKind) {
        let slot = slot % MAX_VARS;
        self.sizes[slot] = value; // ok: `slot < MAX_VARS`.
        self.bound |= 1 << slot;
        self.progress = true;
        let node = self.node();
        // slot < MAX_VARS = 64 fits in a u8.
        self.out
            .push_slot(slot as u8, value, self.field, axis, node, kind);
    }

    fn set_shape(&mut self, slot: usize, shape: Shape, axis: usize, kind: OriginKind) {
        let slot = slot % MAX_VARS;
        self.bound |= 1 << slot;
        self.progress = true;
        let node = self.node();
        self.out
            .push_slot_shape(slot as u8, shape, self.field, axis, node, kind);
    }

    fn origin_of(&self, slot: usize) -> Option<Origin> {
        self.out.origin_of_slot(slot)
    }

    fn current_path(&self) -> FieldPath {
        // ok: `min(PATH_DEPTH)` keeps the range inside `path`.
        let mut segments: SmallVec<[Segment; 6]> =
            SmallVec::from_slice(&self.path[..self.depth.min(PATH_DEPTH)]);
        if !self.field.name.is_empty() {
            segments.push(Segment::Field(self.field.name));
        }
        FieldPath::new(self.root, &segments)
    }

    fn error(
        &self,
        axis: Option<usize>,
        dims: Option<&[usize]>,
        kind: ShapeErrorKind,
        provenance: Vec<Provenance>,
    ) -> ShapeError {
        let pattern = (!self.field.pattern.is_empty()).then_some(self.field.pattern);
        ShapeErrorDetails {
            path: self.current_path(),
            axis,
            pattern,
            shape: dims.map(Shape::new),
            kind,
            provenance,
            tensor: None,
        }
        .into()
    }

    /// Records an error; in a quiet pass only notes that one exists.
    fn push(&mut self, make: impl FnOnce(&Self) -> ShapeError) {
        self.failed = true;
        if self.report {
            let e = make(self);
            self.errors.push(e);
        }
    }

    fn provenance(&self, slots: impl IntoIterator<Item = usize>) -> Vec<Provenance> {
        slots
            .into_iter()
            .filter_map(|slot| {
                let origin = self.origin_of(slot)?;
                let value = match self.out.shape_of_slot(slot) {
                    Some(shape) => shape.to_string(),
                    None => self.sizes[slot % MAX_VARS].to_string(), // ok: `% MAX_VARS`.
                };
                Some(Provenance {
                    name: self.table.name(slot).to_owned(),
                    value,
                    origin,
                })
            })
            .collect()
    }

    #[cold]
    #[inline(never)]
    fn rank_mismatch(&mut self, dims: &[usize], expected: usize, at_least: bool) {
        self.push(|cx| {
            cx.error(
                None,
                Some(dims),
                ShapeErrorKind::Rank { expected, at_least },
                Vec::new(),
            )
        });
    }

    #[cold]
    #[inline(never)]
    fn lit_mismatch(&mut self, expected: usize, dims: &[usize], axis: usize) {
        self.push(|cx| {
            cx.error(
                Some(axis),
                Some(dims),
                ShapeErrorKind::Literal { expected },
                Vec::new(),
            )
        });
    }

    #[cold]
    #[inline(never)]
    fn var_mismatch(&mut self, slot: usize, dims: &[usize], axis: usize) {
        self.push(|cx| {
            let value = cx.sizes[slot % MAX_VARS]; // ok: `% MAX_VARS`.
            cx.error(
                Some(axis),
                Some(dims),
                ShapeErrorKind::Dim {
                    expected: format!("{} = {value}", cx.table.name(slot)),
                    value,
                },
                cx.provenance([slot]),
            )
        });
    }

    #[cold]
    #[inline(never)]
    fn variadic_mismatch(&mut self, slot: usize, dims: &[usize], start: usize, end: usize) {
        self.push(|cx| {
            let expected = cx.out.shape_of_slot(slot).cloned().unwrap_or_default();
            cx.error(
                Some(start),
                Some(dims),
                ShapeErrorKind::Variadic {
                    name: cx.table.name(slot).to_owned(),
                    expected,
                    found: dims.get(start..end).map(Shape::new).unwrap_or_default(),
                },
                cx.provenance([slot]),
            )
        });
    }

    /// `expr = target`, where `at` is the tensor dim being checked (None for `where`).
    fn equation(
        &mut self,
        expr: &'static SlotExpr,
        map: &SlotMap,
        target: usize,
        at: Option<(&[usize], usize)>,
    ) {
        let value = |v: u8| self.value(map.get(usize::from(v)));
        match expr.eval(&value) {
            Eval::Value(v) if v == target => {}
            Eval::Value(v) => self.expr_mismatch(expr, map, v, target, at),
            Eval::Failed(f) => {
                self.arith_failure(f.to_string(), at.map(|(d, _)| d), at.map(|(_, a)| a))
            }
            Eval::Unknown {
                occurrences: 1,
                distinct: true,
                ..
            } => match expr.solve(target, &value) {
                Ok(Some((local, solved))) => {
                    let slot = map.get(usize::from(local));
                    // Re-check by evaluation: floor-free inversions are exact, but this keeps
                    // the invariant obvious.
                    self.set(slot, solved, at.map_or(0, |(_, a)| a), OriginKind::Solved);
                    let value = |v: u8| self.value(map.get(usize::from(v)));
                    if expr.eval(&value) != Eval::Value(target) {
                        self.expr_mismatch(expr, map, solved, target, at);
                    }
                }
                Ok(None) => self.defer(&[expr], map, at),
                Err(f) => {
                    let mut text = String::new();
                    expr.write(&mut text, &|v| self.leaf_name(map, v));
                    let detail = format!("{text} = {target} has no whole solution ({f})");
                    self.arith_failure(detail, at.map(|(d, _)| d), at.map(|(_, a)| a));
                }
            },
            Eval::Unknown { .. } => self.defer(&[expr], map, at),
        }
    }

    fn defer(&mut self, exprs: &[&'static SlotExpr], map: &SlotMap, at: Option<(&[usize], usize)>) {
        self.pending += 1;
        if self.report {
            self.unsolved(exprs, map, at.map(|(d, _)| d), at.map(|(_, a)| a));
        }
    }

    fn leaf_name(&self, map: &SlotMap, local: u8) -> String {
        self.table.name(map.get(usize::from(local))).to_owned()
    }

    fn leaf_value(&self, map: &SlotMap, local: u8) -> String {
        match self.value(map.get(usize::from(local))) {
            Some(v) => v.to_string(),
            None => self.leaf_name(map, local),
        }
    }

    /// `heads * head_dim = 12 * 64 = 768`
    fn describe(&self, expr: &SlotExpr, map: &SlotMap, value: usize) -> String {
        let mut named = String::new();
        expr.write(&mut named, &|v| self.leaf_name(map, v));
        let mut valued = String::new();
        expr.write(&mut valued, &|v| self.leaf_value(map, v));
        let value = value.to_string();
        let mut out = named.clone();
        for part in [valued, value] {
            if !out.ends_with(&part) {
                out.push_str(" = ");
                out.push_str(&part);
            }
        }
        out
    }

    fn expr_slots(&self, exprs: &[&SlotExpr], map: &SlotMap) -> Vec<usize> {
        let mut locals = Vec::new();
        for e in exprs {
            e.vars(&mut locals);
        }
        let mut slots: Vec<usize> = locals.iter().map(|&l| map.get(usize::from(l))).collect();
        slots.dedup();
        slots
    }

    #[cold]
    #[inline(never)]
    fn expr_mismatch(
        &mut self,
        expr: &SlotExpr,
        map: &SlotMap,
        value: usize,
        target: usize,
        at: Option<(&[usize], usize)>,
    ) {
        self.push(|cx| {
            let expected = cx.describe(expr, map, value);
            let prov = cx.provenance(cx.expr_slots(&[expr], map));
            match at {
                Some((dims, axis)) => cx.error(
                    Some(axis),
                    Some(dims),
                    ShapeErrorKind::Dim { expected, value },
                    prov,
                ),
                None => cx.error(
                    None,
                    None,
                    ShapeErrorKind::Where {
                        detail: format!("{expected}, but the other side is {target}"),
                    },
                    prov,
                ),
            }
        });
    }

    #[cold]
    #[inline(never)]
    fn where_mismatch(
        &mut self,
        lhs: &SlotExpr,
        rhs: &SlotExpr,
        map: &SlotMap,
        a: usize,
        b: usize,
    ) {
        self.push(|cx| {
            let detail = format!(
                "{} but {}",
                cx.describe(lhs, map, a),
                cx.describe(rhs, map, b)
            );
            let prov = cx.provenance(cx.expr_slots(&[lhs, rhs], map));
            cx.error(None, None, ShapeErrorKind::Where { detail }, prov)
        });
    }

    #[cold]
    #[inline(never)]
    fn arith_failure(&mut self, detail: String, dims: Option<&[usize]>, axis: Option<usize>) {
        self.push(|cx| {
            cx.error(
                axis,
                dims,
                ShapeErrorKind::Arithmetic { detail },
                Vec::new(),
            )
        });
    }

    #[cold]
    #[inline(never)]
    fn unsolved(
        &mut self,
        exprs: &[&SlotExpr],
        map: &SlotMap,
        dims: Option<&[usize]>,
        axis: Option<usize>,
    ) {
        self.push(|cx| {
            let slots = cx.expr_slots(exprs, map);
            let unknown = slots
                .iter()
                .filter(|&&s| cx.value(s).is_none())
                .map(|&s| cx.table.name(s).to_owned())
                .collect();
            let texts: Vec<String> = exprs
                .iter()
                .map(|e| {
                    let mut t = String::new();
                    e.write(&mut t, &|v| cx.leaf_name(map, v));
                    t
                })
                .collect();
            cx.error(
                axis,
                dims,
                ShapeErrorKind::Unsolved {
                    expr: texts.join(" = "),
                    unknown,
                },
                Vec::new(),
            )
        });
    }

    /// Checks a nested struct in a scope of its own (`#[shape(nested, scope = "own")]`), then
    /// folds its errors into this checker's.
    pub fn isolated<S: crate::Shaped + ?Sized>(&mut self, nested: &S) {
        let pre = Bindings::new();
        if let Err(errors) = super::shaped::run(nested, &pre, self.report) {
            self.absorb(errors);
        }
    }
}

// ----- hooks for checkpoint sources (`verify_source`, in source.rs) -----
impl Checker {
    /// Whether this pass records errors (the final pass) or only notes that one exists.
    pub(crate) fn reporting(&self) -> bool {
        self.report
    }

    /// How many errors are recorded so far.
    pub(crate) fn error_count(&self) -> usize {
        self.errors.len()
    }

    /// The errors recorded since `start`, for tagging with a tensor name.
    pub(crate) fn errors_since(&mut self, start: usize) -> &mut [ShapeError] {
        let start = start.min(self.errors.len());
        &mut self.errors[start..] // ok: clamped to the length just above.
    }

    /// Records an error about the current field that is not about its dims (a missing tensor,
    /// a gap in a list).
    #[cold]
    #[inline(never)]
    pub(crate) fn source_error(&mut self, kind: impl FnOnce() -> ShapeErrorKind) {
        self.push(|cx| cx.error(None, None, kind(), Vec::new()));
    }

    /// Folds the errors of a nested scope checked on its own into this checker's, under the
    /// current path.
    pub(crate) fn absorb(&mut self, errors: Vec<ShapeError>) {
        self.failed = true;
        if self.report {
            let prefix = self.current_path();
            for mut e in errors {
                let mut segments: Vec<Segment> = prefix.segments().to_vec();
                segments.extend_from_slice(e.path.segments());
                e.path = FieldPath::new(prefix.root(), &segments);
                self.errors.push(e);
            }
        }
    }
}

/// The candidate closest to `name` by edit distance, when it is close enough to be a typo.
///
/// ```
/// assert_eq!(shapes::__private::closest("head", &["heads"]), Some("heads".into()));
/// ```
pub fn closest(name: &str, candidates: &[&str]) -> Option<String> {
    let best = candidates
        .iter()
        .map(|c| (edit_distance(name, c), *c))
        .min_by_key(|&(d, _)| d)?;
    let limit = (name.chars().count().max(best.1.chars().count()) / 3).max(1);
    (best.0 <= limit).then(|| best.1.to_owned())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        // ok: `prev` and `cur` have `b.len() + 1` entries and `j < b.len()`.
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()] // ok: `prev` always has `b.len() + 1` entries.
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(closest("head", &["heads", "d_model"]), Some("heads".into()));
        assert_eq!(closest("vocab", &["heads", "d_model"]), None);
    }
}
