//! [`Checker`]: the checker that records and reports, behind `verify*`, `verify_source*` and the
//! error of a `#[shapes::check]` call; [`Checker::run`], and the one pass loop,
//! [`Passes::passes`], which every checker that runs in passes (this one, `verify`'s settle, a
//! checked call's `CallCx`) is driven by.
//!
//! Generated code drives it through [`ItemChecks`] with straight-line calls, one per pattern
//! item, with variables already turned into slots. The success path touches no name,
//! allocates nothing and hashes nothing: a bound variable is a bit in a `u64` and a `usize` in
//! an array. Names, paths and expression texts are only read to build an error (`report.rs`).
//!
//! Order independence comes from passes: a dim whose expression still has unknown variables is
//! counted as pending and skipped; if a pass leaves work pending but bound something new, the
//! checks run again. Once nothing changes, a final pass runs in reporting mode and turns every
//! mismatch and everything still pending into a [`ShapeError`]. A struct whose fields bind
//! variables before using them needs one pass.

mod passes;
mod report;

pub(crate) use passes::Passes;

use super::bindings::{Bindings, Value, same_name};
use super::error::{ShapeError, ShapeErrorKind};
use super::item_checks::ItemChecks;
use super::path::{NO_FIELD, Origin, OriginKind, ROOT_LEVEL, Segment};
use super::plan::{Eval, FieldInfo, Outcome, SlotExpr};
use super::scope_checks::ScopeChecks;
use super::suggest::closest;
use super::vars::{MAX_VARS, Slot, SlotMap, VarTable};
use crate::expr::CmpOp;
use crate::shape::Shape;

/// Nesting levels the checker holds without allocating; deeper paths grow its storage, so an
/// error or origin always names the whole path.
const PATH_DEPTH: usize = 8;

/// What an unbound slot of `sizes` holds: see `var_is` below.
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
    /// The nested levels entered, `depth` of them: the first [`PATH_DEPTH`] in `near` (each a
    /// `'static` segment, one word, and for a collection its element index in `index`), the
    /// others in `far` (level `l` at `far[l - PATH_DEPTH]`). Naming one of the first levels
    /// is one bounds check and one store (a nested field is entered on every check of it);
    /// `far` only grows, so deeper levels allocate once, when first reached.
    near: [&'static Segment; PATH_DEPTH],
    index: [usize; PATH_DEPTH],
    far: Vec<(&'static Segment, usize)>,
    depth: usize,
    /// `node_at[l]`: the id in `out` of the level `..=l` of the path as it was when a variable
    /// was last bound under it (checked against the path before it is reused), for the
    /// levels of `near`.
    node_at: [u16; PATH_DEPTH],
    /// `node_at` of the levels in `far`.
    far_nodes: Vec<u16>,
    field: &'static FieldInfo,
    pending: u32,
    progress: bool,
    failed: bool,
    report: bool,
    /// A run that only asks for the verdict (`run(false, …)`): its first error settles it.
    quiet: bool,
    errors: Vec<ShapeError>,
    /// The renames of the nested fields entered, outermost first, each with its level: an
    /// error's pattern is written in this scope's names (see `ScopeChecks::renames_at`).
    renames: Vec<(usize, Renames)>,
}

/// A nested field's `rename(inner = "outer", …)` pairs.
pub(crate) type Renames = &'static [(&'static str, &'static str)];

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
            near: [&Segment::Index(0); PATH_DEPTH],
            index: [0; PATH_DEPTH],
            far: Vec::new(),
            depth: 0,
            node_at: [ROOT_LEVEL; PATH_DEPTH],
            far_nodes: Vec::new(),
            field: &NO_FIELD,
            pending: 0,
            progress: false,
            failed: false,
            report: false,
            quiet: false,
            errors: Vec::new(),
            renames: Vec::new(),
        }
    }

    /// Forgets the renames of the levels at `level` and deeper. Out of line: compiled once
    /// here rather than (with `Vec::retain`'s loop) into each renaming field of each derived
    /// `check_in`.
    #[inline(never)]
    fn drop_renames(&mut self, level: usize) {
        self.renames.retain(|(l, _)| *l < level);
    }

    /// Binds `pre`'s values (kept out of line: `verify()` has none).
    #[inline(never)]
    pub(crate) fn preset(&mut self, pre: &Bindings) {
        let table = self.table.names();
        pre.for_each_given(|name, value, origin| {
            match table.iter().position(|n| same_name(n, name)) {
                Some(slot) => {
                    let slot = Slot::new(slot);
                    match value {
                        Ok(n) => self.set(slot, n, 0, OriginKind::Given),
                        Err(s) => self.set_shape(slot, s.clone(), 0, OriginKind::Given),
                    };
                    if let Some(origin) = origin {
                        self.out.set_stated(slot.to_u8(), origin);
                    }
                }
                None => {
                    let error = self.error(
                        None,
                        None,
                        ShapeErrorKind::UnknownBinding {
                            name: name.to_string(),
                            suggestion: closest(name, self.table.names()),
                        },
                        Vec::new(),
                    );
                    self.errors.push(error);
                    self.failed = true;
                }
            }
        });
    }

    // ----- navigation: the private halves of the `ScopeChecks` path methods -----

    /// A level past the first [`PATH_DEPTH`]; the first time it is reached, `far` and
    /// `node_at` grow to hold it.
    #[cold]
    #[inline(never)]
    fn enter_far(&mut self, level: usize, segment: &'static Segment) {
        let l = level.saturating_sub(PATH_DEPTH);
        while self.far.len() <= l {
            self.far.push((segment, 0));
            self.far_nodes.push(ROOT_LEVEL);
        }
        if let Some(s) = self.far.get_mut(l) {
            s.0 = segment;
        }
    }

    #[cold]
    #[inline(never)]
    fn index_far(&mut self, level: usize, i: usize) {
        if let Some(s) = self.far.get_mut(level.saturating_sub(PATH_DEPTH)) {
            s.1 = i;
        }
    }

    /// The segment of level `l` (below `depth`), its index filled in for a collection.
    fn segment_at(&self, l: usize) -> Segment {
        let level = match l.checked_sub(PATH_DEPTH) {
            None => self.near.get(l).copied().zip(self.index.get(l).copied()),
            Some(far) => self.far.get(far).copied(),
        };
        match level {
            Some((Segment::Field(name), _)) => Segment::Field(name),
            Some((Segment::Index(_), i)) => Segment::Index(i),
            // Unreachable: `enter_at` makes room for every level below `depth`.
            None => Segment::Index(0),
        }
    }

    /// The levels entered, outermost first.
    pub(crate) fn levels(&self) -> impl Iterator<Item = Segment> + '_ {
        (0..self.depth).map(|l| self.segment_at(l))
    }

    #[cold]
    #[inline(never)]
    fn bind_or_mismatch_in(
        &mut self,
        field: &'static FieldInfo,
        slot: Slot,
        d: usize,
        dims: &[usize],
        axis: usize,
    ) {
        self.field = field;
        self.bind_or_mismatch(slot, d, dims, axis);
    }

    #[cold]
    #[inline(never)]
    fn rank_mismatch_in(&mut self, field: &'static FieldInfo, dims: &[usize], rank: usize) {
        self.field = field;
        self.rank_mismatch(dims, rank, false);
    }

    // Each variable is bound once per verification, and a mismatch is an error: keep both
    // out of the hot path.
    #[cold]
    #[inline(never)]
    fn bind_or_mismatch(&mut self, slot: Slot, d: usize, dims: &[usize], axis: usize) {
        if self.bound & slot.bit() == 0 {
            self.set(slot, d, axis, OriginKind::Field);
        } else if self.sizes[slot.index()] != d {
            self.var_mismatch(slot, dims, axis);
        }
    }

    /// Records that the tensor `tie.tensor` is absent because tied to another.
    pub(crate) fn note_tie(&mut self, tie: super::bindings::Tie) {
        self.out.push_tie(tie);
    }

    /// Binds `slot` to `value` as the value `field` had at `axis`: how the bindings the fast
    /// checker of a call made are handed to this one, with their origins, to build an error.
    pub(crate) fn record(
        &mut self,
        slot: Slot,
        value: Value,
        field: &'static FieldInfo,
        axis: usize,
        kind: OriginKind,
    ) {
        self.field = field;
        match value {
            Value::Size(n) => self.set(slot, n, axis, kind),
            Value::Shape(shape) => self.set_shape(slot, shape, axis, kind),
        }
    }

    // ----- internals -----

    #[inline(always)]
    fn value(&self, slot: Slot) -> Option<usize> {
        (self.bound & slot.bit() != 0).then(|| self.sizes[slot.index()])
    }

    /// The id in `out` of the current nesting level, recording the levels not recorded yet.
    /// Runs once per bound variable: each level is compared with the one recorded last time
    /// at its depth, so entering and leaving levels costs nothing extra.
    #[inline(always)]
    fn node(&mut self) -> u16 {
        let mut parent = ROOT_LEVEL;
        for l in 0..self.depth {
            let segment = self.segment_at(l);
            let Some(id) = self.node_slot(l).map(|n| *n) else {
                return parent;
            };
            let id = if self.out.is_node(id, segment, parent) {
                id
            } else {
                match self.out.push_node(segment, parent) {
                    Some(id) => id,
                    // Too many levels to number: the origin stops at the level above.
                    None => return parent,
                }
            };
            if let Some(at) = self.node_slot(l) {
                *at = id;
            }
            parent = id;
        }
        parent
    }

    /// `node_at` of level `l`.
    #[inline(always)]
    fn node_slot(&mut self, l: usize) -> Option<&mut u16> {
        match l.checked_sub(PATH_DEPTH) {
            None => self.node_at.get_mut(l),
            Some(far) => self.far_nodes.get_mut(far),
        }
    }

    #[inline(always)]
    fn set(&mut self, slot: Slot, value: usize, axis: usize, kind: OriginKind) {
        self.sizes[slot.index()] = value;
        self.bound |= slot.bit();
        self.progress = true;
        let node = self.node();
        self.out
            .push_slot(slot.to_u8(), value, self.field, axis, node, kind);
    }

    fn set_shape(&mut self, slot: Slot, shape: Shape, axis: usize, kind: OriginKind) {
        self.bound |= slot.bit();
        self.progress = true;
        let node = self.node();
        self.out
            .push_slot_shape(slot.to_u8(), shape, self.field, axis, node, kind);
    }

    fn origin_of(&self, slot: Slot) -> Option<Origin> {
        self.out.origin_of_slot(slot.index())
    }

    /// `expr = target`, where `at` is the tensor dim being checked; or, for a `where`
    /// equation, `at` is `None` and `clause` its two sides, which a failure names.
    fn equation(
        &mut self,
        expr: &'static SlotExpr,
        map: &SlotMap,
        target: usize,
        at: Option<(&[usize], usize)>,
        clause: Option<[&'static SlotExpr; 2]>,
    ) {
        let value = |v: u8| self.value(map.get(usize::from(v)));
        match expr.step(target, &value) {
            Outcome::Holds => {}
            Outcome::Differs(v) => self.expr_mismatch(expr, map, v, target, at),
            Outcome::Fails(f) => match clause {
                Some([lhs, rhs]) => self.where_failed(CmpOp::Eq, lhs, rhs, map, f),
                None => self.arith_failure(f.to_string(), at.map(|(d, _)| d), at.map(|(_, a)| a)),
            },
            Outcome::Bind { local, value } => {
                let slot = map.get(usize::from(local));
                self.set(slot, value, at.map_or(0, |(_, a)| a), OriginKind::Solved);
            }
            Outcome::NoWholeSolution(step) => self.no_whole_solution(expr, map, target, step, at),
            Outcome::Wait => self.defer(&[expr], "=", map, at),
        }
    }

    fn defer(
        &mut self,
        exprs: &[&'static SlotExpr],
        op: &'static str,
        map: &SlotMap,
        at: Option<(&[usize], usize)>,
    ) {
        self.pending += 1;
        if self.report {
            self.unsolved(exprs, op, map, at.map(|(d, _)| d), at.map(|(_, a)| a));
        }
    }
}

impl ItemChecks for Checker {
    #[inline(always)]
    fn field(&mut self, info: &'static FieldInfo) {
        self.field = info;
    }

    /// A `where` equation `lhs = rhs` of the struct.
    #[inline]
    fn where_eq(
        &mut self,
        lhs: &'static SlotExpr,
        rhs: &'static SlotExpr,
        map: &SlotMap,
        info: &'static FieldInfo,
    ) {
        self.field = info;
        let value = |v: u8| self.value(map.get(usize::from(v)));
        match (lhs.eval(&value), rhs.eval(&value)) {
            (Eval::Value(a), Eval::Value(b)) => {
                if a != b {
                    self.where_mismatch(lhs, rhs, map, a, b);
                }
            }
            (Eval::Value(a), _) => self.equation(rhs, map, a, None, Some([lhs, rhs])),
            (_, Eval::Value(b)) => self.equation(lhs, map, b, None, Some([lhs, rhs])),
            (Eval::Failed(f), _) | (_, Eval::Failed(f)) => {
                self.where_failed(CmpOp::Eq, lhs, rhs, map, f)
            }
            _ => self.unsolved(&[lhs, rhs], "=", map, None, None),
        }
    }

    /// A struct-level `where` comparison other than `=` (`head_dim <= 256`, `d_model != 0`):
    /// checked once both sides are known, naming the comparison and where its variables were
    /// bound when it fails.
    #[inline]
    fn where_order(
        &mut self,
        op: CmpOp,
        lhs: &'static SlotExpr,
        rhs: &'static SlotExpr,
        map: &SlotMap,
        info: &'static FieldInfo,
    ) {
        self.field = info;
        let value = |v: u8| self.value(map.get(usize::from(v)));
        match (lhs.eval(&value), rhs.eval(&value)) {
            (Eval::Value(a), Eval::Value(b)) => {
                if !op.holds(a, b) {
                    self.where_violated(op, lhs, rhs, map, a, b);
                }
            }
            (Eval::Failed(f), _) | (_, Eval::Failed(f)) => self.where_failed(op, lhs, rhs, map, f),
            _ => self.defer(&[lhs, rhs], op.symbol(true), map, None),
        }
    }

    // ----- item checks -----

    #[inline(always)]
    fn rank(&mut self, dims: &[usize], expected: usize) -> bool {
        if dims.len() == expected {
            true
        } else {
            self.rank_mismatch(dims, expected, false);
            false
        }
    }

    #[inline(always)]
    fn rank_at_least(&mut self, dims: &[usize], min: usize) -> bool {
        if dims.len() >= min {
            true
        } else {
            self.rank_mismatch(dims, min, true);
            false
        }
    }

    #[inline(always)]
    fn lit(&mut self, expected: usize, dims: &[usize], axis: usize) {
        match dims.get(axis) {
            Some(&d) if d == expected => {}
            _ => self.lit_mismatch(expected, dims, axis),
        }
    }

    #[inline(always)]
    fn bcast_lit(&mut self, expected: usize, dims: &[usize], axis: usize) {
        match dims.get(axis) {
            Some(&d) if d == expected || d == 1 => {}
            _ => self.lit_mismatch(expected, dims, axis),
        }
    }

    #[inline(always)]
    fn var_is(&mut self, slot: Slot, d: usize, dims: &[usize], axis: usize) {
        // The success path is one load and two compares: an unbound slot holds a sentinel
        // (`usize::MAX`) that no other dim equals, and a dim that *is* `usize::MAX` always
        // takes the cold path, which tells bound from unbound with the bound bit.
        if self.sizes[slot.index()] != d || d == UNBOUND {
            self.bind_or_mismatch(slot, d, dims, axis);
        }
    }

    #[inline(always)]
    fn rank_n<'d, const N: usize>(&mut self, dims: &'d [usize]) -> Option<&'d [usize; N]> {
        match <&[usize; N]>::try_from(dims) {
            Ok(a) => Some(a),
            Err(_) => {
                self.rank_mismatch(dims, N, false);
                None
            }
        }
    }

    #[inline(always)]
    fn lit_is(&mut self, expected: usize, d: usize, dims: &[usize], axis: usize) {
        if d != expected {
            self.lit_mismatch(expected, dims, axis);
        }
    }

    /// Out of line: `bin`, inlined at every dim of one operator, falls back to it, and its
    /// arguments to [`equation`](Self::equation) would otherwise be built on the stack there.
    #[inline(never)]
    fn expr(&mut self, expr: &'static SlotExpr, map: &SlotMap, dims: &[usize], axis: usize) {
        let Some(&d) = dims.get(axis) else { return };
        self.equation(expr, map, d, Some((dims, axis)), None);
    }

    #[inline(always)]
    fn value_of(&self, slot: Slot) -> Option<usize> {
        self.value(slot)
    }

    /// What [`equation`](Self::equation) does with `Outcome::Bind`.
    #[inline]
    fn solved(&mut self, slot: Slot, value: usize, _: &[usize], axis: usize) {
        self.set(slot, value, axis, OriginKind::Solved);
    }

    #[inline]
    fn variadic(&mut self, slot: Slot, dims: &[usize], start: usize, end: usize) {
        let Some(sub) = dims.get(start..end) else {
            return;
        };
        if self.bound & slot.bit() != 0 {
            let same = self
                .out
                .shape_of_slot(slot.index())
                .is_some_and(|shape| shape.dims() == sub);
            if !same {
                self.variadic_mismatch(slot, dims, start, end);
            }
        } else {
            self.set_shape(slot, Shape::new(sub), start, OriginKind::Field);
        }
    }
}

// Derived code reads the level its struct's checks start at once, with `level()`, and passes
// levels explicitly: a run of nested fields sets the depth once and names each field's level
// with one store of a value already in a register, with no read-modify-write of the depth from
// one field to the next (a chain of store-to-load forwards that cost more than the checks
// themselves).
impl ScopeChecks for Checker {
    #[inline(always)]
    fn level(&self) -> usize {
        self.depth
    }

    #[inline(always)]
    fn enter_at(&mut self, level: usize, segment: &'static Segment) {
        self.name_at(level, segment);
        self.depth = level + 1;
    }

    #[inline(always)]
    fn index_at(&mut self, level: usize, i: usize) {
        match self.index.get_mut(level) {
            Some(s) => *s = i,
            None => self.index_far(level, i),
        }
    }

    #[inline(always)]
    fn leave_to(&mut self, level: usize) {
        self.depth = level;
    }

    #[inline(always)]
    fn renames_at(&mut self, level: usize, renames: Renames) {
        self.drop_renames(level);
        self.renames.push((level, renames));
    }

    #[inline(always)]
    fn renames_end(&mut self, level: usize) {
        self.drop_renames(level);
    }

    #[inline(always)]
    fn name_at(&mut self, level: usize, segment: &'static Segment) {
        match self.near.get_mut(level) {
            Some(s) => *s = segment,
            None => self.enter_far(level, segment),
        }
    }

    /// Should the slot be unbound after all, a dim that differs from the sentinel still takes
    /// the cold path and binds it; only a dim of exactly `usize::MAX` would pass unbound.
    #[inline(always)]
    fn var_bound(&mut self, slot: Slot, d: usize, dims: &[usize], axis: usize) {
        if self.sizes[slot.index()] != d {
            self.bind_or_mismatch(slot, d, dims, axis);
        }
    }

    /// The field is recorded only when something is bound or wrong, in the cold paths: a
    /// store per tensor on the success path costs more than the comparisons.
    #[inline(always)]
    fn plain_tensor<const R: usize>(
        &mut self,
        field: &'static FieldInfo,
        dims: &[usize],
        slots: [Slot; R],
        known: [bool; R],
    ) {
        let Ok(a) = <&[usize; R]>::try_from(dims) else {
            return self.rank_mismatch_in(field, dims, R);
        };
        for axis in 0..R {
            let (slot, d) = (slots[axis], a[axis]);
            let same = self.sizes[slot.index()] == d;
            if !same || (!known[axis] && d == UNBOUND) {
                self.bind_or_mismatch_in(field, slot, d, dims, axis);
            }
        }
    }

    fn is_reporting(&self) -> bool {
        Checker::is_reporting(self)
    }

    fn absorb_isolated(&mut self, errors: Vec<ShapeError>) {
        self.absorb(errors);
    }
}
