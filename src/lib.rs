#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use shapes_core::*;

/// What generated code calls: the library's, and the callback of `#[shapes::check]` on an
/// `impl` block (a proc macro, so it lives in the derive crate).
#[doc(hidden)]
pub mod __private {
    pub use shapes_core::__private::*;
    #[cfg(feature = "derive")]
    pub use shapes_derive::__check_impl as check_impl;
}

/// `#[derive(Shaped)]`: implements [`trait@Shaped`] for a struct whose tensor fields carry
/// `#[shape("…")]` patterns, so that [`verify`](trait@Shaped#method.verify) checks every field
/// against one set of variables (nested structs included) and
/// [`verify_source`](trait@Shaped#method.verify_source) checks a checkpoint from its header.
///
/// ```
/// use shapes::{Bindings, Shape, Shaped};
///
/// #[derive(Shaped)]
/// struct Linear {
///     #[shape("(d_out, d_in)")] weight: Shape,
///     #[shape("(d_out,)")] bias: Shape,
/// }
///
/// #[derive(Shaped)]
/// #[shapes(given = "heads", where = "d_model = heads * head_dim")]
/// struct Block {
///     #[shape("(d_model, heads * head_dim)")] w_q: Shape,
///     #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))] up: Linear,
/// }
///
/// let block = Block {
///     w_q: Shape::from([768, 768]),
///     up: Linear { weight: Shape::from([3072, 768]), bias: Shape::from([3072]) },
/// };
/// let b = block.verify_with(Bindings::new().bind("heads", 12)).unwrap();
/// assert_eq!((b.get("head_dim"), b.get("d_ff")), (Some(64), Some(3072)));
/// // `heads` is given: without it, the error says to pass it.
/// assert!(block.verify().unwrap_err().to_string().contains("`heads` is `given`: pass it with `verify_with"));
/// ```
///
/// # `#[shape(…)]` on a field
///
/// | key | on | meaning |
/// |---|---|---|
/// | `"(…)"` | tensor field | the pattern (see the shape language in the crate's front page) |
/// | `nested` | field of `Shaped` structs | checked in this struct's scope (same name = same size) |
/// | `scope = "own"` | `nested` | each nested struct gets a scope of its own |
/// | `rename(inner = "outer")` | `nested` | the nested struct's `inner` is this struct's `outer`; `inner` must be a variable of the nested struct and `outer` a name (a compile error otherwise; for a nested type that names the struct's type parameters, when the verification is compiled for a type: `cargo build`, not `cargo check`). Errors under the field print its patterns in this struct's names |
/// | `name = "…"` | tensor field | its name in a checkpoint ([`verify_source`](trait@Shaped#method.verify_source)); the field's name by default |
/// | `prefix = "…"` | `nested` | the nested tensors' name prefix in a checkpoint; the field's name by default, `""` for none |
/// | `count = "n"` | `Vec`/array/slice field | binds the variable `n` to the number of elements (in memory: `len()`; in a checkpoint: the run `prefix.0`, `prefix.1`, …); a value of `n` given by the caller is then the exact count a checkpoint must have |
/// | `min = 2` | `Vec`/array/slice field | in a checkpoint, the least number of elements (1 by default, so a wrong prefix is an error, not an empty list); `min = 0`, or an `Option<Vec<_>>` field, lets the list be absent |
/// | `tied = "…"` | `Option` tensor field | a checkpoint may leave it out because it shares the weights of the tensor of that name (under the same prefixes): absent is then allowed, reported in [`Bindings::tied`], and the pattern is checked against that tensor's shape |
/// | `tie_key = "…"` | `tied` field | the checkpoint key that states the tie (`tie_word_embeddings`): absent while the key is `false` is an error |
/// | `dim = "heads"` | `usize` field | the field holds the size of the variable `heads` (`num_attention_heads: usize`): [`verify`](trait@Shaped#method.verify) binds or checks it with the tensors' dims, and checked methods read it (`#[shapes::check]` on an `impl` block); a checkpoint does not hold it, so [`verify_source`](trait@Shaped#method.verify_source) skips it: give the variable there by `config(…)` or `given` |
///
/// A field without `#[shape]` is not checked. A field holding a layer or a struct of
/// tensors takes `nested`, not a pattern (a pattern on it is a compile error saying so).
///
/// # `#[shapes(…)]` on the struct
///
/// Each key may be given several times (or in several `#[shapes(…)]` attributes), and every
/// occurrence counts. `#[shape(…)]` on the struct (singular) is a compile error: it would
/// otherwise drop these keys without a word.
///
/// | key | meaning |
/// |---|---|
/// | `where = "…"` | constraints between variables: one or more comparisons `lhs op rhs`, separated by `,` or `&&` (below) |
/// | `given = "a, b"` | variables the caller binds through [`verify_with`](trait@Shaped#method.verify_with) (a comma-separated list); `verify()` without one is an error saying to pass it |
/// | `config(var = "key \| key", …)` | on the struct passed to `verify_source`: `var` is bound from the first key the source states (a [`Checkpoint`]'s `config.json`, then its metadata), as a given value whose origin names the key. The keys are one string with `\|` between them or a list, `config(var = ["key", "key"])`, as in spec files. `{arch}` in a key stands for the architecture (GGUF `general.architecture`, `model_type` in `config.json`); a dotted key reaches into nested objects. The variable may belong to a nested struct of the scope. A value the caller binds wins. A key none of whose spellings the checkpoint states, while it states a key a slip away (`intermediate_sise`, `intermediate_size`), is an error before any tensor is checked |
/// | `ignore = "glob, glob"` | tensors of a checkpoint that `verify_source` neither needs nor reports: `*` matches any run of characters (dots included), `?` one character (Hugging Face's `_keys_to_ignore_on_load_unexpected`); see also [`SourceOptions::ignore`](verify::SourceOptions::ignore) |
/// | `crate = "path"` | the path generated code names the library by, when it is not `::shapes` |
///
/// A `where` comparison has the dim grammar of the patterns on both sides (`+ - * / // %`
/// on names and numbers) and one of `=`, `!=` (`≠`), `<`, `<=` (`≤`), `>`, `>=` (`≥`): the
/// comparisons of a `{ e | pred }` predicate. An equation (`=`) may determine a variable it
/// has the only unknown of, like a dim does: `height = rows * window` determines `rows`, which
/// may then appear in no field at all (it is read back from the bindings). Every other
/// comparison is checked once its variables are bound, and a failure names the comparison and
/// the field each variable was bound by. Divisibility is `heads % kv_heads = 0`.
///
/// ```
/// use std::collections::HashMap;
/// use shapes::{Shape, Shaped};
///
/// #[derive(Shaped)]
/// #[shapes(ignore = "embeddings.position_ids, pooler.*", where = "d <= 1024")]
/// struct Norm { #[shape("(d,)", name = "norm.weight")] weight: Shape }
///
/// let src = HashMap::from([
///     ("norm.weight".to_string(), Shape::from([384])),
///     ("embeddings.position_ids".to_string(), Shape::from([1, 512])),
///     ("pooler.dense.weight".to_string(), Shape::from([384, 384])),
/// ]);
/// assert_eq!(Norm::verify_source(&src).unwrap().get("d"), Some(384));
/// ```
///
/// # Checked at compile time
///
/// Every pattern and `where` string is parsed by the derive (an error points at the byte),
/// every key is known (an unknown one is an error listing the keys), and the variables are
/// analysed: a name both variadic and a dim, a `given` or `config` variable no field uses, a
/// name only `where` comparisons use, a variable nothing can determine, and a likely typo (a
/// name used once beside a close name used more often; two names used once that differ by a
/// slip, `sqe` and `seq`) are errors at the attribute. Across the struct and the structs
/// nested in its scope, whose variables only the compiler knows, the likely-typo rule is a
/// `const` evaluated where the impl is compiled: a rename target one slip from a name the
/// struct uses (`rename(d_in = "d_modle")` beside `d_model`), or a nested struct's
/// `d_modle` that never meets its parent's `d_model`, fails the build naming both. `cargo
/// check` reports it for a struct without type parameters; for a generic struct it is
/// evaluated when `verify` is compiled for a type (`cargo build`), as `#[check(self)]`'s
/// checks are.
///
/// ```compile_fail,E0080
/// use shapes::{Shape, Shaped};
///
/// #[derive(Shaped)]
/// struct Mlp { #[shape("(d_ff, d_modle)")] up: Shape, #[shape("(d_modle, d_ff)")] down: Shape }
///
/// #[derive(Shaped)]
/// struct Block {
///     #[shape("(vocab, d_model)")] embed: Shape,
///     #[shape("(d_model,)")] norm: Shape,
///     #[shape(nested)] mlp: Mlp,
/// }
/// ```
#[cfg(feature = "derive")]
pub use shapes_derive::Shaped;

/// A shape expression parsed at compile time: `expr!("(a, b) -> (b, c) -> (a, c)")` is the
/// [`Expr`](expr::Expr) that [`parse`](expr::parse) returns for the same string, and a string
/// that does not parse is a compile error at the literal, with the parser's message and a
/// caret under the spot:
///
/// ```text
/// error: invalid shape expression: expected ',' or ')', found 'b' at byte 3
///          (a b)
///             ^
/// ```
///
/// The macro takes exactly one string literal (a string built at run time goes to
/// [`parse`](expr::parse)). It expands to the constructor calls that build the tree, so each
/// evaluation allocates the nodes like `parse` does but does no parsing; keep the value if it
/// is used in a loop.
///
/// ```
/// use shapes::expr; // the macro and the module `shapes::expr`
/// use shapes::expr::{Expr, parse};
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
///   implements [`HasShape`](verify::HasShape) (references, `Box`, `Rc`, `Arc` of one included), or an
///   `Option` of one (an attention mask), checked when `Some`. Parameters without the
///   attribute, and `self`, are left alone; `#[shape("…")] self` checks `self`.
/// - `ret = "…"` checks the return value against the same scope (a name bound by an argument
///   must match; a new name is bound by the return value). Rust has no attributes on return
///   types, hence the argument. For a function returning `Result<T, E>`, the pattern is about
///   the `Ok` value.
/// - Works on free functions, methods, generic functions and `async fn` (an async function's
///   arguments are checked when its future is first polled). Not on `const fn`.
/// - Every pattern is parsed at compile time: a bad pattern, an unknown key, `#[shape]` on a
///   destructured parameter, or a variable no argument can determine is a compile error; so
///   is a likely typo across the parameters, `ret` and `where` (a name used once beside a
///   close name used more; two names used once that differ by a slip, `seq` and `sqe`, which
///   would each check nothing).
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
/// | `trace` | each place in the body where a tracked shape is lost is a warning (below) |
/// | `each_let` | every `let` whose shape the analysis tracked is checked when it runs, in debug builds, as if it carried that `#[shape]` (below) |
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
/// # Inside the body: shapes through candle ops
/// The macro also follows the shapes of the tensors of the body, at compile time, from the
/// patterns of the parameters whose type is a `Tensor` (`&Tensor`, `candle_core::Tensor`; only
/// those, so another type's methods of the same names are never read as candle's), through a
/// vocabulary of candle's `Tensor` ops, and a mismatch it can prove is a compile error at the
/// op, naming the op, both shapes in the patterns' names, and the axis:
///
/// ```text
/// error: `q.matmul(&k)`: inner dims differ: `q` is (b, heads, s, head_dim), `k` is (b, heads, s, head_dim)
///        (axis 3 of `q` is head_dim, axis 2 of `k` is s); did you mean `k.t()`?
///   --> src/model.rs:23:49
///    |
/// 23 |     let att = (q.matmul(&k)? / scale)?;
///    |                  ^^^^^^^^^^
/// ```
///
/// A second line says where each variable it prints comes from: ``dims: b, s from the
/// pattern of `x`; heads from `self.num_heads`; kv_dim from `self.k_proj` (a Linear's
/// d_out)``.
///
/// It is reported by `cargo check` as well as `cargo build`. The value the body returns is
/// compared with `ret` the same way.
///
/// **Facts.** The parameters' patterns; the `where` equations with a lone name on one side
/// (`d_model = heads * head_dim`, substituted wherever `d_model` is compared; an equation
/// the convention below would deny, such as `a * x = a * y`, keeps its names from being
/// taken as distinct dims); sizes read into
/// locals with `let (b, s, _) = x.dims3()?` (`dims2` to `dims5`) or `let d = x.dim(1)?`
/// (`x.dim(D::Minus1)?`), and integer arithmetic on them (`/` is exact where the divisor is
/// a factor: `wq.dim(0)? / head_dim` is `heads` for `wq` of `(heads * head_dim, d_model)`);
/// and `#[shape("…")]` on a `let` (below).
///
/// **Vocabulary** (candle's semantics): `matmul` (equal ranks, equal batch sizes, inner dims),
/// `broadcast_matmul` (batch dims broadcast), `t()`, `transpose(a, b)`, `permute((…))`,
/// `reshape((…))` (a tuple or an array of literals, size locals, arithmetic, `()` for the one
/// hole; `self.num_heads` under an `impl` block's attribute, below; any other entry is an
/// unknown dim), `broadcast_as`, `flatten(a, b)`,
/// `flatten_from`, `flatten_to`, `flatten_all`, `squeeze(i)` (removes a dim only if it is 1, as
/// candle does), `unsqueeze(i)`, `narrow(axis, start, len)`, `Tensor::cat(&[…], axis)` (also
/// `&vec![&x; n]`, as `repeat_kv` writes it) and `Tensor::stack`, `index_select(&ids, axis)`,
/// the element-wise methods
/// `add`, `sub`, `mul`, `div`, `maximum`, `minimum` and comparisons, and the operators
/// `+ - * /` between tensors (equal shapes; a 1 against another dim is not reported, as
/// burn broadcasts it), `broadcast_add`/`sub`/`mul`/`div`/`maximum`/
/// `minimum` (numpy broadcasting), `sum_keepdim`, `mean_keepdim`, `max_keepdim`, `min_keepdim`,
/// `sum(i)`, `mean(i)`, `max(i)`, `min(i)`, `candle_nn::ops::softmax(&x, D::Minus1)`,
/// `softmax_last_dim`, `log_softmax`, `sigmoid`, `dropout`, `candle_nn::rotary_emb::rope*`,
/// the shape-keeping `contiguous`, `clone`, `to_dtype`, `to_device`, `detach`, `affine`,
/// `exp`, `log`, `sqrt`, `sqr`, `abs`, `neg`, `relu`, `gelu`, `gelu_erf`, `silu`, `tanh`,
/// `recip`, `powf`, `elu`, `clamp`, …, and `?`, `.map_err(…)`, `.unwrap()`, `Ok(…)` around
/// them; `chunk(n, axis)`, whose pieces are read by indexing (`&pieces[0]`), each `d / n` wide
/// where `n` divides the axis' `d` (unknown otherwise). Axes are literals, size locals holding one, or `D::Minus1`, `D::Minus2`,
/// `D::Minus(n)`.
///
/// **What is provable.** A mismatch is reported only when it holds for every choice of sizes
/// that satisfies the patterns and the `where` equations, under the convention every pattern
/// already uses: *distinct variables are distinct dims* (and sizes are positive). Dims are
/// compared through a normal form (sums of products of variables, `/` as exact division,
/// `//` and `%` kept whole); two dims provably differ when their difference is a nonzero
/// constant (`s + 1` and `s`), or when, their common factors cancelled, they are two distinct
/// variables with the same coefficient (`s` and `head_dim`; `heads * head_dim` and
/// `kv_heads * head_dim`), or the same variables with different coefficients (`2 * s` and
/// `s`). A variable against a literal (`n` and `3`), or against a product (`d_model` and
/// `heads * head_dim` without a `where` that relates them), is not a proof. In broadcasting,
/// a dim written as a variable is not taken to be 1: a dim meant to stretch is written `1`.
/// Ranks that are both known and differ are a proof. A branch of an `if` or a `match` is
/// checked as if it runs.
///
/// **No false positives; unknown is never an error.** A method outside the vocabulary, a call
/// of another function (a helper, another struct's method), a loop that may reassign a
/// local, `if` or `match` branches that leave a local with different shapes, a closure or a
/// macro that may assign it: the local's shape is unknown from there on. `let` shadowing and
/// block scopes are followed. `self`'s fields and the other checked methods are read under
/// `#[shapes::check]` on the `impl` block (below); a checked function or another struct's
/// checked method declared beside the function is read by its contract (below); any other
/// call is unknown, unless the `let` carries a `#[shape]`.
///
/// The BERT self-attention and feed-forward block and the Llama attention (grouped-query
/// `repeat_kv`, rope, a kv-cache) of the repository's tests, written as candle-transformers
/// writes them with their weights as parameters, are tracked in full: every op, no gap. So
/// are a BERT layer and a Llama decoder layer written as structs of `candle_nn` layers with
/// `#[shapes::check]` on their `impl`s (`tests/it/flow_model.rs`): every op of every checked
/// method, the decoder block's calls of its attention's and MLP's `forward` (other structs'
/// checked methods) included, with no `#[shape]` on any `let`.
/// burn's `Tensor` shares the names `matmul`, `narrow`, `permute`, `flatten`, `cat`, `stack`,
/// `reshape` and the element-wise ops, whose rules hold for it too, and its own names are in
/// the vocabulary: `reshape([b, s, heads, head_dim])` (an array; `-1` is the hole, a `0` is not
/// read), `swap_dims(a, b)` (negative axes too), `transpose()`, `let [b, s, _] = x.dims()`,
/// `unsqueeze_dim(i)`, `expand([…])`, `sum_dim`/`mean_dim`/`max_dim`/`min_dim` (which keep the
/// axis), `repeat_dim`, `argmax(i)` (kept axis, when the body's tensors are burn's:
/// `Tensor<3>`, `Tensor<B, 3>`), `mask_fill`, the `*_scalar` ops and
/// `burn::tensor::activation::{softmax, silu, gelu, …}`. A Llama attention and MLP written
/// with burn (`shapes-core/src/frameworks/burn_flow_tests.rs`) are tracked in full.
///
/// **`#[shape("…")]` on a `let`** gives the local a shape from there on, in the names of the
/// function's patterns (it may introduce new ones). It is a compile error when the shape the
/// analysis tracked for the value contradicts it, and, in debug builds, it is checked when it
/// runs, in the call's scope (so `b` is the `b` the arguments bound), with the error the
/// arguments' checks give: a wrong annotation is caught at its line. It needs a plain name
/// (`let h = …`) in the function's own body (not in a closure). Its error names the local and
/// the line of its `let`: `forward.y (line 233): axis 1 expected d_model = 16, found 15`.
///
/// **`each_let`**: `#[check(each_let)]` puts on every other `let` of a plain name whose shape
/// the analysis tracked that shape, as a `#[shape]` (unknown dims as `_`), checked when it runs
/// in debug builds. What the analysis assumed but a run can contradict (a layer built with other
/// sizes than its struct declares, and never verified; an op that does not do what its name
/// says) then fails at the first `let` that shows it, with its line, before candle fails
/// further on, or silently does not.
///
/// **On an `impl` block: `self`'s fields.** A method's attribute sees the method, not its
/// struct. Put `#[shapes::check]` on the `impl` block as well (any `impl` of a struct that
/// derives [`Shaped`](derive@Shaped), `impl Module for Model` included), and every method of
/// the block that has its own `#[shapes::check(self, …)]` reads, in its body:
///
/// - a tensor field as a tensor of its pattern (`self.w`), a `dim = "…"` field as that size
///   (`reshape((b, s, self.num_heads, self.head_dim))`);
/// - a field holding a framework layer (`Linear`, `Embedding`, `LayerNorm`, `RmsNorm`,
///   `Conv1d`, `Conv2d`, candle's or burn's, `#[shape(nested, rename(…))]`) as its forward
///   contract in the struct's names:
///   `self.up.forward(&x)` takes `(*batch, d_in)` and gives `(*batch, d_out)` (the contracts
///   are [`forwards::FORWARDS`]);
/// - the struct's `where` equations, as facts;
/// - another checked method of the same block, `self.repeat_kv(&k)`, by its contract: each
///   argument against its parameter's pattern, the return value's pattern with the callee's own
///   variables bound from the arguments;
/// - a `nested` field holding another struct of the user's, `self.attn.forward(&x)`, by the
///   contracts of that struct's checked methods (below), in this struct's names through the
///   field's `rename(…)` (for `scope = "own"`, every variable of the callee is its own).
///
/// **Contracts of the items beside it.** A call of a checked free function
/// (`repeat_kv(&k, n_rep)`), of a checked associated function (`Rope::rotate(&q)`, or
/// `Self::rotate(&q)` in a method of an `impl` block under `#[shapes::check]`) or of another
/// struct's checked method is read by the callee's contract, the same way, when the callee is
/// declared in the same module of the same source file as the caller (a local, a parameter or
/// a `fn` of the body of the same name is what a call means instead): the macro reads that file (`Span::local_file`) and the callee's own
/// `#[shapes::check(…)]` and `#[shape("…")]` attributes, which are what its checks enforce when
/// it runs. A callee declared in another file or module, generated by a macro, or whose name
/// its module declares twice (two `impl`s giving a method the same name, `cfg` variants), is
/// unknown, as any call outside the vocabulary is. Where two inline modules of one file check
/// items of the same name, the one expanding is told apart by its text (two identical ones are
/// not, and read no neighbours). A callee's `where` is not read. Under `trace`, a call of a
/// held struct's method whose contract is not beside the function says so at the call.
///
/// Only a method with `self` reads them, because only there is the struct's `d_model` the
/// method's `d_model` (`trace` says so at a field a method without `self` uses). A field the
/// body assigns (`self.cache = …`, `&mut self.cache`) is not read from the struct in that
/// body: its shape may have changed. The block's attribute takes no options but `crate = "…"`; it finds the
/// struct through the path the `impl` names it with, which works anywhere in the struct's
/// crate. On a struct that does not derive `Shaped`, it fails to build with "cannot find macro
/// `__shapes_derive_Shaped_on_Model`". Two derived structs of the same name, one declared in a
/// scope inside the other's (a test module's `Model` under its parent's `Model`, or a `Model`
/// declared in a function of that module), make that name ambiguous to the inner block's
/// attribute (E0659): rename one. A `Conv1d` or `Conv2d` field's forward gives its output's
/// rank and channels (`c_out`); the output's length is unknown (it depends on padding, stride
/// and dilation, which the weights do not record) and the input's channels are not compared
/// (a grouped convolution's weight holds one group's). Transposed convolutions are not
/// followed.
///
/// ```
/// use shapes::{Shape, ShapeError, Shaped};
/// # struct Tensor(Shape);
/// # impl shapes::verify::HasShape for Tensor {
/// #     type Dims<'a> = &'a [usize];
/// #     fn shape(&self) -> &[usize] { self.0.dims() }
/// # }
/// # impl Tensor {
/// #     fn t(&self) -> Result<Tensor, ShapeError> { Ok(Tensor(Shape::new(&[self.0.dims()[1], self.0.dims()[0]]))) }
/// #     fn matmul(&self, rhs: &Tensor) -> Result<Tensor, ShapeError> { Ok(Tensor(Shape::new(&[self.0.dims()[0], rhs.0.dims()[1]]))) }
/// # }
///
/// #[derive(Shaped)]
/// struct Head {
///     #[shape("(d_out, d_in)")]
///     w: Tensor,
/// }
///
/// #[shapes::check]
/// impl Head {
///     // `x.matmul(&self.w)` would not build: inner dims differ (d_in vs d_out).
///     #[shapes::check(self, ret = "(n, d_out)")]
///     fn forward(&self, #[shape("(n, d_in)")] x: &Tensor) -> Result<Tensor, ShapeError> {
///         x.matmul(&self.w.t()?)
///     }
/// }
///
/// let head = Head { w: Tensor(Shape::new(&[4, 3])) };
/// assert_eq!(head.forward(&Tensor(Shape::new(&[2, 3]))).unwrap().0.dims(), &[2, 4]);
/// ```
///
/// **`trace`**: `#[check(trace)]` turns each place where the analysis lost a shape into a
/// `deprecated` warning at that place ("shapes: shape tracking lost: `self.q_proj.forward(&x)`
/// is not in the vocabulary; …"), so a body's coverage is visible in the editor and in
/// `cargo check` without failing the build (unless warnings are denied). A stable procedural
/// macro cannot emit warnings of its own; the warning is that of a `#[deprecated]` item the
/// macro uses at the place.
///
/// ```
/// use shapes::{Shape, ShapeError, check};
///
/// // A stand-in for candle's `Tensor`, with the two methods this body uses.
/// struct Tensor(Shape);
/// impl shapes::verify::HasShape for Tensor {
///     type Dims<'a> = &'a [usize];
///     fn shape(&self) -> &[usize] { self.0.dims() }
/// }
/// impl Tensor {
///     fn t(&self) -> Result<Tensor, ShapeError> {
///         Ok(Tensor(Shape::new(&[self.0.dims()[1], self.0.dims()[0]])))
///     }
///     fn matmul(&self, rhs: &Tensor) -> Result<Tensor, ShapeError> {
///         Ok(Tensor(Shape::new(&[self.0.dims()[0], rhs.0.dims()[1]])))
///     }
/// }
///
/// #[check(ret = "(n, m)")]
/// fn project(
///     #[shape("(n, d)")] x: &Tensor,
///     #[shape("(m, d)")] w: &Tensor,
/// ) -> Result<Tensor, ShapeError> {
///     let wt = w.t()?;
///     #[shape("(n, m)")]
///     let y = x.matmul(&wt)?;
///     Ok(y)
/// }
///
/// let y = project(&Tensor(Shape::from([2, 3])), &Tensor(Shape::from([5, 3]))).unwrap();
/// assert_eq!(y.0, Shape::from([2, 5]));
/// ```
///
/// Without the `.t()`, `x.matmul(&w)` multiplies `(n, d)` by `(m, d)`: `d` and `m` are
/// distinct variables, so the build fails at the `matmul`:
///
/// ```compile_fail
/// # use shapes::{Shape, ShapeError, check};
/// # struct Tensor(Shape);
/// # impl shapes::verify::HasShape for Tensor {
/// #     type Dims<'a> = &'a [usize];
/// #     fn shape(&self) -> &[usize] { self.0.dims() }
/// # }
/// # impl Tensor {
/// #     fn matmul(&self, rhs: &Tensor) -> Result<Tensor, ShapeError> { Ok(Tensor(rhs.0.clone())) }
/// # }
/// #[check(ret = "(n, m)")]
/// fn project(
///     #[shape("(n, d)")] x: &Tensor,
///     #[shape("(m, d)")] w: &Tensor,
/// ) -> Result<Tensor, ShapeError> {
///     x.matmul(w)
/// }
/// # fn main() {}
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
/// To turn the analysis of the bodies off (a way out should it ever be wrong, and how its cost
/// is measured): `RUSTFLAGS="--cfg shapes_no_flow"` builds every `#[check]` function as
/// without it: no error and no gap from the body, the run-time checks as written. On a crate of
/// 20 checked Llama attentions and MLPs the analysis adds 0–7% to `cargo build` and 3–5% to
/// `cargo check` (`benches/forward_build_time.sh`).
///
/// With candle (0.11) or burn (0.22), see the `frameworks` module (features `candle`, `burn`): the framework's layer
/// types are `Shaped`, and a checked `forward` returns `candle_core::Result`.
#[cfg(feature = "derive")]
pub use shapes_derive::check;
