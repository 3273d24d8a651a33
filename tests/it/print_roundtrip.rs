//! The printer's contract: for every tree the parser can produce, `parse(&e.to_string())` and
//! `parse(&format!("{e:#}"))` give the tree back. Checked on generated trees, then on golden
//! strings from §P5 of `tests/data/conformance/gorgonia_cases.md` (gorgonia's printer).

use proptest::prelude::*;
use shapes::expr::{
    ArithOp, Axis, CmpOp, DimExpr, Expr, Item, Name, Operand, Pattern, Pred, SliceSpec, parse,
    parse_pattern,
};

// ----- generated trees -----------------------------------------------------------------------

/// Names, including Unicode ones and every keyword that is a name outside its keyword
/// position (`D`, `K`, `T`, `all`, …), which the printer must keep out of keyword positions.
/// `X` and `Sz` are left out: `X[0]` in a shape position is always the axes value, so a shape
/// variable named `X` cannot be sliced (GRAMMAR.md, "Keywords are recognised by position").
const NAMES: &[&str] = &[
    "a", "b", "c", "d_model", "n2", "α", "β_1", "D", "K", "T", "P", "S", "all", "prod", "sum",
    "Repeat",
];

fn name() -> impl Strategy<Value = Name> {
    prop::sample::select(NAMES).prop_map(Name::new)
}

fn small_vec<T: std::fmt::Debug>(s: impl Strategy<Value = T>) -> impl Strategy<Value = Vec<T>> {
    prop::collection::vec(s, 0..4)
}

fn usize_any() -> impl Strategy<Value = usize> {
    prop_oneof![0..10usize, any::<usize>()]
}

fn isize_any() -> impl Strategy<Value = isize> {
    prop_oneof![-5..5isize, any::<isize>()]
}

fn axis() -> impl Strategy<Value = Axis> {
    prop_oneof![usize_any().prop_map(Axis::One), Just(Axis::All)]
}

fn slice_spec() -> impl Strategy<Value = SliceSpec> {
    let opt = || prop::option::of(isize_any());
    let step = prop::option::of(isize_any().prop_filter("a step is never 0", |&s| s != 0));
    prop_oneof![
        isize_any().prop_map(SliceSpec::Index),
        (opt(), opt(), step).prop_map(|(start, end, step)| SliceSpec::Range { start, end, step }),
    ]
}

fn slices() -> impl Strategy<Value = Vec<SliceSpec>> {
    prop::collection::vec(slice_spec(), 1..4)
}

/// At most one `...` / `*name` per pattern: later ones become `_`.
fn one_variadic(mut items: Vec<Item>) -> Pattern {
    let mut seen = false;
    for item in &mut items {
        if matches!(item, Item::Ellipsis | Item::Variadic(_)) {
            if seen {
                *item = Item::Any;
            }
            seen = true;
        }
    }
    Pattern::new(items)
}

fn pattern_with(dim: BoxedStrategy<DimExpr>) -> BoxedStrategy<Pattern> {
    let item = prop_oneof![
        4 => dim.prop_map(Item::Dim),
        1 => Just(Item::Any),
        1 => Just(Item::Ellipsis),
        1 => name().prop_map(Item::Variadic),
        1 => name().prop_map(|n| Item::Broadcast(DimExpr::Var(n))),
        1 => usize_any().prop_map(|n| Item::Broadcast(DimExpr::Lit(n))),
    ];
    small_vec(item).prop_map(one_variadic).boxed()
}

/// Strategies for the three mutually recursive tree types at one depth.
struct Trees {
    expr: BoxedStrategy<Expr>,
    dim: BoxedStrategy<DimExpr>,
    pred: BoxedStrategy<Pred>,
}

fn leaves() -> Trees {
    let dim = prop_oneof![
        usize_any().prop_map(DimExpr::Lit),
        name().prop_map(DimExpr::Var)
    ]
    .boxed();
    let expr = prop_oneof![
        name().prop_map(Expr::Var),
        pattern_with(dim.clone()).prop_map(Expr::Pattern),
        small_vec(usize_any()).prop_map(Expr::Axes),
        small_vec(usize_any()).prop_map(Expr::Sizes),
        slices().prop_map(Expr::Slices),
    ]
    .boxed();
    let pred = (cmp_op(), dim.clone(), dim.clone())
        .prop_map(|(op, a, b)| Pred::Cmp(op, Operand::Size(a), Operand::Size(b)))
        .boxed();
    Trees { expr, dim, pred }
}

fn cmp_op() -> impl Strategy<Value = CmpOp> {
    prop::sample::select(
        &[
            CmpOp::Eq,
            CmpOp::Ne,
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
        ][..],
    )
}

fn arith_op() -> impl Strategy<Value = ArithOp> {
    prop::sample::select(&ArithOp::ALL[..])
}

fn boxed(e: Expr) -> Box<Expr> {
    Box::new(e)
}

fn trees(depth: u32) -> Trees {
    if depth == 0 {
        return leaves();
    }
    let sub = trees(depth - 1);
    let leaf = leaves();
    let (e, d, p) = (sub.expr, sub.dim, sub.pred);

    let dim = prop_oneof![
        2 => leaf.dim,
        // No division by a literal 0: the parser rejects it.
        2 => (arith_op(), d.clone(), d.clone()).prop_map(|(op, a, b)| {
            let b = match (op, b) {
                (ArithOp::Div | ArithOp::FloorDiv | ArithOp::Rem, DimExpr::Lit(0)) => DimExpr::Lit(1),
                (_, b) => b,
            };
            DimExpr::Bin(op, Box::new(a), Box::new(b))
        }),
        1 => e.clone().prop_map(|e| DimExpr::Rank(boxed(e))),
        1 => e.clone().prop_map(|e| DimExpr::Prod(boxed(e))),
        1 => e.clone().prop_map(|e| DimExpr::Sum(boxed(e))),
        // Only a name or a pattern is indexed in a size position.
        1 => (name(), isize_any()).prop_map(|(n, i)| DimExpr::Index(boxed(Expr::Var(n)), i)),
        1 => (pattern_with(d.clone()), isize_any())
            .prop_map(|(p, i)| DimExpr::Index(boxed(Expr::Pattern(p)), i)),
    ]
    .boxed();

    let operand = prop_oneof![
        3 => d.clone().prop_map(Operand::Size),
        1 => e.clone().prop_map(Operand::ForAll),
    ];
    let pred = prop_oneof![
        2 => leaf.pred,
        2 => (cmp_op(), operand.clone(), operand).prop_map(|(op, a, b)| Pred::Cmp(op, a, b)),
        1 => (e.clone(), e.clone()).prop_map(|(a, b)| Pred::Broadcastable(a, b)),
        1 => (p.clone(), p.clone()).prop_map(|(a, b)| Pred::And(Box::new(a), Box::new(b))),
        1 => (p.clone(), p.clone()).prop_map(|(a, b)| Pred::Or(Box::new(a), Box::new(b))),
    ]
    .boxed();

    let index = prop_oneof![
        3 => slices().prop_map(Expr::Slices),
        1 => name().prop_map(Expr::Var),
    ];
    let expr = prop_oneof![
        3 => leaf.expr,
        2 => pattern_with(d).prop_map(Expr::Pattern),
        2 => (e.clone(), e.clone()).prop_map(|(a, b)| Expr::arrow(a, b)),
        1 => (e.clone(), p).prop_map(|(e, p)| Expr::Compound(boxed(e), Box::new(p))),
        1 => (e.clone(), index).prop_map(|(e, i)| Expr::Slice(boxed(e), boxed(i))),
        1 => (small_vec(usize_any()), e.clone()).prop_map(|(a, e)| Expr::Transpose(a, boxed(e))),
        1 => (axis(), e.clone()).prop_map(|(a, e)| Expr::Reduce(a, boxed(e))),
        1 => (e.clone(), e.clone()).prop_map(|(a, b)| Expr::Broadcast(boxed(a), boxed(b))),
        1 => (axis(), small_vec(usize_any()), e.clone())
            .prop_map(|(a, r, e)| Expr::Repeat(a, r, boxed(e))),
        1 => (usize_any(), e.clone(), e).prop_map(|(n, a, b)| Expr::Concat(n, boxed(a), boxed(b))),
    ]
    .boxed();
    Trees { expr, dim, pred }
}

fn check_roundtrip(e: &Expr) -> Result<(), TestCaseError> {
    let unicode = e.to_string();
    let ascii = format!("{e:#}");
    match parse(&unicode) {
        Ok(back) => prop_assert_eq!(&back, e, "Unicode form {}", unicode),
        Err(err) => prop_assert!(false, "Unicode form does not parse:\n{}\n{:?}", err, e),
    }
    match parse(&ascii) {
        Ok(back) => prop_assert_eq!(&back, e, "ASCII form {}", ascii),
        Err(err) => prop_assert!(false, "ASCII form does not parse:\n{}\n{:?}", err, e),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn every_expression_round_trips(e in trees(3).expr) {
        check_roundtrip(&e)?;
    }


    #[test]
    fn every_pattern_round_trips(p in pattern_with(trees(2).dim)) {
        prop_assert_eq!(parse_pattern(&p.to_string()), Ok(p.clone()));
        prop_assert_eq!(parse_pattern(&format!("{p:#}")), Ok(p.clone()));
        // A pattern is also an expression.
        check_roundtrip(&Expr::Pattern(p))?;
    }

    #[test]
    fn ascii_printing_is_ascii_apart_from_names(e in trees(3).expr) {
        let ascii = format!("{e:#}");
        let stripped: String = ascii.chars().filter(|c| !c.is_alphabetic()).collect();
        prop_assert!(stripped.is_ascii(), "{}", ascii);
    }

    #[test]
    fn arbitrary_strings_never_panic(s in "\\PC{0,40}") {
        let _ = parse(&s);
        let _ = parse_pattern(&s);
    }

    #[test]
    fn near_miss_strings_never_panic(s in "[()\\[\\]{},:|#*_.a-eDKTXS0-9 →×÷Π∀⁰¹⁽⁾⁼^/=<>!&~+-]{0,30}") {
        if let Ok(e) = parse(&s) {
            // Whatever parses, prints to something that parses back to it.
            check_roundtrip(&e)?;
        }
        let _ = parse_pattern(&s);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn deeper_expressions_round_trip(e in trees(5).expr) {
        check_roundtrip(&e)?;
    }
}

// ----- golden strings: gorgonia's printer (§P5) ------------------------------------------------

fn v(n: &str) -> Expr {
    Expr::Var(Name::new(n))
}
fn dv(n: &str) -> DimExpr {
    DimExpr::Var(Name::new(n))
}
fn bin(op: ArithOp, a: DimExpr, b: DimExpr) -> DimExpr {
    DimExpr::Bin(op, Box::new(a), Box::new(b))
}
fn dims(ds: Vec<DimExpr>) -> Expr {
    Expr::Pattern(Pattern::new(ds.into_iter().map(Item::Dim).collect()))
}
fn slice(e: Expr, specs: Vec<SliceSpec>) -> Expr {
    Expr::Slice(Box::new(e), Box::new(Expr::Slices(specs)))
}
fn range(start: isize, end: isize, step: Option<isize>) -> SliceSpec {
    SliceSpec::Range {
        start: Some(start),
        end: Some(end),
        step,
    }
}

/// Checks the Unicode and ASCII forms, and that both parse back when `e` is an expression.
#[track_caller]
fn golden<T: std::fmt::Display>(x: &T, unicode: &str, ascii: &str) {
    assert_eq!(x.to_string(), unicode);
    assert_eq!(format!("{x:#}"), ascii);
}

#[track_caller]
fn golden_expr(e: &Expr, unicode: &str, ascii: &str) {
    golden(e, unicode, ascii);
    assert_eq!(parse(unicode).as_ref(), Ok(e), "{unicode}");
    assert_eq!(parse(ascii).as_ref(), Ok(e), "{ascii}");
}

#[test]
fn golden_pf1_to_pf16_shapes_and_arrows() {
    golden_expr(&Expr::shape(&[]), "()", "()"); // PF1
    // PF2: gorgonia prints "(24)"; we print rank 1 with a trailing comma, like Python and
    // like `Shape`'s Display, so that it never reads as a parenthesised size.
    golden_expr(&Expr::shape(&[24]), "(24,)", "(24,)");
    golden_expr(&Expr::shape(&[2, 3]), "(2, 3)", "(2, 3)"); // PF3
    golden_expr(&dims(vec![]), "()", "()"); // PF4
    golden_expr(&dims(vec![dv("a")]), "(a,)", "(a,)"); // PF5: gorgonia "(a)"
    golden_expr(&dims(vec![dv("a"), DimExpr::Lit(2)]), "(a, 2)", "(a, 2)"); // PF6
    golden_expr(
        &dims(vec![dv("a"), dv("b"), dv("c")]),
        "(a, b, c)",
        "(a, b, c)",
    ); // PF7
    golden_expr(&v("a"), "a", "a"); // PF8
    golden(&DimExpr::Lit(5), "5", "5"); // PF9: a size
    // PF10/PF11 print gorgonia's Axis type on its own ("2", ":" for all axes); our Axis only
    // appears inside an operation, e.g. `/²a` and `/⁼a` (PF43/PF44).
    golden_expr(&Expr::Axes(vec![0, 1]), "X[0 1]", "X[0 1]"); // PF12
    golden_expr(&Expr::Sizes(vec![1, 2]), "Sz[1 2]", "Sz[1 2]"); // PF13
    golden_expr(&Expr::arrow(v("a"), v("b")), "a → b", "a -> b"); // PF14
    golden_expr(
        &Expr::arrow(v("a"), Expr::arrow(v("b"), v("a"))),
        "a → b → a",
        "a -> b -> a",
    ); // PF15
    golden_expr(
        &Expr::arrow(Expr::arrow(v("a"), v("b")), v("a")),
        "(a → b) → a",
        "(a -> b) -> a",
    ); // PF16
}

#[test]
fn golden_pf17_to_pf29_sizes() {
    // PF17 `K a` is gorgonia's UnaryOp K on its own; ours exists only inside the
    // broadcastability constraint (PF51).
    golden(&DimExpr::Rank(Box::new(v("a"))), "D a", "D a"); // PF18
    golden(&DimExpr::Prod(Box::new(v("a"))), "Π a", "prod a"); // PF19
    golden(&DimExpr::Sum(Box::new(v("a"))), "Σ a", "sum a"); // PF20
    golden(&Operand::ForAll(v("a")), "∀ a", "all a"); // PF21
    golden(
        &DimExpr::Prod(Box::new(dims(vec![dv("a"), dv("b")]))),
        "Π (a, b)",
        "prod (a, b)",
    ); // PF22
    golden(
        &bin(ArithOp::Add, dv("a"), DimExpr::Lit(1)),
        "a + 1",
        "a + 1",
    ); // PF23
    golden(&bin(ArithOp::Mul, dv("a"), dv("b")), "a × b", "a * b"); // PF24
    golden(&bin(ArithOp::Sub, dv("a"), dv("b")), "a - b", "a - b"); // PF25
    golden(
        &bin(ArithOp::FloorDiv, dv("a"), DimExpr::Lit(2)),
        "a ÷ 2",
        "a // 2",
    ); // PF26
    // PF27: a one-dim pattern (gorgonia omits the trailing comma).
    golden_expr(
        &dims(vec![bin(
            ArithOp::Add,
            bin(ArithOp::Mul, dv("a"), dv("b")),
            DimExpr::Lit(1),
        )]),
        "(a × b + 1,)",
        "(a * b + 1,)",
    );
    // PF28: gorgonia prints ((a + b) × 2) + 1 as "(a + b × 2 + 1)", which reads as a different
    // tree; we keep the parentheses the tree needs.
    golden_expr(
        &dims(vec![bin(
            ArithOp::Add,
            bin(
                ArithOp::Mul,
                bin(ArithOp::Add, dv("a"), dv("b")),
                DimExpr::Lit(2),
            ),
            DimExpr::Lit(1),
        )]),
        "((a + b) × 2 + 1,)",
        "((a + b) * 2 + 1,)",
    );
    golden(&DimExpr::Index(Box::new(v("a")), 1), "a[1]", "a[1]"); // PF29
}

#[test]
fn golden_pf30_to_pf47_shape_operations() {
    golden_expr(
        &Expr::Transpose(vec![1, 0], Box::new(v("a"))),
        "T⁽¹ ⁰⁾ a",
        "T^(1 0) a",
    ); // PF30
    golden_expr(&slice(v("a"), vec![range(0, 2, None)]), "a[0:2]", "a[0:2]"); // PF31
    // PF32/PF33: gorgonia's a[0] is Range{0,1,1}; ours is numpy's integer index.
    golden_expr(&slice(v("a"), vec![SliceSpec::Index(0)]), "a[0]", "a[0]");
    golden_expr(&slice(v("a"), vec![SliceSpec::Index(2)]), "a[2]", "a[2]");
    // PF34/PF35: gorgonia prints a step as "a[0:4~:2]" / "a[0~:2]"; we print numpy's form.
    golden_expr(
        &slice(v("a"), vec![range(0, 4, Some(2))]),
        "a[0:4:2]",
        "a[0:4:2]",
    );
    golden_expr(
        &slice(v("a"), vec![range(0, 1, Some(2))]),
        "a[0:1:2]",
        "a[0:1:2]",
    );
    golden_expr(
        &slice(v("a"), vec![range(0, 2, None), SliceSpec::Index(3)]),
        "a[0:2, 3]",
        "a[0:2, 3]",
    ); // PF36
    golden_expr(
        &Expr::Slice(Box::new(v("a")), Box::new(v("b"))),
        "a[b]",
        "a[b]",
    ); // PF37
    golden_expr(&Expr::Slices(vec![range(1, 5, None)]), "[1:5]", "[1:5]"); // PF38
    golden_expr(&Expr::Slices(vec![SliceSpec::Index(1)]), "[1]", "[1]"); // PF39
    golden_expr(
        &Expr::Concat(1, Box::new(v("a")), Box::new(v("b"))),
        "a :{1}: b",
        "a :{1}: b",
    ); // PF40
    golden_expr(
        &Expr::Repeat(Axis::One(0), vec![3], Box::new(v("a"))),
        "Repeat⁰{[3]} a",
        "Repeat^0{[3]} a",
    ); // PF41
    golden_expr(
        &Expr::Repeat(Axis::All, vec![1, 2], Box::new(v("a"))),
        "Repeat⁼{[1 2]} a",
        "Repeat^={[1 2]} a",
    ); // PF42
    golden_expr(
        &Expr::Reduce(Axis::One(0), Box::new(v("a"))),
        "/⁰a",
        "/^0 a",
    ); // PF43
    golden_expr(&Expr::Reduce(Axis::All, Box::new(v("a"))), "/⁼a", "/^= a"); // PF44
    let r = |n, e| Expr::Reduce(Axis::One(n), Box::new(e));
    golden_expr(&r(0, r(1, r(2, v("a")))), "/⁰/¹/²a", "/^0 /^1 /^2 a"); // PF45
    golden_expr(
        &Expr::Broadcast(Box::new(v("a")), Box::new(v("b"))),
        "(a||b)",
        "(a || b)",
    ); // PF46
    golden_expr(
        &Expr::Broadcast(Box::new(Expr::shape(&[2, 3])), Box::new(v("a"))),
        "((2, 3)||a)",
        "((2, 3) || a)",
    ); // PF47
}

#[test]
fn golden_pf48_to_pf56_constraints_and_patterns() {
    let rank_a_is_2 = Pred::Cmp(
        CmpOp::Eq,
        Operand::Size(DimExpr::Rank(Box::new(v("a")))),
        Operand::Size(DimExpr::Lit(2)),
    );
    golden(&rank_a_is_2, "(D a = 2)", "(D a = 2)"); // PF48
    let both = Pred::And(
        Box::new(rank_a_is_2.clone()),
        Box::new(Pred::Cmp(
            CmpOp::Gt,
            Operand::Size(DimExpr::Prod(Box::new(v("a")))),
            Operand::Size(DimExpr::Lit(1)),
        )),
    );
    golden(
        &both,
        "((D a = 2) ∧ (Π a > 1))",
        "((D a = 2) && (prod a > 1))",
    ); // PF49
    golden_expr(
        &Expr::Compound(
            Box::new(Expr::arrow(v("a"), v("b"))),
            Box::new(Pred::Cmp(
                CmpOp::Eq,
                Operand::Size(DimExpr::Prod(Box::new(v("a")))),
                Operand::Size(DimExpr::Prod(Box::new(v("b")))),
            )),
        ),
        "{ a → b | (Π a = Π b) }",
        "{ a -> b | (prod a = prod b) }",
    ); // PF50
    golden(
        &Pred::Broadcastable(v("a"), v("b")),
        "(K a ⚟ K b)",
        "(K a ~ K b)",
    ); // PF51
    // PF52 `{2/a}` (a substitution) and PF53 `{(a, b) = (2, 3)}` (a solver constraint) are the
    // solver's types, not the language's.
    golden_expr(
        &dims(vec![dv("a"), dv("b"), DimExpr::Lit(2)]),
        "(a, b, 2)",
        "(a, b, 2)",
    ); // PF54
    golden_expr(&dims(vec![DimExpr::Lit(2), dv("a")]), "(2, a)", "(2, a)"); // PF55
    golden_expr(&Expr::shape(&[2, 3]), "(2, 3)", "(2, 3)"); // PF56
}

#[test]
fn golden_gorgonia_signatures() {
    // §5 of the conformance file prints these function types.
    for (input, unicode) in [
        ("(a, b) -> (b, c) -> (a, c)", "(a, b) → (b, c) → (a, c)"),
        ("a -> a -> a", "a → a → a"),
        ("a -> (prod a,)", "a → (Π a,)"),
        (
            "{ a -> X[0 1 3 2] -> T X[0 1 3 2] a | (D X[0 1 3 2] = D a) }",
            "{ a → X[0 1 3 2] → T⁽⁰ ¹ ³ ²⁾ a | (D X[0 1 3 2] = D a) }",
        ),
        (
            "{ a -> b -> () | D a = D b && all b < all a }",
            "{ a → b → () | ((D a = D b) ∧ (∀ b < ∀ a)) }",
        ),
        (
            "{ a -> b -> a[b] | a[0] >= 2 }",
            "{ a → b → a[b] | (a[0] ≥ 2) }",
        ),
        (
            "{ a -> b -> b | prod a = prod b }",
            "{ a → b → b | (Π a = Π b) }",
        ),
        (
            "{ a -> b -> (a || b) | K a ~ K b }",
            "{ a → b → (a||b) | (K a ⚟ K b) }",
        ),
    ] {
        let e = parse(input).unwrap();
        assert_eq!(e.to_string(), unicode);
        assert_eq!(parse(unicode).unwrap(), e);
    }
}
