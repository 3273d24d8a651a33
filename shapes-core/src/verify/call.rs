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
//! A [`CallScope`] runs the arguments' checks in passes (like `verify`, so the order of the
//! parameters does not matter), keeps the bindings while the function body runs, then checks the
//! return value against them. To report a mismatch of the return value, the arguments are gone
//! (moved into the body), so the bindings they made are replayed into the `Checker` with their
//! origins (parameter and axis), and the return check runs there. On success nothing is
//! allocated, hashed or looked up by name.

use smallvec::SmallVec;

use super::bindings::Bindings;
use super::checker::Checker;
use super::error::ShapeError;
use super::path::NO_FIELD;
use super::plan::{Eval, FieldInfo, SlotExpr};
use super::vars::{SlotMap, VarTable};

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

/// How a variable got its value, for replaying it into a [`Checker`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum How {
    /// A dim of a value: `dims[axis]`.
    Dim,
    /// Solved from an expression met at `axis`.
    Solved,
    /// A variadic covering `len` dims from `axis`.
    Variadic { len: usize },
}

/// One binding, in the order it was made.
#[derive(Clone, Copy)]
struct Bound {
    slot: u8,
    how: How,
    axis: usize,
    field: &'static FieldInfo,
}

/// What an unbound slot of `sizes` holds, so that checking a bound variable is one compare
/// (as in [`Checker::var_is`]); the bound bit tells a real `usize::MAX` apart.
const UNBOUND_SIZE: usize = usize::MAX;

const UNBOUND: Bound = Bound {
    slot: 0,
    how: How::Dim,
    axis: 0,
    field: &NO_FIELD,
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
    fn is_bound(&self, slot: usize) -> bool {
        slot < N && self.bound & (1u64 << (slot % 64)) != 0
    }

    #[inline(always)]
    fn value(&self, slot: usize) -> Option<usize> {
        if self.is_bound(slot) {
            self.sizes.get(slot).copied()
        } else {
            None
        }
    }

    #[inline(always)]
    fn record(&mut self, slot: usize, how: How, axis: usize) {
        self.bound |= 1u64 << (slot % 64);
        self.progress = true;
        if let Some(entry) = self.log.get_mut(self.logged) {
            // slot < N <= 64 fits in a u8.
            *entry = Bound {
                slot: slot as u8,
                how,
                axis,
                field: self.field,
            };
            self.logged += 1;
        }
    }

    #[inline(always)]
    fn set(&mut self, slot: usize, value: usize, how: How, axis: usize) {
        match self.sizes.get_mut(slot) {
            Some(s) => *s = value,
            // Generated code only uses slots of its own table; stay total all the same.
            None => {
                self.failed = true;
                return;
            }
        }
        self.record(slot, how, axis);
    }

    /// The item checks run next are about `info`'s value.
    #[inline(always)]
    pub fn field(&mut self, info: &'static FieldInfo) {
        self.field = info;
    }

    /// `dims` has exactly `expected` dims; the caller skips the value's items when not.
    #[inline(always)]
    pub fn rank(&mut self, dims: &[usize], expected: usize) -> bool {
        let ok = dims.len() == expected;
        self.fail_if(!ok);
        ok
    }

    /// `dims` has at least `min` dims (a pattern with a variadic).
    #[inline(always)]
    pub fn rank_at_least(&mut self, dims: &[usize], min: usize) -> bool {
        let ok = dims.len() >= min;
        self.fail_if(!ok);
        ok
    }

    /// A literal dim: `dims[axis]` must be `expected`.
    #[inline(always)]
    pub fn lit(&mut self, expected: usize, dims: &[usize], axis: usize) {
        self.fail_if(dims.get(axis) != Some(&expected));
    }

    /// A broadcastable literal `#3`: `dims[axis]` must be `expected` or 1.
    #[inline(always)]
    pub fn bcast_lit(&mut self, expected: usize, dims: &[usize], axis: usize) {
        self.fail_if(!matches!(dims.get(axis), Some(&d) if d == expected || d == 1));
    }

    /// A variable dim: binds `slot` to `dims[axis]`, or compares with its value.
    #[inline(always)]
    pub fn var(&mut self, slot: usize, dims: &[usize], axis: usize) {
        let Some(&d) = dims.get(axis) else { return };
        self.var_is(slot, d, dims, axis);
    }

    /// [`var`](Self::var) with the dim already read (`d == dims[axis]`): one load and one
    /// compare when the variable is bound to `d`.
    #[inline(always)]
    pub fn var_is(&mut self, slot: usize, d: usize, _dims: &[usize], axis: usize) {
        if self.sizes.get(slot) != Some(&d) {
            self.bind_or_mismatch(slot, d, axis);
        }
    }

    #[cold]
    #[inline(never)]
    fn bind_or_mismatch(&mut self, slot: usize, d: usize, axis: usize) {
        if self.is_bound(slot) {
            self.failed = true;
        } else {
            self.set(slot, d, How::Dim, axis);
        }
    }

    /// Checks that `dims` has exactly `R` dims and hands them back as an array (no bounds
    /// checks in the item checks that follow).
    #[inline(always)]
    pub fn rank_n<'d, const R: usize>(&mut self, dims: &'d [usize]) -> Option<&'d [usize; R]> {
        let a = <&[usize; R]>::try_from(dims).ok();
        if a.is_none() {
            self.failed = true;
        }
        a
    }

    /// A literal dim with the dim already read.
    #[inline(always)]
    pub fn lit_is(&mut self, expected: usize, d: usize, _dims: &[usize], _axis: usize) {
        self.fail_if(d != expected);
    }

    /// A broadcastable variable `#name`: a size of 1 is accepted and binds nothing.
    #[inline(always)]
    pub fn bcast_var(&mut self, slot: usize, dims: &[usize], axis: usize) {
        if dims.get(axis) != Some(&1) {
            self.var(slot, dims, axis);
        }
    }

    /// A dim given by an arithmetic expression; solved for its one unknown when invertible,
    /// otherwise left for a later pass.
    #[inline]
    pub fn expr(&mut self, expr: &'static SlotExpr, map: &SlotMap, dims: &[usize], axis: usize) {
        let Some(&target) = dims.get(axis) else {
            return;
        };
        let value = |v: u8| self.value(map.get(usize::from(v)));
        match expr.eval(&value) {
            Eval::Value(v) => self.fail_if(v != target),
            Eval::Failed(_) => self.failed = true,
            Eval::Unknown {
                occurrences: 1,
                distinct: true,
                ..
            } => match expr.solve(target, &value) {
                Ok(Some((local, solved))) => {
                    self.set(map.get(usize::from(local)), solved, How::Solved, axis);
                    let value = |v: u8| self.value(map.get(usize::from(v)));
                    let wrong = expr.eval(&value) != Eval::Value(target);
                    self.fail_if(wrong);
                }
                Ok(None) => self.pending += 1,
                Err(_) => self.failed = true,
            },
            Eval::Unknown { .. } => self.pending += 1,
        }
    }

    /// A variadic `*name` covering `dims[start..end]`.
    #[inline]
    pub fn variadic(&mut self, slot: usize, dims: &[usize], start: usize, end: usize) {
        let Some(sub) = dims.get(start..end) else {
            return;
        };
        if slot >= N {
            self.failed = true;
        } else if self.is_bound(slot) {
            let same = self.variadic_value(slot) == Some(sub);
            self.fail_if(!same);
        } else {
            let at = self.pool.len();
            self.pool.push(sub.len());
            self.pool.extend_from_slice(sub);
            if let Some(s) = self.sizes.get_mut(slot) {
                *s = at;
            }
            self.record(slot, How::Variadic { len: sub.len() }, start);
        }
    }

    /// The sub-shape a bound variadic holds.
    #[inline]
    fn variadic_value(&self, slot: usize) -> Option<&[usize]> {
        let at = *self.sizes.get(slot)?;
        let len = *self.pool.get(at)?;
        self.pool
            .get(at.checked_add(1)?..at.checked_add(1)?.checked_add(len)?)
    }

    /// Replays the first `count` bindings into `cx`, each with its parameter and axis, so that
    /// an error found there quotes where every value came from.
    fn replay(&self, count: usize, cx: &mut Checker, map: &SlotMap) {
        for b in self.log.iter().take(count.min(self.logged)) {
            let slot = usize::from(b.slot);
            cx.field(b.field);
            match b.how {
                How::Dim | How::Solved => {
                    let Some(value) = self.value(slot) else {
                        continue;
                    };
                    let mut dims = vec![0; b.axis.saturating_add(1)];
                    if let Some(d) = dims.last_mut() {
                        *d = value;
                    }
                    if b.how == How::Dim {
                        cx.var(slot, &dims, b.axis);
                    } else if let Some(var) = VAR_EXPRS.get(slot) {
                        // Solving `slot = dims[axis]` records the origin as solved.
                        cx.expr(var, map, &dims, b.axis);
                    }
                }
                How::Variadic { len } => {
                    let Some(sub) = self.variadic_value(slot) else {
                        continue;
                    };
                    let mut dims = vec![0; b.axis];
                    dims.extend_from_slice(sub);
                    cx.variadic(slot, &dims, b.axis, b.axis.saturating_add(len));
                }
            }
        }
    }
}

/// `SlotExpr::Var(i)` for every slot `i`, so a solved binding can be replayed as solved.
static VAR_EXPRS: [SlotExpr; super::vars::MAX_VARS] = {
    let mut out = [const { SlotExpr::Lit(0) }; super::vars::MAX_VARS];
    let mut i = 0;
    while i < out.len() {
        out[i] = SlotExpr::Var(i as u8); // ok: `i < out.len()` (the loop condition).
        i += 1;
    }
    out
};

/// The scope of one checked call with `N` shape variables: what the arguments bound, kept for
/// the return value.
///
/// ```
/// use shapes::__private::{CallScope, FieldInfo, SlotMap, VarTable};
/// use shapes::{HasShape, Shape};
///
/// static VARS: VarTable = VarTable::new().with("n");
/// static MAP: SlotMap = VARS.identity();
/// static X: FieldInfo = FieldInfo { name: "x", pattern: "(n,)" };
/// static RET: FieldInfo = FieldInfo { name: "return", pattern: "(n,)" };
/// // The checks of one value, written once for both checkers as generated code does.
/// macro_rules! checks {
///     ($value:expr, $info:expr) => {
///         |cx| {
///             let d = $value.shape();
///             cx.field(&$info);
///             if cx.rank(d, 1) {
///                 cx.var(0, d, 0);
///             }
///         }
///     };
/// }
/// let x = Shape::from([3]);
/// let mut scope = CallScope::<1>::new(&VARS, &MAP, "f");
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
    map: &'static SlotMap,
    function: &'static str,
}

impl<const N: usize> CallScope<N> {
    /// A scope for a call of `function` whose patterns use `table`'s variables (`map` is the
    /// table's identity map), nothing bound.
    #[inline]
    pub fn new(table: &'static VarTable, map: &'static SlotMap, function: &'static str) -> Self {
        CallScope {
            cx: CallCx::new(),
            table,
            map,
            function,
        }
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
        loop {
            self.cx.pending = 0;
            self.cx.progress = false;
            self.cx.field = &NO_FIELD;
            fast(&mut self.cx);
            if self.cx.failed {
                break;
            }
            if self.cx.pending == 0 {
                return Ok(());
            }
            if !self.cx.progress {
                break;
            }
        }
        self.report(before, &report)
    }

    /// Builds the error with the general checker: the earlier groups' bindings replayed, then
    /// this group's checks in passes, the last one reporting.
    #[cold]
    #[inline(never)]
    fn report(&mut self, replayed: usize, checks: &dyn Fn(&mut Checker)) -> Result<(), ShapeError> {
        REPORTS.with(|n| n.set(n.get().saturating_add(1)));
        let mut cx = Checker::new(self.table, self.function, &Bindings::new());
        cx.begin_pass(false);
        self.cx.replay(replayed, &mut cx, self.map);
        loop {
            cx.begin_pass(false);
            checks(&mut cx);
            if cx.is_clean() {
                // The general checker is the reference: it found nothing wrong.
                return Ok(());
            }
            if !cx.needs_another_pass() {
                break;
            }
        }
        cx.begin_pass(true);
        checks(&mut cx);
        let function = self.function;
        let error = cx.into_errors().into_iter().next().unwrap_or_else(|| {
            super::error::ShapeErrorDetails {
                path: super::path::FieldPath::new(function, &[]),
                axis: None,
                pattern: None,
                shape: None,
                kind: super::error::ShapeErrorKind::Source {
                    detail: "the shape check failed without a recorded error".into(),
                },
                provenance: Vec::new(),
                tensor: None,
            }
            .into()
        });
        Err(error)
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
/// let before = shapes::__private::call_reports();
/// assert_eq!(shapes::__private::call_reports(), before);
/// ```
pub fn call_reports() -> usize {
    REPORTS.with(|n| n.get())
}

/// The error a checked function returning `Result<_, E>` gives back on a shape mismatch.
///
/// ```
/// # use shapes::{FieldPath, ShapeError, ShapeErrorDetails, ShapeErrorKind};
/// # let e = ShapeError::from(ShapeErrorDetails { path: FieldPath::new("f", &[]), axis: None,
/// #     pattern: None, shape: None, kind: ShapeErrorKind::Missing { tensor: "w".into() },
/// #     provenance: vec![], tensor: None });
/// let boxed: Box<dyn std::error::Error> = shapes::__private::call_error(e);
/// assert!(boxed.to_string().contains("missing"));
/// ```
#[cold]
#[inline(never)]
pub fn call_error<E: From<ShapeError>>(error: ShapeError) -> E {
    E::from(error)
}

/// The panic of a checked function that cannot return an error: the full message.
///
/// ```should_panic
/// # use shapes::{FieldPath, ShapeError, ShapeErrorDetails, ShapeErrorKind};
/// # let e = ShapeError::from(ShapeErrorDetails { path: FieldPath::new("f", &[]), axis: None,
/// #     pattern: None, shape: None, kind: ShapeErrorKind::Missing { tensor: "w".into() },
/// #     provenance: vec![], tensor: None });
/// shapes::__private::call_panic(e);
/// ```
#[cold]
#[inline(never)]
pub fn call_panic(error: ShapeError) -> ! {
    // ok: the documented behaviour of a checked function that has no error type to return.
    panic!("{error}")
}
