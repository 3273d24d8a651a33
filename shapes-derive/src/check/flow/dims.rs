//! The dims of tracked shapes and the one rule of provability.
//!
//! A dim is a [`DimExpr`] of the crate's expression language, or unknown (`None`). Two dims
//! are compared through the normal form of `normal.rs`, with the function's `where` equations
//! of the form `name = expr` substituted first.
//!
//! [`compare`] says [`Cmp::Differ`] only when the two dims differ for every assignment of
//! positive sizes under the convention every pattern already uses, that distinct variables
//! are distinct dims (but for the variables of a `where` equation the rule itself would deny,
//! such as `a * x = a * y`, which ties them):
//!
//! - their difference is a nonzero constant (`3` vs `4`, `s + 1` vs `s`);
//! - both are single terms `c·m1` and `c'·m2` with the same variables (`m1 = m2`) and
//!   different coefficients (`2 * s` vs `s`);
//! - both are single terms with the same coefficient which, once their common factors are
//!   cancelled, are two distinct variables (`s` vs `head_dim`; `heads * head_dim` vs
//!   `kv_heads * head_dim`).
//!
//! Anything else is [`Cmp::Unknown`]: a variable against a literal (`n` vs `3`), a variable
//! against a product (`d_model` vs `heads * head_dim` without a `where` that says so), an
//! unknown dim against anything.

use crate::analysis::dim_vars;
use shapes_core::expr::{ArithOp, DimExpr};

use super::normal::{MAX_DEPTH, Poly, Ratio, Subst, normalise as normal_form};

/// One dim of a tracked shape: an expression, or unknown.
pub type Dim = Option<DimExpr>;

/// The facts dims are compared under: the `where` equations with a lone variable on one side,
/// as substitutions.
#[derive(Default, Clone)]
pub struct Facts {
    subst: Subst,
    /// The variables of an equation that is not a substitution and that the distinct-variable
    /// rule would call false (`a * b = a * c`): the equation ties them, so the rule does not
    /// hold for them. (`heads % kv_heads = 0` ties nothing.)
    tied: std::collections::BTreeSet<String>,
}

impl Facts {
    /// The substitutions of `wheres`: `name = expr` (or `expr = name`) where `name` is not yet
    /// substituted and does not occur in `expr`, its substitutions followed (so `c = a, c = b`
    /// makes `b` stand for `a` too). Another equation ties its variables when the rule would
    /// call it false.
    pub fn new<'a>(wheres: impl IntoIterator<Item = (&'a DimExpr, &'a DimExpr)>) -> Self {
        let mut facts = Facts::default();
        let mut others = Vec::new();
        for (l, r) in wheres {
            let mut used = false;
            for (v, e) in [(l, r), (r, l)] {
                let DimExpr::Var(v) = v else {
                    continue;
                };
                if facts.subst.contains_key(v.as_str()) || facts.mentions(e, v.as_str(), 0) {
                    continue;
                }
                facts.subst.insert(v.as_str().to_owned(), e.clone());
                used = true;
                break;
            }
            if !used {
                others.push((l, r));
            }
        }
        let mut tied = std::collections::BTreeSet::new();
        for (l, r) in others {
            if compare(&Some(l.clone()), &Some(r.clone()), &facts) == Cmp::Differ {
                tied.extend(
                    dim_vars(l)
                        .into_iter()
                        .chain(dim_vars(r))
                        .map(str::to_owned),
                );
            }
        }
        facts.tied = tied;
        facts
    }

    /// Whether `e`, its substitutions followed, names `v` (or nests too deep to tell).
    fn mentions(&self, e: &DimExpr, v: &str, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return true;
        }
        match e {
            DimExpr::Var(n) => {
                n.as_str() == v
                    || self
                        .subst
                        .get(n.as_str())
                        .is_some_and(|s| self.mentions(s, v, depth + 1))
            }
            DimExpr::Bin(_, a, b) => {
                self.mentions(a, v, depth + 1) || self.mentions(b, v, depth + 1)
            }
            _ => false,
        }
    }
}

/// The normal form of `e` under `facts`' substitutions.
pub fn normalise(e: &DimExpr, facts: &Facts) -> Option<Poly> {
    normal_form(e, &facts.subst)
}

/// What can be proved about two dims.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Cmp {
    /// Equal for every assignment.
    Equal,
    /// Different for every assignment (see the module's rule).
    Differ,
    /// Neither can be proved.
    Unknown,
}

/// Compares two dims under `facts` (the module's rule).
pub fn compare(a: &Dim, b: &Dim, facts: &Facts) -> Cmp {
    let (Some(a), Some(b)) = (a, b) else {
        return Cmp::Unknown;
    };
    let (Some(pa), Some(pb)) = (normalise(a, facts), normalise(b, facts)) else {
        return Cmp::Unknown;
    };
    compare_polys(&pa, &pb, facts)
}

fn compare_polys(pa: &Poly, pb: &Poly, facts: &Facts) -> Cmp {
    if pa == pb {
        return Cmp::Equal;
    }
    let Some(diff) = pb.neg().and_then(|nb| pa.add(&nb)) else {
        return Cmp::Unknown;
    };
    if let Some(c) = diff.as_constant() {
        return if c.num == 0 { Cmp::Equal } else { Cmp::Differ };
    }
    let (Some((m1, c1)), Some((m2, c2))) = (pa.single(), pb.single()) else {
        return Cmp::Unknown;
    };
    if m1 == m2 {
        // Same variables, different coefficients (they are not equal): positive sizes differ.
        return Cmp::Differ;
    }
    if c1 != c2 {
        return Cmp::Unknown;
    }
    // The quotient m1 / m2, its factors split by the sign of their exponents.
    let mut pos = Vec::new();
    let mut neg = Vec::new();
    let keys = m1.keys().chain(m2.keys());
    let mut seen = std::collections::BTreeSet::new();
    for v in keys {
        if !seen.insert(v) {
            continue;
        }
        let Some(e) = m1
            .get(v)
            .copied()
            .unwrap_or(0)
            .checked_sub(m2.get(v).copied().unwrap_or(0))
        else {
            return Cmp::Unknown;
        };
        match e.cmp(&0) {
            std::cmp::Ordering::Greater => pos.push((v, e)),
            std::cmp::Ordering::Less => neg.push((v, e)),
            std::cmp::Ordering::Equal => {}
        }
    }
    // A variable proper: not an opaque factor, not tied by an equation the facts do not use.
    let is_var = |v: &str| !v.starts_with('(') && !facts.tied.contains(v);
    match (pos.as_slice(), neg.as_slice()) {
        ([(a, 1)], [(b, -1)]) if is_var(a) && is_var(b) && a != b => Cmp::Differ,
        _ => Cmp::Unknown,
    }
}

/// Whether `d` is the literal size 1 (after normalisation).
pub fn is_one(d: &Dim, facts: &Facts) -> bool {
    d.as_ref()
        .and_then(|e| normalise(e, facts))
        .and_then(|p| p.as_constant())
        .is_some_and(|c| c == Ratio::int(1))
}

/// Whether `a > b` for every assignment: their difference is a constant above zero.
pub fn greater(a: &Dim, b: &Dim, facts: &Facts) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    let diff = normalise(a, facts)
        .zip(normalise(b, facts))
        .and_then(|(pa, pb)| pa.add(&pb.neg()?));
    diff.and_then(|p| p.as_constant())
        .is_some_and(|c| c.num > 0)
}

/// Whether `b` divides `a` exactly for every assignment: `b` is a single term and `a / b` is a
/// polynomial with whole coefficients and no negative powers (`d_model / heads` with `where
/// d_model = heads * head_dim`).
pub fn divides(a: &Dim, b: &Dim, facts: &Facts) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    let q = normalise(a, facts)
        .zip(normalise(b, facts).and_then(|pb| pb.inverse()))
        .and_then(|(pa, inv)| pa.mul(&inv));
    q.is_some_and(|q| {
        q.terms
            .iter()
            .all(|(m, c)| c.den == 1 && c.num > 0 && m.values().all(|e| *e > 0))
    })
}

/// `d` written as its normal form when that is a sum of products of variables with whole
/// positive coefficients (`head_dim / 2 * 2` is `head_dim`); otherwise `d` as it is.
pub fn simplify(d: Dim) -> Dim {
    let e = d?;
    Some(simplify_under(Some(e.clone()), &Facts::default()).unwrap_or(e))
}

/// `d`'s normal form under `facts` as an expression, when it can be written as one (see
/// [`simplify`]).
pub fn simplify_under(d: Dim, facts: &Facts) -> Dim {
    normalise(&d?, facts)?.to_dim()
}

/// `d` as a literal size, when it is one.
pub fn as_literal(d: &Dim, facts: &Facts) -> Option<usize> {
    let c = d
        .as_ref()
        .and_then(|e| normalise(e, facts))?
        .as_constant()?;
    if c.den != 1 {
        return None;
    }
    usize::try_from(c.num).ok()
}

/// `a op b`, simplified: literals folded with checked arithmetic (a failing step, such as an
/// overflow or a negative difference, gives an unknown dim), `x * 1`, `x + 0`, `x / 1` kept
/// as `x`, and a product divided by one of its factors cancelled (`heads * head_dim /
/// head_dim` is `heads`). Never panics.
pub fn bin(op: ArithOp, a: &Dim, b: &Dim) -> Dim {
    let (a, b) = (a.as_ref()?, b.as_ref()?);
    // A dim built by repeated arithmetic (`let a = a * a;` in a loop of lines) stays small:
    // past the limit it is unknown.
    if nodes(a, MAX_NODES) + nodes(b, MAX_NODES) >= MAX_NODES {
        return None;
    }
    if let (DimExpr::Lit(x), DimExpr::Lit(y)) = (a, b) {
        return op.apply(*x, *y).map(DimExpr::Lit);
    }
    match (op, b) {
        (ArithOp::Mul | ArithOp::Div | ArithOp::FloorDiv, DimExpr::Lit(1))
        | (ArithOp::Add | ArithOp::Sub, DimExpr::Lit(0)) => return Some(a.clone()),
        _ => {}
    }
    match (op, a) {
        (ArithOp::Mul, DimExpr::Lit(1)) | (ArithOp::Add, DimExpr::Lit(0)) => {
            return Some(b.clone());
        }
        _ => {}
    }
    if op == ArithOp::Div
        && let Some(q) = cancel(a, b)
    {
        return Some(q);
    }
    Some(DimExpr::Bin(op, Box::new(a.clone()), Box::new(b.clone())))
}

/// The most nodes a tracked dim may have.
const MAX_NODES: usize = 256;

/// The number of nodes of `e`, counted up to `limit`.
fn nodes(e: &DimExpr, limit: usize) -> usize {
    match e {
        DimExpr::Bin(_, a, b) => {
            let left = nodes(a, limit);
            if left >= limit {
                return limit;
            }
            (1 + left + nodes(b, limit - left)).min(limit)
        }
        _ => 1,
    }
}

/// `a / b` when `b` is one factor of the product `a` (or `a` itself, giving 1).
fn cancel(a: &DimExpr, b: &DimExpr) -> Option<DimExpr> {
    if a == b {
        return Some(DimExpr::Lit(1));
    }
    match a {
        DimExpr::Bin(ArithOp::Mul, l, r) => {
            if **r == *b {
                Some((**l).clone())
            } else if **l == *b {
                Some((**r).clone())
            } else if let Some(q) = cancel(l, b) {
                bin(ArithOp::Mul, &Some(q), &Some((**r).clone()))
            } else {
                let q = cancel(r, b)?;
                bin(ArithOp::Mul, &Some((**l).clone()), &Some(q))
            }
        }
        _ => None,
    }
}

/// The product of `dims`, or unknown when one is.
pub fn product(dims: &[Dim]) -> Dim {
    dims.iter()
        .try_fold(DimExpr::Lit(1), |acc, d| bin(ArithOp::Mul, &Some(acc), d))
}

/// A dim in the pattern language's ASCII spelling, `_` when unknown.
pub fn show_dim(d: &Dim) -> String {
    match d {
        Some(e) => format!("{e:#}"),
        None => "_".to_owned(),
    }
}

/// A shape as a pattern: `(b, s, d_model)`, `(n,)`, `()`.
pub fn show_shape(dims: &[Dim]) -> String {
    let mut out = String::from("(");
    for (i, d) in dims.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&show_dim(d));
    }
    if dims.len() == 1 {
        out.push(',');
    }
    out.push(')');
    out
}

/// A shape written as a pattern string, for tests: `"(b, s, _)"`; `_` is unknown.
#[cfg(test)]
pub fn shape_of(s: &str) -> Vec<Dim> {
    let p = shapes_core::expr::parse_pattern(s).expect("a test pattern");
    p.items
        .into_iter()
        .map(|i| match i {
            shapes_core::expr::Item::Dim(e) => Some(e),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Dim {
        let mut v = shape_of(&format!("({s},)"));
        v.pop().flatten()
    }

    fn cmp(a: &str, b: &str) -> Cmp {
        compare(&d(a), &d(b), &Facts::default())
    }

    #[test]
    fn distinct_variables_differ() {
        assert_eq!(cmp("s", "head_dim"), Cmp::Differ);
        assert_eq!(cmp("heads * head_dim", "kv_heads * head_dim"), Cmp::Differ);
        assert_eq!(cmp("s", "s"), Cmp::Equal);
        assert_eq!(cmp("a * b", "b * a"), Cmp::Equal);
    }

    #[test]
    fn literals_and_products_are_not_provably_different() {
        assert_eq!(cmp("n", "3"), Cmp::Unknown);
        assert_eq!(cmp("d_model", "heads * head_dim"), Cmp::Unknown);
        assert_eq!(cmp("a * b", "c * d"), Cmp::Unknown);
        assert_eq!(cmp("2 * a", "b"), Cmp::Unknown);
        assert_eq!(compare(&None, &d("a"), &Facts::default()), Cmp::Unknown);
    }

    #[test]
    fn constants_and_offsets_differ() {
        assert_eq!(cmp("3", "4"), Cmp::Differ);
        assert_eq!(cmp("s + 1", "s"), Cmp::Differ);
        assert_eq!(cmp("2 * s", "s"), Cmp::Differ);
        assert_eq!(cmp("h / 2 * 2", "h"), Cmp::Equal);
    }

    #[test]
    fn where_equations_are_substituted() {
        let (l, r) = (d("d_model").unwrap(), d("heads * head_dim").unwrap());
        let facts = Facts::new([(&l, &r)]);
        assert_eq!(
            compare(&d("d_model"), &d("heads * head_dim"), &facts),
            Cmp::Equal
        );
        assert_eq!(
            compare(&d("d_model"), &d("kv_heads * head_dim"), &facts),
            Cmp::Differ
        );
    }

    #[test]
    fn substitutions_are_followed_and_other_equations_tie() {
        let (c, a, b) = (d("c").unwrap(), d("a").unwrap(), d("b").unwrap());
        let facts = Facts::new([(&c, &a), (&c, &b)]);
        assert_eq!(compare(&d("a"), &d("b"), &facts), Cmp::Equal);
        // `a * x = a * y` says x = y, which the rule would deny: x and y are tied.
        let (l, r) = (d("a * x").unwrap(), d("a * y").unwrap());
        let facts = Facts::new([(&l, &r)]);
        assert_eq!(compare(&d("x"), &d("y"), &facts), Cmp::Unknown);
        assert_eq!(compare(&d("x"), &d("z"), &facts), Cmp::Unknown);
        assert_eq!(compare(&d("w"), &d("z"), &facts), Cmp::Differ);
        // `heads % kv_heads = 0` does not: the two stay distinct.
        let (l, r) = (d("heads % kv_heads").unwrap(), d("0").unwrap());
        let facts = Facts::new([(&l, &r)]);
        assert_eq!(compare(&d("heads"), &d("kv_heads"), &facts), Cmp::Differ);
    }

    #[test]
    fn cyclic_where_equations_end_unknown() {
        let (a, b) = (d("a").unwrap(), d("b + 1").unwrap());
        let (b2, a2) = (d("b").unwrap(), d("a - 1").unwrap());
        let facts = Facts::new([(&a, &b), (&b2, &a2)]);
        assert_eq!(compare(&d("a"), &d("c"), &facts), Cmp::Unknown);
    }

    #[test]
    fn floor_division_is_opaque() {
        assert_eq!(cmp("(h - k) // s + 1", "(h - k) // s + 1"), Cmp::Equal);
        assert_eq!(cmp("h // 2", "h"), Cmp::Unknown);
    }

    #[test]
    fn bin_folds_with_checked_arithmetic() {
        assert_eq!(bin(ArithOp::Mul, &d("3"), &d("4")), Some(DimExpr::Lit(12)));
        assert_eq!(bin(ArithOp::Sub, &d("3"), &d("4")), None);
        assert_eq!(
            bin(ArithOp::Mul, &Some(DimExpr::Lit(usize::MAX)), &d("2")),
            None
        );
        assert_eq!(
            bin(ArithOp::Div, &d("heads * head_dim"), &d("head_dim")),
            d("heads")
        );
        assert_eq!(bin(ArithOp::Mul, &d("s"), &d("1")), d("s"));
        assert_eq!(product(&[d("b"), d("s"), None]), None);
    }

    #[test]
    fn exact_division_and_simplification() {
        let (l, r) = (d("d_model").unwrap(), d("heads * head_dim").unwrap());
        let facts = Facts::new([(&l, &r)]);
        assert!(divides(&d("d_model"), &d("heads"), &facts));
        assert!(!divides(&d("d_model"), &d("heads"), &Facts::default()));
        assert!(!divides(&d("heads"), &d("kv_heads"), &facts));
        assert_eq!(simplify(d("head_dim / 2 * 2")), d("head_dim"));
        assert_eq!(simplify(d("h // 2")), d("h // 2"));
        assert_eq!(simplify(d("2 * a * a + 3")), d("3 + 2 * a * a"));
        // Squared six times: 64 factors, not written out.
        let mut big = d("a");
        for _ in 0..6 {
            big = bin(ArithOp::Mul, &big, &big);
        }
        assert_eq!(simplify(big.clone()), big);
        // Squared on: past the size limit, unknown (and never a tree of 2^40 nodes).
        for _ in 0..40 {
            big = bin(ArithOp::Mul, &big, &big);
        }
        assert_eq!(big, None);
    }

    #[test]
    fn shapes_print_as_patterns() {
        assert_eq!(
            show_shape(&shape_of("(b, heads * head_dim, _)")),
            "(b, heads * head_dim, _)"
        );
        assert_eq!(show_shape(&shape_of("(n,)")), "(n,)");
        assert!(is_one(&d("1"), &Facts::default()));
        assert_eq!(as_literal(&d("2 * 3"), &Facts::default()), Some(6));
    }
}
