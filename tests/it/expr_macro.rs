//! `expr!` builds at compile time the same tree `shapes::expr::parse` builds at run time, for every
//! kind of node of the language.

use shapes::{
    expr,
    expr::{
        ArithOp, Axis, CmpOp, DimExpr, Expr, Item, Name, Operand, Pattern, Pred, SliceSpec, parse,
    },
};

/// For each string: `expr!(s) == parse(s)`, and the string does parse (so no case compares two
/// failures).
macro_rules! same {
    ($($s:literal),* $(,)?) => {{
        let mut n = 0usize;
        $(
            let at_run_time = match parse($s) {
                Ok(e) => e,
                Err(e) => panic!("{:?} does not parse:\n{e}", $s),
            };
            assert_eq!(expr!($s), at_run_time, "expr!({:?})", $s);
            n += 1;
        )*
        n
    }};
}

#[test]
fn patterns() {
    let n = same!(
        "()",
        "(5)",
        "(5,)",
        "(a,)",
        "(1, 2, 34)",
        "(a, b,)",
        "(batch, seq, d_model)",
        "(_, a, _)",
        "(..., d)",
        "(…, d)",
        "(*batch, seq, d)",
        "(a, *rest)",
        "(#a, #3, b)",
        "((a, b), c)",
        "(d_model, heads * head_dim)",
        "(vocab / tp,)",
        "((h + 2*p - k) // s + 1, c)",
        "(a % 4, a - 1, a × 2, a ÷ 3)",
        "(2 * (a + b) - c,)",
        "(α, β_1, n2)",
        "(D, K, T, P, S, all, prod, sum, Repeat)",
    );
    assert_eq!(n, 21);
}

#[test]
fn variables_and_arrows() {
    let n = same!(
        "a",
        "1000",
        "() -> ()",
        "() → ()",
        "(a, b) -> (b, c) -> (a, c)",
        "(a, b) → (b, c) → (a, c)",
        "(a -> b) -> a -> b",
        "a → b -> ()",
        "(a,b,c) → (a*b, b*c)",
    );
    assert_eq!(n, 9);
}

#[test]
fn constraints() {
    let n = same!(
        "{ a -> b | (prod a = prod b) }",
        "{ a → b → b | (Π a = Π b) }",
        "{a -> b | (D a = D b)}",
        "{ a -> b | D a == D b && all b < all a }",
        "{ a → b | D a = D b ∧ ∀ b < ∀ a }",
        "{(a) -> () | (a > 2)}",
        "{ a -> b | a[0] >= 2 || D a != 3 }",
        "{ a -> b | a[-1] ≥ 2 ∨ D a ≠ 3 }",
        "{ a -> b | S a <= 10 && P b > 1 && sum a < 100 }",
        "{ a -> b | Σ a ≤ 10 }",
        "{ a -> b -> (a || b) | K a ~ K b }",
        "{ a → b → (a||b) | K a ⚟ K b }",
        "{ a -> b | (D a = 2 || D a = 3) && D b = 1 }",
        "{ a -> (D a, Π a) | D a > 0 }",
        "((2, 3)[1],)",
    );
    assert_eq!(n, 15);
}

#[test]
fn shape_operations() {
    let n = same!(
        "X[0 1 3 2]",
        "Sz[0 0 1 0]",
        "[0:2:1]",
        "[0:2, 3, ::2]",
        "[1:]",
        "[-1]",
        "[::-1]",
        "a[0:2]",
        "a[1:]",
        "a[::2]",
        "a[0:2, 3]",
        "a[1]",
        "a[b]",
        "T X[1 0] a",
        "T^(1 0) a",
        "T⁽¹ ⁰⁾ a",
        "{ a → X[0 1 3 2] → T X[0 1 3 2] a | (D X[0 1 3 2] = D a) }",
        "/^1 a",
        "/¹a",
        "/^= a",
        "/⁼a",
        "(a || b)",
        "(a||1)",
        "Repeat^0{[3]} a",
        "Repeat⁰{[3]} a",
        "Repeat^={[2]} a",
        "Repeat^1{[1 2 3]} (a, 3)",
        "a :{1}: b",
        "(2, 3) :{0}: (4, 3) :{0}: (1, 3)",
        "D a",
        "P a",
        "S a",
        "Π (2, 3)",
        "a -> /^= a",
        "(a, b) -> T^(1 0) (a, b)",
    );
    assert_eq!(n, 35);
}

#[test]
fn builds_the_exact_tree() {
    // Not only equal to the parser's output: equal to the tree written out by hand.
    let a = || DimExpr::Var(Name::new("a"));
    let got = expr!("(a, *rest, #2, _, a // 2 - 1) -> [1:, -1] -> /^0 a");
    let pattern = Expr::Pattern(Pattern::new(vec![
        Item::Dim(a()),
        Item::Variadic(Name::new("rest")),
        Item::Broadcast(DimExpr::Lit(2)),
        Item::Any,
        Item::Dim(DimExpr::Bin(
            ArithOp::Sub,
            Box::new(DimExpr::Bin(
                ArithOp::FloorDiv,
                Box::new(a()),
                Box::new(DimExpr::Lit(2)),
            )),
            Box::new(DimExpr::Lit(1)),
        )),
    ]));
    let slices = Expr::Slices(vec![
        SliceSpec::Range {
            start: Some(1),
            end: None,
            step: None,
        },
        SliceSpec::Index(-1),
    ]);
    let reduce = Expr::Reduce(Axis::One(0), Box::new(Expr::Var(Name::new("a"))));
    assert_eq!(got, Expr::arrow(pattern, Expr::arrow(slices, reduce)));

    let got = expr!("{ a | ∀ a < 5 }");
    let want = Expr::Compound(
        Box::new(Expr::Var(Name::new("a"))),
        Box::new(Pred::Cmp(
            CmpOp::Lt,
            Operand::ForAll(Expr::Var(Name::new("a"))),
            Operand::Size(DimExpr::Lit(5)),
        )),
    );
    assert_eq!(got, want);
}

#[test]
fn literal_forms() {
    // Raw strings, escapes and a trailing comma are all one string literal.
    assert_eq!(expr!(r"(a, b)"), parse("(a, b)").unwrap());
    assert_eq!(expr!("(a,\tb)\n"), parse("(a, b)").unwrap());
    assert_eq!(expr!("(a, b)",), parse("(a, b)").unwrap());
    // Usable where an expression is: in a const-free static initializer through a function,
    // in a closure, as an argument.
    let f = || expr!("(n,) -> (n,)");
    assert_eq!(f().to_string(), "(n,) → (n,)");
}

#[test]
fn large_numbers_and_unicode_names_survive() {
    assert_eq!(
        expr!("(4294967295, 1000000007)"),
        parse("(4294967295, 1000000007)").unwrap()
    );
    let e = expr!("(größe, 幅) -> (幅, größe)");
    assert_eq!(e.to_string(), "(größe, 幅) → (幅, größe)");
}
