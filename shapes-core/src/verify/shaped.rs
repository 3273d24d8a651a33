//! The [`Shaped`] trait: what `#[derive(Shaped)]` implements.

use super::bindings::Bindings;
use super::checker::Checker;
use super::error::{ShapeError, ShapeErrors};
use super::vars::{SlotMap, VarTable};

/// A struct whose tensors' shapes are described by `#[shape("…")]` patterns.
///
/// Implement it with `#[derive(Shaped)]`; the provided methods verify every field at once,
/// unifying the shape variables across all fields and nested structs.
///
/// ```
/// use shapes::{Shape, Shaped};
///
/// #[derive(Shaped)]
/// struct Linear {
///     #[shape("(d_out, d_in)")] weight: Shape,
///     #[shape("(d_out,)")] bias: Shape,
/// }
///
/// let ok = Linear { weight: Shape::from([4, 3]), bias: Shape::from([4]) };
/// let b = ok.verify().unwrap();
/// assert_eq!((b.get("d_out"), b.get("d_in")), (Some(4), Some(3)));
///
/// let bad = Linear { weight: Shape::from([4, 3]), bias: Shape::from([5]) };
/// let err = bad.verify().unwrap_err();
/// assert!(err.to_string().starts_with("Linear.bias: axis 0 expected d_out = 4, found 5"));
/// ```
pub trait Shaped {
    /// Every variable of this struct's scope: its own, then its nested structs' (transitively).
    #[doc(hidden)]
    const VARS: VarTable;

    /// The struct's name, the root of error paths.
    #[doc(hidden)]
    const NAME: &'static str;

    /// Runs this struct's checks in `cx`, with its local variable `i` at slot `map.get(i)`.
    #[doc(hidden)]
    fn check_in(&self, cx: &mut Checker, map: &SlotMap);

    /// Verifies every field; the bindings on success, the first mismatch otherwise (in
    /// declaration order).
    fn verify(&self) -> Result<Bindings, ShapeError> {
        first(run(self, &Bindings::new(), true))
    }

    /// Verifies every field and reports every mismatch, not only the first.
    fn verify_all(&self) -> Result<Bindings, ShapeErrors> {
        run(self, &Bindings::new(), true).map_err(ShapeErrors::from)
    }

    /// Verifies with some variables pre-bound (from a config, say): a field that disagrees
    /// with a pre-bound value is an error, and a pre-bound name no field uses is an error too.
    fn verify_with(&self, pre: Bindings) -> Result<Bindings, ShapeError> {
        first(run(self, &pre, true))
    }

    /// [`verify_with`](Shaped::verify_with), reporting every mismatch.
    fn verify_all_with(&self, pre: Bindings) -> Result<Bindings, ShapeErrors> {
        run(self, &pre, true).map_err(ShapeErrors::from)
    }
}

fn first(r: Result<Bindings, Vec<ShapeError>>) -> Result<Bindings, ShapeError> {
    r.map_err(|errors| errors.into_iter().next().unwrap_or_else(unreachable_error))
}

#[cold]
fn unreachable_error() -> ShapeError {
    // `run` only fails with at least one error; stay total all the same.
    super::error::ShapeErrorDetails {
        path: super::path::FieldPath::new("?", &[]),
        axis: None,
        pattern: None,
        shape: None,
        kind: super::error::ShapeErrorKind::Source {
            detail: "verification failed without a recorded error".into(),
        },
        provenance: Vec::new(),
    }
    .into()
}

/// The pass loop shared by every entry point. With `report` false, errors are only counted
/// (used for nested isolated scopes checked in a quiet pass of their parent).
pub(crate) fn run<S: Shaped + ?Sized>(
    s: &S,
    pre: &Bindings,
    report: bool,
) -> Result<Bindings, Vec<ShapeError>> {
    let table: &'static VarTable = const { &S::VARS };
    let map: SlotMap = const { S::VARS.identity() };
    let mut cx = Checker::new(table, S::NAME, pre);
    loop {
        cx.begin_pass(false);
        s.check_in(&mut cx, &map);
        if cx.is_clean() {
            return Ok(cx.into_bindings());
        }
        if !cx.needs_another_pass() {
            break;
        }
    }
    if !report {
        // The caller only needs to know that it failed; give it one error to carry that.
        return Err(vec![unreachable_error()]);
    }
    cx.begin_pass(true);
    s.check_in(&mut cx, &map);
    Err(cx.into_errors())
}
