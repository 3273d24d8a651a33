//! The runtime of `#[shapes::check]`: one function call checked in one scope.
//!
//! The macro compiles each parameter's pattern into the same straight-line item checks as
//! `#[derive(Shaped)]` (`rank`, `var`, `lit`, `expr`, `variadic`, …), with variables as slot
//! indices fixed at compile time, and emits them twice:
//!
//! - against [`CallCx`], a checker sized for this one function (`N` variables, no paths, no
//!   error building): the success path, a few comparisons per dim and one store per binding;
//! - against the general [`Checker`], run only when `CallCx` has found a mismatch, to build the
//!   error with the exact message, provenance and wording of `verify()`.
//!
//! Both implement [`ItemChecks`], the one contract the generated checks are written against.
//!
//! A [`CallScope`] runs the arguments' checks in passes (like `verify`, so the order of the
//! parameters does not matter; driven by the one pass loop, [`Passes::passes`]), keeps the
//! bindings while the function body runs, then checks the return value against them. To report
//! a mismatch of the return value, the arguments are gone (moved into the body), so the
//! bindings they made are recorded into the `Checker` with their origins (parameter and axis),
//! and the return check runs there. On success nothing is allocated, hashed or looked up by
//! name.

use smallvec::SmallVec;

use super::binders::Binder;
use super::bindings::{Bindings, Value};
use super::checker::{Checker, Passes};
use super::error::ShapeError;
use super::item_checks::ItemChecks;
use super::path::{NO_FIELD, OriginKind};
use super::plan::{Eval, FieldInfo, Outcome, SlotExpr};
use super::vars::{Slot, SlotMap, VarTable};
use crate::expr::CmpOp;
use crate::shape::Shape;

/// Whether `#[shapes::check]` functions check anything: `false` when the build sets
/// `--cfg shapes_no_checks` (e.g. `RUSTFLAGS="--cfg shapes_no_checks" cargo build --release`).
/// A cfg rather than a cargo feature, because turning checks off is not additive: a feature
/// would be switched on for everyone by `--all-features` or by any one dependent crate. The generated code tests this constant, so turning it off leaves no trace in optimized
/// code (the functions still type-check: the patterns and `HasShape` bounds stay verified).
///
/// ```
/// // What generated code does with it:
/// if shapes::__private::CHECKS {
///     // ... the checks ...
/// }
/// ```
pub const CHECKS: bool = !cfg!(shapes_no_checks);

/// How a variable got its value, for recording it into a [`Checker`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum How {
    /// A dim of a value: `dims[axis]`. (First, so that an unused log entry is all zeros.)
    Dim,
    /// Solved from an expression met at `axis`.
    Solved,
    /// A variadic whose dims start at `axis`.
    Variadic,
}

/// One binding, in the order it was made.
#[derive(Clone, Copy)]
struct Bound {
    slot: Slot,
    how: How,
    axis: usize,
    /// `None` only in an entry not written yet: so that the log starts as zeros, a few
    /// stores per call.
    field: Option<&'static FieldInfo>,
}

/// What an unbound slot of `sizes` holds, so that checking a bound variable is one compare
/// (as in [`Checker::var_is`]); the bound bit tells a real `usize::MAX` apart.
const UNBOUND_SIZE: usize = usize::MAX;

const UNBOUND: Bound = Bound {
    slot: Slot::new(0),
    how: How::Dim,
    axis: 0,
    field: None,
};

/// The success-path checker of a function with `N` shape variables (at most 64).
///
/// It has the item checks of [`Checker`] with the same meaning, but only records values and
/// where each was bound; a mismatch sets a flag, and the [`CallScope`] then builds the error
/// with a `Checker`.
pub struct CallCx<const N: usize> {
    sizes: [usize; N],
    bound: u64,
    log: [Bound; N],
    logged: usize,
    /// Variadic values: at `sizes[slot]`, the length then the dims (inline up to 8 in all).
    pool: SmallVec<[usize; 8]>,
    field: &'static FieldInfo,
    pending: u32,
    progress: bool,
    failed: bool,
}

impl<const N: usize> CallCx<N> {
    #[inline(always)]
    fn new() -> Self {
        CallCx {
            sizes: [UNBOUND_SIZE; N],
            bound: 0,
            log: [UNBOUND; N],
            logged: 0,
            pool: SmallVec::new(),
            field: &NO_FIELD,
            pending: 0,
            progress: false,
            failed: false,
        }
    }

    /// Notes a mismatch. Written as a branch, not `failed |= cond`: rustc 1.92–1.97 miscompile
    /// an inlined `bool |=` / `&=` followed by a branch on the same condition at `-O`
    /// (rust-lang/rust#150904); with `|=`, a passing call was reported as failing.
    #[inline(always)]
    fn fail_if(&mut self, cond: bool) {
        if cond {
            self.failed = true;
        }
    }

    #[inline(always)]
    fn is_bound(&self, slot: Slot) -> bool {
        self.bound & slot.bit() != 0
    }

    #[inline(always)]
    fn value(&self, slot: Slot) -> Option<usize> {
        if self.is_bound(slot) {
            self.sizes.get(slot.index()).copied()
        } else {
            None
        }
    }

    #[inline(always)]
    fn log(&mut self, slot: Slot, how: How, axis: usize) {
        self.bound |= slot.bit();
        self.progress = true;
        if let Some(entry) = self.log.get_mut(self.logged) {
            *entry = Bound {
                slot,
                how,
                axis,
                field: Some(self.field),
            };
            self.logged += 1;
        }
    }

    #[inline(always)]
    fn set(&mut self, slot: Slot, value: usize, how: How, axis: usize) {
        match self.sizes.get_mut(slot.index()) {
            Some(s) => *s = value,
            // A slot of another scope's table: a bug in generated code, which the general
            // checker then reports instead of this one passing it.
            None => {
                debug_assert!(
                    false,
                    "shapes: slot {} is out of this call's scope",
                    slot.index()
                );
                self.failed = true;
                return;
            }
        }
        self.log(slot, how, axis);
    }

    /// The sub-shape a bound variadic holds.
    #[inline]
    fn variadic_value(&self, slot: Slot) -> Option<&[usize]> {
        let at = *self.sizes.get(slot.index())?;
        let len = *self.pool.get(at)?;
        self.pool
            .get(at.checked_add(1)?..at.checked_add(1)?.checked_add(len)?)
    }

    /// Records the first `count` bindings into `cx`, each with its parameter and axis, so that
    /// an error found there quotes where every value came from.
    fn record_into(&self, count: usize, cx: &mut Checker) {
        for b in self.log.iter().take(count.min(self.logged)) {
            let value = match b.how {
                How::Dim | How::Solved => self.value(b.slot).map(Value::Size),
                How::Variadic => self
                    .variadic_value(b.slot)
                    .map(|d| Value::Shape(Shape::new(d))),
            };
            let kind = match b.how {
                How::Solved => OriginKind::Solved,
                How::Dim | How::Variadic => OriginKind::Field,
            };
            if let Some(value) = value {
                cx.record(b.slot, value, b.field.unwrap_or(&NO_FIELD), b.axis, kind);
            }
        }
    }
}

/// Driven by the one pass loop, [`Passes::passes`]. A mismatch ends the passes: the call only
/// asks this checker for the verdict, the general [`Checker`] builds the error.
impl<const N: usize> Passes for CallCx<N> {
    #[inline(always)]
    fn begin_quiet_pass(&mut self) {
        self.pending = 0;
        self.progress = false;
        self.field = &NO_FIELD;
    }

    #[inline(always)]
    fn is_clean(&self) -> bool {
        !self.failed && self.pending == 0
    }

    #[inline(always)]
    fn needs_another_pass(&self) -> bool {
        !self.failed && self.pending > 0 && self.progress
    }
}

impl<const N: usize> CallCx<N> {
    /// Binds `slot` to a value read from a struct before the checks run (see
    /// [`CallScope::bind_struct`]): not logged, the scope records its origin itself.
    #[inline(always)]
    fn preset(&mut self, slot: Slot, value: usize) {
        if let Some(s) = self.sizes.get_mut(slot.index()) {
            *s = value;
            self.bound |= slot.bit();
        }
    }

    /// `expr = target` for a `where` equation: what [`expr`](ItemChecks::expr) does for a dim.
    #[inline]
    fn equation(&mut self, expr: &'static SlotExpr, map: &SlotMap, target: usize) {
        let value = |v: u8| self.value(map.get(usize::from(v)));
        match expr.step(target, &value) {
            Outcome::Holds => {}
            Outcome::Bind { local, value } => {
                self.set(map.get(usize::from(local)), value, How::Solved, 0)
            }
            Outcome::Wait => self.pending += 1,
            Outcome::Differs(_) | Outcome::Fails(_) | Outcome::NoWholeSolution(_) => {
                self.failed = true
            }
        }
    }
}

impl<const N: usize> ItemChecks for CallCx<N> {
    #[inline]
    fn where_eq(&mut self, lhs: &'static SlotExpr, rhs: &'static SlotExpr, map: &SlotMap) {
        self.field = &NO_FIELD;
        let value = |v: u8| self.value(map.get(usize::from(v)));
        match (lhs.eval(&value), rhs.eval(&value)) {
            (Eval::Value(a), Eval::Value(b)) => self.fail_if(a != b),
            (Eval::Value(a), _) => self.equation(rhs, map, a),
            (_, Eval::Value(b)) => self.equation(lhs, map, b),
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
    ) {
        let value = |v: u8| self.value(map.get(usize::from(v)));
        match (lhs.eval(&value), rhs.eval(&value)) {
            (Eval::Value(a), Eval::Value(b)) => self.fail_if(!op.holds(a, b)),
            (Eval::Failed(_), _) | (_, Eval::Failed(_)) => self.failed = true,
            _ => self.pending += 1,
        }
    }

    #[inline(always)]
    fn field(&mut self, info: &'static FieldInfo) {
        self.field = info;
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
        if a.is_none() {
            self.failed = true;
        }
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

    /// One load and one compare when the variable is bound to `d`; a few stores when it binds
    /// it, which a call does for every variable it has, so that is kept inline too.
    #[inline(always)]
    fn var_is(&mut self, slot: Slot, d: usize, _: &[usize], axis: usize) {
        if self.sizes.get(slot.index()) != Some(&d) {
            if self.is_bound(slot) {
                self.failed = true;
            } else {
                self.set(slot, d, How::Dim, axis);
            }
        }
    }

    #[inline]
    fn expr(&mut self, expr: &'static SlotExpr, map: &SlotMap, dims: &[usize], axis: usize) {
        let Some(&target) = dims.get(axis) else {
            return;
        };
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
        if slot.index() >= N {
            self.failed = true;
        } else if self.is_bound(slot) {
            let same = self.variadic_value(slot) == Some(sub);
            self.fail_if(!same);
        } else {
            let at = self.pool.len();
            self.pool.push(sub.len());
            self.pool.extend_from_slice(sub);
            if let Some(s) = self.sizes.get_mut(slot.index()) {
                *s = at;
            }
            self.log(slot, How::Variadic, start);
        }
    }
}

/// The scope of one checked call with `N` shape variables: what the arguments bound, kept for
/// the return value.
///
/// ```
/// use shapes::__private::{CallScope, FieldInfo, ItemChecks, Slot, VarTable};
/// use shapes::{Shape, verify::HasShape};
///
/// static VARS: VarTable = VarTable::new().with("n");
/// static X: FieldInfo = FieldInfo { name: "x", pattern: "(n,)" };
/// static RET: FieldInfo = FieldInfo { name: "return", pattern: "(n,)" };
/// // The checks of one value, written once for both checkers as generated code does.
/// macro_rules! checks {
///     ($value:expr, $info:expr) => {
///         |cx| {
///             let d = $value.shape();
///             cx.field(&$info);
///             if cx.rank(d, 1) {
///                 cx.var(Slot::new(0), d, 0);
///             }
///         }
///     };
/// }
/// let x = Shape::from([3]);
/// let mut scope = CallScope::<1>::new(&VARS, "f");
/// assert!(scope.check(checks!(x, X), checks!(x, X)).is_ok());
/// // The return value is checked against what the arguments bound: n = 3.
/// let ret = Shape::from([4]);
/// let err = scope.check(checks!(ret, RET), checks!(ret, RET)).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "f.return: axis 0 expected n = 3, found 4\n  n = 3 bound by f.x axis 0\n  shape is (4,), pattern (n,)"
/// );
/// ```
pub struct CallScope<const N: usize> {
    cx: CallCx<N>,
    table: &'static VarTable,
    function: &'static str,
    /// With `#[shapes::check(self)]`: the struct's name and, by slot, the binder each
    /// variable read from it came from.
    from_struct: Option<(&'static str, &'static [Option<&'static Binder>; N])>,
}

impl<const N: usize> CallScope<N> {
    /// A scope for a call of `function` whose patterns use `table`'s variables, nothing bound.
    #[inline(always)]
    pub fn new(table: &'static VarTable, function: &'static str) -> Self {
        CallScope {
            cx: CallCx::new(),
            table,
            function,
            from_struct: None,
        }
    }

    /// Declares that the variables `binders` has an entry for are read from a struct called
    /// `root` (`#[shapes::check(self)]`), before [`bind_struct`](Self::bind_struct) binds them.
    #[inline(always)]
    pub fn from_struct(
        &mut self,
        root: &'static str,
        binders: &'static [Option<&'static Binder>; N],
    ) {
        self.from_struct = Some((root, binders));
    }

    /// Binds `slot` to `value`, read from the struct through its binder (declared with
    /// [`from_struct`](Self::from_struct)), before the arguments are checked: they are then
    /// compared with it, and an error says where in the struct it was bound.
    #[inline(always)]
    pub fn bind_struct(&mut self, slot: Slot, value: usize) {
        self.cx.preset(slot, value);
    }

    /// The values read from the struct, with their binders as origins, for the reporting
    /// checker.
    fn struct_bindings(&self) -> Bindings {
        let mut pre = Bindings::new();
        if let Some((root, binders)) = self.from_struct {
            for (slot, b) in binders.iter().enumerate() {
                if let (Some(b), Some(value)) = (b, self.cx.value(Slot::new(slot))) {
                    pre = pre.bind_from(self.table.name(slot), value, b.origin(root));
                }
            }
        }
        pre
    }

    /// Runs a group of checks (the parameters, or the return value) in passes until every
    /// equation is settled. `fast` and `report` are the same checks against the two checkers;
    /// `report` only runs after a mismatch, to build the error. Bindings made here stay for
    /// the next group.
    #[inline]
    pub fn check(
        &mut self,
        fast: impl Fn(&mut CallCx<N>),
        report: impl Fn(&mut Checker),
    ) -> Result<(), ShapeError> {
        let before = self.cx.logged;
        if self.cx.passes(fast) {
            return Ok(());
        }
        self.report(before, &report)
    }

    /// Builds the error with the general checker: the earlier groups' bindings recorded, then
    /// this group's checks driven like every other verification.
    #[cold]
    #[inline(never)]
    fn report(&mut self, recorded: usize, checks: &dyn Fn(&mut Checker)) -> Result<(), ShapeError> {
        REPORTS.with(|n| n.set(n.get().saturating_add(1)));
        let mut cx = Checker::new(self.table, self.function, &self.struct_bindings());
        self.cx.record_into(recorded, &mut cx);
        // The general checker is the reference: when it finds nothing wrong, the call passes.
        match cx.run(true, checks) {
            Ok(_) => Ok(()),
            Err(errors) => Err(errors
                .into_iter()
                .next()
                .unwrap_or_else(|| ShapeError::unrecorded(self.function))),
        }
    }
}

thread_local! {
    static REPORTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many times, on this thread, a checked call left the fast path to build an error. Lets
/// tests verify that passing calls never take the slow path (a fast checker that wrongly flags
/// a mismatch would otherwise go unnoticed: the general checker then finds nothing and the
/// call passes, only slower).
///
/// ```
/// let before = shapes::__testing::call_reports();
/// assert_eq!(shapes::__testing::call_reports(), before);
/// ```
pub fn call_reports() -> usize {
    REPORTS.with(|n| n.get())
}

/// The error a checked function returning `Result<_, E>` gives back on a shape mismatch.
///
/// ```
/// # use shapes::{ShapeError, ShapeErrorKind, verify::{FieldPath, ShapeErrorDetails}};
/// # let e = ShapeError::from(ShapeErrorDetails { path: FieldPath::new("f", &[]), axis: None,
/// #     pattern: None, shape: None, kind: ShapeErrorKind::Missing { tensor: "w".into(), suggestion: None },
/// #     provenance: vec![], tensor: None });
/// let boxed: Box<dyn std::error::Error> = shapes::__private::call_error(e);
/// assert!(boxed.to_string().contains("missing"));
/// ```
#[cold]
#[inline(never)]
pub fn call_error<E: From<ShapeError>>(error: ShapeError) -> E {
    E::from(error)
}

/// The panic of a checked function that cannot return an error: the full message. It tracks
/// its caller, and `#[shapes::check]` marks the functions it generates `#[track_caller]`, so
/// the panic names the line that called the checked function.
///
/// ```should_panic
/// # use shapes::{ShapeError, ShapeErrorKind, verify::{FieldPath, ShapeErrorDetails}};
/// # let e = ShapeError::from(ShapeErrorDetails { path: FieldPath::new("f", &[]), axis: None,
/// #     pattern: None, shape: None, kind: ShapeErrorKind::Missing { tensor: "w".into(), suggestion: None },
/// #     provenance: vec![], tensor: None });
/// shapes::__private::call_panic(e);
/// ```
#[cold]
#[inline(never)]
#[track_caller]
pub fn call_panic(error: ShapeError) -> ! {
    // ok: the documented behaviour of a checked function that has no error type to return.
    panic!("{error}")
}
