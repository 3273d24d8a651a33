//! The [`Shaped`] trait: what `#[derive(Shaped)]` implements.

use super::bindings::Bindings;
use super::checker::Checker;
use super::error::{ShapeError, ShapeErrors};
use super::source::{self, SourceCx, SourceOptions};
use super::vars::{SlotMap, VarTable};
use crate::source::ShapeSource;

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
///
/// # Field attribute keys
///
/// | key | on | meaning |
/// |---|---|---|
/// | `"(…)"` | tensor field | the pattern |
/// | `nested` | field of `Shaped` structs | checked in this struct's scope (same name = same size) |
/// | `scope = "own"` | `nested` | each nested struct gets a scope of its own |
/// | `rename(inner = "outer")` | `nested` | the nested struct's `inner` is this struct's `outer` |
/// | `name = "…"` | tensor field | its name in a checkpoint ([`verify_source`](Shaped::verify_source)); the field's name by default |
/// | `prefix = "…"` | `nested` | the nested tensors' name prefix in a checkpoint; the field's name by default, `""` for none |
/// | `count = "n"` | `Vec`/array/slice field | binds the variable `n` to the number of elements (in memory: `len()`; in a checkpoint: the run `prefix.0`, `prefix.1`, …) |
///
/// ```
/// use shapes::{Bindings, Shape, Shaped};
///
/// #[derive(Shaped, Clone)]
/// struct Block { #[shape("(d,)")] norm: Shape }
///
/// #[derive(Shaped)]
/// struct Stack { #[shape(nested, count = "n_blocks")] blocks: Vec<Block> }
///
/// let s = Stack { blocks: vec![Block { norm: Shape::from([8]) }; 3] };
/// assert_eq!(s.verify().unwrap().get("n_blocks"), Some(3));
/// let err = s.verify_with(Bindings::new().bind("n_blocks", 4)).unwrap_err();
/// assert!(err.to_string().starts_with("Stack.blocks: axis 0 expected n_blocks = 4, found 3"));
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

    /// Runs this struct's checks in `cx` with shapes read by name from `src` (what
    /// `verify_source` drives).
    #[doc(hidden)]
    fn check_source_in(cx: &mut Checker, map: &SlotMap, src: &mut SourceCx<'_>);

    /// Verifies a checkpoint against this struct before loading it: the same checks as
    /// [`verify`](Shaped::verify), with each tensor's shape read by name from `src` (a
    /// safetensors header, a map) instead of from a value. No tensor data is needed.
    ///
    /// A tensor's name is its field's name (or `#[shape("…", name = "…")]`), under the prefix
    /// of each nested struct it sits in (`#[shape(nested, prefix = "encoder")]`, the field's
    /// name by default, `""` for none), joined with `.`. A `Vec` (or array, or slice) of nested
    /// structs or tensors is read as `prefix.0`, `prefix.1`, …, its length discovered from the
    /// source and bound to the variable named by `count = "…"` if there is one. An `Option`
    /// field is `None` when the source has nothing under its name.
    ///
    /// Like PyTorch's `load_state_dict(strict=True)`, every problem is reported: missing
    /// tensors ([`ShapeErrors::missing_tensors`]), tensors the struct does not describe
    /// ([`ShapeErrors::unexpected_tensors`]) and shape mismatches naming both the field path
    /// and the tensor. [`verify_source_options`](Shaped::verify_source_options) has a
    /// non-strict mode.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use shapes::{Shape, Shaped};
    ///
    /// #[derive(Shaped)]
    /// struct Block {
    ///     #[shape("(d_ff, d_model)", name = "up.weight")] up: Shape,
    ///     #[shape("(d_model, d_ff)", name = "down.weight")] down: Shape,
    /// }
    ///
    /// #[derive(Shaped)]
    /// struct Model {
    ///     #[shape("(vocab, d_model)", name = "embed.weight")] embed: Shape,
    ///     #[shape(nested, prefix = "layers", count = "n_layers")] layers: Vec<Block>,
    /// }
    ///
    /// let mut header = BTreeMap::new();
    /// header.insert("embed.weight".to_string(), Shape::from([100, 8]));
    /// for i in 0..2 {
    ///     header.insert(format!("layers.{i}.up.weight"), Shape::from([32, 8]));
    ///     header.insert(format!("layers.{i}.down.weight"), Shape::from([8, 32]));
    /// }
    /// let b = Model::verify_source(&header).unwrap();
    /// assert_eq!((b.get("n_layers"), b.get("d_ff")), (Some(2), Some(32)));
    ///
    /// header.insert("layers.1.down.weight".to_string(), Shape::from([8, 16]));
    /// let err = Model::verify_source(&header).unwrap_err();
    /// assert!(err.to_string().starts_with(
    ///     "Model.layers[1].down (tensor \"layers.1.down.weight\"): axis 1 expected d_ff = 32, found 16"
    /// ));
    /// ```
    fn verify_source<S: ShapeSource + ?Sized>(src: &S) -> Result<Bindings, ShapeErrors> {
        let src = &src;
        source::verify_source::<Self>(&src, &SourceOptions::new())
    }

    /// [`verify_source`](Shaped::verify_source) with some variables pre-bound (from a
    /// config), as in [`verify_with`](Shaped::verify_with).
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use shapes::{Bindings, Shape, Shaped};
    ///
    /// #[derive(Shaped)]
    /// struct Linear { #[shape("(d_out, d_in)")] weight: Shape }
    ///
    /// let src = HashMap::from([("weight".to_string(), Shape::from([4, 3]))]);
    /// assert!(Linear::verify_source_with(&src, Bindings::new().bind("d_out", 4)).is_ok());
    /// let err = Linear::verify_source_with(&src, Bindings::new().bind("d_out", 5)).unwrap_err();
    /// assert!(err.to_string().contains("expected d_out = 5, found 4"));
    /// ```
    fn verify_source_with<S: ShapeSource + ?Sized>(
        src: &S,
        pre: Bindings,
    ) -> Result<Bindings, ShapeErrors> {
        let src = &src;
        source::verify_source::<Self>(&src, &SourceOptions::new().bindings(pre))
    }

    /// [`verify_source`](Shaped::verify_source) with [`SourceOptions`]: pre-bound values and
    /// strict or non-strict handling of tensors the struct does not describe.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use shapes::{Shape, Shaped, SourceOptions};
    ///
    /// #[derive(Shaped)]
    /// struct Linear { #[shape("(d_out, d_in)")] weight: Shape }
    ///
    /// let src = HashMap::from([
    ///     ("weight".to_string(), Shape::from([4, 3])),
    ///     ("optimizer_step".to_string(), Shape::from([1])),
    /// ]);
    /// assert!(Linear::verify_source(&src).is_err());
    /// assert!(Linear::verify_source_options(&src, SourceOptions::new().strict(false)).is_ok());
    /// ```
    fn verify_source_options<S: ShapeSource + ?Sized>(
        src: &S,
        options: SourceOptions,
    ) -> Result<Bindings, ShapeErrors> {
        let src = &src;
        source::verify_source::<Self>(&src, &options)
    }

    /// Verifies every field; the bindings on success, the first mismatch otherwise (in
    /// declaration order).
    fn verify(&self) -> Result<Bindings, ShapeError> {
        run_with(self, &Bindings::new(), true, first_error)
    }

    /// Verifies every field and reports every mismatch, not only the first.
    fn verify_all(&self) -> Result<Bindings, ShapeErrors> {
        run_with(self, &Bindings::new(), true, ShapeErrors::from)
    }

    /// Verifies with some variables pre-bound (from a config, say): a field that disagrees
    /// with a pre-bound value is an error, and a pre-bound name no field uses is an error too.
    fn verify_with(&self, pre: Bindings) -> Result<Bindings, ShapeError> {
        run_with(self, &pre, true, first_error)
    }

    /// [`verify_with`](Shaped::verify_with), reporting every mismatch.
    fn verify_all_with(&self, pre: Bindings) -> Result<Bindings, ShapeErrors> {
        run_with(self, &pre, true, ShapeErrors::from)
    }
}

#[cold]
fn first_error(errors: Vec<ShapeError>) -> ShapeError {
    errors.into_iter().next().unwrap_or_else(unreachable_error)
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
        tensor: None,
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
    run_with(s, pre, report, |errors| errors)
}

/// [`run`] with the error list turned into the caller's error type inside, so the bindings
/// are moved once, straight into the caller's result (no re-wrapping of a large `Result`).
#[inline(always)]
pub(crate) fn run_with<S: Shaped + ?Sized, E>(
    s: &S,
    pre: &Bindings,
    report: bool,
    wrap: impl FnOnce(Vec<ShapeError>) -> E,
) -> Result<Bindings, E> {
    let table: &'static VarTable = const { &S::VARS };
    let map: SlotMap = const { S::VARS.identity() };
    let mut cx = Checker::empty(table, S::NAME);
    if !pre.is_empty() {
        cx.preset(pre);
    }
    cx.begin_pass(false);
    s.check_in(&mut cx, &map);
    if cx.is_clean() {
        return Ok(cx.take_bindings());
    }
    run_slow(s, cx, report).map_err(wrap)
}

/// Further passes (equations waiting for variables bound later) and the reporting pass.
#[inline(never)]
fn run_slow<S: Shaped + ?Sized>(
    s: &S,
    mut cx: Checker,
    report: bool,
) -> Result<Bindings, Vec<ShapeError>> {
    let map: SlotMap = const { S::VARS.identity() };
    while cx.needs_another_pass() {
        cx.begin_pass(false);
        s.check_in(&mut cx, &map);
        if cx.is_clean() {
            return Ok(cx.take_bindings());
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
