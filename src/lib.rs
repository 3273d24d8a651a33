//! # shapes
//!
//! Tensor shape checking for Rust: numpy-exact broadcasting, a shape-expression language with a
//! symbolic solver, and (feature `derive`, on by default) `#[derive(Shaped)]` for model
//! parameter structs.
//!
//! This crate is a facade: everything lives in `shapes-core` (the algebra and the runtime) and
//! `shapes-derive` (the macros), and is re-exported here so that users depend on one crate.
//!
//! ```
//! use shapes::{broadcast_shapes, Shape};
//!
//! let out: Shape = broadcast_shapes(&[[2, 1, 4].as_slice(), &[3, 1]]).unwrap();
//! assert_eq!(out.to_string(), "(2, 3, 4)");
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use shapes_core::*;

/// `#[derive(Shaped)]`: see [`Shaped`].
#[cfg(feature = "derive")]
pub use shapes_derive::Shaped;

/// A shape expression parsed at compile time: `expr!("(a, b) -> (b, c) -> (a, c)")` is the
/// [`Expr`] that [`parse`] returns for the same string, and a string that does not parse is a
/// compile error at the literal, with the parser's message and a caret under the spot:
///
/// ```text
/// error: invalid shape expression: expected ',' or ')', found 'b' at byte 3
///          (a b)
///             ^
/// ```
///
/// The macro takes exactly one string literal (a string built at run time goes to [`parse`]).
/// It expands to the constructor calls that build the tree, so each evaluation allocates the
/// nodes like `parse` does but does no parsing; keep the value if it is used in a loop.
///
/// ```
/// use shapes::{expr, parse, Expr};
///
/// let matmul: Expr = expr!("(a, b) -> (b, c) -> (a, c)");
/// assert_eq!(matmul, parse("(a, b) -> (b, c) -> (a, c)").unwrap());
/// assert_eq!(matmul.to_string(), "(a, b) → (b, c) → (a, c)");
///
/// let reshape = expr!("{ a -> b -> b | (prod a = prod b) }");
/// assert_eq!(reshape.to_string(), "{ a → b → b | (Π a = Π b) }");
/// ```
#[cfg(feature = "derive")]
pub use shapes_derive::expr;

/// Checks a function's arguments, and optionally its return value, against `#[shape("…")]`
/// patterns, all in one scope per call (jaxtyping's `@jaxtyped`): the same name means the
/// same size across every parameter of one call.
///
/// ```
/// use shapes::{Shape, check};
///
/// #[check(ret = "(*b, n, m)")]
/// fn matmul(#[shape("(*b, n, k)")] x: &Shape, #[shape("(k, m)")] w: &Shape) -> Shape {
///     let mut out = x.dims()[..x.rank() - 1].to_vec();
///     out.push(w.dims()[1]);
///     Shape::new(&out)
/// }
///
/// let y = matmul(&Shape::from([8, 2, 3]), &Shape::from([3, 5]));
/// assert_eq!(y, Shape::from([8, 2, 5]));
///
/// // k is 3 from `x` but 4 in `w`: a panic naming the function, the parameter, the axis,
/// // both values and where k was bound.
/// let err = std::panic::catch_unwind(|| matmul(&Shape::from([2, 3]), &Shape::from([4, 5])));
/// assert!(err.is_err());
/// ```
///
/// The message of that panic:
///
/// ```text
/// matmul.w: axis 0 expected k = 3, found 4
///   k = 3 bound by matmul.x axis 1
///   shape is (4, 5), pattern (k, m)
/// ```
///
/// # Parameters and return value
/// - A parameter with `#[shape("…")]` must be a plain name (`x: T`, `mut x: T`) whose type
///   implements [`HasShape`] (references, `Box`, `Rc`, `Arc` of one included), or an
///   `Option` of one (an attention mask), checked when `Some`. Parameters without the
///   attribute, and `self`, are left alone; `#[shape("…")] self` checks `self`.
/// - `ret = "…"` checks the return value against the same scope (a name bound by an argument
///   must match; a new name is bound by the return value). Rust has no attributes on return
///   types, hence the argument. For a function returning `Result<T, E>`, the pattern is about
///   the `Ok` value.
/// - Works on free functions, methods, generic functions and `async fn` (an async function's
///   arguments are checked when its future is first polled). Not on `const fn`.
/// - Every pattern is parsed at compile time: a bad pattern, an unknown key, `#[shape]` on a
///   destructured parameter, or a variable no argument can determine is a compile error.
///
/// # Keys
///
/// | key | meaning |
/// |---|---|
/// | `ret = "…"` | the return value's pattern (see above) |
/// | `self` | on a method of a [`Shaped`] struct: its patterns share the variables `self`'s fields bind (below) |
/// | `where = "…"` | equations and comparisons between the variables, as the derive's struct-level `where` (below) |
/// | `panic` | a mismatch panics even when the function returns a `Result` |
/// | `map_err = "path"` | a mismatch returns `Err(path(error))` |
/// | `debug_only` | checks only with `debug_assertions` on |
/// | `crate = "path"` | the path of the `shapes` crate, when it is renamed |
///
/// # Sharing a struct's variables with its methods: `self`
/// `#[check(self)]` on a method of a [`Shaped`] struct makes every variable of its patterns
/// that the struct also has (its fields' and nested structs' variables, under their renames)
/// the struct's: bound from `self` before the arguments are checked, so an input is checked
/// against the weights, and a mismatch says which field bound the value. Variables the struct
/// does not have stay the method's own.
///
/// The struct is not verified per call: the derive knows, for each variable, the first field
/// that binds it on every run (no `Option` or collection on the way, through nested structs)
/// as a plain dim at a fixed axis, and reading the variable is reading that one dim. A
/// variable of the struct with no such field (it appears only inside arithmetic, under an
/// `Option` or in a `Vec`, as a `count`, `given` or `where` variable) cannot be read that
/// way: a method that uses it is a compile error naming it (give the method's variable
/// another name to keep it its own). The error comes from a `const` evaluated when the method
/// is compiled to code: `cargo build` reports it, `cargo check` does not. Should a field lack
/// the axis (the struct does not verify), the call fails with the struct's own verification
/// error.
///
/// ```
/// use shapes::{Shape, ShapeError, Shaped, check};
///
/// #[derive(Shaped)]
/// struct Embeddings { #[shape("(vocab, d_model)")] word: Shape }
///
/// #[derive(Shaped)]
/// struct Bert {
///     #[shape(nested)] embeddings: Embeddings,
///     #[shape("(d_model,)")] norm: Shape,
/// }
///
/// impl Bert {
///     #[check(self)]
///     fn forward(&self, #[shape("(batch, seq, d_model)")] x: &Shape) -> Result<usize, ShapeError> {
///         Ok(x.dims()[0])
///     }
/// }
///
/// let bert = Bert {
///     embeddings: Embeddings { word: Shape::from([30522, 384]) },
///     norm: Shape::from([384]),
/// };
/// assert_eq!(bert.forward(&Shape::from([2, 7, 384])), Ok(2));
/// let e = bert.forward(&Shape::from([2, 7, 385])).unwrap_err();
/// assert_eq!(e.to_string(), "forward.x: axis 2 expected d_model = 384, found 385\n  \
///     d_model = 384 bound by Bert.embeddings.word axis 1\n  \
///     shape is (2, 7, 385), pattern (batch, seq, d_model)");
/// ```
///
/// A variable the struct binds only under an `Option` is a compile error:
///
/// ```compile_fail,E0080
/// use shapes::{Shape, Shaped, check};
///
/// #[derive(Shaped)]
/// struct Model { #[shape("(heads,)")] scale: Option<Shape> }
///
/// impl Model {
///     #[check(self)]
///     fn split(&self, #[shape("(batch, heads)")] x: &Shape) {}
/// }
/// # fn main() { Model { scale: None }.split(&Shape::from([1, 2])); }
/// ```
///
/// # Constraints: `where`
/// `where = "…"` takes the grammar of the derive's struct-level `where` (see [`Shaped`]):
/// comparisons `lhs op rhs` with `=`, `!=`, `<`, `<=`, `>`, `>=` on the patterns' arithmetic,
/// several separated by `,` or `&&`, the key given any number of times. Each is checked once
/// its variables are bound (after the return value when it names a variable only the
/// return value binds), and a failure names the constraint and where its variables were
/// bound. An equation may determine a variable no pattern has (`height = rows * window`).
/// A string that does not parse is a compile error pointing at the byte.
///
/// ```
/// use shapes::{Shape, ShapeError, check};
///
/// #[check(where = "heads % kv_heads = 0, head_dim <= 256")]
/// fn gqa(
///     #[shape("(batch, heads, seq, head_dim)")] q: &Shape,
///     #[shape("(batch, kv_heads, seq, head_dim)")] k: &Shape,
/// ) -> Result<usize, ShapeError> {
///     Ok(q.dims()[1] / k.dims()[1])
/// }
///
/// assert_eq!(gqa(&Shape::from([1, 8, 4, 64]), &Shape::from([1, 2, 4, 64])), Ok(4));
/// let e = gqa(&Shape::from([1, 8, 4, 64]), &Shape::from([1, 3, 4, 64])).unwrap_err();
/// assert!(e.to_string().starts_with("gqa: where clause fails: heads % kv_heads = 8 % 3 = 2"), "{e}");
/// assert!(e.to_string().contains("kv_heads = 3 bound by gqa.k axis 1"), "{e}");
/// ```
///
/// # On a mismatch
/// A function whose return type is a `Result` (any path ending in `Result`: `Result<T, E>`,
/// `io::Result<T>`, `anyhow::Result<T>`) returns `Err(E::from(error))` with the
/// [`ShapeError`]; `E` must implement `From<ShapeError>` (a compile error at the return type
/// otherwise; `candle_core::Error` does with the `candle` feature). Any other function panics
/// with the error's full message, at the line that called it: the function is made
/// `#[track_caller]` (unless it is `async` or `extern`), so panics of `#[track_caller]` calls in
/// its body (`unwrap`, indexing) name that line too.
///
/// Two keys choose otherwise for a `Result` function: `panic` (a mismatch panics) and
/// `map_err = "path"` (returns `Err(path(error))`, for an error type without
/// `From<ShapeError>`).
///
/// ```
/// use shapes::{Shape, ShapeError, check};
///
/// fn message(e: ShapeError) -> String {
///     format!("bad input: {e}")
/// }
///
/// #[check(map_err = "message")]
/// fn rows(#[shape("(n, n)")] m: &Shape, #[shape("(n,)")] mask: Option<&Shape>) -> Result<usize, String> {
///     Ok(m.dims()[0])
/// }
///
/// assert_eq!(rows(&Shape::from([3, 3]), None), Ok(3));
/// let err = rows(&Shape::from([3, 3]), Some(&Shape::from([4]))).unwrap_err();
/// assert!(err.starts_with("bad input: rows.mask: axis 0 expected n = 3, found 4"), "{err}");
/// ```
///
/// ```
/// use shapes::{Shape, ShapeError, check};
///
/// #[check]
/// fn add(#[shape("(n,)")] a: &Shape, #[shape("(n,)")] b: &Shape) -> Result<usize, ShapeError> {
///     Ok(a.dims()[0])
/// }
///
/// assert_eq!(add(&Shape::from([3]), &Shape::from([3])).unwrap(), 3);
/// let err = add(&Shape::from([3]), &Shape::from([4])).unwrap_err();
/// assert!(err.to_string().starts_with("add.b: axis 0 expected n = 3, found 4"));
/// ```
///
/// # Cost, and compiling the checks out
/// The patterns are compiled like `#[derive(Shaped)]`'s: variables are slot indices fixed at
/// compile time, each dim is one comparison, and a successful check allocates nothing, hashes
/// nothing and looks up no name. A 3-argument call costs tens of nanoseconds more than the
/// same function unchecked (`cargo bench --bench check`; jaxtyping takes about 30 µs).
///
/// To remove the checks:
/// - `#[check(debug_only)]` checks only when `debug_assertions` are on, like `debug_assert!`;
/// - building with `RUSTFLAGS="--cfg shapes_no_checks"` turns every `#[check]` function in the
///   build into its plain body (the patterns and `HasShape` bounds are still verified at
///   compile time, nothing runs). It is a cfg, not a cargo feature, because it is not
///   additive: `--all-features`, or any one crate in the graph, would turn checks off for all.
///
/// With candle or burn, see the `frameworks` module (features `candle`, `burn`): the framework's layer
/// types are `Shaped`, and a checked `forward` returns `candle_core::Result`.
#[cfg(feature = "derive")]
pub use shapes_derive::check;

/// The README's examples, compiled and run as doctests so that the README stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
