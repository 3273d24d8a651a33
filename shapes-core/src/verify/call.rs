//! The runtime of `#[shapes::check]`: one function call checked in one scope.
//!
//! The macro describes each group of checks (the parameters, then the return value) once, as a
//! [`Description`] whose nodes are the values' patterns (each a [`Node::Tensor`] named after
//! its parameter) and whose relations are the `where` clauses, and uses it twice:
//!
//! - compiled into the same straight-line item checks as `#[derive(Shaped)]` (`rank`, `var`,
//!   `lit`, `expr`, `variadic`, …), with variables as slot indices fixed at compile time, run
//!   against [`CallCx`], the fast checker ([`FastCx`](super::FastCx)) sized for this one
//!   function (`N` variables, no paths, no error building): the success path, a few
//!   comparisons per dim and one store per binding;
//! - as data, read by the one interpreter with the general [`Checker`] on the values' shapes,
//!   only when `CallCx` has found a mismatch, to build the error with the exact message,
//!   provenance and wording of `verify()`.
//!
//! A [`CallScope`] runs the arguments' checks in passes (like `verify`, so the order of the
//! parameters does not matter; driven by the one pass loop, [`Passes::passes`]), keeps the
//! bindings while the function body runs, then checks the return value against them. To report
//! a mismatch of the return value, the arguments are gone (moved into the body), so the
//! bindings they made are recorded into the `Checker` with their origins (parameter and axis),
//! and the return value's description is interpreted there. On success nothing is allocated,
//! hashed or looked up by name.
//!
//! [`Node::Tensor`]: super::Node::Tensor

use super::binders::Binder;
use super::bindings::{Bindings, Value};
use super::checker::{Checker, Passes};
use super::description::Description;
use super::error::ShapeError;
use super::fast::{CallCx, How};
use super::interpret::run_values;
use super::path::OriginKind;
use super::vars::{Slot, VarTable};
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

/// Records the first `count` bindings `cx` made into `into`, each with its parameter and
/// axis, so that an error found there quotes where every value came from.
fn record_into<const N: usize>(cx: &CallCx<N>, count: usize, into: &mut Checker) {
    for b in cx.journal().entries().iter().take(count) {
        let value = match b.how {
            How::Dim | How::Solved => cx.value(b.slot).map(Value::Size),
            How::Variadic => cx
                .variadic_value(b.slot)
                .map(|d| Value::Shape(Shape::new(d))),
        };
        let kind = match b.how {
            How::Solved => OriginKind::Solved,
            How::Dim | How::Variadic => OriginKind::Field,
        };
        if let Some(value) = value {
            into.record(b.slot, value, b.field, b.axis, kind);
        }
    }
}

/// The scope of one checked call with `N` shape variables: what the arguments bound, kept for
/// the return value.
///
/// ```
/// use shapes::__private::{
///     CallScope, Checks, Description, FieldInfo, ItemChecks, ItemOp, Node, Slot, VarTable,
/// };
/// use shapes::{Shape, verify::HasShape};
///
/// static VARS: VarTable = VarTable::new().with("n");
/// static X: FieldInfo = FieldInfo { name: "x", pattern: "(n,)", place: shapes::verify::Place::UNKNOWN };
/// static RET: FieldInfo = FieldInfo { name: "return", pattern: "(n,)", place: shapes::verify::Place::UNKNOWN };
/// // Each group described once, as generated code does: its compiled checks use the same
/// // `FieldInfo` and slots as the description the error is built from.
/// static X_NODE: [Node; 1] =
///     [Node::Tensor { name: "x", checks: Checks { info: &X, ops: &[ItemOp::Var(0)], rest: None } }];
/// static RET_NODE: [Node; 1] =
///     [Node::Tensor { name: "return", checks: Checks { info: &RET, ops: &[ItemOp::Var(0)], rest: None } }];
/// static ARGS: Description = Description::new(&X_NODE, &[]);
/// static RETURN: Description = Description::new(&RET_NODE, &[]);
/// macro_rules! compiled {
///     ($value:expr, $info:expr) => {
///         |cx: &mut shapes::__private::CallCx<1>| {
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
/// assert!(scope.check(compiled!(x, X), &ARGS, |sink| sink(Some(x.dims()))).is_ok());
/// // The return value is checked against what the arguments bound: n = 3.
/// let ret = Shape::from([4]);
/// let err = scope.check(compiled!(ret, RET), &RETURN, |sink| sink(Some(ret.dims()))).unwrap_err();
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
    /// equation is settled. `fast` is the group's description compiled into straight-line
    /// checks; `description` is the same checks as data, interpreted only after a mismatch to
    /// build the error, on the shapes `values` hands to its sink (one per node of the
    /// description, `None` for an absent optional value). Bindings made here stay for the next
    /// group.
    #[inline]
    pub fn check(
        &mut self,
        fast: impl Fn(&mut CallCx<N>),
        description: &'static Description,
        values: impl Fn(&mut ShapeSink<'_>),
    ) -> Result<(), ShapeError> {
        let before = self.cx.journal().entries().len();
        if self.cx.passes(fast) {
            return Ok(());
        }
        self.report(before, description, &values)
    }

    /// Builds the error with the general checker: the earlier groups' bindings recorded, then
    /// this group's description interpreted on its values, driven like every other
    /// verification.
    #[cold]
    #[inline(never)]
    fn report(
        &mut self,
        recorded: usize,
        description: &'static Description,
        values: &dyn Fn(&mut ShapeSink<'_>),
    ) -> Result<(), ShapeError> {
        REPORTS.with(|n| n.set(n.get().saturating_add(1)));
        let mut shapes: Vec<Option<Shape>> = Vec::new();
        values(&mut |dims| shapes.push(dims.map(Shape::from)));
        let map = self.table.identity();
        let mut cx = Checker::new(self.table, self.function, &self.struct_bindings());
        record_into(&self.cx, recorded, &mut cx);
        // The general checker is the reference: when it finds nothing wrong, the call passes.
        match cx.run(true, |cx| run_values(description, cx, &map, &shapes)) {
            Ok(_) => Ok(()),
            Err(errors) => Err(errors
                .into_iter()
                .next()
                .unwrap_or_else(|| ShapeError::unrecorded(self.function))),
        }
    }
}

/// Where a checked call's values hand their shapes, in the order of its description's nodes.
type ShapeSink<'a> = dyn FnMut(Option<&[usize]>) + 'a;

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
/// #     provenance: vec![], tensor: None, declared_at: None });
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
/// #     provenance: vec![], tensor: None, declared_at: None });
/// shapes::__private::call_panic(e);
/// ```
#[cold]
#[inline(never)]
#[track_caller]
pub fn call_panic(error: ShapeError) -> ! {
    // ok: the documented behaviour of a checked function that has no error type to return.
    panic!("{error}")
}
