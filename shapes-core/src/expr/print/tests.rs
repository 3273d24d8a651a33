use super::*;
const MAX_DEPTH: usize = 128;
use crate::expr::{ArithOp, CmpOp, Name};

fn v(n: &str) -> Expr {
    Expr::Var(Name::new(n))
}
fn dv(n: &str) -> DimExpr {
    DimExpr::Var(Name::new(n))
}
fn bin(op: ArithOp, a: DimExpr, b: DimExpr) -> DimExpr {
    DimExpr::Bin(op, Box::new(a), Box::new(b))
}
fn both<T: Display>(x: &T) -> (String, String) {
    (format!("{x}"), format!("{x:#}"))
}
fn s(a: &str, b: &str) -> (String, String) {
    (a.to_owned(), b.to_owned())
}

#[test]
fn patterns() {
    assert_eq!(both(&Pattern::default()), s("()", "()"));
    assert_eq!(both(&Pattern::from(&[5usize][..])), s("(5,)", "(5,)"));
    assert_eq!(
        both(&Pattern::from(&[2usize, 3][..])),
        s("(2, 3)", "(2, 3)")
    );
    let p = Pattern::new(vec![
        Item::Variadic(Name::new("b")),
        Item::Any,
        Item::Ellipsis,
        Item::Broadcast(dv("n")),
        Item::Broadcast(DimExpr::Lit(1)),
        Item::Dim(bin(ArithOp::Mul, dv("h"), dv("d"))),
    ]);
    assert_eq!(
        both(&p),
        s("(*b, _, …, #n, #1, h × d)", "(*b, _, ..., #n, #1, h * d)")
    );
}

#[test]
fn arithmetic_uses_minimal_parentheses() {
    use ArithOp::*;
    let conv = bin(
        Add,
        bin(
            FloorDiv,
            bin(
                Sub,
                bin(Add, dv("h"), bin(Mul, DimExpr::Lit(2), dv("p"))),
                dv("k"),
            ),
            dv("s"),
        ),
        DimExpr::Lit(1),
    );
    assert_eq!(
        both(&conv),
        s("(h + 2 × p - k) ÷ s + 1", "(h + 2 * p - k) // s + 1")
    );
    // Left-associative chains need none; an equal-precedence right operand needs them.
    assert_eq!(
        bin(Sub, bin(Sub, dv("a"), dv("b")), dv("c")).to_string(),
        "a - b - c"
    );
    assert_eq!(
        bin(Sub, dv("a"), bin(Sub, dv("b"), dv("c"))).to_string(),
        "a - (b - c)"
    );
    assert_eq!(
        bin(Add, dv("a"), bin(Add, dv("b"), dv("c"))).to_string(),
        "a + (b + c)"
    );
    assert_eq!(
        bin(Mul, dv("a"), bin(Mul, dv("b"), dv("c"))).to_string(),
        "a × (b × c)"
    );
    assert_eq!(
        bin(Div, dv("a"), bin(Mul, dv("b"), dv("c"))).to_string(),
        "a / (b × c)"
    );
    assert_eq!(
        bin(Mul, bin(Add, dv("a"), dv("b")), dv("c")).to_string(),
        "(a + b) × c"
    );
    assert_eq!(
        bin(Add, dv("a"), bin(Rem, dv("b"), dv("c"))).to_string(),
        "a + b % c"
    );
    let rank = DimExpr::Rank(Box::new(v("a")));
    assert_eq!(
        both(&bin(Sub, rank, DimExpr::Lit(1))),
        s("D a - 1", "D a - 1")
    );
    let prod = DimExpr::Prod(Box::new(Expr::Pattern(Pattern::new(vec![
        Item::Dim(dv("a")),
        Item::Dim(dv("b")),
    ]))));
    assert_eq!(both(&prod), s("Π (a, b)", "prod (a, b)"));
    assert_eq!(both(&DimExpr::Sum(Box::new(v("a")))), s("Σ a", "sum a"));
    assert_eq!(DimExpr::Index(Box::new(v("a")), -1).to_string(), "a[-1]");
}

#[test]
fn arrows_and_shape_operations() {
    let ab = Expr::arrow(v("a"), v("b"));
    assert_eq!(
        both(&Expr::arrow(ab.clone(), v("c"))),
        s("(a → b) → c", "(a -> b) -> c")
    );
    assert_eq!(
        both(&Expr::arrow(v("c"), ab.clone())),
        s("c → a → b", "c -> a -> b")
    );
    let t = Expr::Transpose(vec![1, 0], Box::new(v("a")));
    assert_eq!(both(&t), s("T⁽¹ ⁰⁾ a", "T^(1 0) a"));
    assert_eq!(
        both(&Expr::Transpose(vec![10], Box::new(v("a")))),
        s("T⁽¹⁰⁾ a", "T^(10) a")
    );
    let r = Expr::Reduce(
        Axis::One(0),
        Box::new(Expr::Reduce(Axis::All, Box::new(v("a")))),
    );
    assert_eq!(both(&r), s("/⁰/⁼a", "/^0 /^= a"));
    let rep = Expr::Repeat(Axis::One(0), vec![3], Box::new(v("a")));
    assert_eq!(both(&rep), s("Repeat⁰{[3]} a", "Repeat^0{[3]} a"));
    let cat = Expr::Concat(1, Box::new(v("a")), Box::new(v("b")));
    assert_eq!(both(&cat), s("a :{1}: b", "a :{1}: b"));
    let nested = Expr::Concat(1, Box::new(v("a")), Box::new(cat.clone()));
    assert_eq!(nested.to_string(), "a :{1}: (a :{1}: b)");
    let bc = Expr::Broadcast(Box::new(v("a")), Box::new(v("b")));
    assert_eq!(both(&bc), s("(a||b)", "(a || b)"));
    assert_eq!(
        both(&Expr::Axes(vec![0, 1, 3, 2])),
        s("X[0 1 3 2]", "X[0 1 3 2]")
    );
    assert_eq!(
        both(&Expr::Sizes(vec![0, 0, 1, 0])),
        s("Sz[0 0 1 0]", "Sz[0 0 1 0]")
    );
    // Prefix forms are parenthesised where a postfix or a prefix operand is needed.
    let sliced = Expr::Slice(
        Box::new(t),
        Box::new(Expr::Slices(vec![SliceSpec::Index(0)])),
    );
    assert_eq!(sliced.to_string(), "(T⁽¹ ⁰⁾ a)[0]");
    assert_eq!(
        Expr::Reduce(Axis::One(1), Box::new(ab)).to_string(),
        "/¹(a → b)"
    );
}

#[test]
fn slices() {
    let r = |start, end, step| SliceSpec::Range { start, end, step };
    let e = Expr::Slice(
        Box::new(v("a")),
        Box::new(Expr::Slices(vec![
            r(Some(0), Some(2), None),
            SliceSpec::Index(3),
            r(None, None, None),
            r(None, None, Some(-1)),
            r(Some(1), None, None),
            r(None, Some(-2), Some(2)),
        ])),
    );
    assert_eq!(e.to_string(), "a[0:2, 3, :, ::-1, 1:, :-2:2]");
    assert_eq!(
        Expr::Slice(Box::new(v("a")), Box::new(v("b"))).to_string(),
        "a[b]"
    );
    // After an ASCII keyword, an operand starting with `[` is parenthesised.
    let d = DimExpr::Rank(Box::new(Expr::Slices(vec![SliceSpec::Index(0)])));
    assert_eq!(both(&d), s("D ([0])", "D ([0])"));
}

#[test]
fn constraints() {
    let rank = |n| Operand::Size(DimExpr::Rank(Box::new(v(n))));
    let eq = Pred::Cmp(CmpOp::Eq, rank("a"), Operand::Size(DimExpr::Lit(2)));
    assert_eq!(both(&eq), s("(D a = 2)", "(D a = 2)"));
    let gt = Pred::Cmp(
        CmpOp::Gt,
        Operand::Size(DimExpr::Prod(Box::new(v("a")))),
        Operand::Size(DimExpr::Lit(1)),
    );
    let and = Pred::And(Box::new(eq.clone()), Box::new(gt));
    assert_eq!(
        both(&and),
        s("((D a = 2) ∧ (Π a > 1))", "((D a = 2) && (prod a > 1))")
    );
    let or = Pred::Or(Box::new(and), Box::new(eq));
    assert_eq!(or.to_string(), "(((D a = 2) ∧ (Π a > 1)) ∨ (D a = 2))");
    assert_eq!(
        format!("{or:#}"),
        "(((D a = 2) && (prod a > 1)) || (D a = 2))"
    );
    let k = Pred::Broadcastable(v("a"), v("b"));
    assert_eq!(both(&k), s("(K a ⚟ K b)", "(K a ~ K b)"));
    for (op, u, a) in [
        (CmpOp::Ne, "≠", "!="),
        (CmpOp::Le, "≤", "<="),
        (CmpOp::Ge, "≥", ">="),
        (CmpOp::Lt, "<", "<"),
    ] {
        let p = Pred::Cmp(op, Operand::ForAll(v("b")), Operand::ForAll(v("a")));
        assert_eq!(
            both(&p),
            (format!("(∀ b {u} ∀ a)"), format!("(all b {a} all a)"))
        );
    }
    let c = Expr::Compound(
        Box::new(Expr::arrow(v("a"), v("b"))),
        Box::new(Pred::Cmp(
            CmpOp::Eq,
            Operand::Size(DimExpr::Prod(Box::new(v("a")))),
            Operand::Size(DimExpr::Prod(Box::new(v("b")))),
        )),
    );
    assert_eq!(
        both(&c),
        s("{ a → b | (Π a = Π b) }", "{ a -> b | (prod a = prod b) }")
    );
}

#[test]
fn trees_the_parser_never_builds_still_print() {
    let odd_index = DimExpr::Index(Box::new(Expr::arrow(v("a"), v("b"))), 0);
    assert_eq!(odd_index.to_string(), "(a → b)[0]");
    let odd_broadcast = Item::Broadcast(bin(ArithOp::Add, dv("a"), DimExpr::Lit(1)));
    assert_eq!(odd_broadcast.to_string(), "#(a + 1)");
    let odd_slice = Expr::Slice(Box::new(v("a")), Box::new(Expr::Axes(vec![0])));
    assert_eq!(odd_slice.to_string(), "a[X[0]]");
}

/// Each construct nested deeper and deeper, up to where the parser refuses it: whatever it
/// accepts prints (both spellings) to text that parses back to the same tree. The printer
/// and the nesting cap agree; 32 nested `D`s and 40 `&&` were refused printed before.
#[test]
fn every_construct_round_trips_at_every_depth_the_parser_accepts() {
    use crate::parse::parse;
    type Nest = Box<dyn Fn(usize) -> String>;
    let cases: Vec<(&str, Nest)> = vec![
        ("D", Box::new(|n| format!("({}a,)", "D ".repeat(n)))),
        ("prod", Box::new(|n| format!("({}a,)", "prod ".repeat(n)))),
        (
            "and",
            Box::new(|n| format!("{{ a | (D a = 1){} }}", " && (D a = 1)".repeat(n))),
        ),
        (
            "or",
            Box::new(|n| format!("{{ a | (D a = 1){} }}", " || (D a = 1)".repeat(n))),
        ),
        (
            "andr",
            Box::new(|n| {
                format!(
                    "{{ a | {}(D a = 1){} }}",
                    "(D a = 1) && (".repeat(n),
                    ")".repeat(n)
                )
            }),
        ),
        (
            "arrowl",
            Box::new(|n| format!("{}a{}", "(".repeat(n), " -> a)".repeat(n))),
        ),
        ("arrow", Box::new(|n| format!("a{}", " -> a".repeat(n)))),
        (
            "compound",
            Box::new(|n| format!("{}a{}", "{ ".repeat(n), " | D a = 1 }".repeat(n))),
        ),
        (
            "transpose",
            Box::new(|n| format!("{}a", "T^(0) ".repeat(n))),
        ),
        ("reduce", Box::new(|n| format!("{}a", "/^0 ".repeat(n)))),
        (
            "repeat",
            Box::new(|n| format!("{}a", "Repeat^0{[2]} ".repeat(n))),
        ),
        (
            "bcast",
            Box::new(|n| format!("{}a{}", "(a || ".repeat(n), ")".repeat(n))),
        ),
        (
            "bcastl",
            Box::new(|n| format!("{}a{}", "(".repeat(n), " || a)".repeat(n))),
        ),
        ("concat", Box::new(|n| format!("a{}", " :{0}: a".repeat(n)))),
        (
            "concatr",
            Box::new(|n| format!("{}a{}", "a :{0}: (".repeat(n), ")".repeat(n))),
        ),
        ("slice", Box::new(|n| format!("a{}", "[0:1]".repeat(n)))),
        ("add", Box::new(|n| format!("(a{},)", " + a".repeat(n)))),
        (
            "addr",
            Box::new(|n| format!("({}a{},)", "a + (".repeat(n), ")".repeat(n))),
        ),
        (
            "index",
            Box::new(|n| format!("({}a{},)", "(".repeat(n), ",)[0]".repeat(n))),
        ),
        (
            "dparen",
            Box::new(|n| format!("({}a{},)", "D (".repeat(n), ")".repeat(n))),
        ),
        (
            "K",
            Box::new(|n| format!("{{ a | K {}a{} ~ K a }}", "(a || ".repeat(n), ")".repeat(n))),
        ),
    ];
    for (name, f) in &cases {
        let mut accepted = 0;
        for n in 1..=MAX_DEPTH {
            let text = f(n);
            let Ok(e) = parse(&text) else { break };
            accepted = n;
            for printed in [e.to_string(), format!("{e:#}")] {
                assert_eq!(parse(&printed).as_ref(), Ok(&e), "{name} × {n}: {printed}");
            }
        }
        assert!(accepted >= 25, "{name}: only {accepted} levels accepted");
        if ["D", "prod", "and", "or"].contains(name) {
            assert!(accepted >= 100, "{name}: only {accepted} levels accepted");
        }
    }
}
