use super::*;
use crate::expr::parse;
use crate::solve::infer_app;

fn dims(range: std::ops::Range<usize>, f: impl Fn(usize) -> String) -> String {
    let v: Vec<String> = range.map(f).collect();
    v.join(", ")
}

/// `Π (x0, …, x{n-1})` is an `n`-level chain `x0 × x1 × …`: past the depth limit it is an
/// error, before it is built; units and literals add no level.
#[test]
fn products_of_many_symbolic_dims_stop_at_the_depth_limit() {
    let limit = Substitution::MAX_TERM_DEPTH;
    let prod = |n: usize| parse(&format!("(Π ({}),)", dims(0..n, |i| format!("x{i}"))));
    // n dims: n - 1 products, n levels.
    let ok = prod(limit).unwrap().eval().unwrap();
    assert_eq!(ok.to_string().matches('×').count(), limit - 1);
    let err = prod(limit + 1).unwrap().eval().unwrap_err();
    assert_eq!(err.kind(), &InferErrorKind::TermTooDeep { limit }, "{err}");
    let sum = parse(&format!("(Σ ({}),)", dims(0..300, |i| format!("x{i}"))));
    assert!(sum.unwrap().eval().is_err());
    // Units are dropped and literals fold: no chain.
    let units = format!(
        "(Π (x, {}), Σ (y, {}))",
        dims(0..300, |_| "1".into()),
        dims(0..300, |_| "0".into())
    );
    assert_eq!(parse(&units).unwrap().eval().unwrap().to_string(), "(x, y)");
    let lits = format!("(Π (x, {}),)", dims(0..300, |i| (i % 3 + 1).to_string()));
    assert_eq!(
        parse(&lits)
            .unwrap()
            .eval()
            .unwrap()
            .to_string()
            .matches('×')
            .count(),
        300 - 100
    );
    // Through an application, on a 2 MiB stack.
    let f = parse("a -> (Π a,)").unwrap();
    let arg = parse(&format!("({})", dims(0..1000, |i| format!("x{i}")))).unwrap();
    let err = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || infer_app(&f, &[arg]).unwrap_err())
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(err.kind(), &InferErrorKind::TermTooDeep { limit });
}

/// What the free-form solver fuzz target found: answers that printed to text that does not
/// parse. Each is now an error or an answer that round-trips.
mod printable_answers {
    use crate::expr::parse;
    use crate::solve::infer_app;

    fn round_trips_or_errs(f: &str, args: &[&str]) {
        let f = parse(f).unwrap();
        let args: Vec<_> = args.iter().map(|a| parse(a).unwrap()).collect();
        if let Ok(out) = infer_app(&f, &args) {
            for text in [out.to_string(), format!("{out:#}")] {
                assert_eq!(parse(&text).as_ref(), Ok(&out), "{text}");
            }
        }
    }

    #[test]
    fn sizes_of_functions_are_errors() {
        let f = parse("x -> (x[0],)").unwrap();
        let e = infer_app(&f, &[parse("(() -> ())").unwrap()]).unwrap_err();
        assert!(e.to_string().contains("is a function, not a shape"), "{e}");
        let f = parse("x -> (x[0], x[0])").unwrap();
        assert!(infer_app(&f, &[parse("((() -> ()))[-0]").unwrap()]).is_err());
        round_trips_or_errs("x -> (D x,)", &["(a -> a)"]);
    }

    #[test]
    fn substituted_broadcastable_dims_and_axes_of_sizes_print_back() {
        round_trips_or_errs(
            "(y -> ((b -> b) -> (x -> (a, #x, #y, _))))",
            &["D ((((#x, #c, #x, #x) || (#x, #x, #x, #x)) || ()))"],
        );
        round_trips_or_errs(
            "{ x | x[2] >= n * 131072 } -> Sz[9 9 9 9]",
            &["Sz[9 9 9 9]"],
        );
        assert_eq!(parse("(#(h * 2), 3)").unwrap().to_string(), "(#(h × 2), 3)");
    }
}

/// Found by the `solver` fuzz target: a reshape between concrete shapes whose element counts
/// overflow `usize` was answered with its constraint left open (a non-concrete `Ok`). A side
/// that is no size is an error, and products that do fit still compare.
#[test]
fn a_constraint_on_overflowing_products_is_an_error_not_an_open_answer() {
    let f = parse("{ a -> b -> b | (prod a = prod b) }").unwrap();
    let args = [
        Expr::shape(&[1, 18446742978677440511, 171419407573057535, 2]),
        Expr::shape(&[usize::MAX, 2200634458111]),
    ];
    let e = infer_app(&f, &args).unwrap_err().to_string();
    assert!(e.contains("overflows"), "{e}");
    let ok = infer_app(&f, &[Expr::shape(&[6, 4]), Expr::shape(&[8, 3])]).unwrap();
    assert_eq!(ok, Expr::shape(&[8, 3]));
    let bad = infer_app(&f, &[Expr::shape(&[6, 4]), Expr::shape(&[8, 4])]);
    assert!(bad.is_err());
}
