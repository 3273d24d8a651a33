use super::*;
use crate::{infer_app, parse};

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
