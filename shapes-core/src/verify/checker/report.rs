//! How the [`Checker`] builds its errors: the cold paths, kept apart from the checks, and the
//! hooks `verify_source` and nested scopes use to add and adjust errors.

use smallvec::SmallVec;

use super::Checker;
use crate::expr::{CmpOp, Step};
use crate::shape::Shape;
use crate::verify::error::{Provenance, ShapeError, ShapeErrorDetails, ShapeErrorKind};
use crate::verify::path::{FieldPath, OriginKind, Segment};
use crate::verify::plan::SlotExpr;
use crate::verify::vars::{Slot, SlotMap};

impl Checker {
    pub(super) fn current_path(&self) -> FieldPath {
        let mut segments: SmallVec<[Segment; 6]> = self.levels().collect();
        if !self.field.name.is_empty() {
            segments.push(Segment::Field(self.field.name));
        }
        FieldPath::new(self.root, &segments)
    }

    pub(super) fn error(
        &self,
        axis: Option<usize>,
        dims: Option<&[usize]>,
        kind: ShapeErrorKind,
        provenance: Vec<Provenance>,
    ) -> ShapeError {
        let pattern = (!self.field.pattern.is_empty()).then(|| self.renamed(self.field.pattern));
        ShapeErrorDetails {
            path: self.current_path(),
            axis,
            pattern,
            shape: dims.map(Shape::new),
            kind,
            provenance,
            tensor: None,
            declared_at: self.field.place.is_known().then_some(self.field.place),
        }
        .into()
    }

    /// `pattern` (written in the names of the struct that declares it) in this scope's names:
    /// the renames of the nested fields entered, innermost first.
    pub(super) fn renamed(&self, pattern: &'static str) -> std::borrow::Cow<'static, str> {
        if self.renames.is_empty() {
            return pattern.into();
        }
        let rename = |word: &str| -> String {
            let mut name = word;
            for (_, pairs) in self.renames.iter().rev() {
                if let Some((_, outer)) = pairs.iter().find(|(inner, _)| *inner == name) {
                    name = outer;
                }
            }
            name.to_owned()
        };
        let mut out = String::with_capacity(pattern.len());
        let mut word = String::new();
        for c in pattern.chars() {
            if c.is_alphanumeric() || c == '_' {
                word.push(c);
            } else {
                out.push_str(&rename(&word));
                word.clear();
                out.push(c);
            }
        }
        out.push_str(&rename(&word));
        out.into()
    }

    /// Records that a description read from values in memory has a node that is read by
    /// name only (`what` names it): an error, not a check that silently does not run.
    #[cold]
    pub(crate) fn not_in_memory(&mut self, what: &str) {
        self.push(|cx| {
            cx.error(
                None,
                None,
                ShapeErrorKind::Source {
                    detail: format!(
                        "`{what}` is checked by name in a checkpoint, not against a value in memory"
                    ),
                },
                Vec::new(),
            )
        });
    }

    /// Records an error; in a quiet pass only notes that one exists.
    pub(super) fn push(&mut self, make: impl FnOnce(&Self) -> ShapeError) {
        self.failed = true;
        if self.report {
            let e = make(self);
            self.errors.push(e);
        }
    }

    pub(super) fn provenance(&self, slots: impl IntoIterator<Item = Slot>) -> Vec<Provenance> {
        let mut provenance: Vec<Provenance> = slots
            .into_iter()
            .filter_map(|slot| {
                let origin = self.origin_of(slot)?;
                let value = match self.out.shape_of_slot(slot.index()) {
                    Some(shape) => shape.to_string(),
                    None => self.sizes[slot.index()].to_string(),
                };
                Some(Provenance {
                    name: self.table.name(slot.index()).to_owned(),
                    value,
                    origin,
                })
            })
            .collect();
        // A filtered `collect` starts at room for 4; a million recorded errors keep theirs.
        provenance.shrink_to_fit();
        provenance
    }

    #[cold]
    #[inline(never)]
    pub(super) fn rank_mismatch(&mut self, dims: &[usize], expected: usize, at_least: bool) {
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
    pub(super) fn lit_mismatch(&mut self, expected: usize, dims: &[usize], axis: usize) {
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
    pub(super) fn var_mismatch(&mut self, slot: Slot, dims: &[usize], axis: usize) {
        self.push(|cx| {
            let value = cx.sizes[slot.index()];
            cx.error(
                Some(axis),
                Some(dims),
                ShapeErrorKind::Dim {
                    expected: format!("{} = {value}", cx.table.name(slot.index())),
                    value,
                },
                cx.provenance([slot]),
            )
        });
    }

    #[cold]
    #[inline(never)]
    pub(super) fn variadic_mismatch(
        &mut self,
        slot: Slot,
        dims: &[usize],
        start: usize,
        end: usize,
    ) {
        self.push(|cx| {
            let expected = cx
                .out
                .shape_of_slot(slot.index())
                .cloned()
                .unwrap_or_default();
            cx.error(
                Some(start),
                Some(dims),
                ShapeErrorKind::Variadic {
                    name: cx.table.name(slot.index()).to_owned(),
                    expected,
                    found: dims.get(start..end).map(Shape::new).unwrap_or_default(),
                },
                cx.provenance([slot]),
            )
        });
    }

    #[cold]
    #[inline(never)]
    pub(super) fn no_whole_solution(
        &mut self,
        expr: &SlotExpr,
        map: &SlotMap,
        target: usize,
        step: Step,
        at: Option<(&[usize], usize)>,
    ) {
        self.push(|cx| {
            let mut text = String::new();
            expr.write(&mut text, &|v| cx.leaf_name(map, v));
            let detail = format!("{text} = {target} has no whole solution ({step})");
            // Where each variable already known was bound: the other side of the conflict.
            let known = cx.provenance(cx.expr_slots(&[expr], map));
            cx.error(
                at.map(|(_, a)| a),
                at.map(|(d, _)| d),
                ShapeErrorKind::Arithmetic { detail },
                known,
            )
        });
    }

    pub(super) fn leaf_name(&self, map: &SlotMap, local: u8) -> String {
        self.table
            .name(map.get(usize::from(local)).index())
            .to_owned()
    }

    pub(super) fn leaf_value(&self, map: &SlotMap, local: u8) -> String {
        match self.value(map.get(usize::from(local))) {
            Some(v) => v.to_string(),
            None => self.leaf_name(map, local),
        }
    }

    /// `heads * head_dim = 12 * 64 = 768`
    pub(super) fn describe(&self, expr: &SlotExpr, map: &SlotMap, value: usize) -> String {
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

    pub(super) fn expr_slots(&self, exprs: &[&SlotExpr], map: &SlotMap) -> Vec<Slot> {
        let mut locals = Vec::new();
        for e in exprs {
            e.vars(&mut locals);
        }
        let mut slots: Vec<Slot> = locals.iter().map(|&l| map.get(usize::from(l))).collect();
        slots.dedup();
        slots
    }

    #[cold]
    #[inline(never)]
    pub(super) fn expr_mismatch(
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
    pub(super) fn where_mismatch(
        &mut self,
        lhs: &SlotExpr,
        rhs: &SlotExpr,
        map: &SlotMap,
        a: usize,
        b: usize,
    ) {
        self.push(|cx| {
            // `heads % kv_heads = 9 % 2 = 1, not 0` when one side is a number.
            let detail = match (lhs, rhs) {
                (_, SlotExpr::Lit(_)) => format!("{}, not {b}", cx.describe(lhs, map, a)),
                (SlotExpr::Lit(_), _) => format!("{}, not {a}", cx.describe(rhs, map, b)),
                _ => format!(
                    "{} but {}",
                    cx.describe(lhs, map, a),
                    cx.describe(rhs, map, b)
                ),
            };
            let prov = cx.provenance(cx.expr_slots(&[lhs, rhs], map));
            cx.error(None, None, ShapeErrorKind::Where { detail }, prov)
        });
    }

    /// `head_dim <= 256 does not hold: head_dim = 512`.
    #[cold]
    #[inline(never)]
    pub(super) fn where_violated(
        &mut self,
        op: CmpOp,
        lhs: &SlotExpr,
        rhs: &SlotExpr,
        map: &SlotMap,
        a: usize,
        b: usize,
    ) {
        self.push(|cx| {
            let (mut l, mut r) = (String::new(), String::new());
            lhs.write(&mut l, &|v| cx.leaf_name(map, v));
            rhs.write(&mut r, &|v| cx.leaf_name(map, v));
            let sym = op.symbol(true);
            let values: Vec<String> = [(lhs, a), (rhs, b)]
                .into_iter()
                .filter(|(e, _)| !matches!(e, SlotExpr::Lit(_)))
                .map(|(e, v)| cx.describe(e, map, v))
                .collect();
            let detail = format!("{l} {sym} {r} does not hold: {}", values.join(", "));
            let prov = cx.provenance(cx.expr_slots(&[lhs, rhs], map));
            cx.error(None, None, ShapeErrorKind::Where { detail }, prov)
        });
    }

    /// `a % b = 0 cannot be checked: 3 is taken modulo zero`: a `where` comparison whose
    /// arithmetic fails once its variables are bound, named as written, with where each of
    /// its variables was bound.
    #[cold]
    #[inline(never)]
    pub(super) fn where_failed(
        &mut self,
        op: CmpOp,
        lhs: &SlotExpr,
        rhs: &SlotExpr,
        map: &SlotMap,
        step: Step,
    ) {
        self.push(|cx| {
            let (mut l, mut r) = (String::new(), String::new());
            lhs.write(&mut l, &|v| cx.leaf_name(map, v));
            rhs.write(&mut r, &|v| cx.leaf_name(map, v));
            let sym = op.symbol(true);
            let detail = format!("{l} {sym} {r} cannot be checked: {step}");
            let prov = cx.provenance(cx.expr_slots(&[lhs, rhs], map));
            cx.error(None, None, ShapeErrorKind::Where { detail }, prov)
        });
    }

    #[cold]
    #[inline(never)]
    pub(super) fn arith_failure(
        &mut self,
        detail: String,
        dims: Option<&[usize]>,
        axis: Option<usize>,
    ) {
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
    pub(super) fn unsolved(
        &mut self,
        exprs: &[&SlotExpr],
        op: &str,
        map: &SlotMap,
        dims: Option<&[usize]>,
        axis: Option<usize>,
    ) {
        self.push(|cx| {
            let slots = cx.expr_slots(exprs, map);
            let unknown = slots
                .iter()
                .filter(|&&s| cx.value(s).is_none())
                .map(|&s| cx.table.name(s.index()).to_owned())
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
                    expr: texts.join(&format!(" {op} ")),
                    unknown,
                },
                Vec::new(),
            )
        });
    }
}

// ----- hooks for checkpoint sources (`verify_source`, in source.rs) -----
impl Checker {
    /// Whether this pass records errors (the final pass) or only notes that one exists.
    pub(crate) fn is_reporting(&self) -> bool {
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

    /// Binds a list's element count `n` (`count = "…"`) to `slot`; when `slot` already has
    /// another value, the list under `prefix` has the wrong number of elements.
    pub(crate) fn count(&mut self, slot: Slot, n: usize, prefix: &str) {
        match self.value(slot) {
            Some(v) if v != n => self.push(|cx| {
                cx.error(
                    None,
                    None,
                    ShapeErrorKind::Count {
                        prefix: prefix.to_owned(),
                        expected: v,
                        at_least: false,
                        variable: Some(cx.table.name(slot.index()).to_owned()),
                        found: n,
                        suggestion: None,
                    },
                    cx.provenance([slot]),
                )
            }),
            Some(_) => {}
            None => self.set(slot, n, 0, OriginKind::Field),
        }
    }

    /// Folds the errors of a nested scope checked on its own into this checker's, under the
    /// current path.
    pub(crate) fn absorb(&mut self, errors: Vec<ShapeError>) {
        self.failed = true;
        if self.report {
            // The levels only: the nested field is the innermost level, and the field info
            // still names the tensor checked before it.
            let prefix: Vec<Segment> = self.levels().collect();
            for mut e in errors {
                let mut segments = prefix.clone();
                segments.extend_from_slice(e.path.segments());
                e.path = FieldPath::new(self.root, &segments);
                self.errors.push(e);
            }
        }
    }
}

/// Replaces each run of errors about one tensor's dims, when the shape its pattern wants is the
/// tensor's shape reversed, with one error that says so: a transposed weight is one mistake,
/// not one per axis.
pub(super) fn fold_transposed(errors: &mut Vec<ShapeError>) {
    let all = std::mem::take(errors);
    let mut run: Vec<ShapeError> = Vec::new();
    for e in all {
        let same = run.first().is_some_and(|f| {
            f.shape.is_some() && e.shape == f.shape && e.path == f.path && e.tensor == f.tensor
        });
        if !same && !run.is_empty() {
            errors.extend(transposed(std::mem::take(&mut run)));
        }
        run.push(e);
    }
    errors.extend(transposed(run));
}

/// `run`, errors about one tensor, as one `Transposed` error when it says that, else as is.
fn transposed(run: Vec<ShapeError>) -> Vec<ShapeError> {
    let Some(first) = run.first() else {
        return run;
    };
    let Some(shape) = first.shape.clone() else {
        return run;
    };
    if run.len() < 2 || shape.rank() < 2 {
        return run;
    }
    // The wanted shape: the found one with each reported axis set to its expected size.
    let mut wanted: Vec<usize> = shape.dims().to_vec();
    for e in &run {
        let expected = match e.kind {
            ShapeErrorKind::Dim { value, .. } => value,
            ShapeErrorKind::Literal { expected } => expected,
            _ => return run,
        };
        match e.axis.and_then(|a| wanted.get_mut(a)) {
            Some(w) => *w = expected,
            None => return run,
        }
    }
    let reversed: Vec<usize> = shape.dims().iter().rev().copied().collect();
    if wanted != reversed {
        return run;
    }
    let mut provenance: Vec<Provenance> = Vec::new();
    for e in &run {
        for p in &e.provenance {
            if !provenance.contains(p) {
                provenance.push(p.clone());
            }
        }
    }
    let mut folded = first.clone();
    folded.axis = None;
    folded.kind = ShapeErrorKind::Transposed {
        expected: Shape::new(&wanted),
    };
    folded.provenance = provenance;
    vec![folded]
}
