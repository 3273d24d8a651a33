//! The [`Shaped`] trait, what `#[derive(Shaped)]` implements, and its entry points: a struct
//! verified in memory, a checkpoint verified by name, a nested struct in a scope of its own.
//! Every one of them drives the one [`Checker`] through [`Checker::run`], except `verify`'s
//! fast pass ([`StructCx`]), whose passes after the first go through the same pass loop
//! ([`Passes::settle_passes`]).

use super::binders::{Binder, Binders};
use super::bindings::Bindings;
use super::by_name::{SourceCx, SourceOptions, stated};
use super::checker::{Checker, Passes};
use super::description::Description;
use super::drive::{Described, name_given, scope_config, verify_by_name};
use super::error::{ShapeError, ShapeErrors};
use super::fast::{STRUCT_VARS, StructCx};
use super::scope_checks::ScopeChecks;
use super::vars::{SlotMap, VarTable};
use crate::source::ShapeSource;

/// A struct whose tensors' shapes are described by `#[shape("…")]` patterns.
///
/// Implement it with `#[derive(Shaped)]`; the provided methods verify every field at once,
/// unifying the shape variables across all fields and nested structs. A method of the struct
/// checked with `#[shapes::check(self)]` shares those variables with its arguments' patterns,
/// each read from the first field that binds it, without verifying the struct per call.
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
/// # Attributes
///
/// Every key of `#[shape(…)]` on a field and `#[shapes(…)]` on the struct, the grammar of
/// `where`, and the rules the derive checks at compile time are on the derive macro's page,
/// [`#[derive(Shaped)]`](derive.Shaped.html) (in the `shapes` crate).
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
///
/// # Struct attributes, `where`
///
/// Arithmetic is computed over the integers, overflow-checked: a step may go below zero
/// (`(h - k + 2 * p) // s + 1` with `h < k`); only a dim's final value (and a variable
/// solved for) must be a size. A power of one unknown (`z * z * z`) is solved by its whole
/// root.
///
/// ```
/// use shapes::{Bindings, Shape, Shaped};
///
/// #[derive(Shaped)]
/// #[shapes(given = "window", where = "height = rows * window")]
/// #[shapes(where = "heads % kv_heads = 0, head_dim <= 256 && c != 0")]
/// struct Attn {
///     #[shape("(height, c)")] x: Shape,
///     #[shape("(c, heads * head_dim)")] q: Shape,
///     #[shape("(c, kv_heads * head_dim)")] k: Shape,
///     #[shape("(heads,)")] scale: Shape,
/// }
///
/// let attn = |kv: usize| Attn {
///     x: Shape::from([56, 64]),
///     q: Shape::from([64, 64]),
///     k: Shape::from([64, kv * 16]),
///     scale: Shape::from([4]),
/// };
/// let b = attn(2).verify_with(Bindings::new().bind("window", 7)).unwrap();
/// assert_eq!((b.get("rows"), b.get("head_dim")), (Some(8), Some(16)));
/// let err = attn(3).verify_with(Bindings::new().bind("window", 7)).unwrap_err();
/// assert!(err.to_string().contains("heads % kv_heads = 4 % 3 = 1"), "{err}");
/// ```
///
/// A Llama-style model whose config binds its dims, and whose output head may be tied to the
/// embedding:
///
/// ```
/// use shapes::{Checkpoint, Shape, Shaped};
///
/// #[derive(Shaped)]
/// #[shapes(config(d_model = "hidden_size | {arch}.embedding_length", vocab = "vocab_size"))]
/// struct Lm {
///     #[shape("(vocab, d_model)", name = "embed.weight")]
///     embed: Shape,
///     #[shape("(vocab, d_model)", name = "lm_head.weight", tied = "embed.weight", tie_key = "tie_word_embeddings")]
///     head: Option<Shape>,
/// }
///
/// # let dir = std::env::temp_dir().join(format!("shapes-doc-tied-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// let json = br#"{"embed.weight":{"dtype":"F32","shape":[10,4],"data_offsets":[0,160]}}"#;
/// let mut file = (json.len() as u64).to_le_bytes().to_vec();
/// file.extend_from_slice(json);
/// file.extend_from_slice(&[0u8; 160]);
/// std::fs::write(dir.join("model.safetensors"), file).unwrap();
/// std::fs::write(dir.join("config.json"), r#"{"hidden_size": 4, "vocab_size": 12, "tie_word_embeddings": true}"#).unwrap();
///
/// let err = Lm::verify_source(&Checkpoint::open(&dir)?).unwrap_err();
/// assert!(err.errors()[0].to_string().starts_with(
///     "Lm.embed: config `vocab_size` = 12, but \"embed.weight\" axis 0 is 10"
/// ));
/// # std::fs::write(dir.join("config.json"), r#"{"hidden_size": 4, "vocab_size": 10, "tie_word_embeddings": true}"#).unwrap();
/// // With a config that agrees: the head is reported as tied.
/// let b = Lm::verify_source(&Checkpoint::open(&dir)?).unwrap();
/// assert_eq!(b.tied()[0].to.as_str(), "embed.weight");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), shapes::CheckpointError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `Shaped`: a `#[shape(nested)]` field holds structs whose tensors `shapes` can check",
    label = "not `Shaped`",
    note = "derive it: `#[derive(Shaped)]` on `{Self}`, with a `#[shape(\"(…)\")]` pattern on each tensor field",
    note = "a single tensor takes a pattern, `#[shape(\"(d_out, d_in)\")]`, not `nested`"
)]
pub trait Shaped {
    /// Every variable of this struct's scope: its own, then its nested structs' (transitively).
    #[doc(hidden)]
    const VARS: VarTable;

    /// The struct's name, the root of error paths.
    #[doc(hidden)]
    const NAME: &'static str;

    /// Each variable's first binder on every run, by its index in [`VARS`](Self::VARS): what
    /// a method checked with `#[shapes::check(self)]` reads its variables through. The derive
    /// builds it; a hand-written impl has none.
    #[doc(hidden)]
    const BINDERS: &'static Binders = &Binders::NONE;

    /// The dim `binder` (one of [`BINDERS`](Self::BINDERS)) names, read from `self`: one dim
    /// of one tensor. `None` when that tensor lacks the axis (the struct does not verify).
    #[doc(hidden)]
    #[inline]
    fn read_binder(&self, binder: &Binder) -> Option<usize> {
        let _ = binder;
        None
    }

    /// Runs this struct's checks in `cx`, with its local variable `i` at slot `map.get(i)`:
    /// the fast first pass of `verify` ([`StructCx`]) or the general [`Checker`].
    #[doc(hidden)]
    fn check_in<C: ScopeChecks>(&self, cx: &mut C, map: &SlotMap);

    /// What `verify_source` checks, as data: `#[derive(Shaped)]` emits it (its fields as
    /// nodes, its `where` relations) and [`check_source_in`](Self::check_source_in) runs it
    /// through the interpreter a run-time [`Plan`](crate::Plan) uses; the framework layers
    /// emit it too. `None` for a type whose by-name checks are written by hand.
    #[doc(hidden)]
    const DESCRIPTION: Option<&'static Description> = None;

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
    /// use shapes::{Shape, Shaped, verify::SourceOptions};
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
        run_with(self, None, true, first_error)
    }

    /// Verifies every field and reports every mismatch, not only the first.
    fn verify_all(&self) -> Result<Bindings, ShapeErrors> {
        run_with(self, None, true, ShapeErrors::from)
    }

    /// Verifies with some variables pre-bound (from a config, say): a field that disagrees
    /// with a pre-bound value is an error, and a pre-bound name no field uses is an error too.
    fn verify_with(&self, pre: Bindings) -> Result<Bindings, ShapeError> {
        run_with(self, Some(&pre), true, first_error)
    }

    /// [`verify_with`](Shaped::verify_with), reporting every mismatch.
    fn verify_all_with(&self, pre: Bindings) -> Result<Bindings, ShapeErrors> {
        run_with(self, Some(&pre), true, ShapeErrors::from)
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
/// A struct whose every variable has a static binder (at most [`STRUCT_VARS`] of them), verified
/// with nothing pre-bound, is checked by the fast checker first ([`StructCx`], the one a
/// checked call uses too): on success its bindings are the result. Otherwise, or when the fast
/// checker stops, the general [`Checker`] verifies it
/// from the start.
///
/// Inlined into each struct's `verify` (the measured hot path); the fast checker's state then
/// lives in the caller's frame, mostly in registers.
#[inline(always)]
fn run_with<S: Shaped + ?Sized, E>(
    s: &S,
    pre: Option<&Bindings>,
    report: bool,
    wrap: impl FnOnce(Vec<ShapeError>) -> E,
) -> Result<Bindings, E> {
    let pre = pre.filter(|pre| !pre.is_empty());
    if const { S::VARS.len() <= STRUCT_VARS && S::BINDERS.all_static(&S::VARS) } && pre.is_none() {
        let map = const { S::VARS.identity() };
        let mut fast = StructCx::new();
        // The first pass straight-line, so that the checker's state stays in registers (run
        // as the one pass loop's closure, it was a call with the state in memory: 199 tensors
        // verified 15% slower); the passes after it only when an expression waits.
        s.check_in(&mut fast, &map);
        if !fast.is_clean() {
            fast.settle_passes(|cx| s.check_in(cx, &map));
        }
        let order = const { &S::BINDERS.bind_order::<STRUCT_VARS>(S::VARS.len()) };
        // One place for the result on both paths, filled where it is returned. Built on each
        // path, the result was moved to a place the two paths share, then to where the
        // caller keeps it: two copies of 512 bytes per call where there is now the second.
        let mut out =
            Ok(Bindings::in_scope(const { &S::VARS }, S::NAME).with_known_levels(order.levels()));
        if fast.is_done(order) {
            if let Ok(b) = &mut out {
                fast.record_into(b, order);
            }
        } else {
            out = general_after_fast(s, pre, report).map_err(|e| wrap(given_named::<S>(e, pre)));
        }
        return out;
    }
    general(s, pre, report).map_err(|e| wrap(given_named::<S>(e, pre)))
}

/// What [`Shaped::verify`] returns, found by the general [`Checker`] alone, without the fast
/// pass. For the tests that hold `verify` to it.
///
/// ```
/// use shapes::{Shape, Shaped};
///
/// #[derive(Shaped)]
/// struct Linear { #[shape("(d_out, d_in)")] weight: Shape }
///
/// let l = Linear { weight: Shape::from([4, 3]) };
/// let (fast, general) = (l.verify().unwrap(), shapes::__testing::verify_general(&l).unwrap());
/// assert_eq!(fast.iter().collect::<Vec<_>>(), general.iter().collect::<Vec<_>>());
/// ```
#[doc(hidden)]
pub fn verify_general<S: Shaped + ?Sized>(s: &S) -> Result<Bindings, ShapeError> {
    general(s, None, true).map_err(first_error)
}

/// [`general`] out of line: after a fast pass that stopped.
#[cold]
#[inline(never)]
fn general_after_fast<S: Shaped + ?Sized>(
    s: &S,
    pre: Option<&Bindings>,
    report: bool,
) -> Result<Bindings, Vec<ShapeError>> {
    general(s, pre, report)
}

/// The general [`Checker`]'s verification of `s`, recording the path of every binding: its
/// first pass inlined (a model whose fields bind variables before using them is done after
/// it), then, if that pass was not clean, the passes that settle what waited and the report
/// ([`Checker::finish`]): what [`Checker::run`] does, with the checker kept in place.
#[inline(always)]
fn general<S: Shaped + ?Sized>(
    s: &S,
    pre: Option<&Bindings>,
    report: bool,
) -> Result<Bindings, Vec<ShapeError>> {
    let map: SlotMap = const { S::VARS.identity() };
    let mut cx = Checker::empty(const { &S::VARS }, S::NAME);
    if let Some(pre) = pre {
        cx.preset(pre);
    }
    cx.begin_pass(false);
    s.check_in(&mut cx, &map);
    if cx.is_clean() {
        return Ok(cx.take_bindings());
    }
    cx.finish(report, |cx| s.check_in(cx, &map))
}

/// Checks a nested struct in a scope of its own (`#[shape(nested, scope = "own")]`), then
/// hands its errors to `cx` ([`ScopeChecks::absorb_isolated`]): its variables are not the
/// enclosing scope's, only its mismatches are. What derived code calls for such a field.
#[doc(hidden)]
pub fn isolated<C: ScopeChecks + ?Sized, S: Shaped + ?Sized>(cx: &mut C, nested: &S) {
    let report = cx.is_reporting();
    if let Err(errors) = run_with(nested, None, report, |e| e) {
        cx.absorb_isolated(errors);
    }
}

/// [`isolated`] for `verify_source`: the nested struct `S` read under the current name.
#[doc(hidden)]
pub fn isolated_source<S: Shaped + ?Sized>(cx: &mut Checker, src: &mut SourceCx<'_>) {
    let report = cx.is_reporting();
    let mark = src.prefix_mark();
    // Its own scope has its own config keys.
    let pre = match stated(
        &Bindings::new(),
        &scope_config(S::DESCRIPTION),
        src.source(),
        S::NAME,
    ) {
        Ok(pre) => pre,
        Err(errors) => {
            cx.absorb(errors.into_vec());
            return;
        }
    };
    let result = run_source::<S>(src, &pre, report);
    src.pop(mark);
    if let Err(errors) = result {
        cx.absorb(errors);
    }
}

/// `errors` with each dim that waits for a `given` variable of `S` the caller did not pass
/// said so ([`name_given`]). Out of line: `verify`'s success path, into which `run_with` is
/// inlined, does not carry the read of `S`'s description (the 199-tensor BERT verified 20%
/// slower with it inline).
#[cold]
#[inline(never)]
fn given_named<S: Shaped + ?Sized>(
    errors: Vec<ShapeError>,
    pre: Option<&Bindings>,
) -> Vec<ShapeError> {
    name_given(errors, given_of::<S>(), pre)
}

/// The `given` names of `S`'s description.
fn given_of<S: Shaped + ?Sized>() -> &'static [&'static str] {
    match S::DESCRIPTION {
        Some(d) => d.given,
        None => &[],
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

/// `verify_source` and its variants: the one driver of a description verified by name.
fn verify_source<S: Shaped + ?Sized>(
    src: &dyn ShapeSource,
    options: &SourceOptions,
) -> Result<Bindings, ShapeErrors> {
    let map: SlotMap = const { S::VARS.identity() };
    let what = Described {
        root: S::NAME,
        table: const { &S::VARS },
        description: S::DESCRIPTION,
    };
    verify_by_name(what, src, options, &|cx, src, _| {
        S::check_source_in(cx, &map, src)
    })
}
