use super::super::dims::{Facts, shape_of};
use super::*;

fn op<'a>(text: &'a str, dims: &'a [Dim]) -> Operand<'a> {
    Operand {
        text: Quote::Str(text),
        dims,
    }
}

fn ok(r: Rule) -> String {
    show_shape(&r.expect("no mismatch").expect("a known shape"))
}

#[test]
fn matmul_checks_inner_and_batch_dims() {
    let f = Facts::default();
    let q = shape_of("(b, heads, s, head_dim)");
    let kt = shape_of("(b, heads, head_dim, s)");
    assert_eq!(
        ok(matmul(&op("q", &q), &op("kt", &kt), &f)),
        "(b, heads, s, s)"
    );
    let err = matmul(&op("q", &q), &op("k", &q), &f).unwrap_err();
    assert!(
        err.starts_with("inner dims differ: `q` is (b, heads, s, head_dim)"),
        "{err}"
    );
    assert!(err.ends_with("did you mean `k.t()`?"), "{err}");
    let kv = shape_of("(b, kv_heads, head_dim, s)");
    let err = matmul(&op("q", &q), &op("k", &kv), &f).unwrap_err();
    assert!(err.starts_with("batch dims differ"), "{err}");
    let unknown = shape_of("(b, _, head_dim, s)");
    assert!(matmul(&op("q", &q), &op("k", &unknown), &f).is_ok());
    let w = shape_of("(d, e)");
    assert!(
        matmul(&op("q", &q), &op("w", &w), &f)
            .unwrap_err()
            .starts_with("ranks differ")
    );
}

#[test]
fn broadcast_matmul_broadcasts_batches() {
    let f = Facts::default();
    let x = shape_of("(b, s, d)");
    let w = shape_of("(d, e)");
    assert_eq!(
        ok(broadcast_matmul(&op("x", &x), &op("w", &w), &f)),
        "(b, s, e)"
    );
}

#[test]
fn broadcasting_needs_a_literal_one() {
    let f = Facts::default();
    let att = shape_of("(b, heads, s, s)");
    let mask = shape_of("(b, 1, 1, s)");
    assert_eq!(
        ok(broadcast(&op("att", &att), &op("mask", &mask), &f)),
        "(b, heads, s, s)"
    );
    let wrong = shape_of("(b, s, 1, 1)");
    assert!(broadcast(&op("att", &att), &op("mask", &wrong), &f).is_err());
    let lit = shape_of("(b, 7, s, s)");
    assert_eq!(
        ok(broadcast(&op("att", &att), &op("m", &lit), &f)),
        "(b, _, s, s)"
    );
}

#[test]
fn elementwise_wants_equal_shapes() {
    let f = Facts::default();
    let x = shape_of("(b, s, d_model)");
    let y = shape_of("(b, s, d_ff)");
    assert!(
        elementwise(&op("x", &x), &op("y", &y), &f)
            .unwrap_err()
            .contains("axis 2: d_model vs d_ff")
    );
    assert_eq!(
        ok(elementwise(&op("x", &x), &op("x", &x), &f)),
        "(b, s, d_model)"
    );
}

#[test]
fn axes_resolve_from_either_end() {
    let x = shape_of("(a, b, c)");
    assert_eq!(
        ok(transpose(&op("x", &x), Axis::Index(0), Axis::FromEnd(1))),
        "(c, b, a)"
    );
    assert!(transpose(&op("x", &x), Axis::Index(3), Axis::Index(0)).is_err());
    assert_eq!(
        ok(unsqueeze(&op("x", &x), Axis::FromEnd(1))),
        "(a, b, c, 1)"
    );
    assert_eq!(
        ok(permute(
            &op("x", &x),
            &[Axis::Index(2), Axis::Index(0), Axis::Index(1)]
        )),
        "(c, a, b)"
    );
    assert!(
        permute(
            &op("x", &x),
            &[Axis::Index(2), Axis::Index(2), Axis::Index(1)]
        )
        .is_err()
    );
    assert_eq!(ok(t(&op("x", &x))), "(a, c, b)");
}

#[test]
fn reshape_counts_elements() {
    let f = Facts::default();
    let x = shape_of("(b, s, heads * head_dim)");
    let to = |s: &str| -> Vec<Target> { shape_of(s).into_iter().map(Target::Dim).collect() };
    assert_eq!(
        ok(reshape(&op("x", &x), &to("(b, s, heads, head_dim)"), &f)),
        "(b, s, heads, head_dim)"
    );
    assert!(reshape(&op("x", &x), &to("(b, s, kv_heads, head_dim)"), &f).is_err());
    assert!(reshape(&op("x", &x), &to("(b, s, _, head_dim)"), &f).is_ok());
    let hole = vec![Target::Dim(shape_of("(b,)")[0].clone()), Target::Hole];
    assert_eq!(
        ok(reshape(&op("x", &x), &hole, &f)),
        "(b, head_dim * heads * s)"
    );
}

#[test]
fn flatten_and_squeeze() {
    let f = Facts::default();
    let x = shape_of("(b, heads, s, 1)");
    assert_eq!(
        ok(flatten(
            &op("x", &x),
            Some(Axis::Index(1)),
            Some(Axis::Index(2))
        )),
        "(b, heads * s, 1)"
    );
    assert_eq!(ok(flatten(&op("x", &x), None, None)), "(b * heads * s,)");
    assert_eq!(
        ok(squeeze(&op("x", &x), Axis::FromEnd(1), &f)),
        "(b, heads, s)"
    );
    assert_eq!(squeeze(&op("x", &x), Axis::Index(1), &f), Ok(None));
}

#[test]
fn narrow_past_a_known_size() {
    let f = Facts::default();
    let x = shape_of("(s, 8)");
    let d = |s: &str| shape_of(&format!("({s},)")).pop().flatten();
    assert!(narrow(&op("x", &x), Axis::Index(1), &d("4"), &d("5"), &f).is_err());
    assert_eq!(
        ok(narrow(&op("x", &x), Axis::Index(1), &d("4"), &d("4"), &f)),
        "(s, 4)"
    );
    assert!(narrow(&op("x", &x), Axis::Index(0), &d("1"), &d("s"), &f).is_err());
    assert!(narrow(&op("x", &x), Axis::Index(0), &d("p"), &d("n"), &f).is_ok());
}

#[test]
fn cat_and_stack() {
    let f = Facts::default();
    let a = shape_of("(b, s, d)");
    let c = shape_of("(b, p, d)");
    assert_eq!(
        ok(cat(&[op("a", &a), op("c", &c)], Axis::Index(1), &f)),
        "(b, s + p, d)"
    );
    assert!(cat(&[op("a", &a), op("c", &c)], Axis::Index(2), &f).is_err());
    assert_eq!(
        ok(stack(&[op("a", &a), op("a", &a)], Axis::Index(0), &f)),
        "(2, b, s, d)"
    );
    let n = shape_of("(n,)").pop().flatten();
    assert_eq!(
        ok(cat_repeat(&op("a", &a), &n, Axis::Index(0))),
        "(b * n, s, d)"
    );
}

#[test]
fn index_select_takes_the_indices_length() {
    let emb = shape_of("(vocab, d)");
    let ids = shape_of("(n,)");
    assert_eq!(
        ok(index_select(
            &op("emb", &emb),
            &op("ids", &ids),
            Axis::Index(0)
        )),
        "(n, d)"
    );
    let ids2 = shape_of("(b, n)");
    assert!(index_select(&op("emb", &emb), &op("ids", &ids2), Axis::Index(0)).is_err());
}

#[test]
fn reductions_and_dims() {
    let x = shape_of("(b, s, d)");
    assert_eq!(
        ok(reduce(&op("x", &x), Axis::FromEnd(1), true)),
        "(b, s, 1)"
    );
    assert_eq!(ok(reduce(&op("x", &x), Axis::Index(0), false)), "(s, d)");
    assert!(dims_n(&op("x", &x), 4).is_err());
}

fn pattern(text: &str) -> shapes_core::expr::Pattern {
    shapes_core::expr::parse_pattern(text).expect("a pattern")
}

#[test]
fn a_layer_forward_passes_the_batch_dims_and_checks_the_last() {
    let facts = Facts::default();
    let (input, output) = (pattern("(*batch, d_model)"), pattern("(*batch, d_ff)"));
    let x = shape_of("(b, s, d_model)");
    assert_eq!(
        ok(forward(
            "self.up",
            "Linear",
            &input,
            &output,
            &op("x", &x),
            &facts
        )),
        "(b, s, d_ff)"
    );
    let wrong = shape_of("(b, s, d_ff)");
    let e = forward(
        "self.up",
        "Linear",
        &input,
        &output,
        &op("h", &wrong),
        &facts,
    )
    .expect_err("d_ff is not d_model");
    assert!(
        e.contains("`self.up` (a Linear) takes (*batch, d_model)"),
        "{e}"
    );
    let scalar: Vec<Dim> = Vec::new();
    assert!(
        forward(
            "self.up",
            "Linear",
            &input,
            &output,
            &op("c", &scalar),
            &facts
        )
        .is_err()
    );
    // An unknown last dim is not provably wrong.
    let unknown = shape_of("(b, s, _)");
    assert_eq!(
        ok(forward(
            "self.up",
            "Linear",
            &input,
            &output,
            &op("u", &unknown),
            &facts
        )),
        "(b, s, d_ff)"
    );
}

#[test]
fn a_sibling_call_binds_its_own_variables_and_keeps_the_structs() {
    let facts = Facts::default();
    let param = pattern("(b, kv_heads, s, head_dim)");
    let ret = pattern("(b, heads, s, head_dim)");
    let shared = |v: &str| matches!(v, "heads" | "kv_heads" | "head_dim");
    let k = shape_of("(batch, kv_heads, t, head_dim)");
    let args = [(Some(&param), Some(op("k", &k)))];
    assert_eq!(
        ok(call("self.repeat_kv", &args, Some(&ret), &shared, &facts)),
        "(batch, heads, t, head_dim)"
    );
    let q = shape_of("(batch, heads, t, head_dim)");
    let args = [(Some(&param), Some(op("q", &q)))];
    let e = call("self.repeat_kv", &args, Some(&ret), &shared, &facts).expect_err("heads");
    assert!(e.contains("axis 1 is heads, not kv_heads"), "{e}");
    // The method's own variable, bound twice to different dims, is a mismatch.
    let two = pattern("(n, n)");
    let m = shape_of("(s, t)");
    let args = [(Some(&two), Some(op("m", &m)))];
    assert!(call("self.square", &args, None, &|_| false, &facts).is_err());
    // An argument of unknown shape binds nothing: the result's dims it would give are unknown.
    let args = [(Some(&param), None)];
    assert_eq!(
        ok(call("self.repeat_kv", &args, Some(&ret), &shared, &facts)),
        "(_, heads, _, head_dim)"
    );
}
