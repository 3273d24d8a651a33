//! `#[shapes::check]`: one call's arguments and return value checked in one scope.
//!
//! Every test that expects a mismatch to be caught is compiled out under `--cfg shapes_no_checks`;
//! `checks_compiled_out` covers that state
//! (`RUSTFLAGS="--cfg shapes_no_checks" cargo test --test it check::`).

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use shapes::{Shape, ShapeError, ShapeErrorKind, check, verify::HasShape};

/// A stand-in for a tensor type: only its shape matters here.
#[derive(Debug, Clone, PartialEq)]
struct Tensor {
    shape: Shape,
}

impl HasShape for Tensor {
    type Dims<'a> = &'a [usize];
    fn shape(&self) -> &[usize] {
        self.shape.dims()
    }
}

fn t(dims: &[usize]) -> Tensor {
    Tensor {
        shape: Shape::new(dims),
    }
}

/// `(*b, n, k) @ (k, m) -> (*b, n, m)`, computed honestly.
#[check(ret = "(*b, n, m)")]
fn matmul(#[shape("(*b, n, k)")] x: &Tensor, #[shape("(k, m)")] w: &Tensor) -> Tensor {
    let d = x.shape.dims();
    let mut out = d[..d.len() - 1].to_vec();
    out.push(w.shape.dims()[1]);
    t(&out)
}

/// The same signature, but the body returns a wrong shape when asked to.
#[check(ret = "(*b, n, m)")]
fn matmul_buggy(
    #[shape("(*b, n, k)")] x: &Tensor,
    #[shape("(k, m)")] w: &Tensor,
    wrong: bool,
) -> Tensor {
    let d = x.shape.dims();
    let mut out = d[..d.len() - 1].to_vec();
    out.push(w.shape.dims()[1] + usize::from(wrong));
    t(&out)
}

#[derive(Debug)]
enum ModelError {
    Shape(ShapeError),
    Other(&'static str),
}

impl From<ShapeError> for ModelError {
    fn from(e: ShapeError) -> Self {
        ModelError::Shape(e)
    }
}

#[check(ret = "(n, m)")]
fn try_matmul(
    #[shape("(n, k)")] x: &Tensor,
    #[shape("(k, m)")] w: &Tensor,
    fail: bool,
    wrong: bool,
) -> Result<Tensor, ModelError> {
    if fail {
        return Err(ModelError::Other("asked to fail"));
    }
    let m = w.shape.dims()[1] + usize::from(wrong);
    Ok(t(&[x.shape.dims()[0], m]))
}

#[check]
fn attention(
    #[shape("(batch, seq, heads * head_dim)")] q: &Tensor,
    #[shape("(batch, seq, heads, head_dim)")] k: &Tensor,
    #[shape("(#batch, 1, seq)")] mask: &Tensor,
) -> Result<(), ShapeError> {
    Ok(())
}

fn attention_err(q: &[usize], k: &[usize], mask: &[usize]) -> ShapeError {
    attention(&t(q), &t(k), &t(mask)).expect_err("a mismatch")
}

#[test]
fn passes_and_computes() {
    assert_eq!(matmul(&t(&[2, 3]), &t(&[3, 5])), t(&[2, 5]));
    assert_eq!(matmul(&t(&[7, 8, 2, 3]), &t(&[3, 5])), t(&[7, 8, 2, 5]));
    assert_eq!(matmul_buggy(&t(&[4, 3]), &t(&[3, 5]), false), t(&[4, 5]));
    assert!(attention(&t(&[2, 10, 768]), &t(&[2, 10, 12, 64]), &t(&[2, 1, 10])).is_ok());
    // `#batch` accepts a size of 1.
    assert!(attention(&t(&[2, 10, 768]), &t(&[2, 10, 12, 64]), &t(&[1, 1, 10])).is_ok());
    assert_eq!(
        try_matmul(&t(&[2, 3]), &t(&[3, 4]), false, false).unwrap(),
        t(&[2, 4])
    );
}

#[cfg(not(shapes_no_checks))]
mod mismatches {
    use super::*;

    #[test]
    #[should_panic(expected = "matmul.w: axis 0 expected k = 3, found 4\n  \
                               k = 3 bound by matmul.x axis 1\n  \
                               shape is (4, 5), pattern (k, m)")]
    fn variable_mismatch_panics_with_the_full_message() {
        matmul(&t(&[2, 3]), &t(&[4, 5]));
    }

    #[test]
    #[should_panic(expected = "matmul.w: expected 2 dims, found 3")]
    fn rank_mismatch_panics() {
        matmul(&t(&[2, 3]), &t(&[3, 4, 5]));
    }

    #[test]
    #[should_panic(expected = "matmul.x: expected at least 2 dims, found 1")]
    fn variadic_rank_mismatch_panics() {
        matmul(&t(&[3]), &t(&[3, 4]));
    }

    #[test]
    #[should_panic(expected = "matmul_buggy.return: axis 2 expected m = 5, found 6\n  \
                               m = 5 bound by matmul_buggy.w axis 1\n  \
                               shape is (8, 4, 6), pattern (*b, n, m)")]
    fn return_value_mismatch_panics() {
        matmul_buggy(&t(&[8, 4, 3]), &t(&[3, 5]), true);
    }

    #[test]
    fn result_functions_return_the_error() {
        // `heads * head_dim` waits for `k` to bind both names, then is checked.
        let err = attention_err(&[2, 10, 768], &[2, 10, 12, 32], &[2, 1, 10]);
        assert_eq!(
            err.to_string(),
            "attention.q: axis 2 expected heads * head_dim = 12 * 32 = 384, found 768\n  \
             heads = 12 bound by attention.k axis 2; head_dim = 32 bound by attention.k axis 3\n  \
             shape is (2, 10, 768), pattern (batch, seq, heads * head_dim)"
        );
        assert_eq!(err.path.to_string(), "attention.q");
        assert_eq!(err.axis, Some(2));
        assert_eq!(err.found(), Some(768));
    }

    #[test]
    fn each_mismatch_kind_is_reported() {
        // rank
        let e = attention_err(&[2, 10], &[2, 10, 12, 64], &[2, 1, 10]);
        assert!(
            matches!(
                e.kind,
                ShapeErrorKind::Rank {
                    expected: 3,
                    at_least: false
                }
            ),
            "{e}"
        );
        // literal
        let e = attention_err(&[2, 10, 768], &[2, 10, 12, 64], &[2, 3, 10]);
        assert!(
            matches!(e.kind, ShapeErrorKind::Literal { expected: 1 }),
            "{e}"
        );
        assert_eq!(e.path.to_string(), "attention.mask");
        // a variable bound by another argument
        let e = attention_err(&[2, 10, 768], &[3, 10, 12, 64], &[2, 1, 10]);
        assert!(
            matches!(e.kind, ShapeErrorKind::Dim { value: 2, .. }),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("batch = 2 bound by attention.q axis 0"),
            "{e}"
        );
        // a broadcastable dim that is neither 1 nor the bound value
        let e = attention_err(&[2, 10, 768], &[2, 10, 12, 64], &[3, 1, 10]);
        assert_eq!(e.path.to_string(), "attention.mask");
        assert_eq!(e.axis, Some(0));
        // an expression over variables: heads * head_dim
        let e = attention_err(&[2, 10, 700], &[2, 10, 12, 64], &[2, 1, 10]);
        assert!(
            e.to_string()
                .contains("heads * head_dim = 12 * 64 = 768, found 700"),
            "{e}"
        );
        // a variadic bound by one argument and repeated by another
        let e = variadic_err();
        assert!(matches!(e.kind, ShapeErrorKind::Variadic { .. }), "{e}");
        assert!(
            e.to_string()
                .starts_with("same_batch.y: axis 0 expected *b = (2, 3), found (2, 4)"),
            "{e}"
        );
    }

    #[check]
    fn same_batch(
        #[shape("(*b, n)")] x: &Tensor,
        #[shape("(*b, m)")] y: &Tensor,
    ) -> Result<(), ShapeError> {
        Ok(())
    }

    fn variadic_err() -> ShapeError {
        assert!(same_batch(&t(&[2, 3, 5]), &t(&[2, 3, 7])).is_ok());
        same_batch(&t(&[2, 3, 5]), &t(&[2, 4, 7])).unwrap_err()
    }

    #[test]
    fn return_value_of_a_result_function() {
        // Ok value of the wrong shape: the Ok is replaced by the shape error.
        match try_matmul(&t(&[2, 3]), &t(&[3, 4]), false, true) {
            Err(ModelError::Shape(e)) => {
                assert!(
                    e.to_string()
                        .starts_with("try_matmul.return: axis 1 expected m = 4, found 5"),
                    "{e}"
                )
            }
            other => panic!("expected a shape error, got {other:?}"),
        }
        // The function's own errors pass through untouched.
        assert!(matches!(
            try_matmul(&t(&[2, 3]), &t(&[3, 4]), true, false),
            Err(ModelError::Other("asked to fail"))
        ));
        // An argument mismatch never runs the body.
        assert!(matches!(
            try_matmul(&t(&[2, 3]), &t(&[5, 4]), true, false),
            Err(ModelError::Shape(_))
        ));
    }

    #[test]
    fn parameter_order_does_not_matter() {
        // `h * w` comes before the argument that binds `h` and `w`: checked in a second pass.
        #[check]
        fn flatten(#[shape("(h * w,)")] flat: &Tensor, #[shape("(h, w)")] grid: &Tensor) -> bool {
            true
        }
        assert!(flatten(&t(&[6]), &t(&[2, 3])));
        let r = std::panic::catch_unwind(|| flatten(&t(&[5]), &t(&[2, 3])));
        let msg = r.expect_err("a panic");
        let msg = msg.downcast_ref::<String>().expect("a message");
        assert!(
            msg.starts_with("flatten.flat: axis 0 expected h * w = 2 * 3 = 6, found 5"),
            "{msg}"
        );
        // One unknown is solved on the spot: `2 * n` binds n = 4 before `half` is seen.
        #[check]
        fn halves(#[shape("(2 * n,)")] whole: &Tensor, #[shape("(n,)")] half: &Tensor) -> bool {
            true
        }
        assert!(halves(&t(&[8]), &t(&[4])));
        let r = std::panic::catch_unwind(|| halves(&t(&[8]), &t(&[3])));
        let msg = r.expect_err("a panic");
        let msg = msg.downcast_ref::<String>().expect("a message");
        assert!(
            msg.starts_with(
                "halves.half: axis 0 expected n = 4, found 3\n  n = 4 bound by solving halves.whole"
            ),
            "{msg}"
        );
    }

    #[test]
    fn return_errors_quote_where_the_arguments_bound_each_name() {
        // The arguments are gone when the return value is checked (moved into the body):
        // their bindings are replayed with their origins, solved and variadic ones included.
        #[check(ret = "(d,)")]
        fn quarter(#[shape("(4 * d,)")] x: Tensor, off: usize) -> Tensor {
            t(&[x.shape.dims()[0] / 4 + off])
        }
        let r = std::panic::catch_unwind(|| quarter(t(&[3072]), 1));
        let msg = r.expect_err("a panic");
        let msg = msg.downcast_ref::<String>().expect("a message");
        assert_eq!(
            msg,
            "quarter.return: axis 0 expected d = 768, found 769\n  \
             d = 768 bound by solving quarter.x\n  \
             shape is (769,), pattern (d,)"
        );

        #[check(ret = "(*b, n)")]
        fn rows(#[shape("(*b, n, k)")] x: Tensor, bump: usize) -> Tensor {
            let d = x.shape.dims();
            t(&[d[0], d[1] + bump, d[2]])
        }
        assert_eq!(rows(t(&[2, 3, 5, 7]), 0), t(&[2, 3, 5]));
        let r = std::panic::catch_unwind(|| rows(t(&[2, 3, 5, 7]), 1));
        let msg = r.expect_err("a panic");
        let msg = msg.downcast_ref::<String>().expect("a message");
        assert_eq!(
            msg,
            "rows.return: axis 0 expected *b = (2, 3), found (2, 4)\n  \
             b = (2, 3) bound by rows.x axis 0\n  \
             shape is (2, 4, 5), pattern (*b, n)"
        );
    }

    #[test]
    fn unknown_in_expression_is_solved_from_the_dim() {
        #[check(ret = "(d,)")]
        fn split(#[shape("(4 * d,)")] x: &Tensor) -> Tensor {
            t(&[x.shape.dims()[0] / 4])
        }
        assert_eq!(split(&t(&[3072])), t(&[768]));
        let r = std::panic::catch_unwind(|| split(&t(&[3070])));
        assert!(r.is_err());
    }
}

// ----- methods, generics, other function shapes -----

struct Linear {
    weight: Tensor,
    calls: usize,
}

impl Linear {
    #[check(ret = "(*b, d_out)")]
    fn forward(&self, #[shape("(*b, d_in)")] x: &Tensor) -> Tensor {
        let mut d = x.shape.dims().to_vec();
        if let Some(last) = d.last_mut() {
            *last = self.weight.shape.dims()[0];
        }
        t(&d)
    }

    #[check]
    fn count(&mut self, #[shape("(n,)")] _x: &Tensor) -> usize {
        self.calls += 1;
        self.calls
    }

    #[check]
    fn load(self, #[shape("(d_out, d_in)")] w: Tensor) -> Linear {
        Linear { weight: w, ..self }
    }
}

impl HasShape for Linear {
    type Dims<'a> = &'a [usize];
    fn shape(&self) -> &[usize] {
        self.weight.shape.dims()
    }
}

impl Linear {
    /// `#[shape]` on `self`: the receiver is checked like any parameter.
    #[check]
    fn apply(#[shape("(d_out, d_in)")] &self, #[shape("(d_in,)")] x: &Tensor) -> Tensor {
        t(&[self.weight.shape.dims()[0]])
    }
}

#[test]
fn methods() {
    let mut lin = Linear {
        weight: t(&[4, 3]),
        calls: 0,
    };
    assert_eq!(lin.forward(&t(&[2, 5, 3])), t(&[2, 5, 4]));
    assert_eq!(lin.count(&t(&[9])), 1);
    assert_eq!(lin.count(&t(&[2])), 2);
    assert_eq!(lin.apply(&t(&[3])), t(&[4]));
    let lin = lin.load(t(&[6, 3]));
    assert_eq!(lin.weight, t(&[6, 3]));
    #[cfg(not(shapes_no_checks))]
    {
        let r = std::panic::catch_unwind(|| lin.apply(&t(&[4])));
        let msg = r.expect_err("a panic");
        let msg = msg.downcast_ref::<String>().expect("a message");
        assert!(
            msg.starts_with(
                "apply.x: axis 0 expected d_in = 3, found 4\n  d_in = 3 bound by apply.self axis 1"
            ),
            "{msg}"
        );
    }
}

#[check(ret = "(n,)")]
fn first_row<T: HasShape>(#[shape("(n, _)")] m: &T, rows: &[Shape]) -> Shape {
    let _ = m;
    rows[0].clone()
}

#[check]
fn numel(#[shape("(a, b)")] x: impl HasShape) -> usize {
    x.shape().as_ref().iter().product()
}

#[test]
fn generics_and_impl_trait() {
    let rows = [Shape::from([2])];
    assert_eq!(first_row(&Shape::from([2, 9]), &rows), Shape::from([2]));
    assert_eq!(first_row(&t(&[2, 9]), &rows), Shape::from([2]));
    assert_eq!(numel(Shape::from([3, 4])), 12);
    assert_eq!(numel([[0f32; 4]; 3]), 12);
    #[cfg(not(shapes_no_checks))]
    {
        assert!(std::panic::catch_unwind(|| first_row(&Shape::from([3, 9]), &rows)).is_err());
        assert!(std::panic::catch_unwind(|| numel(Shape::from([3]))).is_err());
    }
}

/// Early `return` and `?` inside a body whose return value is checked.
#[check(ret = "(n,)")]
fn parse_len(#[shape("(n,)")] x: &Tensor, text: &str) -> Result<Tensor, ModelError> {
    if text.is_empty() {
        return Ok(x.clone());
    }
    let extra: usize = text
        .parse()
        .map_err(|_| ModelError::Other("not a number"))?;
    Ok(t(&[x.shape.dims()[0] + extra]))
}

/// A borrowed return value with an elided lifetime.
#[check(ret = "(n,)")]
fn pick<'a>(#[shape("(n,)")] a: &'a Tensor, b: &'a Tensor) -> &'a Tensor {
    if a.shape.rank() > 5 { b } else { a }
}

#[check(ret = "(n,)")]
fn elided(#[shape("(n,)")] a: &Tensor) -> &Tensor {
    a
}

/// `impl Trait` in return position.
#[check(ret = "(n, n)")]
fn square(#[shape("(n,)")] x: &Tensor) -> impl HasShape {
    let n = x.shape.dims()[0];
    Shape::from([n, n])
}

#[test]
fn control_flow_and_borrowed_returns() {
    let x = t(&[3]);
    assert_eq!(parse_len(&x, "").unwrap(), x);
    assert!(matches!(parse_len(&x, "zz"), Err(ModelError::Other(_))));
    assert_eq!(pick(&x, &x), &x);
    assert_eq!(elided(&x), &x);
    assert_eq!(square(&x).shape().as_ref(), &[3, 3]);
    #[cfg(not(shapes_no_checks))]
    assert!(matches!(parse_len(&x, "2"), Err(ModelError::Shape(_))));
}

fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

#[check(ret = "(n, m)")]
async fn async_matmul(#[shape("(n, k)")] x: &Tensor, #[shape("(k, m)")] w: &Tensor) -> Tensor {
    std::future::ready(()).await;
    t(&[x.shape.dims()[0], w.shape.dims()[1]])
}

#[check]
async fn async_len(#[shape("(n,)")] x: Tensor) -> Result<usize, ShapeError> {
    Ok(x.shape.dims()[0])
}

#[test]
fn async_functions() {
    assert_eq!(block_on(async_matmul(&t(&[2, 3]), &t(&[3, 4]))), t(&[2, 4]));
    assert_eq!(block_on(async_len(t(&[5]))).unwrap(), 5);
    #[cfg(not(shapes_no_checks))]
    {
        assert!(block_on(async_len(t(&[5, 1]))).is_err());
        let r = std::panic::catch_unwind(|| block_on(async_matmul(&t(&[2, 3]), &t(&[4, 4]))));
        assert!(r.is_err());
    }
}

// `#[shape]` on a `let`: checked in the call's scope (`n` is the argument's) where the value
// is bound, in debug builds, in every form of body: a plain one, one closed over for `ret`,
// an async one, and one that panics rather than returning the error.
#[check]
fn let_checked(#[shape("(n,)")] x: &Tensor, wrong: bool) -> Result<usize, ShapeError> {
    #[shape("(n, 2)")]
    let y = t(&[x.shape.dims()[0] + usize::from(wrong), 2]);
    Ok(y.shape.dims()[0])
}

#[check(ret = "(n, 2)")]
fn let_checked_ret(#[shape("(n,)")] x: &Tensor, wrong: bool) -> Result<Tensor, ShapeError> {
    #[shape("(n, m)")]
    let y = t(&[x.shape.dims()[0] + usize::from(wrong), 2]);
    Ok(y)
}

#[check(ret = "(n,)")]
async fn let_checked_async(#[shape("(n,)")] x: &Tensor, wrong: bool) -> Tensor {
    std::future::ready(()).await;
    #[shape("(n,)")]
    let y = t(&[x.shape.dims()[0] + usize::from(wrong)]);
    y
}

// A function whose only check is an annotated `let`.
#[check]
fn let_only(x: &Tensor) -> Result<usize, ShapeError> {
    #[shape("(n, n)")]
    let y = x.clone();
    Ok(y.shape.dims()[0])
}

#[test]
fn an_annotated_let_is_checked_in_the_calls_scope() {
    assert_eq!(let_only(&t(&[2, 2])), Ok(2));
    assert_eq!(
        let_only(&t(&[2, 3])).is_err(),
        cfg!(debug_assertions) && !cfg!(shapes_no_checks)
    );
    let x = t(&[3]);
    assert_eq!(let_checked(&x, false), Ok(3));
    assert_eq!(let_checked_ret(&x, false).unwrap(), t(&[3, 2]));
    assert_eq!(block_on(let_checked_async(&x, false)), t(&[3]));
    if cfg!(debug_assertions) && !cfg!(shapes_no_checks) {
        let e = let_checked(&x, true).unwrap_err().to_string();
        // The local, the line of its `let`, then the mismatch.
        let line = include_str!("check.rs")
            .lines()
            .position(|l| l.contains("let y = t(&[x.shape.dims()[0] + usize::from(wrong), 2]);"))
            .map(|i| i + 1);
        assert!(line.is_some());
        assert!(
            e.starts_with(&format!(
                "let_checked.y (line {}): axis 0 expected n = 3, found 4",
                line.unwrap_or(0)
            )),
            "{e}"
        );
        assert!(e.contains("n = 3 bound by let_checked.x axis 0"), "{e}");
        let e = let_checked_ret(&x, true).unwrap_err().to_string();
        assert!(e.starts_with("let_checked_ret.y (line "), "{e}");
        assert!(e.contains("): axis 0 expected n = 3"), "{e}");
        let r = std::panic::catch_unwind(|| block_on(let_checked_async(&x, true)));
        assert!(r.is_err());
    } else {
        // Unchecked, the wrong value goes on (and `ret` catches it where it is checked).
        assert_eq!(let_checked(&x, true), Ok(4));
    }
}

#[check(debug_only)]
fn debug_checked(#[shape("(3,)")] x: &Tensor) -> usize {
    x.shape.dims()[0]
}

#[test]
fn debug_only_checks_follow_debug_assertions() {
    assert_eq!(debug_checked(&t(&[3])), 3);
    let r = std::panic::catch_unwind(|| debug_checked(&t(&[4])));
    let checked = cfg!(debug_assertions) && !cfg!(shapes_no_checks);
    assert_eq!(r.is_err(), checked);
}

#[cfg(shapes_no_checks)]
#[test]
fn checks_compiled_out() {
    // Every mismatch goes through: the functions are their plain bodies.
    assert!(!shapes::__testing::CHECKS);
    assert!(attention(&t(&[2, 10]), &t(&[7]), &t(&[])).is_ok());
    assert_eq!(matmul_buggy(&t(&[4, 3]), &t(&[3, 5]), true), t(&[4, 6]));
    assert!(try_matmul(&t(&[2, 3]), &t(&[3, 4]), false, true).is_ok());
}

/// Passing calls are decided by the fast checker alone; the general one only runs to build an
/// error. Run in release too (`cargo test --release --test it check::`): that is where a
/// miscompiled fast path would show.
#[test]
fn passing_calls_stay_on_the_fast_path() {
    let before = shapes::__testing::call_reports();
    for _ in 0..3 {
        assert_eq!(matmul(&t(&[7, 8, 2, 3]), &t(&[3, 5])), t(&[7, 8, 2, 5]));
        assert_eq!(matmul_buggy(&t(&[4, 3]), &t(&[3, 5]), false), t(&[4, 5]));
        assert!(attention(&t(&[2, 10, 768]), &t(&[2, 10, 12, 64]), &t(&[1, 1, 10])).is_ok());
        assert!(try_matmul(&t(&[2, 3]), &t(&[3, 4]), false, false).is_ok());
        assert_eq!(
            first_row(&Shape::from([2, 9]), &[Shape::from([2])]),
            Shape::from([2])
        );
        assert_eq!(square(&t(&[3])).shape().as_ref(), &[3, 3]);
        assert_eq!(block_on(async_len(t(&[5]))).unwrap(), 5);
    }
    assert_eq!(shapes::__testing::call_reports(), before);
    #[cfg(not(shapes_no_checks))]
    {
        assert!(attention(&t(&[2, 10]), &t(&[2, 10, 12, 64]), &t(&[2, 1, 10])).is_err());
        assert_eq!(shapes::__testing::call_reports(), before + 1);
    }
}

/// An optional mask: checked when given, against the other arguments' variables.
#[check]
fn masked_scores(
    #[shape("(batch, seq, seq)")] scores: &Tensor,
    #[shape("(batch, 1, seq)")] mask: Option<&Tensor>,
) -> usize {
    mask.map_or(0, |m| m.shape.dims()[2])
}

#[test]
fn an_optional_argument_is_checked_when_some() {
    let scores = t(&[2, 7, 7]);
    assert_eq!(masked_scores(&scores, None), 0);
    assert_eq!(masked_scores(&scores, Some(&t(&[2, 1, 7]))), 7);
    #[cfg(not(shapes_no_checks))]
    {
        let e =
            std::panic::catch_unwind(|| masked_scores(&scores, Some(&t(&[2, 1, 6])))).unwrap_err();
        let msg = e.downcast_ref::<String>().unwrap();
        assert!(
            msg.starts_with("masked_scores.mask: axis 2 expected seq = 7, found 6"),
            "{msg}"
        );
    }
}

/// A `Result` function that chooses to panic on a mismatch.
#[check(panic)]
fn strict_len(#[shape("(n, n)")] x: &Tensor) -> Result<usize, String> {
    Ok(x.shape.dims()[0])
}

/// A `Result` function whose error type has no `From<ShapeError>`: the error is mapped.
#[check(map_err = "shape_message")]
fn mapped_len(#[shape("(n, n)")] x: &Tensor) -> Result<usize, String> {
    Ok(x.shape.dims()[0])
}

fn shape_message(e: ShapeError) -> String {
    format!("bad input: {e}")
}

#[test]
fn a_result_function_may_panic_or_map_the_error() {
    assert_eq!(strict_len(&t(&[3, 3])), Ok(3));
    assert_eq!(mapped_len(&t(&[3, 3])), Ok(3));
    #[cfg(not(shapes_no_checks))]
    {
        assert!(std::panic::catch_unwind(|| strict_len(&t(&[3, 4]))).is_err());
        let e = mapped_len(&t(&[3, 4])).unwrap_err();
        assert!(
            e.starts_with("bad input: mapped_len.x: axis 1 expected n = 3, found 4"),
            "{e}"
        );
    }
}

#[test]
#[cfg(not(shapes_no_checks))]
fn a_mismatch_panic_names_the_callers_line() {
    use std::sync::Mutex;
    static LOCATION: Mutex<Option<(String, u32)>> = Mutex::new(None);
    let previous = std::panic::take_hook();
    // The hook is the process's: tests on other threads panic too (the one above does, on
    // purpose), so only this thread's panic is recorded.
    let me = std::thread::current().id();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == me
            && let Some(l) = info.location()
        {
            *LOCATION.lock().unwrap() = Some((l.file().to_owned(), l.line()));
        }
    }));
    let line = line!() + 1;
    let result = std::panic::catch_unwind(|| strict_len(&t(&[2, 5])));
    std::panic::set_hook(previous);
    assert!(result.is_err());
    let (file, at) = LOCATION.lock().unwrap().clone().unwrap();
    assert!(file.ends_with("check.rs"), "{file}");
    assert_eq!(at, line);
}
