//! The one static analysis of shape variables, shared by `#[derive(Shaped)]`,
//! `#[shapes::check]` (through `shapes-derive`, with syn's literals as the places) and spec
//! files (with byte ranges): how each name is used across the patterns and equations of one
//! scope, and which names the checker can ever determine.
//!
//! A [`Scope`] only collects facts; the front ends decide what is an error and word it for
//! their users (fields, arguments or spec entries). It is span-free: each name's first use is
//! remembered as a place of the front end's own type `L`.

use std::collections::{BTreeMap, BTreeSet};

use super::suggest::{close_names, const_distance, typo_shaped};
use crate::expr::{ArithOp, DimExpr, Item, Pattern, for_each_var, undo_path};

/// Every variable of the patterns and equations checked in one scope, and how it appears;
/// `L` is where a pattern or equation is written (a literal, a byte range).
pub struct Scope<'a, L> {
    /// name → number of occurrences.
    uses: BTreeMap<String, usize>,
    /// Names that appear alone as a dim (`d_model`, `#c`), or are a `count`: bound directly by
    /// a tensor.
    bare: BTreeSet<String>,
    /// Names used as `*name`.
    variadic: BTreeSet<String>,
    /// Names used as a single dim anywhere (alone or in arithmetic).
    dims: BTreeSet<String>,
    /// Where each name first appears.
    first: BTreeMap<String, L>,
    /// What can determine variables once others are known.
    equations: Vec<Equation<'a>>,
    /// Names a `where` comparison other than `=` uses.
    compared: BTreeSet<String>,
    /// Names a pattern, a count or an equation uses: all but the comparisons.
    determining: BTreeSet<String>,
    /// The order names first appear in.
    order: BTreeMap<String, usize>,
    /// Which owners (bit `k` for owner `k`, see [`Scope::set_owner`]) use each name.
    owners: BTreeMap<String, u64>,
    /// The owner of what is added now.
    owner: u64,
}

/// Why a name is a likely typo of another (see [`Scope::likely_typos`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypoKind {
    /// Used once, beside a close name used more often.
    Once,
    /// Used once, beside a name also used once that differs by a slip (a swap, a dropped
    /// letter): neither checks anything.
    BothOnce,
    /// Used only by one owner (a block, a nested struct), beside a name that differs by a
    /// slip and that only other owners use: the two never meet.
    Apart,
}

/// A likely typo: the name, the name it is close to, why, and where the name first appears.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Typo<'s, L> {
    /// The likely misspelt name.
    pub name: &'s str,
    /// The name it is close to.
    pub other: &'s str,
    /// Why it is one.
    pub kind: TypoKind,
    /// Where `name` first appears.
    pub at: &'s L,
}

impl<L> Default for Scope<'_, L> {
    fn default() -> Self {
        Scope {
            uses: BTreeMap::new(),
            bare: BTreeSet::new(),
            variadic: BTreeSet::new(),
            dims: BTreeSet::new(),
            first: BTreeMap::new(),
            equations: Vec::new(),
            compared: BTreeSet::new(),
            determining: BTreeSet::new(),
            order: BTreeMap::new(),
            owners: BTreeMap::new(),
            owner: 1,
        }
    }
}

/// `lhs = rhs`, or `lhs` alone when it stands at a tensor's dim, whose value is always known
/// at run time.
struct Equation<'a> {
    lhs: &'a DimExpr,
    rhs: Option<&'a DimExpr>,
}

impl<'a, L: Clone> Scope<'a, L> {
    fn note(&mut self, name: &str, at: &L) {
        *self.uses.entry(name.to_owned()).or_default() += 1;
        self.first
            .entry(name.to_owned())
            .or_insert_with(|| at.clone());
        let next = self.order.len();
        self.order.entry(name.to_owned()).or_insert(next);
        *self.owners.entry(name.to_owned()).or_default() |= self.owner;
    }

    /// What is added from now on is written by owner `k` (a spec's block, a nested struct; 0,
    /// the scope itself, to start with; owners past 63 share the last bit): two names that
    /// differ by a slip and that no one owner uses both of never meet, and one is a likely
    /// typo of the other.
    pub fn set_owner(&mut self, k: usize) {
        self.owner = 1 << k.min(63);
    }

    /// Adds the variables of a pattern written at `at`, and each dim expression as an
    /// equation. Items the checker cannot evaluate ([`unsupported`]) are left out: they are
    /// reported on their own. Returns the names noted.
    pub fn add_pattern(&mut self, pattern: &'a Pattern, at: &L) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        for item in &pattern.items {
            match item {
                Item::Dim(DimExpr::Var(n)) | Item::Broadcast(DimExpr::Var(n)) => {
                    self.note(n.as_str(), at);
                    names.insert(n.as_str().to_owned());
                    self.bare.insert(n.as_str().to_owned());
                    self.dims.insert(n.as_str().to_owned());
                }
                Item::Variadic(n) => {
                    self.note(n.as_str(), at);
                    names.insert(n.as_str().to_owned());
                    self.variadic.insert(n.as_str().to_owned());
                }
                Item::Dim(e) | Item::Broadcast(e) => {
                    if unsupported(e).is_some() {
                        continue;
                    }
                    for v in dim_vars(e) {
                        self.note(v, at);
                        names.insert(v.to_owned());
                        self.dims.insert(v.to_owned());
                    }
                    self.equations.push(Equation { lhs: e, rhs: None });
                }
                Item::Any | Item::Ellipsis => {}
            }
        }
        self.determining.extend(names.iter().cloned());
        names
    }

    /// A count (`count = "n"`, a spec's `[repeat]`): the element count binds `name` directly,
    /// like a bare dim.
    pub fn add_count(&mut self, name: &str, at: &L) {
        self.note(name, at);
        self.bare.insert(name.to_owned());
        self.dims.insert(name.to_owned());
        self.determining.insert(name.to_owned());
    }

    /// A `where` equation written at `at`: every variable of both sides (even inside parts
    /// the checker cannot evaluate, which are reported on their own).
    pub fn add_equation(&mut self, lhs: &'a DimExpr, rhs: &'a DimExpr, at: &L) {
        for side in [lhs, rhs] {
            for v in dim_vars(side) {
                self.note(v, at);
                self.dims.insert(v.to_owned());
                self.determining.insert(v.to_owned());
            }
        }
        self.equations.push(Equation {
            lhs,
            rhs: Some(rhs),
        });
    }

    /// A `where` comparison other than `=` (`head_dim <= 256`) written at `at`: its variables
    /// are uses, but it determines none of them.
    pub fn add_comparison(&mut self, lhs: &'a DimExpr, rhs: &'a DimExpr, at: &L) {
        for side in [lhs, rhs] {
            for v in dim_vars(side) {
                self.note(v, at);
                self.dims.insert(v.to_owned());
                self.compared.insert(v.to_owned());
            }
        }
    }
}

impl<'a, L> Scope<'a, L> {
    /// Every name, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.uses.keys().map(String::as_str)
    }

    /// The names that only `where` comparisons other than `=` use (`d_modle >= 1`), with where
    /// each first appears: a comparison checks values but binds none, so such a name is
    /// bound only when the caller gives it.
    pub fn only_compared(&self) -> impl Iterator<Item = (&str, &L)> {
        self.compared
            .iter()
            .filter(|n| !self.determining.contains(*n))
            .filter_map(|n| Some((n.as_str(), self.first.get(n)?)))
    }

    /// How many times `name` occurs.
    pub fn uses(&self, name: &str) -> usize {
        self.uses.get(name).copied().unwrap_or(0)
    }

    /// Where `name` first appears.
    pub fn first_use(&self, name: &str) -> Option<&L> {
        self.first.get(name)
    }

    /// Whether `name` is used as `*name` (a sub-shape).
    pub fn is_variadic(&self, name: &str) -> bool {
        self.variadic.contains(name)
    }

    /// The names used both as a variadic `*name` and as a single dim, with where each first
    /// appears: an error for every front end.
    pub fn variadic_dims(&self) -> impl Iterator<Item = (&str, &L)> {
        self.variadic
            .intersection(&self.dims)
            .filter_map(|n| Some((n.as_str(), self.first.get(n)?)))
    }

    /// The names a value binds directly: bare dims, counts and variadics.
    pub fn bound(&self) -> BTreeSet<String> {
        self.bare.union(&self.variadic).cloned().collect()
    }

    /// The likely typos, each once, in order of first appearance of the typo:
    /// - a name used once beside a name used more often that is close enough to be what was
    ///   meant (`d_modle` beside `d_model`: [`TypoKind::Once`]);
    /// - a name used once beside another used once that differs by a slip
    ///   ([`typo_shaped`]: `sqe` and `seq`), the later one ([`TypoKind::BothOnce`]);
    /// - a name that differs by a slip from a name that no owner using it uses
    ///   ([`TypoKind::Apart`]), the later one.
    ///
    /// A name used once is otherwise correct: it binds a value the caller reads back (`h_wins`
    /// in `(h_wins * window, …)`), or a `where` equation derives it. `_name` and variadics are
    /// left alone.
    pub fn likely_typos(&self) -> Vec<Typo<'_, L>> {
        let candidates: Vec<&str> = self
            .names()
            .filter(|n| !n.starts_with('_') && !self.is_variadic(n))
            .collect();
        let mut out: Vec<Typo<'_, L>> = Vec::new();
        let mut by_order = candidates.clone();
        by_order.sort_by_key(|n| self.order.get(*n).copied().unwrap_or(usize::MAX));
        for (i, name) in by_order.iter().enumerate() {
            let Some(at) = self.first_use(name) else {
                continue;
            };
            let once = self.uses(name) == 1;
            let much = candidates
                .iter()
                .filter(|o| self.uses(o) >= 2 && close_names(name, o))
                .min_by_key(|o| const_distance(name, o));
            if let (true, Some(other)) = (once, much) {
                out.push(Typo {
                    name,
                    other,
                    kind: TypoKind::Once,
                    at,
                });
                continue;
            }
            let owners = |n: &str| self.owners.get(n).copied().unwrap_or(0);
            // A slip of an earlier name.
            let slip = by_order[..i].iter().find_map(|o| {
                if !typo_shaped(name, o) {
                    return None;
                }
                if once && self.uses(o) == 1 {
                    Some((*o, TypoKind::BothOnce))
                } else if owners(name) & owners(o) == 0 {
                    Some((*o, TypoKind::Apart))
                } else {
                    None
                }
            });
            if let Some((other, kind)) = slip {
                out.push(Typo {
                    name,
                    other,
                    kind,
                    at,
                });
            }
        }
        out
    }

    /// Of `unsolved`, the variable whose value, added to `known`, would determine the most
    /// others (the first such in `unsolved` on a tie): what an error suggests to give.
    pub fn most_determining<'n>(
        &self,
        known: &BTreeSet<String>,
        unsolved: &[&'n str],
    ) -> Option<&'n str> {
        // `max_by_key` keeps the last maximum: ties go to the earliest name through `Reverse`.
        unsolved.iter().copied().max_by_key(|v| {
            let mut with = known.clone();
            with.insert((*v).to_owned());
            (self.solvable_from(with).len(), std::cmp::Reverse(*v))
        })
    }

    /// Every variable determined by `known` through the equations, one inversion at a time.
    pub fn solvable_from(&self, mut known: BTreeSet<String>) -> BTreeSet<String> {
        loop {
            let before = known.len();
            for Equation { lhs, rhs } in &self.equations {
                // The distinct unknowns of each side (a power repeats its one unknown).
                let unknown = |e: &'a DimExpr| -> Vec<&'a str> {
                    let mut out: Vec<&str> = dim_vars(e)
                        .into_iter()
                        .filter(|v| !known.contains(*v))
                        .collect();
                    out.sort_unstable();
                    out.dedup();
                    out
                };
                let lu = unknown(lhs);
                let found = match rhs {
                    None => match lu.as_slice() {
                        [one] if invertible(lhs, one) => Some(*one),
                        _ => None,
                    },
                    Some(rhs) => {
                        let ru = unknown(rhs);
                        match (lu.as_slice(), ru.as_slice()) {
                            ([one], []) if invertible(lhs, one) => Some(*one),
                            ([], [one]) if invertible(rhs, one) => Some(*one),
                            _ => None,
                        }
                    }
                };
                if let Some(v) = found {
                    known.insert(v.to_owned());
                }
            }
            if known.len() == before {
                return known;
            }
        }
    }
}

/// Each variable of `e`, once per occurrence, left to right.
pub fn dim_vars(e: &DimExpr) -> Vec<&str> {
    let mut out = Vec::new();
    for_each_var(e, &mut |n| out.push(n.as_str()));
    out
}

/// Appends each variable of `pattern` to `out` unless it is there already: the order of first
/// appearance, which generated code uses as local indices.
pub fn pattern_vars(pattern: &Pattern, out: &mut Vec<String>) {
    for item in &pattern.items {
        match item {
            Item::Dim(e) | Item::Broadcast(e) => {
                for v in dim_vars(e) {
                    push_unique(out, v);
                }
            }
            Item::Variadic(n) => push_unique(out, n.as_str()),
            Item::Any | Item::Ellipsis => {}
        }
    }
}

/// Appends `name` to `out` unless it is there already.
pub fn push_unique(out: &mut Vec<String>, name: &str) {
    if !out.iter().any(|n| n == name) {
        out.push(name.to_owned());
    }
}

/// Whether `e = known` determines `var` uniquely once every other variable is known: every
/// operator between `var` and the top can be undone (no floor division or remainder), as the
/// runtime's arithmetic table (`ArithOp::invertible`) says; where `var` occurs more than once,
/// the part holding every occurrence is a power of it (`c × var × var`), which has at most one
/// whole root.
pub fn invertible(e: &DimExpr, var: &str) -> bool {
    let mentions = |d: &DimExpr| dim_vars(d).contains(&var);
    // A product of `var` and other factors: `coef × varⁿ`.
    fn power_of(e: &DimExpr, var: &str) -> bool {
        match e {
            DimExpr::Var(_) | DimExpr::Lit(_) => true,
            DimExpr::Bin(ArithOp::Mul, l, r) => power_of(l, var) && power_of(r, var),
            _ => !dim_vars(e).contains(&var) && unsupported(e).is_none(),
        }
    }
    if !mentions(e) {
        return false;
    }
    // The solver's own walk down to `var`, every operand without it known by then.
    let mut path = undo_path(e, |d| !mentions(d));
    if !path.by_ref().all(|undo| undo.op.invertible(undo.side)) {
        return false;
    }
    match path.rest() {
        DimExpr::Var(n) => n.as_str() == var,
        rest @ DimExpr::Bin(ArithOp::Mul, ..) => power_of(rest, var),
        _ => false,
    }
}

/// What in `e` the checker cannot evaluate against a dim, described for an error message.
pub fn unsupported(e: &DimExpr) -> Option<&'static str> {
    match e {
        DimExpr::Lit(_) | DimExpr::Var(_) => None,
        DimExpr::Bin(_, l, r) => unsupported(l).or_else(|| unsupported(r)),
        DimExpr::Rank(_) => Some("`D` (rank of a shape)"),
        DimExpr::Prod(_) => Some("`Π`/`prod` (product of a shape)"),
        DimExpr::Sum(_) => Some("`Σ`/`sum` (sum of a shape)"),
        DimExpr::Index(..) => Some("indexing a shape"),
    }
}

/// ` (did you mean `other`?)` when one of `names` is close to `name`, else nothing.
pub fn suggest(name: &str, names: &[&str]) -> String {
    // One- and two-letter names (`n`, `m`, `h`, `w`) are distinct variables, not typos of
    // each other.
    if name.chars().count() < 3 {
        return String::new();
    }
    let others: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| *n != name && n.chars().count() >= 3)
        .collect();
    match super::suggest::closest(name, &others) {
        Some(s) => format!(" (did you mean `{s}`?)"),
        None => String::new(),
    }
}

/// "`a`, `b`, `c`", for messages that list names.
pub fn name_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(text: &str) -> Pattern {
        crate::expr::parse_pattern(text).expect("a valid test pattern")
    }

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn dim_vars_lists_every_occurrence_left_to_right() {
        let p = pattern("(a * b + a,)");
        let Item::Dim(e) = &p.items[0] else {
            panic!("one dim")
        };
        assert_eq!(dim_vars(e), ["a", "b", "a"]);
        assert!(!invertible(e, "a"), "`a` occurs twice, not as a power");
        assert!(invertible(e, "b"));
        for (text, var, ok) in [
            ("(z * z * z,)", "z", true),
            ("(2 * z * z + 1,)", "z", true),
            ("(z * y * z,)", "z", true),
            ("(z * (z + 1),)", "z", false),
            ("((h - k + 2 * p) // s + 1,)", "h", false),
            ("(h - k + 2 * p + 1,)", "h", true),
        ] {
            let p = pattern(text);
            let Item::Dim(e) = &p.items[0] else {
                panic!("one dim")
            };
            assert_eq!(invertible(e, var), ok, "{text} for {var}");
        }
    }

    #[test]
    fn a_name_used_once_beside_a_close_much_used_name_is_a_likely_typo() {
        let (p1, p2) = (pattern("(d_model, d_modle)"), pattern("(d_model, h_wins)"));
        let mut scope = Scope::default();
        scope.add_pattern(&p1, &1);
        scope.add_pattern(&p2, &2);
        let typos = scope.likely_typos();
        assert_eq!(typos.len(), 1, "h_wins is used once but close to nothing");
        assert_eq!((typos[0].name, typos[0].other), ("d_modle", "d_model"));
        assert_eq!(typos[0].kind, TypoKind::Once);
        assert_eq!(typos[0].at, &1);
    }

    #[test]
    fn two_names_used_once_that_differ_by_a_swap_are_a_likely_typo() {
        let (ids, mask) = (pattern("(batch, seq, d)"), pattern("(batch, sqe)"));
        let mut scope = Scope::default();
        scope.add_pattern(&ids, &1);
        scope.add_pattern(&mask, &2);
        let typos = scope.likely_typos();
        assert_eq!(typos.len(), 1, "{typos:?}");
        assert_eq!((typos[0].name, typos[0].other), ("sqe", "seq"));
        assert_eq!((typos[0].kind, typos[0].at), (TypoKind::BothOnce, &2));
        // Two names that differ by a substitution are two variables.
        let (q, k) = (pattern("(b, seq_q)"), pattern("(b, seq_k)"));
        let mut scope = Scope::default();
        scope.add_pattern(&q, &1);
        scope.add_pattern(&k, &2);
        assert!(scope.likely_typos().is_empty());
    }

    #[test]
    fn names_of_different_owners_that_never_meet_are_a_likely_typo() {
        let (top, block) = (pattern("(d_model, d_model)"), pattern("(d_modle, d_modle)"));
        let mut scope = Scope::default();
        scope.add_pattern(&top, &1);
        scope.set_owner(1);
        scope.add_pattern(&block, &2);
        let typos = scope.likely_typos();
        assert_eq!(typos.len(), 1, "{typos:?}");
        assert_eq!((typos[0].name, typos[0].kind), ("d_modle", TypoKind::Apart));
        // The same two names in one owner: each checks the other's tensors, no guess.
        let mut scope = Scope::default();
        scope.add_pattern(&top, &1);
        scope.add_pattern(&block, &2);
        assert!(scope.likely_typos().is_empty());
    }

    #[test]
    fn pattern_vars_keeps_first_appearances() {
        let mut own = vec!["b".to_owned()];
        pattern_vars(&pattern("(a, b * 2, *rest, a)"), &mut own);
        assert_eq!(own, ["b", "a", "rest"]);
    }

    #[test]
    fn a_dim_expression_solves_its_one_unknown_once_the_others_are_bound() {
        let (p1, p2) = (pattern("(n, h * d)"), pattern("(h,)"));
        let mut scope = Scope::default();
        scope.add_pattern(&p1, &1);
        assert_eq!(scope.solvable_from(scope.bound()), set(&["n"]));
        scope.add_pattern(&p2, &2);
        assert_eq!(scope.solvable_from(scope.bound()), set(&["d", "h", "n"]));
        assert_eq!(scope.first_use("h"), Some(&1));
    }

    #[test]
    fn floor_division_does_not_determine_its_operand() {
        let p = pattern("(k, n // k)");
        let mut scope = Scope::default();
        scope.add_pattern(&p, &());
        assert_eq!(scope.solvable_from(scope.bound()), set(&["k"]));
    }

    #[test]
    fn unsupported_items_are_left_out_of_the_scope() {
        let p = pattern("(a, D(b))");
        let mut scope = Scope::default();
        let names = scope.add_pattern(&p, &());
        assert_eq!(names, set(&["a"]));
        assert_eq!(scope.names().collect::<Vec<_>>(), ["a"]);
    }

    #[test]
    fn counts_and_equations_are_uses() {
        let (l, r) = (pattern("(2 * m,)"), pattern("(n,)"));
        let (Item::Dim(l), Item::Dim(r)) = (&l.items[0], &r.items[0]) else {
            panic!("one dim each")
        };
        let mut scope = Scope::default();
        scope.add_count("n", &"count");
        scope.add_equation(l, r, &"2 * m = n");
        assert_eq!(scope.uses("n"), 2);
        assert_eq!(scope.uses("m"), 1);
        assert_eq!(scope.solvable_from(scope.bound()), set(&["m", "n"]));
        assert_eq!(scope.first_use("m"), Some(&"2 * m = n"));
    }

    #[test]
    fn name_list_and_suggest() {
        assert_eq!(name_list(&["a", "b"]), "`a`, `b`");
        assert_eq!(
            suggest("d_modle", &["d_model", "n"]),
            " (did you mean `d_model`?)"
        );
        assert_eq!(suggest("n", &["m"]), "");
    }

    #[test]
    fn a_name_both_variadic_and_dim_is_found() {
        let (a, b) = (pattern("(*b, d)"), pattern("(b,)"));
        let mut scope = Scope::default();
        scope.add_pattern(&a, &1);
        scope.add_pattern(&b, &2);
        assert_eq!(scope.variadic_dims().collect::<Vec<_>>(), [("b", &1)]);
    }
}
