//! The runtime of `#[shapes::check]`: one function call checked in one scope.
//!
//! The macro compiles each parameter's pattern into the same straight-line [`Checker`] calls as
//! `#[derive(Shaped)]`, with variables as slot indices fixed at compile time. A [`CallScope`]
//! runs the arguments' checks (in passes, like `verify`, so the order of the parameters does not
//! matter), keeps the bindings while the function body runs, then checks the return value
//! against the same bindings. On success nothing is allocated, hashed or looked up by name.

use super::bindings::Bindings;
use super::checker::Checker;
use super::error::ShapeError;
use super::vars::VarTable;

/// Whether `#[shapes::check]` functions check anything: `false` when the `no-checks` feature is
/// on. The generated code tests this constant, so turning it off leaves no trace in optimized
/// code (the functions still type-check: the patterns and `HasShape` bounds stay verified).
///
/// ```
/// // What generated code does with it:
/// if shapes::__private::CHECKS {
///     // ... the checks ...
/// }
/// ```
pub const CHECKS: bool = !cfg!(feature = "no-checks");

/// The scope of one checked call: the function's variables and what the arguments bound.
///
/// ```
/// use shapes::__private::{CallScope, FieldInfo, VarTable};
/// use shapes::{HasShape, Shape};
///
/// static VARS: VarTable = VarTable::new().with("n");
/// static X: FieldInfo = FieldInfo { name: "x", pattern: "(n,)" };
/// let x = Shape::from([3]);
/// let mut scope = CallScope::new(&VARS, "f");
/// let ok = scope.check(|cx| {
///     let d = x.shape();
///     cx.field(&X);
///     if cx.rank(d, 1) {
///         cx.var(0, d, 0);
///     }
/// });
/// assert!(ok.is_ok());
/// // The return value is checked against what the arguments bound: n = 3.
/// let ret = Shape::from([4]);
/// static RET: FieldInfo = FieldInfo { name: "return", pattern: "(n,)" };
/// let err = scope.check(|cx| {
///     let d = ret.shape();
///     cx.field(&RET);
///     if cx.rank(d, 1) {
///         cx.var(0, d, 0);
///     }
/// }).unwrap_err();
/// assert!(err.to_string().starts_with("f.return: axis 0 expected n = 3, found 4"));
/// ```
pub struct CallScope {
    cx: Checker,
    table: &'static VarTable,
    function: &'static str,
}

impl CallScope {
    /// A scope for a call of `function` whose patterns use `table`'s variables, nothing bound.
    #[inline]
    pub fn new(table: &'static VarTable, function: &'static str) -> Self {
        CallScope {
            cx: Checker::new(table, function, &Bindings::new()),
            table,
            function,
        }
    }

    /// Runs `checks` (a group of parameters, or the return value) in passes until every
    /// equation is settled; the first mismatch otherwise. Bindings made here stay for the next
    /// group.
    #[inline]
    pub fn check(&mut self, checks: impl Fn(&mut Checker)) -> Result<(), ShapeError> {
        loop {
            self.cx.begin_pass(false);
            checks(&mut self.cx);
            if self.cx.is_clean() {
                return Ok(());
            }
            if !self.cx.needs_another_pass() {
                break;
            }
        }
        Err(self.report(&checks))
    }

    #[cold]
    #[inline(never)]
    fn report(&mut self, checks: &dyn Fn(&mut Checker)) -> ShapeError {
        self.cx.begin_pass(true);
        checks(&mut self.cx);
        // The scope is spent once it has failed: the call does not go on.
        let fresh = Checker::new(self.table, self.function, &Bindings::new());
        let errors = std::mem::replace(&mut self.cx, fresh).into_errors();
        errors.into_iter().next().unwrap_or_else(|| {
            super::error::ShapeErrorDetails {
                path: super::path::FieldPath::new(self.function, &[]),
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
        })
    }
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
    panic!("{error}")
}
