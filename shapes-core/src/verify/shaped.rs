//! The [`Shaped`] trait, what `#[derive(Shaped)]` implements, and its entry points: a struct
//! verified in memory, a checkpoint verified by name, a nested struct in a scope of its own.
//! Every one of them drives the one [`Checker`] through [`Checker::run`].

use super::bindings::Bindings;
use super::by_name::{SourceCx, SourceOptions};
use super::checker::Checker;
use super::error::{ShapeError, ShapeErrors};
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
/// | `rename(inner = "outer")` | `nested` | the nested struct's `inner` is this struct's `outer`; `inner` must be a variable of the nested struct and `outer` a name (a compile error otherwise; for a nested type that names the struct's type parameters, when the verification is compiled for a type: `cargo build`, not `cargo check`) |
/// | `name = "…"` | tensor field | its name in a checkpoint ([`verify_source`](Shaped::verify_source)); the field's name by default |
/// | `prefix = "…"` | `nested` | the nested tensors' name prefix in a checkpoint; the field's name by default, `""` for none |
/// | `count = "n"` | `Vec`/array/slice field | binds the variable `n` to the number of elements (in memory: `len()`; in a checkpoint: the run `prefix.0`, `prefix.1`, …); a value of `n` given by the caller is then the exact count a checkpoint must have |
/// | `min = 2` | `Vec`/array/slice field | in a checkpoint, the least number of elements (1 by default, so a wrong prefix is an error, not an empty list); `min = 0`, or an `Option<Vec<_>>` field, lets the list be absent |
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
    /// source and bound to the variable named by `count = "…"` if there is one. A list must
    /// have at least one element (or `min = …`; a list that matches nothing is reported with
    /// the closest name the source has in its place), and exactly `n` when its `count`
    /// variable `n` is given. An `Option` field is `None` when the source has nothing under
    /// its name, so `Option<Vec<_>>` is a list that may be absent.
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
        // `&S` is `Sized` even when `S` is not, so `&&S` unsizes to `&dyn ShapeSource`.
        let src = &src;
        verify_source::<Self>(&src, &SourceOptions::new())
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
        verify_source::<Self>(&src, &SourceOptions::new().bindings(pre))
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
        verify_source::<Self>(&src, &options)
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
    errors
        .into_iter()
        .next()
        .unwrap_or_else(|| ShapeError::unrecorded("?"))
}

/// Verifies `s` with `pre` bound. With `report` false, errors are only counted (a nested
/// scope checked in a quiet pass of its parent).
///
/// The first pass is inlined into each struct's `verify` (the measured hot path: a model
/// whose fields bind variables before using them is done after it); the rest is
/// [`Checker::finish`]. The error list becomes the caller's error type inside, so the bindings
/// are moved once, straight into the caller's result.
#[inline(always)]
fn run_with<S: Shaped + ?Sized, E>(
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
    cx.finish(report, |cx| s.check_in(cx, &map)).map_err(wrap)
}

/// Checks a nested struct in a scope of its own (`#[shape(nested, scope = "own")]`), then
/// folds its errors into `cx`'s. Generated code calls it.
#[doc(hidden)]
pub fn isolated<S: Shaped + ?Sized>(cx: &mut Checker, nested: &S) {
    let report = cx.is_reporting();
    if let Err(errors) = run_with(nested, &Bindings::new(), report, |e| e) {
        cx.absorb(errors);
    }
}

/// [`isolated`] for `verify_source`: the nested struct `S` read under the current name.
#[doc(hidden)]
pub fn isolated_source<S: Shaped + ?Sized>(cx: &mut Checker, src: &mut SourceCx<'_>) {
    let report = cx.is_reporting();
    let mark = src.prefix_mark();
    let result = run_source::<S>(src, &Bindings::new(), report);
    src.pop(mark);
    if let Err(errors) = result {
        cx.absorb(errors);
    }
}

/// The checks of `S` with every shape read by name from `src`.
fn run_source<S: Shaped + ?Sized>(
    src: &mut SourceCx<'_>,
    pre: &Bindings,
    report: bool,
) -> Result<Bindings, Vec<ShapeError>> {
    let map: SlotMap = const { S::VARS.identity() };
    Checker::new(const { &S::VARS }, S::NAME, pre)
        .run(report, |cx| S::check_source_in(cx, &map, src))
}

/// `verify_source` and its variants: run the checker, then list the unexpected tensors.
fn verify_source<S: Shaped + ?Sized>(
    src: &dyn ShapeSource,
    options: &SourceOptions,
) -> Result<Bindings, ShapeErrors> {
    let mut scx = SourceCx::new(src);
    let result = run_source::<S>(&mut scx, options.pre(), true);
    scx.report(S::NAME, result, options.is_strict())
}
