//! Alpha-renaming: a function's variables are its own (bound by its arrows), so before it is
//! applied, those that clash with a variable of an argument are renamed apart.
//!
//! Only clashing variables are renamed, so the common case (concrete arguments, or arguments
//! whose variables differ from the function's) allocates nothing and results keep the names
//! the user wrote. A fresh name is the clashing name with a number (`a` → `a1`, `a2`, …; a
//! trailing number is replaced: `a1` → `a2`), the first not used by the function or any
//! argument: names never run out (gorgonia's `Gen` stops at 50 letters and panics).

use std::borrow::Cow;

use smallvec::SmallVec;

use super::subst::{same, visit_expr_vars};
use crate::expr::{DimExpr, Expr, Item, Name, Operand, Pattern, Pred};

type Names = SmallVec<[Name; 8]>;

fn push_unique(names: &mut Names, n: &Name) {
    if !names.iter().any(|m| same(m, n)) {
        names.push(n.clone());
    }
}

/// `f` with its variables that also occur in `args` renamed to fresh names.
pub(crate) fn rename_apart<'f>(f: &'f Expr, args: &[Expr]) -> Cow<'f, Expr> {
    let mut arg_vars = Names::new();
    for a in args {
        visit_expr_vars(a, &mut |n| push_unique(&mut arg_vars, n));
    }
    if arg_vars.is_empty() {
        return Cow::Borrowed(f);
    }
    let mut f_vars = Names::new();
    visit_expr_vars(f, &mut |n| push_unique(&mut f_vars, n));
    let clashes: Names = f_vars
        .iter()
        .filter(|n| arg_vars.iter().any(|m| same(m, n)))
        .cloned()
        .collect();
    if clashes.is_empty() {
        return Cow::Borrowed(f);
    }
    let mut used = f_vars;
    for n in arg_vars {
        push_unique(&mut used, &n);
    }
    let mut renaming = Renaming::default();
    for n in clashes {
        let fresh = fresh_name(&n, &used);
        used.push(fresh.clone());
        renaming.0.push((n, fresh));
    }
    Cow::Owned(renaming.apply(f))
}

/// `base` (without a trailing number) followed by the smallest number that makes it unused.
fn fresh_name(n: &Name, used: &[Name]) -> Name {
    let base = n.as_str().trim_end_matches(|c: char| c.is_ascii_digit());
    let base = if base.is_empty() { "v" } else { base };
    let mut k: u64 = 1;
    loop {
        let candidate = format!("{base}{k}");
        if !used.iter().any(|m| m.as_str() == candidate) {
            return Name::new(&candidate);
        }
        k += 1;
    }
}

/// Old names to new names.
#[derive(Default)]
struct Renaming(SmallVec<[(Name, Name); 4]>);

impl Renaming {
    fn name(&self, n: &Name) -> Name {
        match self.0.iter().find(|(old, _)| same(old, n)) {
            Some((_, new)) => new.clone(),
            None => n.clone(),
        }
    }

    fn apply(&self, e: &Expr) -> Expr {
        match e {
            Expr::Var(n) => Expr::Var(self.name(n)),
            Expr::Pattern(p) => Expr::Pattern(self.pattern(p)),
            Expr::Arrow(a, b) => Expr::arrow(self.apply(a), self.apply(b)),
            Expr::Compound(a, p) => Expr::Compound(Box::new(self.apply(a)), Box::new(self.pred(p))),
            Expr::Axes(_) | Expr::Sizes(_) | Expr::Slices(_) => e.clone(),
            Expr::Slice(a, b) => Expr::Slice(Box::new(self.apply(a)), Box::new(self.apply(b))),
            Expr::Transpose(ax, a) => Expr::Transpose(ax.clone(), Box::new(self.apply(a))),
            Expr::Reduce(ax, a) => Expr::Reduce(*ax, Box::new(self.apply(a))),
            Expr::Broadcast(a, b) => {
                Expr::Broadcast(Box::new(self.apply(a)), Box::new(self.apply(b)))
            }
            Expr::Repeat(ax, r, a) => Expr::Repeat(*ax, r.clone(), Box::new(self.apply(a))),
            Expr::Concat(ax, a, b) => {
                Expr::Concat(*ax, Box::new(self.apply(a)), Box::new(self.apply(b)))
            }
        }
    }

    fn pattern(&self, p: &Pattern) -> Pattern {
        Pattern::new(
            p.items
                .iter()
                .map(|i| match i {
                    Item::Dim(d) => Item::Dim(self.dim(d)),
                    Item::Broadcast(d) => Item::Broadcast(self.dim(d)),
                    Item::Variadic(n) => Item::Variadic(self.name(n)),
                    Item::Any | Item::Ellipsis => i.clone(),
                })
                .collect(),
        )
    }

    fn dim(&self, d: &DimExpr) -> DimExpr {
        match d {
            DimExpr::Lit(_) => d.clone(),
            DimExpr::Var(n) => DimExpr::Var(self.name(n)),
            DimExpr::Bin(op, a, b) => {
                DimExpr::Bin(*op, Box::new(self.dim(a)), Box::new(self.dim(b)))
            }
            DimExpr::Rank(e) => DimExpr::Rank(Box::new(self.apply(e))),
            DimExpr::Prod(e) => DimExpr::Prod(Box::new(self.apply(e))),
            DimExpr::Sum(e) => DimExpr::Sum(Box::new(self.apply(e))),
            DimExpr::Index(e, i) => DimExpr::Index(Box::new(self.apply(e)), *i),
        }
    }

    fn operand(&self, o: &Operand) -> Operand {
        match o {
            Operand::Size(d) => Operand::Size(self.dim(d)),
            Operand::ForAll(e) => Operand::ForAll(self.apply(e)),
        }
    }

    fn pred(&self, p: &Pred) -> Pred {
        match p {
            Pred::Cmp(op, a, b) => Pred::Cmp(*op, self.operand(a), self.operand(b)),
            Pred::Broadcastable(a, b) => Pred::Broadcastable(self.apply(a), self.apply(b)),
            Pred::And(a, b) => Pred::And(Box::new(self.pred(a)), Box::new(self.pred(b))),
            Pred::Or(a, b) => Pred::Or(Box::new(self.pred(a)), Box::new(self.pred(b))),
        }
    }
}
