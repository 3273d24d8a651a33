//! Solver conformance: unification, concrete and symbolic shape operations, inference and
//! verification on every case of another shape solver's suite, then the solver's own rules,
//! one test each.
//!
//! Provenance: gorgonia/shapes. The cases are §2–§6 of
//! `tests/data/conformance/gorgonia_cases.md` (gorgonia's `solver_test.go`, `shapes_test.go`,
//! `slice_test.go`, `utils_test.go`, `abstract_test.go`, the examples and `verify_test.go`) and
//! the bug-revealing rows of the §P probes.
//!
//! Differences in notation, throughout: we print a rank-1 shape as `(5,)` (gorgonia `(5)`),
//! parenthesise arithmetic minimally (gorgonia parenthesises every binary operation), and
//! report errors in our own words (`argument 2 \`(4, 5)\` does not fit parameter \`(3, c)\`:
//! 3 ≠ 4` where gorgonia says `Failed to solve [...] | d: Unification Fail. 3 ~ 4 cannot
//! proceed`). Where gorgonia is wrong (⚠ in the cases file, or a case that contradicts numpy,
//! which is our reference for shape operations) the test asserts the correct answer and says
//! why.

use proptest::prelude::*;
use shapes::{
    Shape,
    expr::{Axis, DimExpr, Expr, SliceSpec, parse},
    solve::{InferErrorKind, Term, infer_app, ops, unify},
};

#[track_caller]
fn e(s: &str) -> Expr {
    match parse(s) {
        Ok(e) => e,
        Err(err) => panic!("{s:?} should parse:\n{err}"),
    }
}

/// `infer_app(f, args)`, printed.
#[track_caller]
fn app(f: &str, args: &[&str]) -> String {
    let args: Vec<Expr> = args.iter().map(|a| e(a)).collect();
    match infer_app(&e(f), &args) {
        Ok(r) => r.to_string(),
        Err(err) => panic!("{f} @ {args:?} should succeed: {err}"),
    }
}

/// The error of `infer_app(f, args)`, printed.
#[track_caller]
fn app_err(f: &str, args: &[&str]) -> String {
    let args: Vec<Expr> = args.iter().map(|a| e(a)).collect();
    match infer_app(&e(f), &args) {
        Ok(r) => panic!("{f} @ {args:?} should fail, gave {r}"),
        Err(err) => err.to_string(),
    }
}

/// `infer_app` on an already-built expression (a partial application's result), printed.
#[track_caller]
fn app_expr(f: &Expr, args: &[&str]) -> Result<Expr, String> {
    let args: Vec<Expr> = args.iter().map(|a| e(a)).collect();
    infer_app(f, &args).map_err(|err| err.to_string())
}

#[track_caller]
fn eval(s: &str) -> String {
    match e(s).eval() {
        Ok(r) => r.to_string(),
        Err(err) => panic!("{s} should evaluate: {err}"),
    }
}

#[track_caller]
fn eval_err(s: &str) -> String {
    match e(s).eval() {
        Ok(r) => panic!("{s} should fail, gave {r}"),
        Err(err) => err.to_string(),
    }
}

#[track_caller]
fn subst(a: &str, b: &str) -> String {
    match unify(&e(a), &e(b)) {
        Ok(s) => s.to_string(),
        Err(err) => panic!("{a} ~ {b} should unify: {err}"),
    }
}

fn r(start: Option<isize>, end: Option<isize>, step: Option<isize>) -> SliceSpec {
    SliceSpec::Range { start, end, step }
}

// ----- §2 Unification and solving ------------------------------------------------------------

#[test]
fn s2_unification_u1_to_u5_and_s1() {
    // U1, U2: gorgonia lists newest first ([{3/b}, {2/a}]); we print in binding order.
    assert_eq!(subst("(2, 3)", "(a, b)"), "{a ↦ 2, b ↦ 3}");
    assert_eq!(subst("(a, b)", "(2, 3)"), "{a ↦ 2, b ↦ 3}");
    // U3
    assert_eq!(subst("(a, b)", "(c, d)"), "{a ↦ c, b ↦ d}");
    // U4 ⚠: gorgonia gives [{c/b}, {b/a}], not idempotent (a ↦ b while b ↦ c). Ours is.
    assert_eq!(subst("(a, b)", "(b, c)"), "{a ↦ c, b ↦ c}");
    let s = unify(&e("(a, b)"), &e("(b, c)")).unwrap();
    let once = s.apply(&e("(a, b, c)"));
    assert_eq!(s.apply(&once), once, "applying twice changes nothing");
    // U5
    assert_eq!(subst("a", "(2, 3)"), "{a ↦ (2, 3)}");
    // S1: solve([(a → b) ≐ (b → c)]) is the unification of the two arrows; idempotent again.
    assert_eq!(subst("a -> b", "b -> c"), "{a ↦ c, b ↦ c}");
}

// ----- §3 Concrete shape operations ----------------------------------------------------------

#[test]
fn s3_1_and_3_2_soft_vector_equality() {
    let eq: &[(&[usize], &[usize], bool)] = &[
        // §3.1 E1..E7
        (&[], &[], true),
        (&[2], &[2, 1], true),
        (&[1, 2], &[2], true),
        (&[1, 2, 3], &[1, 2, 3], true),
        (&[], &[1], false),
        (&[2], &[1, 3], false),
        (&[1, 2, 3], &[1, 2, 4], false),
        // §3.2
        (&[1], &[], false),
        (&[3], &[5], false),
        (&[2, 1], &[2, 1], true),
        (&[2, 1], &[1, 2], false),
        (&[2], &[2, 3], false),
        (&[2, 3], &[2, 3], true),
        (&[2, 3], &[3, 2], false),
    ];
    for &(a, b, want) in eq {
        assert_eq!(ops::vector_eq(a, b), want, "{a:?} ≈ {b:?}");
        assert_eq!(ops::vector_eq(b, a), want, "{b:?} ≈ {a:?}");
    }
}

#[test]
fn s3_3_and_3_4_shape_predicates() {
    // (shape, scalar, scalar_equiv, vector, vector_like, col, row, matrix). The "–" cells of
    // §3.3 are filled from the probe rows PX25..PX33.
    type Row = (&'static [usize], [bool; 7]);
    let rows: &[Row] = &[
        (&[], [true, true, false, true, false, false, false]),
        (&[1], [false, true, true, true, false, false, false]),
        (&[2], [false, false, true, true, false, false, false]),
        (&[2, 1], [false, false, true, true, true, false, true]),
        (&[1, 2], [false, false, true, true, false, true, true]),
        (&[2, 2], [false, false, false, false, false, false, true]),
        (&[1, 1], [false, true, false, true, false, false, true]),
        (&[0, 0], [false, true, false, false, false, false, true]),
        (
            &[1, 0, 2],
            [false, false, false, false, false, false, false],
        ),
    ];
    for &(s, want) in rows {
        let got = [
            ops::is_scalar(s),
            ops::is_scalar_equiv(s),
            ops::is_vector(s),
            ops::is_vector_like(s),
            ops::is_col_vec(s),
            ops::is_row_vec(s),
            ops::is_matrix(s),
        ];
        assert_eq!(got, want, "{s:?}");
    }
    // §3.4 ExampleShape_IsScalarEquiv
    assert!(ops::is_scalar_equiv(&[1, 1, 1, 1, 1, 1]));
    assert!(ops::is_scalar_equiv(&[]));
    assert!(!ops::is_scalar_equiv(&[2, 3]));
    assert!(ops::is_scalar_equiv(&[0, 0, 0]));
    assert!(!ops::is_scalar_equiv(&[1, 2, 0, 3]));
}

#[test]
fn s3_5_dim_with_negative_indexing() {
    let s = Shape::from([2, 3, 4]);
    assert_eq!(s.dim(0), Some(2)); // D1
    assert_eq!(s.dim(1), Some(3)); // D2
    assert_eq!(s.dim(2), Some(4)); // D3
    assert_eq!(s.dim(-1), Some(4)); // D4
    assert_eq!(s.dim(-2), Some(3)); // D5
    assert_eq!(s.dim(-3), Some(2)); // D6
    // D7 (sic upstream: a scalar's dim 0 is 0): a scalar has no axis 0, so there is no size to
    // return; 0 would read as "an empty axis". We answer None, as numpy raises.
    assert_eq!(Shape::scalar().dim(0), None);
    assert_eq!(Shape::scalar().dim(-1), None); // D8
    assert_eq!(s.dim(3), None); // D9
    assert_eq!(s.dim(-4), None); // D10
    // The same in the language: a size `a[i]`.
    assert_eq!(app("a -> (a[-1],)", &["(2, 3, 4)"]), "(4,)");
    assert!(app_err("a -> (a[0],)", &["()"]).contains("axis 0 is out of range"));
}

#[test]
fn s3_6_slicing_concrete_shapes() {
    // SS1: no slices
    assert_eq!(ops::slice(&[], &[]).unwrap(), Shape::scalar());
    // SS2: a slice on a scalar (and a zero step) is an error
    assert!(ops::slice(&[], &[r(Some(0), Some(0), Some(0))]).is_err());
    // SS3: gorgonia's `[0]` is the index 0, which drops the axis
    assert_eq!(eval("(2,)[0]"), "()");
    // SS4: start past the end of an index
    assert!(eval_err("(2,)[3]").contains("index 3 is out of bounds for axis 0 with size 2"));
    // SS5: two slices for one dim
    assert!(eval_err("(2,)[:, 0]").contains("too many indices"));
    // SS6 ⚠: gorgonia floors (4-1)/2 = 1 and then drops the axis, giving (); numpy's
    // np.empty(5)[1:4:2] has shape (2,) (indices 1 and 3).
    assert_eq!(eval("(5,)[1:4:2]"), "(2,)");
    // SS7..SS10
    assert_eq!(eval("(1, 2, 2)[0, :, :]"), "(2, 2)");
    assert_eq!(eval("(1, 2, 2)[:, 0, :]"), "(1, 2)");
    assert_eq!(eval("(1, 1, 2, 2)[0, :, :, :]"), "(1, 2, 2)");
    assert_eq!(eval("(1, 1, 2, 2)[0]"), "(1, 2, 2)");
}

/// (shape, axis, repeats, new shape, final repeats)
type RepeatCase = (
    &'static [usize],
    Axis,
    &'static [usize],
    &'static [usize],
    &'static [usize],
);

#[test]
fn s3_7_repeat() {
    let rep = |s: &[usize], axis, reps: &[usize]| ops::repeat(s, axis, reps);
    let one = Axis::One;
    // R1, R2, R4: gorgonia repeats along an axis the shape does not have (a scalar's axis 0,
    // a vector's axis 1). numpy raises AxisError for np.repeat(x, 3, axis=a) when a ≥ x.ndim,
    // and numpy is our reference, so these are errors here.
    assert!(rep(&[], one(0), &[3]).is_err()); // R1 (gorgonia: (3,))
    assert!(rep(&[], one(1), &[3]).is_err()); // R2 (gorgonia: (1, 3))
    assert!(rep(&[2], one(1), &[3]).is_err()); // R4 (gorgonia: (2, 3))
    // The flattening form does what R1 meant: np.repeat(scalar, 3) has shape (3,).
    assert_eq!(
        rep(&[], Axis::All, &[3]).unwrap(),
        (Shape::from([3]), vec![3])
    );
    // R3, R5..R11: (shape, final repeats); gorgonia's `size` is the number of final repeats.
    let ok: &[RepeatCase] = &[
        (&[2], one(0), &[3], &[6], &[3, 3]),
        (&[2, 1], one(0), &[3], &[6, 1], &[3, 3]),
        (&[2, 1], one(1), &[3], &[2, 3], &[3]),
        (&[1, 2], one(0), &[3], &[3, 2], &[3]),
        (&[1, 2], one(1), &[3], &[1, 6], &[3, 3]),
        (&[2, 3, 2], one(1), &[1, 2, 1], &[2, 4, 2], &[1, 2, 1]),
        (&[2, 3, 2], Axis::All, &[2], &[24], &[2; 12]),
        (&[2, 3, 2], one(2), &[2], &[2, 3, 4], &[2, 2]),
    ];
    for &(s, axis, reps, want, finals) in ok {
        let (shape, f) = rep(s, axis, reps).unwrap();
        assert_eq!(shape, Shape::from(want), "{s:?} {axis:?} {reps:?}");
        assert_eq!(f, finals);
    }
    assert!(rep(&[2, 1], one(2), &[3]).is_err()); // R12
    assert!(rep(&[2, 3, 2], one(0), &[3, 1, 2]).is_err()); // R13
    // In the language
    assert_eq!(eval("Repeat⁰{[3]} (2, 3)"), "(6, 3)");
    assert_eq!(eval("Repeat^= {[2]} (2, 3)"), "(12,)");
}

#[test]
fn s3_8_concat() {
    let c = |axis, shapes: &[&[usize]]| ops::concat(axis, shapes);
    assert_eq!(
        c(Axis::One(0), &[&[2, 2], &[2, 2], &[2, 2]]).unwrap(),
        Shape::from([6, 2])
    ); // C1
    assert_eq!(
        c(Axis::One(1), &[&[2, 2], &[2, 2], &[2, 2]]).unwrap(),
        Shape::from([2, 6])
    ); // C2
    // C3: gorgonia treats AllAxes as axis 0, giving (6, 2). numpy's concatenate(axis=None)
    // flattens each input first, giving (12,); we follow numpy.
    assert_eq!(
        c(Axis::All, &[&[2, 2], &[2, 2], &[2, 2]]).unwrap(),
        Shape::from([12])
    );
    assert_eq!(c(Axis::One(0), &[&[2]]).unwrap(), Shape::from([2])); // C4
    assert!(c(Axis::One(0), &[&[2, 2], &[2, 3, 2]]).is_err()); // C5
    // C6: a negative axis is not representable (`Axis::One(usize)`; the language's `:{-5}:`
    // does not parse).
    assert!(parse("a :{-5}: b").is_err());
    assert!(c(Axis::One(5), &[&[2, 2], &[2, 2]]).is_err()); // C7
    assert!(c(Axis::One(0), &[&[2, 2], &[2, 2], &[2, 3]]).is_err()); // C8
    // In the language (PX36; PI94 ⚠: gorgonia leaves the concat unevaluated)
    assert_eq!(eval("(2, 3) :{1}: (2, 5)"), "(2, 8)");
    assert_eq!(app("a -> b -> a :{0}: b", &["(2, 3)", "(4, 3)"]), "(6, 3)");
}

proptest! {
    /// §3.9 TestShapes_Clone: a clone equals the original (also softly).
    #[test]
    fn s3_9_clone_is_equal(dims in proptest::collection::vec(0usize..10, 0..6)) {
        let s = Shape::from(dims.clone());
        prop_assert_eq!(s.clone(), s.clone());
        prop_assert!(ops::vector_eq(&s.clone(), &s));
    }
}

#[test]
fn s3_10_ranges_default_end_and_step() {
    // gorgonia's S(1) / S(1, 2) / S(1, 2, 3) are our `[1:2]`, `[1:2]`, `[1:2:3]`; on a long
    // axis each keeps exactly one element, as {1,2,1} and {1,2,3} do.
    assert_eq!(e("[1:2]"), Expr::Slices(vec![r(Some(1), Some(2), None)]));
    assert_eq!(
        e("[1:2:3]"),
        Expr::Slices(vec![r(Some(1), Some(2), Some(3))])
    );
    assert_eq!(eval("(5,)[1:2]"), "(1,)");
    assert_eq!(eval("(5,)[1:2:3]"), "(1,)");
    // A single index `[1]` is numpy's integer index: the axis is dropped.
    assert_eq!(e("[1]"), Expr::Slices(vec![SliceSpec::Index(1)]));
    assert_eq!(eval("(5,)[1]"), "()");
}

#[test]
fn s3_11_product_of_dims() {
    assert_eq!(shapes::shape::numel(&[]), Some(1));
    assert_eq!(shapes::shape::numel(&[1, 1, 1, 1, 1]), Some(1));
    assert_eq!(shapes::shape::numel(&[1, 2, 3, 4, 5, 6]), Some(720));
    assert_eq!(eval("(Π (1, 2, 3, 4, 5, 6),)"), "(720,)");
    assert_eq!(eval("(Π (),)"), "(1,)");
}

#[test]
fn s3_12_and_3_13_permutations() {
    // PM1
    let p = [2, 1, 3, 4, 0];
    let x = ops::permute(&p, &[1, 2, 3, 4, 5]).unwrap();
    let y = ops::permute(&p, &[5, 4, 3, 2, 1]).unwrap();
    assert_eq!(x, [3, 2, 4, 5, 1]);
    assert_eq!(y, [3, 4, 2, 1, 5]);
    // PM2, GP4, GP12: the identity is not an error (gorgonia returns a NoOp error); it
    // changes nothing.
    assert_eq!(ops::permute(&[0, 1, 2, 3, 4], &x).unwrap(), x);
    assert_eq!(ops::permute(&[0], &["x"]).unwrap(), ["x"]);
    assert_eq!(ops::permute::<u8>(&[], &[]).unwrap(), Vec::<u8>::new());
    // PM3
    assert_eq!(ops::permute(&[1, 0], &[3, 2]).unwrap(), [2, 3]);
    assert_eq!(ops::permute(&[1, 0], &[3, 4]).unwrap(), [4, 3]);
    // PM4, GP5: an axis out of range
    let pm4 = ops::permute(&[2, 1], &[3, 2]).unwrap_err();
    assert!(matches!(
        pm4.kind(),
        InferErrorKind::AxisOutOfRange {
            axis: 2,
            rank: 2,
            ..
        }
    ));
    // PM5, GP6: a repeated axis
    assert_eq!(
        ops::permute(&[1, 1], &[3, 2]).unwrap_err().to_string(),
        "transpose: axis 1 is repeated in the permutation"
    );
    // PM6, GP7: a pattern shorter than the array; GP9: longer
    assert!(ops::permute(&[1], &[3, 2]).is_err());
    assert!(ops::permute(&[0, 1, 3, 2], &[3, 2]).is_err());
    // GP1..GP3: any element type
    let words = ["hello", "world", "a", "b", "c"];
    assert_eq!(
        ops::permute(&p, &words).unwrap(),
        ["a", "world", "b", "c", "hello"]
    );
    assert_eq!(
        ops::permute(&p, &[1u8, 2, 3, 4, 5]).unwrap(),
        [3, 2, 4, 5, 1]
    );
    assert_eq!(
        ops::permute(&[1, 0], &["a", "world"]).unwrap(),
        ["world", "a"]
    );
    // GP1's mixed [1, "hello", 2, "world", 5.0] as an enum
    #[derive(Clone, Debug, PartialEq)]
    enum V {
        I(i32),
        S(&'static str),
        F(f64),
    }
    let mixed = [V::I(1), V::S("hello"), V::I(2), V::S("world"), V::F(5.0)];
    assert_eq!(
        ops::permute(&p, &mixed).unwrap(),
        [V::I(2), V::S("hello"), V::S("world"), V::F(5.0), V::I(1)]
    );
    // GP8 (arrays of different lengths), GP10 (no arrays), GP11 (non-slice arguments): our
    // permute takes one slice of one element type, so these cannot be written.
    // In the language
    assert_eq!(eval("T⁽² ⁰ ¹⁾ (2, 3, 4)"), "(4, 2, 3)");
}

// ----- §4 Abstract (symbolic) shape operations -----------------------------------------------

#[test]
fn s4_1_symbolic_transpose() {
    // AT1: the identity permutation leaves the value unchanged (and is not an error here).
    assert_eq!(eval("T⁽⁰ ¹⁾ (1, a + 2)"), "(1, a + 2)");
    // AT2
    assert_eq!(eval("T⁽¹ ⁰⁾ (1, a + 2)"), "(a + 2, 1)");
    // With literal arithmetic we fold: 1 + 2 is 3.
    assert_eq!(eval("T⁽¹ ⁰⁾ (1, 1 + 2)"), "(3, 1)");
    // PX9, PX10, PX12 (PI68 ⚠: gorgonia cannot transpose a symbolic shape)
    assert_eq!(eval("T⁽¹ ⁰⁾ (a, b)"), "(b, a)");
    assert_eq!(eval("T⁽² ⁰ ¹⁾ (a, b, 3)"), "(3, a, b)");
    assert!(eval_err("T⁽⁰ ⁰⁾ (a, b)").contains("repeated"));
    assert_eq!(app("a -> T^(1 0) a", &["(x, y)"]), "(y, x)");
}

#[test]
fn s4_2_symbolic_slices() {
    // AS1
    assert_eq!(eval("(a, b)"), "(a, b)");
    // AS2: gorgonia keeps `b[1]` as a "deferred sliced dim" that is not dropped; an integer
    // index drops its axis, but only once we know 1 < b. We keep the whole slice symbolic
    // until b is known, then compute it.
    assert_eq!(eval("(a, b)[:, 1]"), "(a, b)[:, 1]");
    assert_eq!(app("(a, b) -> (a, b)[:, 1]", &["(4, 3)"]), "(4,)");
    assert!(app_err("(a, b) -> (a, b)[:, 1]", &["(4, 1)"]).contains("out of bounds"));
    // AS3, AS4
    assert_eq!(eval("(2,)[0]"), "()");
    assert!(eval_err("(2,)[3]").contains("out of bounds"));
    // AS5: deferred while a is unknown; numpy on (5, 2)[2, 0:2] gives (2,).
    assert_eq!(eval("(a, 2)[2, 0:2]"), "(a, 2)[2, 0:2]");
    assert_eq!(app("(a,) -> (a, 2)[2, 0:2]", &["(5,)"]), "(2,)");
    // AS6 (with `D b` replaced by a dim `c`: gorgonia's case uses b both as a size and as a
    // shape, which our kinds reject)
    assert_eq!(
        eval("(a, a + b, c)[1:5:2, 1:5, 1:5]"),
        "(a, a + b, c)[1:5:2, 1:5, 1:5]"
    );
    assert_eq!(
        app(
            "(a, b, c) -> (a, a + b, c)[1:5:2, 1:5, 1:5]",
            &["(10, 2, 3)"]
        ),
        "(2, 4, 2)"
    );
}

#[test]
fn s4_3_symbolic_repeat() {
    assert_eq!(eval("Repeat⁰{[3]} (a,)"), "(a × 3,)"); // AR1
    // AR2: axis 1 of a rank-1 shape; numpy raises AxisError (gorgonia gives (a, 3)).
    assert!(eval_err("Repeat¹{[3]} (a,)").contains("axis 1 is out of range"));
    // AR3, AR4: one count per element needs the axis size, which gorgonia takes on faith;
    // we wait until it is known.
    assert_eq!(eval("Repeat⁰{[1 3]} (a, b)"), "Repeat⁰{[1 3]} (a, b)");
    assert_eq!(
        app("(a, b) -> Repeat⁰{[1 3]} (a, b)", &["(2, 7)"]),
        "(4, 7)"
    );
    assert!(app_err("(a, b) -> Repeat⁰{[1 3]} (a, b)", &["(3, 7)"]).contains("2 repeat counts"));
    assert_eq!(
        app("(a, b) -> Repeat¹{[1 3]} (a, b)", &["(5, 2)"]),
        "(5, 4)"
    );
    assert_eq!(eval("Repeat⁰{[3]} (a, b)"), "(a × 3, b)"); // AR5
    assert_eq!(eval("Repeat¹{[3]} (a, b)"), "(a, b × 3)"); // AR6
}

#[test]
fn s4_4_slice_example() {
    // AX1..AX3. gorgonia slices each dim of (a, b, a+b, K b) separately; in our language the
    // slice applies to the shape (and `K b`, gorgonia's marker, is just b).
    let that = "(a, b, a + b, b)[1:5, 1:5, 1:5, 2:5]";
    let f = format!("(a, b) -> (a, b, a + b, b) -> {that}");
    assert_eq!(
        e(&f).to_string(),
        "(a, b) → (a, b, a + b, b) → (a, b, a + b, b)[1:5, 1:5, 1:5, 2:5]"
    );
    assert_eq!(app(&f, &["(10, 20)"]), "(10, 20, 30, 20) → (4, 4, 4, 3)");
    assert_eq!(app(&f, &["(10, 20)", "(10, 20, 30, 20)"]), "(4, 4, 4, 3)");
}

// ----- §5 Inference and printing: golden outputs -----------------------------------------------

#[test]
fn s5_1_make_arrow_printing() {
    let m1 = Expr::arrow(e("(a, b)"), Expr::arrow(e("(b, c)"), e("(a, c)")));
    assert_eq!(m1.to_string(), "(a, b) → (b, c) → (a, c)");
    assert_eq!(e("(a, b) -> (b, c) -> (a, c)"), m1);
    let m2 = Expr::arrow(Expr::arrow(e("(a, b)"), e("(b, c)")), e("(a, c)"));
    assert_eq!(m2.to_string(), "((a, b) → (b, c)) → (a, c)");
    let m3 = Expr::arrow(Expr::arrow(e("a"), e("a")), Expr::arrow(e("b"), e("b")));
    assert_eq!(m3.to_string(), "(a → a) → b → b");
    assert_eq!(e("a -> a -> b -> b").to_string(), "a → a → b → b");
}

/// §5.2 Gen: gorgonia names fresh variables from a fixed list of 50 letters and panics at 51
/// (G4). Our renaming numbers names, so it never runs out: a function with 120 variables, all
/// clashing with the argument's, still applies.
#[test]
fn s5_2_fresh_names_never_run_out() {
    let n = 120;
    let names: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    let fwd = names.join(", ");
    let rev: Vec<&str> = names.iter().rev().map(String::as_str).collect();
    let f = format!("({fwd}) -> ({})", rev.join(", "));
    // The argument uses the same names: every one of f's variables is renamed apart.
    assert_eq!(
        app(&f, &[&format!("({fwd})")]),
        format!("({})", rev.join(", "))
    );
    // Renaming keeps the two sides apart: (a, b) → (b, a) applied to (b, a) swaps them back.
    assert_eq!(app("(a, b) -> (b, a)", &["(b, a)"]), "(a, b)");
    // PI8 ⚠-free: gorgonia renames into (d, c) → (e, c); we keep the argument's names.
    assert_eq!(
        app("(a, b) -> (b, c) -> (a, c)", &["(b, a)"]),
        "(a, c) → (b, c)"
    );
}

#[test]
fn s5_3_matmul() {
    let matmul = "(a, b) -> (b, c) -> (a, c)";
    assert_eq!(e(matmul).to_string(), "(a, b) → (b, c) → (a, c)"); // MM1
    assert_eq!(app(matmul, &["(2, 3)"]), "(3, c) → (2, c)"); // MM2
    let partial = infer_app(&e(matmul), &[e("(2, 3)")]).unwrap();
    assert_eq!(
        app_expr(&partial, &["(3, 4)"]).unwrap().to_string(),
        "(2, 4)"
    ); // MM3
    // MM4
    assert_eq!(
        app_expr(&partial, &["(4, 5)"]).unwrap_err(),
        "argument 1 `(4, 5)` does not fit parameter `(3, c)`: 3 ≠ 4"
    );
    // Both at once
    assert_eq!(app(matmul, &["(2, 3)", "(3, 4)"]), "(2, 4)");
    assert_eq!(
        app_err(matmul, &["(2, 3)", "(4, 5)"]),
        "argument 2 `(4, 5)` does not fit parameter `(3, c)`: 3 ≠ 4"
    );
}

#[test]
fn s5_4_add() {
    let add = "a -> a -> a";
    assert_eq!(e(add).to_string(), "a → a → a"); // A1
    let big = "(5, 2, 3, 1, 10)";
    assert_eq!(app(add, &[big]), "(5, 2, 3, 1, 10) → (5, 2, 3, 1, 10)"); // A2
    let partial = infer_app(&e(add), &[e(big)]).unwrap();
    assert_eq!(
        app_expr(&partial, &[big]).unwrap().to_string(),
        "(5, 2, 3, 1, 10)"
    ); // A3
    // A4
    assert_eq!(
        app_expr(&partial, &["(2, 3)"]).unwrap_err(),
        "argument 1 `(2, 3)` does not fit parameter `(5, 2, 3, 1, 10)`: \
         (5, 2, 3, 1, 10) has 5 dims but (2, 3) has 2"
    );
}

#[test]
fn s5_5_ravel() {
    // RV1: gorgonia prints `a → (Π a)`.
    assert_eq!(e("a -> (Π a)").to_string(), "a → (Π a,)");
    assert_eq!(app("a -> (Π a)", &["(2, 3, 4)"]), "(24,)"); // RV2
    // PI48; PI49 ⚠ (gorgonia cannot ravel a symbolic shape)
    assert_eq!(app("a -> (Π a)", &["()"]), "(1,)");
    assert_eq!(app("a -> (Π a)", &["(x, y)"]), "(x × y,)");
}

#[test]
fn s5_6_transpose() {
    assert_eq!(
        e("a -> X[0 1 3 2] -> T X[0 1 3 2] a").to_string(),
        "a → X[0 1 3 2] → T⁽⁰ ¹ ³ ²⁾ a"
    ); // T1
    let tr = "{ a → X[0 1 3 2] → T⁽⁰ ¹ ³ ²⁾ a | (D X[0 1 3 2] = D a) }";
    assert_eq!(e(tr).to_string(), tr); // T2
    // T3: the constraint is closed, checked and dropped; the transpose is evaluated.
    assert_eq!(app(tr, &["(1, 2, 3, 4)"]), "X[0 1 3 2] → (1, 2, 4, 3)");
    assert_eq!(app(tr, &["(1, 2, 3, 4)", "X[0 1 3 2]"]), "(1, 2, 4, 3)"); // T4
    // T5
    assert_eq!(
        app_err(tr, &["(1, 2, 3, 4)", "X[0 2 1 3]"]),
        "argument 2 `X[0 2 1 3]` does not fit parameter `X[0 1 3 2]`: X[0 1 3 2] ≠ X[0 2 1 3]"
    );
    // T6
    assert_eq!(
        app_err(tr, &["(2, 3, 4)"]),
        "argument 1 `(2, 3, 4)` does not fit parameter `a`: \
         constraint (D X[0 1 3 2] = D (2, 3, 4)) is false"
    );
    // TN1, TN2
    assert_eq!(e("a → T⁽⁰ ¹ ² ³⁾ a").to_string(), "a → T⁽⁰ ¹ ² ³⁾ a");
    assert_eq!(app("a → T⁽⁰ ¹ ² ³⁾ a", &["(1, 2, 3, 4)"]), "(1, 2, 3, 4)");
    // PI60..PI67
    let tr2 = "{ a → X[1 0] → T⁽¹ ⁰⁾ a | (D X[1 0] = D a) }";
    assert_eq!(app(tr2, &["(2, 3)", "X[1 0]"]), "(3, 2)");
    assert!(app_err(tr2, &["(2, 3, 4)"]).contains("is false"));
    // PI62: open while a's rank is unknown, closed (and true) for (x, y)
    assert_eq!(app(tr2, &["(x, y)"]), "X[1 0] → (y, x)");
    assert_eq!(app(tr2, &["x"]), "{ X[1 0] → T⁽¹ ⁰⁾ x | (D X[1 0] = D x) }");
    assert!(app_err("a → T⁽¹ ⁰⁾ a", &["(2, 3, 4)"]).contains("2 axes given for a shape of rank 3"));
    assert!(app_err("a → T⁽⁾ a", &["(2, 3)"]).contains("0 axes given"));
}

#[test]
fn s5_8_indexing() {
    let idx = "{ a → b → () | ((D a = D b) ∧ (∀ b < ∀ a)) }";
    assert_eq!(e("a → b → ()").to_string(), "a → b → ()"); // I1
    assert_eq!(e(idx).to_string(), idx); // I2
    // I3: the constraint is still open, so it is carried, with a substituted.
    assert_eq!(
        app(idx, &["(1, 2, 3, 4)"]),
        "{ b → () | ((D (1, 2, 3, 4) = D b) ∧ (∀ b < ∀ (1, 2, 3, 4))) }"
    );
    assert_eq!(app(idx, &["(1, 2, 3, 4)", "Sz[0 0 1 0]"]), "()"); // I4
    assert_eq!(
        app(idx, &["(5,)"]),
        "{ b → () | ((D (5,) = D b) ∧ (∀ b < ∀ (5,))) }"
    ); // I5
    assert_eq!(app(idx, &["(5,)", "Sz[0]"]), "()"); // I6
    assert_eq!(
        app(idx, &["()"]),
        "{ b → () | ((D () = D b) ∧ (∀ b < ∀ ())) }"
    ); // I7
    assert_eq!(app(idx, &["()", "Sz[]"]), "()"); // I8: ∀ over nothing is true
    // Applying the partial result (I3 then I4), as the example does
    let partial = infer_app(&e(idx), &[e("(1, 2, 3, 4)")]).unwrap();
    assert_eq!(
        app_expr(&partial, &["Sz[0 0 1 0]"]).unwrap().to_string(),
        "()"
    );
    // PI58, PI59
    assert!(app_err(idx, &["(1, 2, 3, 4)", "Sz[0 2 1 0]"]).contains("is false"));
    assert!(app_err(idx, &["(1, 2, 3, 4)", "Sz[0 0 1]"]).contains("is false"));
}

#[test]
fn s5_9_and_5_10_slicing() {
    let sl = "{ a → b → a[b] | (a[0] ≥ 2) }";
    assert_eq!(e(sl).to_string(), sl); // SL1
    assert_eq!(app(sl, &["(5, 3, 4)"]), "b → (5, 3, 4)[b]"); // SL2
    assert_eq!(app(sl, &["(5, 3, 4)", "[0:2]"]), "(2, 3, 4)"); // SL3
    assert!(app_err(sl, &["(1, 3, 4)"]).contains("constraint ((1, 3, 4)[0] ≥ 2) is false"));
    // SB1, SB2
    assert_eq!(e("a → a[0:2, 0:2, 3]").to_string(), "a → a[0:2, 0:2, 3]");
    assert_eq!(app("a → a[0:2, 0:2, 3]", &["(5, 3, 4)"]), "(2, 2)");
    // PI78..PI86: numpy semantics
    assert_eq!(app("a → a[0:2]", &["(5, 3, 4)"]), "(2, 3, 4)");
    assert_eq!(app("a → a[1:4:2]", &["(5,)"]), "(2,)"); // PI79 ⚠ gorgonia: ()
    assert_eq!(app("a → a[0:5:2]", &["(5,)"]), "(3,)"); // PI80 ⚠ gorgonia: (2,)
    assert_eq!(app("a → a[1:3]", &["(5, 3)"]), "(2, 3)");
    assert_eq!(app("a → a[3]", &["(5, 3)"]), "(3,)");
    assert_eq!(app("a → a[0:10]", &["(5, 3)"]), "(5, 3)");
    // PI84: numpy slices past the end to an empty axis (gorgonia: an error)
    assert_eq!(app("a → a[6:8]", &["(5, 3)"]), "(0, 3)");
    assert_eq!(app("a → a[::-1]", &["(5, 3)"]), "(5, 3)");
    assert_eq!(app("a → a[-2:]", &["(5, 3)"]), "(2, 3)");
    // PI86 ⚠: gorgonia errors on a symbolic operand; we keep it symbolic.
    assert_eq!(app("a → a[0:2]", &["(x, y)"]), "(x, y)[0:2]");
    // PI56
    assert!(app_err("a → a[5]", &["(5, 3)"]).contains("index 5 is out of bounds"));
}

#[test]
fn s5_11_reshape() {
    let rs = "{ a → b → b | (Π a = Π b) }";
    assert_eq!(e(rs).to_string(), rs); // RS1
    assert_eq!(app(rs, &["(2, 3)"]), "{ b → b | (Π (2, 3) = Π b) }"); // RS2
    assert_eq!(app(rs, &["(2, 3)", "(3, 2)"]), "(3, 2)"); // RS3
    // RS4
    assert_eq!(
        app_err(rs, &["(2, 3)", "(6, 2)"]),
        "argument 2 `(6, 2)` does not fit parameter `b`: constraint (Π (2, 3) = Π (6, 2)) is false"
    );
    assert_eq!(app(rs, &["(2, 3)", "(6,)"]), "(6,)"); // PI41
}

#[test]
fn s5_12_and_5_13_reductions() {
    assert_eq!(e("(r, c) -> (1, c)").to_string(), "(r, c) → (1, c)"); // CS1
    assert_eq!(e("(r, c) -> (c,)").to_string(), "(r, c) → (c,)"); // CS2
    assert_eq!(e("a -> /^1 a").to_string(), "a → /¹a"); // CS3
    assert_eq!(app("a → /¹a", &["(2, 3)"]), "(2,)"); // CS4
    assert_eq!(e("a → /⁰/¹a").to_string(), "a → /⁰/¹a"); // SA1
    assert_eq!(app("a → /⁰/¹a", &["(2, 3)"]), "()"); // SA2
    assert_eq!(e("a -> /^= a").to_string(), "a → /⁼a"); // SA3
    assert_eq!(app("a → /⁼a", &["(2, 3)"]), "()"); // SA4
    // PI70, PI74, PI77
    assert_eq!(app("a → /⁰a", &["(2, 3)"]), "(3,)");
    assert_eq!(app("a → /⁰/²a", &["(2, 3, 4)"]), "(3,)");
    assert_eq!(app("a → /¹T⁽¹ ⁰⁾ a", &["(2, 3)"]), "(3,)");
    // PI72 ⚠ (gorgonia panics): an axis out of range is an error
    assert_eq!(
        app_err("a → /³a", &["(2, 3, 4)"]),
        "reduce: axis 3 is out of range for a shape of rank 3"
    );
    // PI76 ⚠ (gorgonia errors): a symbolic shape reduces symbolically
    assert_eq!(app("a → /¹a", &["(x, y, z)"]), "(x, z)");
}

#[test]
fn s5_14_print_only() {
    assert_eq!(e("(a, a) -> ()").to_string(), "(a, a) → ()"); // TR1
    let kd = Expr::Compound(
        Box::new(Expr::arrow(e("a -> b"), Expr::arrow(e("a"), e("c")))),
        Box::new(match e("{ a | (D a = D c) }") {
            Expr::Compound(_, p) => *p,
            _ => unreachable!(),
        }),
    );
    assert_eq!(kd.to_string(), "{ (a → b) → a → c | (D a = D c) }"); // KD1
    assert_eq!(app("(a, a) → ()", &["(3, 3)"]), "()"); // PI22
    assert!(app_err("(a, a) → ()", &["(3, 4)"]).contains("3 ≠ 4")); // PI23
}

#[test]
fn s5_15_broadcast() {
    let bc = "{ a → b → (a||b) | (K a ⚟ K b) }";
    assert_eq!(e(bc).to_string(), bc); // BC1
    assert_eq!(
        app(bc, &["(2, 3, 4)"]),
        "{ b → ((2, 3, 4)||b) | (K (2, 3, 4) ⚟ K b) }"
    ); // BC2
    assert_eq!(app(bc, &["(2, 3, 4)", "(2, 1, 4)"]), "(2, 3, 4)"); // BC3
    // PI28..PI39 with numpy's rules
    assert_eq!(app(bc, &["(2, 1, 4)", "(2, 3, 4)"]), "(2, 3, 4)");
    assert_eq!(app(bc, &["(1, 3)", "(2, 1)"]), "(2, 3)");
    assert!(app_err(bc, &["(2, 3)", "(2, 4)"]).contains("is false"));
    assert_eq!(app(bc, &["(2, 3, 4)", "(3, 4)"]), "(2, 3, 4)"); // PI32 ⚠ gorgonia panics
    assert_eq!(app(bc, &["(2, 3)", "()"]), "(2, 3)"); // PI33 ⚠ gorgonia errors
    assert_eq!(app(bc, &["(2, 3)", "(1, 1)"]), "(2, 3)");
    assert_eq!(app(bc, &["(3, 1)", "(3,)"]), "(3, 3)"); // PI35 ⚠ gorgonia panics
    assert_eq!(app(bc, &["(3,)", "(3, 1)"]), "(3, 3)"); // PI36 ⚠ gorgonia: (3,)
    assert_eq!(app(bc, &["(1,)", "(5,)"]), "(5,)");
    // PI38 ⚠: without the constraint gorgonia returns (4, 5); the broadcast itself fails.
    assert!(app_err("a → b → (a||b)", &["(2, 3)", "(4, 5)"]).contains("broadcast"));
    assert_eq!(app("a → b → (a||b)", &["(2, 3)", "(2, 1)"]), "(2, 3)");
    // Symbolic dims broadcast when the answer does not depend on them
    assert_eq!(app("a → b → (a||b)", &["(x, 1)", "(5,)"]), "(x, 5)");
}

#[test]
fn s5_16_im2col() {
    let f = "(b, c, h, w) → (b, ((h + 2×1) - 3) ÷ 1 + 1, ((w + 2×1) - 3) ÷ 1 + 1, c × 9)";
    // IC1: gorgonia parenthesises every operation; we print minimal parentheses (the same
    // tree: `÷` binds tighter than `+`, and `-` is left-associative).
    assert_eq!(
        e(f).to_string(),
        "(b, c, h, w) → (b, (h + 2 × 1 - 3) ÷ 1 + 1, (w + 2 × 1 - 3) ÷ 1 + 1, c × 9)"
    );
    assert_eq!(app(f, &["(100, 3, 90, 120)"]), "(100, 90, 120, 27)"); // IC2
    // A 3×3 kernel, stride 2: floor division rounds down
    let s2 = "(b, c, h, w) → (b, (h + 2 - 3) // 2 + 1, (w + 2 - 3) // 2 + 1, c × 9)";
    assert_eq!(app(s2, &["(1, 3, 7, 8)"]), "(1, 4, 4, 27)");
}

#[test]
fn s5_17_package_example() {
    let matmul = "(a, b) -> (b, c) -> (a, c)";
    assert_eq!(app(matmul, &["(2, 3)", "(3, 2)"]), "(2, 2)"); // PK1
    assert_eq!(app("a → a → a", &["(2, 2)", "(2, 2)"]), "(2, 2)"); // PK2
    assert_eq!(e("() -> ()").to_string(), "() → ()"); // PK3
    let apply = "a → (b → b) → a";
    assert_eq!(e(apply).to_string(), apply); // PK4
    assert_eq!(app(apply, &["(2, 2)", "() → ()"]), "(2, 2)");
    // PK5
    assert_eq!(
        app_err("a → a → a", &["(2, 2)", "(2, 3)"]),
        "argument 2 `(2, 3)` does not fit parameter `(2, 2)`: 2 ≠ 3"
    );
}

#[test]
fn s5_18_subject_to_prints() {
    assert_eq!(
        e("{ a | (D (2, 3, 4) = D (3, 4, 5)) }").to_string(),
        "{ a | (D (2, 3, 4) = D (3, 4, 5)) }"
    );
    // and it is false
    assert!(e("{ a | (D (2, 3, 4) = D (3, 4, 5)) }").eval().is_ok());
    assert!(e("{ a | (D (2, 3, 4) = D (3, 4)) }").eval().is_err());
}

// ----- §6 Verify -------------------------------------------------------------------------------

#[test]
fn s6_verify_as_one_scope() {
    // Verify's fields A: (a, b, c), B: (b, c) share one scope: one application.
    let f = "(a, b, c) → (b, c) → ()";
    assert_eq!(app(f, &["(5, 4, 2)", "(4, 2)"]), "()"); // V1
    assert!(app_err(f, &["(5, 4, 2)", "(10, 10, 10, 10)"]).contains("has 2 dims")); // V2
    // PV3, PV4, PV9..PV12
    assert!(app_err("(a, b, c) → (b, c) → ()", &["(5, 4, 2)", "(2, 10)"]).contains("4 ≠ 2"));
    assert_eq!(app("(a, a) → ()", &["(7, 7)"]), "()");
    assert!(app_err("(a, a) → ()", &["(7, 8)"]).contains("7 ≠ 8"));
    assert!(app_err("(7, a) → ()", &["(4, 2)"]).contains("7 ≠ 4"));
}

// ----- The solver's rules, one test each (substitution, arithmetic, constraints, variadics) --

#[test]
fn substitution_is_idempotent_where_gorgonia_composes_wrongly() {
    // PI127 ⚠: gorgonia loses a ↦ 3 (it keeps a ↦ x and x ↦ 3 in the wrong order) and returns
    // (4,). Here a = x = 3 after the first argument, so (5, 4) does not fit (a, b).
    let f = "(a, a) → (a, b) → (b,)";
    assert_eq!(app(f, &["(x, 3)"]), "(3, b) → (b,)");
    assert_eq!(
        app_err(f, &["(x, 3)", "(5, 4)"]),
        "argument 2 `(5, 4)` does not fit parameter `(3, b)`: 3 ≠ 5"
    );
    assert_eq!(app(f, &["(x, 3)", "(3, 4)"]), "(4,)"); // PI126
    assert_eq!(app("(a, a) → (a,)", &["(x, 3)"]), "(3,)"); // PI123 ⚠ gorgonia errors
    assert_eq!(app("(a, a) → (a,)", &["(3, x)"]), "(3,)"); // PI124
    assert_eq!(app("(a, a) → (a,)", &["(x, y)"]), "(y,)"); // PI26 ⚠
    // PU4, PU5 ⚠ (gorgonia: "Recursive unification")
    assert_eq!(subst("(a, a)", "(x, x)"), "{a ↦ x}");
    assert_eq!(subst("(a, b)", "(b, a)"), "{a ↦ b}");
    assert_eq!(app("(a, a) → ()", &["(x, x)"]), "()"); // PI24 ⚠
}

#[test]
fn a_variable_unifies_with_itself() {
    // PU3 ⚠ (gorgonia: "Recursive unification")
    assert!(unify(&e("a"), &e("a")).unwrap().is_empty());
    assert!(unify(&e("(a, b)"), &e("(a, b)")).unwrap().is_empty());
    assert_eq!(app("a → a", &["x"]), "x"); // PI130 (gorgonia: a fresh y)
    // PU6, PU7 ⚠: () and () unify whatever they are built from
    assert!(unify(&e("()"), &Expr::shape(&[])).unwrap().is_empty());
    // PU10, PU11: a legitimate occurs-check failure
    assert!(
        unify(&e("a"), &e("(a, 2)"))
            .unwrap_err()
            .to_string()
            .contains("contain itself")
    );
    assert!(unify(&e("(a, 2)"), &e("a")).is_err());
}

#[test]
fn an_arrow_never_unifies_with_a_shape() {
    // PU12 ⚠, PU13 ⚠: gorgonia unifies a → b with (2, 3)
    let err = unify(&e("a -> b"), &e("(2, 3)")).unwrap_err();
    assert!(
        matches!(err.kind(), InferErrorKind::KindMismatch { .. }),
        "{err}"
    );
    assert!(unify(&e("T⁽¹ ⁰⁾ a"), &e("X[1 0] -> (2, 3)")).is_err());
    assert!(unify(&e("X[1 0]"), &e("X[0 1]")).is_err()); // PU15
    assert!(unify(&e("X[1 0]"), &e("(1, 0)")).is_err());
    assert!(app_err("(a → a) → b → b", &["(2, 2)"]).contains("different kinds"));
    // Higher-order arguments do unify with arrows: PI110, PI111, PI131
    assert_eq!(app("(a → a) → b → b", &["() → ()", "(2, 2)"]), "(2, 2)");
    assert_eq!(app("a → (a → b) → b", &["(2, 3)", "(2, 3) → (4,)"]), "(4,)");
}

#[test]
fn arithmetic_is_inverted_for_one_unknown() {
    // PU16 ⚠ (gorgonia cannot solve it), PU17
    assert_eq!(subst("(a + 1,)", "(5,)"), "{a ↦ 4}");
    assert_eq!(subst("(a + 1,)", "(4 + 1,)"), "{a ↦ 4}");
    assert_eq!(subst("(4 * d,)", "(3072,)"), "{d ↦ 768}");
    assert_eq!(
        unify(&e("(4 * d,)"), &e("(3070,)"))
            .unwrap_err()
            .to_string(),
        "4 × d = 3070 has no exact solution in whole sizes"
    );
    assert!(unify(&e("(a + 10,)"), &e("(5,)")).is_err());
    // In an application, and through a chain of operations
    assert_eq!(
        app("(heads * head_dim,) → (heads, head_dim)", &["(3072,)"]),
        "{ (heads, head_dim) | (heads × head_dim = 3072) }"
    );
    assert_eq!(app("(4 * d,) → (d,)", &["(3072,)"]), "(768,)");
    assert_eq!(app("((h + 2 - 3) // 1 + 1,) → (h,)", &["(90,)"]), "(90,)");
    assert_eq!(
        app("(vocab / tp, d) → (vocab, d)", &["(8000, 64)",]).replace(' ', ""),
        "{(vocab,64)|(vocab/tp=8000)}"
    );
    assert_eq!(
        app("(vocab / 4, d) → (vocab, d)", &["(8000, 64)"]),
        "(32000, 64)"
    );
    // Bound later: an open equation closes when the other unknown arrives
    let f = "(heads * head_dim,) → (heads,) → (head_dim,)";
    assert_eq!(app(f, &["(3072,)", "(4,)"]), "(768,)");
    assert!(app_err(f, &["(3070,)", "(4,)"]).contains("no exact solution"));
}

#[test]
fn constraints_are_checked_when_closed_and_carried_while_open() {
    // PI100..PI107
    assert_eq!(app("{ a → a | (D a = 2) }", &["(2, 3)"]), "(2, 3)");
    assert!(
        app_err("{ a → a | (D a = 2) }", &["(2, 3, 4)"]).contains("(D (2, 3, 4) = 2) is false")
    );
    assert_eq!(app("{ a → a | (D a ≠ 2) }", &["(2, 3, 4)"]), "(2, 3, 4)");
    assert!(app_err("{ a → a | (D a > 2) }", &["(2, 3)"]).contains("is false"));
    assert_eq!(
        app("{ a → a | ((D a = 2) ∨ (D a = 3)) }", &["(2, 3, 4)"]),
        "(2, 3, 4)"
    );
    assert_eq!(
        app("{ a → a | ((D a = 2) ∧ (Π a = 6)) }", &["(2, 3)"]),
        "(2, 3)"
    );
    assert!(app_err("{ a → a | ((D a = 2) ∧ (Π a = 6)) }", &["(3, 3)"]).contains("is false"));
    assert_eq!(
        app("{ a → b | (D b = D a - 1) }", &["(2, 3)"]),
        "{ b | (D b = D (2, 3) - 1) }"
    );
    // Open over symbolic dims; closed once they are known
    assert_eq!(
        app("{ a → a | (a[0] ≥ 2) }", &["(n, 3)"]),
        "{ (n, 3) | ((n, 3)[0] ≥ 2) }"
    );
    // a constraint can also be closed by a later argument
    let f = "{ a → b → (a, b) | (a[0] = b[0]) }";
    assert_eq!(app(f, &["(2,)", "(2,)"]), "(2, 2)");
    assert!(app_err(f, &["(2,)", "(3,)"]).contains("argument 2"));
}

#[test]
fn symbolic_results_stay_symbolic() {
    let matmul = "(a, b) → (b, c) → (a, c)";
    assert_eq!(app(matmul, &["(x, y)", "(y, 4)"]), "(x, 4)"); // PI7 ⚠ gorgonia errors
    assert_eq!(app(matmul, &["(2, x)", "(3, 4)"]), "(2, 4)"); // PI9
    assert_eq!(app(matmul, &["x"]), "(b, c) → (a, c)"); // PI10 (x ↦ (a, b))
    assert_eq!(app("a → a → a", &["(x, y)", "(2, 3)"]), "(2, 3)"); // PI18
    assert_eq!(app("a → a → a", &["(x, y)", "(x, y)"]), "(x, y)"); // PI19 ⚠
    assert_eq!(app("a → a → a", &["(x, x)", "(2, 2)"]), "(2, 2)"); // PI21
    assert!(app_err("a → a → a", &["(x, x)", "(2, 3)"]).contains("2 ≠ 3")); // PI20
    assert_eq!(app("(a, b) → (a, b)", &["(x, y)"]), "(x, y)"); // PI128 ⚠
    assert_eq!(app("a → a", &["(x, y)"]), "(x, y)"); // PI129 ⚠
    assert_eq!(app("(a, b) → (a × b,)", &["(x, 3)"]), "(x × 3,)"); // PI132 ⚠
    assert_eq!(
        app("(a, b) → (a, c) → (a, b + c)", &["(2, 3)"]),
        "(2, c) → (2, 3 + c)"
    ); // PI46
    assert_eq!(
        app("(a, b) → (a, c) → (a, b + c)", &["(2, 3)", "(2, 5)"]),
        "(2, 8)"
    ); // PI44
    assert_eq!(app("() → (a,)", &["()"]), "(a,)"); // PI122 ⚠
    assert_eq!(app("(a,) → (a, 2)", &["(5,)"]), "(5, 2)"); // PI115
}

#[test]
fn size_functions_evaluate() {
    assert_eq!(app("a → Π a", &["(2, 3, 4)"]), "(24,)"); // PI50
    assert_eq!(app("a → D a", &["(2, 3, 4)"]), "(3,)"); // PI51
    assert_eq!(app("a → Σ a", &["(2, 3, 4)"]), "(9,)"); // PI52
    assert_eq!(app("a → (D a,)", &["(2, 3, 4)"]), "(3,)"); // PI54
    assert_eq!(app("a → (D a, Σ a, Π a)", &["(x, y)"]), "(2, x + y, x × y)");
    assert_eq!(app("a → a[0]", &["(5, 3)"]), "(3,)"); // PI55: numpy indexing drops axis 0
    assert_eq!(app("a → (a[0],)", &["(5, 3)"]), "(5,)"); // the size of axis 0
}

#[test]
fn variadics_and_broadcastable_dims() {
    let attn = "(*batch, s, d) → (d, e) → (*batch, s, e)";
    assert_eq!(app(attn, &["(4, 8, 16, 32)", "(32, 64)"]), "(4, 8, 16, 64)");
    assert_eq!(app(attn, &["(16, 32)", "(32, 64)"]), "(16, 64)");
    assert!(app_err(attn, &["(32,)"]).contains("dims"));
    assert_eq!(
        app("(*b, n) → (*b,) → (n,)", &["(2, 3, 4)", "(2, 3)"]),
        "(4,)"
    );
    assert!(app_err("(*b, n) → (*b,) → (n,)", &["(2, 3, 4)", "(2, 4)"]).contains("3 ≠ 4"));
    assert_eq!(app("(..., n) → (n,)", &["(2, 3, 4)"]), "(4,)");
    assert_eq!(app("(_, n) → (n,)", &["(2, 4)"]), "(4,)");
    assert_eq!(subst("(*x, 3)", "(*y, 3)"), "{x ↦ y}");
    assert!(
        unify(&e("(*x, 3)"), &e("(2, *y)"))
            .unwrap_err()
            .to_string()
            .contains("variadic")
    );
    // #n: a size of 1 always fits and binds nothing
    let bias = "(n, #d) → (d,) → (n, d)";
    assert_eq!(app(bias, &["(4, 1)", "(8,)"]), "(4, 8)");
    assert_eq!(app(bias, &["(4, 8)", "(8,)"]), "(4, 8)");
    assert!(app_err(bias, &["(4, 7)", "(8,)"]).contains("7 ≠ 8"));
}

#[test]
fn every_bad_input_is_an_error() {
    // division by zero (PI98 ⚠: gorgonia panics)
    assert_eq!(
        app_err("(a, b) → (a ÷ b,)", &["(7, 0)"]),
        "7 ÷ 0 divides by zero"
    );
    assert!(app_err("(a, b) → (a / b,)", &["(7, 2)"]).contains("not an exact division"));
    assert_eq!(app("(a, b) → (a ÷ b,)", &["(7, 2)"]), "(3,)"); // PI97
    // a negative size (PI96 ⚠: gorgonia returns (-1))
    assert!(app_err("(a, b) → (a - b,)", &["(2, 3)"]).contains("would be negative"));
    // overflow
    let big = format!("({}, 2)", usize::MAX);
    assert!(app_err("(a, b) → (a × b,)", &[&big]).contains("overflows usize"));
    assert!(app_err("a → Π a", &[&big]).contains("overflows usize"));
    // an axis out of range
    assert!(app_err("a → /⁵a", &["(2, 3)"]).contains("axis 5 is out of range"));
    assert!(app_err("a → T⁽¹ ²⁾ a", &["(2, 3)"]).contains("axis 2 is out of range"));
    // too many arguments (PI112 ⚠: gorgonia panics)
    let err = infer_app(&e("a → a"), &[e("(2, 3)"), e("(2, 3)")]).unwrap_err();
    assert_eq!(
        err.kind(),
        &InferErrorKind::TooManyArguments { arity: 1, given: 2 }
    );
    assert_eq!(
        err.to_string(),
        "too many arguments: the function takes 1 but 2 were given"
    );
    // applying a non-function (PI114 ⚠: gorgonia panics)
    assert_eq!(
        app_err("(2, 3)", &["(2, 3)"]),
        "(2, 3) is not a function (an arrow) and cannot be applied"
    );
    // a shape used as a dim (PI116 ⚠: gorgonia panics)
    assert!(app_err("a → (a,)", &["(5, 3)"]).contains("a whole shape"));
    // rank mismatches (PI4..PI6)
    assert!(
        app_err("(a, b) → (b, c) → (a, c)", &["(2, 3, 4)"])
            .contains("has 2 dims but (2, 3, 4) has 3")
    );
    assert!(app_err("(a, b) → (b, c) → (a, c)", &["()"]).contains("has 0"));
    // PI118, PI119..PI121
    assert!(app_err("() → ()", &["(1,)"]).contains("dims"));
    assert_eq!(app("(1,) → ()", &["(1,)"]), "()");
    assert_eq!(app("(2, a) → (a,)", &["(2, 7)"]), "(7,)");
    assert!(app_err("(2, a) → (a,)", &["(3, 7)"]).contains("2 ≠ 3"));
    // no arguments: nothing is applied (PI113: gorgonia errors)
    assert_eq!(app("a → a", &[]), "a → a");
}

#[test]
fn deep_and_long_chains() {
    // 100 applications of matmul in a chain, each feeding the next
    let matmul = e("(a, b) → (b, c) → (a, c)");
    let mut x = e("(8, 16)");
    for i in 0..100 {
        // alternate 16 → 32 → 16 features
        let (from, to) = if i % 2 == 0 { (16, 32) } else { (32, 16) };
        x = infer_app(&matmul, &[x, Expr::shape(&[from, to])]).unwrap();
    }
    assert_eq!(x.to_string(), "(8, 16)");
    // a 100-argument function
    let f = format!("{}a", "a → ".repeat(100));
    let args: Vec<Expr> = (0..100).map(|_| e("(2, 3)")).collect();
    assert_eq!(infer_app(&e(&f), &args).unwrap().to_string(), "(2, 3)");
    let mut bad = args.clone();
    bad[57] = e("(3, 2)");
    assert_eq!(infer_app(&e(&f), &bad).unwrap_err().argument(), Some(57));
}

#[test]
fn terms_and_substitutions_are_inspectable() {
    let s = unify(&e("(a, *rest)"), &e("(2, 3, 4)")).unwrap();
    assert_eq!(s.get("a"), Some(&Term::Dim(DimExpr::Lit(2))));
    assert_eq!(s.get("rest"), Some(&Term::Expr(e("(3, 4)"))));
    assert_eq!(s.len(), 2);
    assert_eq!(s.to_string(), "{a ↦ 2, rest ↦ (3, 4)}");
}
