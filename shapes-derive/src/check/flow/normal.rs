//! The normal form two dims are compared through: a polynomial whose terms are a rational
//! coefficient times a product of variables with integer exponents (`/` is exact division in
//! the language, so `heads * head_dim / head_dim` is `heads`), after the `where`
//! substitutions. `//` and `%` are kept whole, as opaque factors. All arithmetic is checked;
//! a form that overflows or grows past [`MAX_TERMS`] terms is given up (`None`). The rule
//! that reads it is `dims`'s.

use std::collections::BTreeMap;
use std::fmt;

use shapes_core::expr::{ArithOp, DimExpr};

/// The `where` substitutions: a variable, and the expression that stands for it.
pub type Subst = BTreeMap<String, DimExpr>;

/// How deep `where` substitutions may nest before a dim is given up as unknown (a cycle
/// such as `a = b + 1, b = a - 1` stops there).
pub(super) const MAX_DEPTH: usize = 64;

/// The most terms a normal form may have before it is given up as unknown.
const MAX_TERMS: usize = 64;

/// A rational coefficient `num / den`, reduced, `den > 0`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Ratio {
    pub(super) num: i128,
    pub(super) den: i128,
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i128::try_from(a).unwrap_or(1).max(1)
}

impl Ratio {
    pub(super) fn int(n: i128) -> Self {
        Ratio { num: n, den: 1 }
    }

    pub(super) fn new(num: i128, den: i128) -> Option<Self> {
        if den == 0 {
            return None;
        }
        let g = gcd(num, den);
        let sign = if den < 0 { -1 } else { 1 };
        Some(Ratio {
            num: (num / g).checked_mul(sign)?,
            den: (den / g).checked_mul(sign)?,
        })
    }

    pub(super) fn add(self, o: Self) -> Option<Self> {
        let num = self
            .num
            .checked_mul(o.den)?
            .checked_add(o.num.checked_mul(self.den)?)?;
        Ratio::new(num, self.den.checked_mul(o.den)?)
    }

    pub(super) fn mul(self, o: Self) -> Option<Self> {
        Ratio::new(self.num.checked_mul(o.num)?, self.den.checked_mul(o.den)?)
    }

    pub(super) fn neg(self) -> Option<Self> {
        Some(Ratio {
            num: self.num.checked_neg()?,
            den: self.den,
        })
    }

    pub(super) fn inv(self) -> Option<Self> {
        Ratio::new(self.den, self.num)
    }
}

/// A product of variables (and opaque factors, whose keys start with `(`), each with its
/// nonzero exponent.
pub(super) type Mono = BTreeMap<String, i32>;

/// The normal form of a dim: a sum of terms, each a coefficient times a [`Mono`].
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Poly {
    pub(super) terms: BTreeMap<Mono, Ratio>,
}

impl Poly {
    pub(super) fn constant(n: i128) -> Self {
        let mut p = Poly::default();
        if n != 0 {
            p.terms.insert(Mono::new(), Ratio::int(n));
        }
        p
    }

    pub(super) fn atom(key: String) -> Self {
        let mut p = Poly::default();
        p.terms.insert(Mono::from([(key, 1)]), Ratio::int(1));
        p
    }

    pub(super) fn add(&self, o: &Poly) -> Option<Poly> {
        let mut out = self.clone();
        for (m, c) in &o.terms {
            let sum = match out.terms.get(m) {
                Some(prev) => prev.add(*c)?,
                None => *c,
            };
            if sum.num == 0 {
                out.terms.remove(m);
            } else {
                out.terms.insert(m.clone(), sum);
            }
        }
        (out.terms.len() <= MAX_TERMS).then_some(out)
    }

    pub(super) fn neg(&self) -> Option<Poly> {
        let mut out = Poly::default();
        for (m, c) in &self.terms {
            out.terms.insert(m.clone(), c.neg()?);
        }
        Some(out)
    }

    pub(super) fn mul(&self, o: &Poly) -> Option<Poly> {
        let mut out = Poly::default();
        for (m1, c1) in &self.terms {
            for (m2, c2) in &o.terms {
                let mut m = m1.clone();
                for (v, e) in m2 {
                    let sum = m.get(v).copied().unwrap_or(0).checked_add(*e)?;
                    if sum == 0 {
                        m.remove(v);
                    } else {
                        m.insert(v.clone(), sum);
                    }
                }
                let mut term = Poly::default();
                term.terms.insert(m, c1.mul(*c2)?);
                out = out.add(&term)?;
            }
        }
        Some(out)
    }

    /// The one term, when there is exactly one.
    pub(super) fn single(&self) -> Option<(&Mono, Ratio)> {
        let mut it = self.terms.iter();
        let (m, c) = it.next()?;
        it.next().is_none().then_some((m, *c))
    }

    /// The inverse of a single term: `1 / (c·m)`.
    pub(super) fn inverse(&self) -> Option<Poly> {
        let (m, c) = self.single()?;
        let mut inv = Mono::new();
        for (v, e) in m {
            inv.insert(v.clone(), e.checked_neg()?);
        }
        let mut out = Poly::default();
        out.terms.insert(inv, c.inv()?);
        Some(out)
    }

    /// The constant value, when the polynomial has no variables.
    pub(super) fn as_constant(&self) -> Option<Ratio> {
        match self.terms.len() {
            0 => Some(Ratio::int(0)),
            1 => self.terms.get(&Mono::new()).copied(),
            _ => None,
        }
    }
}

impl Poly {
    /// The polynomial as an expression, when every coefficient is a whole positive number and
    /// every factor a variable with a positive power.
    pub(super) fn to_dim(&self) -> Option<DimExpr> {
        let mut sum: Option<DimExpr> = None;
        for (m, c) in &self.terms {
            if c.den != 1 || c.num <= 0 {
                return None;
            }
            let mut term: Option<DimExpr> = (c.num != 1 || m.is_empty())
                .then(|| usize::try_from(c.num).ok().map(DimExpr::Lit))
                .flatten();
            if term.is_none() && (c.num != 1 || m.is_empty()) {
                return None;
            }
            for (v, e) in m {
                // A power past a few is not written out (nor likely in a shape).
                if v.starts_with('(') || *e <= 0 || *e > 8 {
                    return None;
                }
                for _ in 0..*e {
                    let var = DimExpr::Var(shapes_core::expr::Name::new(v));
                    term = Some(match term {
                        None => var,
                        Some(t) => DimExpr::Bin(ArithOp::Mul, Box::new(t), Box::new(var)),
                    });
                }
            }
            let term = term?;
            sum = Some(match sum {
                None => term,
                Some(s) => DimExpr::Bin(ArithOp::Add, Box::new(s), Box::new(term)),
            });
        }
        Some(sum.unwrap_or(DimExpr::Lit(0)))
    }
}

impl fmt::Display for Poly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return f.write_str("0");
        }
        for (i, (m, c)) in self.terms.iter().enumerate() {
            if i > 0 {
                f.write_str(" + ")?;
            }
            write!(f, "{}/{}", c.num, c.den)?;
            for (v, e) in m {
                write!(f, "*{v}^{e}")?;
            }
        }
        Ok(())
    }
}

/// The normal form of `e` under `facts`, or `None` when it holds something the form cannot
/// express (a rank, a product of a shape) or grows past the limits.
pub fn normalise(e: &DimExpr, subst: &Subst) -> Option<Poly> {
    norm(e, subst, 0)
}

fn norm(e: &DimExpr, subst: &Subst, depth: usize) -> Option<Poly> {
    if depth > MAX_DEPTH {
        return None;
    }
    match e {
        DimExpr::Lit(n) => Some(Poly::constant(i128::try_from(*n).ok()?)),
        DimExpr::Var(v) => match subst.get(v.as_str()) {
            Some(sub) => norm(sub, subst, depth + 1),
            None => Some(Poly::atom(v.as_str().to_owned())),
        },
        DimExpr::Bin(op, a, b) => {
            let (a, b) = (norm(a, subst, depth + 1)?, norm(b, subst, depth + 1)?);
            match op {
                ArithOp::Add => a.add(&b),
                ArithOp::Sub => a.add(&b.neg()?),
                ArithOp::Mul => a.mul(&b),
                ArithOp::Div => match b.inverse() {
                    Some(inv) => a.mul(&inv),
                    None => Some(Poly::atom(format!("({a}) / ({b})"))),
                },
                ArithOp::FloorDiv | ArithOp::Rem => {
                    Some(Poly::atom(format!("({a}) {} ({b})", op.symbol(true))))
                }
            }
        }
        DimExpr::Rank(_) | DimExpr::Prod(_) | DimExpr::Sum(_) | DimExpr::Index(..) => None,
    }
}
