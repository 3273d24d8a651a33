//! THE static rules about a scope's variables, worded once: `#[derive(Shaped)]` turns their
//! findings into compile errors at the attribute, spec files into errors with file, line,
//! column and caret. A front end says only what differs by place ([`Words`]: what an item
//! is called, how a variable is declared given) and which names it declares ([`Declared`]).
//!
//! The rules, in the order they are checked:
//! 1. a name is a variadic (a sub-shape) or a single dim, never both;
//! 2. (names) every `given` name and every variable the config binds is used;
//! 3. (names) a name only `where` comparisons use is declared, else nothing binds it;
//! 4. (names) a name used once beside a close name used more often is a likely typo;
//! 5. (names) every variable can be determined from the items and the declared names.
//!
//! When the scope is shared with nested scopes the rules cannot see (a derived struct with a
//! nested struct), the name rules (2–5) would guess, and are not run.

use super::analysis::{Scope, TypoKind, name_list, suggest};

/// How a front end names things in its messages.
#[derive(Debug, Clone, Copy)]
pub struct Words {
    /// What carries a pattern: `"field"`, `"tensor"`.
    pub item: &'static str,
    /// Where the config binds a variable: ``"`config`"``, `"[config]"`.
    pub config: &'static str,
    /// What else makes a variable known, after "or ": `declare it with given = ["{}"]`.
    pub declare_given: fn(&str) -> String,
    /// What to do about variables nothing determines, given the one that would determine
    /// the most.
    pub unsolved_advice: fn(&str) -> String,
}

impl<L> Declared<'_, L> {
    /// Whether `name` is given or bound from the config.
    fn names(&self, name: &str) -> bool {
        self.given
            .iter()
            .chain(&self.config)
            .any(|(n, _)| *n == name)
    }
}

/// The names a front end declares beside its patterns, each with where it is written.
#[derive(Debug)]
pub struct Declared<'d, L> {
    /// `given` names.
    pub given: Vec<(&'d str, &'d L)>,
    /// Variables bound from the config.
    pub config: Vec<(&'d str, &'d L)>,
    /// Whether a variable the config binds counts as known when deciding what can be
    /// determined: true where the config is always read (a spec checks a checkpoint), false
    /// where it is not (a derived struct's `verify()` of values in memory).
    pub config_is_known: bool,
    /// Whether nested scopes the rules cannot see share this one (rules 2–5 are not run).
    pub shares_scope: bool,
}

/// What a rule found: where, about which name, and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding<'s, L> {
    /// Where the name is written.
    pub at: &'s L,
    /// The name (the first of them, for several).
    pub name: &'s str,
    /// The message.
    pub message: String,
}

/// Every finding of the rules on `scope`, in order; within a rule, in the order names are
/// first used. Rule 3 failing stops rules 4 and 5, which would report the same names less
/// clearly.
///
/// ```
/// use shapes::__private::analysis::Scope;
/// use shapes::__private::rules::{self, Declared, Words};
///
/// let a = shapes::expr::parse_pattern("(d_model, head_dim)").unwrap();
/// let b = shapes::expr::parse_pattern("(head_dim, d_model)").unwrap();
/// let c = shapes::expr::parse_pattern("(head_dmi,)").unwrap();
/// let (at_a, at_b, at_c) = ("a", "b", "c");
/// let mut scope: Scope<'_, &str> = Scope::default();
/// scope.add_pattern(&a, &at_a);
/// scope.add_pattern(&b, &at_b);
/// scope.add_pattern(&c, &at_c);
/// let declared = Declared { given: vec![], config: vec![], config_is_known: false, shares_scope: false };
/// let words = Words {
///     item: "tensor",
///     config: "[config]",
///     declare_given: |n| format!("declare it with given = [\"{n}\"]"),
///     unsolved_advice: |n| format!("declare {n} given"),
/// };
/// let found = rules::check(&scope, &declared, &words);
/// assert_eq!(*found[0].at, "c");
/// assert!(found[0].message.starts_with("`head_dmi` is used only once"));
/// ```
pub fn check<'s, L>(
    scope: &'s Scope<'_, L>,
    declared: &Declared<'s, L>,
    words: &Words,
) -> Vec<Finding<'s, L>> {
    let mut out = variadic_dims(scope);
    if declared.shares_scope {
        return out;
    }
    out.extend(unused_declared(scope, declared, words));
    let compared = compared_only(scope, declared, words);
    if !compared.is_empty() {
        out.extend(compared);
        return out;
    }
    out.extend(
        likely_typos(scope)
            .into_iter()
            .filter(|f| !declared.names(f.name)),
    );
    out.extend(unsolvable(scope, declared, words));
    out
}

/// Rule 1: a name is a variadic (a sub-shape) or a single dim, never both.
pub fn variadic_dims<'s, L>(scope: &'s Scope<'_, L>) -> Vec<Finding<'s, L>> {
    scope
        .variadic_dims()
        .map(|(name, at)| Finding {
            at,
            name,
            message: format!(
                "`{name}` is used both as a variadic `*{name}` (a sub-shape) and as a single dim"
            ),
        })
        .collect()
}

/// Rule 2: every variable the config binds and every `given` name is used.
pub fn unused_declared<'s, L>(
    scope: &Scope<'_, L>,
    declared: &Declared<'s, L>,
    words: &Words,
) -> Vec<Finding<'s, L>> {
    let names: Vec<&str> = scope.names().collect();
    let config = declared
        .config
        .iter()
        .map(|(n, at)| (format!("{} binds", words.config), *n, *at));
    let given = declared
        .given
        .iter()
        .map(|(n, at)| ("`given` names".to_owned(), *n, *at));
    config
        .chain(given)
        .filter(|(_, name, _)| scope.uses(name) == 0)
        .map(|(what, name, at)| Finding {
            at,
            name,
            message: format!(
                "{what} `{name}`, which no {} uses{}",
                words.item,
                suggest(name, &names)
            ),
        })
        .collect()
}

/// Rule 3: a name only `where` comparisons use is declared, else nothing binds it.
pub fn compared_only<'s, L>(
    scope: &'s Scope<'_, L>,
    declared: &Declared<'_, L>,
    words: &Words,
) -> Vec<Finding<'s, L>> {
    let names: Vec<&str> = scope.names().collect();
    // Declared: given, or bound from a config that is always read.
    let is_declared = |name: &str| {
        declared.given.iter().any(|(g, _)| *g == name)
            || (declared.config_is_known && declared.config.iter().any(|(c, _)| *c == name))
    };
    scope
        .only_compared()
        .filter(|(n, _)| !is_declared(n))
        .map(|(name, at)| Finding {
            at,
            name,
            message: format!(
                "`{name}` appears only in a `where` comparison, which checks values but binds none{}; \
                 compare a variable that a {} binds, or {}",
                suggest(name, &names),
                words.item,
                (words.declare_given)(name)
            ),
        })
        .collect()
}

/// Rule 4: a likely typo ([`Scope::likely_typos`]): a name used once beside a close name used
/// more often; two names used once that differ by a slip (a swap, a dropped letter), neither
/// checking anything; two names that differ by a slip and never meet (each used by its own
/// block or nested struct). A name used once is otherwise correct code: it binds a value the
/// caller reads back (`h_wins` in `(h_wins * window, …)`), or is derived by a `where`
/// equation. `_name` and variadics are left alone, and so are declared names ([`check`]
/// leaves them out): a given value or the config checks them.
pub fn likely_typos<'s, L>(scope: &'s Scope<'_, L>) -> Vec<Finding<'s, L>> {
    scope
        .likely_typos()
        .into_iter()
        .map(|t| Finding {
            at: t.at,
            name: t.name,
            message: typo_message(t.name, t.other, t.kind),
        })
        .collect()
}

/// The words of a likely typo, the same for every front end (and for the `const` check of a
/// derived struct's whole scope, `VarTable::likely_typo`).
///
/// ```
/// use shapes::__private::analysis::TypoKind;
/// use shapes::__private::rules::typo_message;
/// assert_eq!(
///     typo_message("sqe", "seq", TypoKind::BothOnce),
///     "`sqe` and `seq` are each used only once, so nothing checks either, and they differ by a slip of the fingers: one is likely a typo of the other (did you mean `seq`?); name it `_sqe` (or use `_`) if that is intended"
/// );
/// ```
pub fn typo_message(name: &str, other: &str, kind: TypoKind) -> String {
    match kind {
        TypoKind::Once => format!(
            "`{name}` is used only once, so nothing checks it (did you mean `{other}`?); name it `_{name}` (or use `_`) if that is intended"
        ),
        TypoKind::BothOnce => format!(
            "`{name}` and `{other}` are each used only once, so nothing checks either, and they differ by a slip of the fingers: one is likely a typo of the other (did you mean `{other}`?); name it `_{name}` (or use `_`) if that is intended"
        ),
        TypoKind::Apart => format!(
            "`{name}` and `{other}` differ by a slip of the fingers but are never used together, so nothing checks one against the other: one is likely a typo of the other (did you mean `{other}`?); spell them alike (or map one to the other with `rename`), or give two different sizes names that do not look alike"
        ),
    }
}

/// Rule 5: every variable can be determined from the items and the declared names: bound by
/// a dim of its own, or solved once the others are known. The finding names the variable
/// whose value would determine the most others.
pub fn unsolvable<'s, L>(
    scope: &'s Scope<'_, L>,
    declared: &Declared<'_, L>,
    words: &Words,
) -> Option<Finding<'s, L>> {
    let mut start = scope.bound();
    start.extend(declared.given.iter().map(|(n, _)| (*n).to_owned()));
    if declared.config_is_known {
        start.extend(declared.config.iter().map(|(n, _)| (*n).to_owned()));
    }
    let solved = scope.solvable_from(start.clone());
    let unsolved: Vec<&str> = scope.names().filter(|n| !solved.contains(*n)).collect();
    let first = unsolved.first()?;
    let best = scope.most_determining(&start, &unsolved).unwrap_or(first);
    Some(Finding {
        at: scope.first_use(first)?,
        name: first,
        message: format!(
            "{} can never be solved from the {}s: they only appear inside arithmetic with other unknowns. {}",
            name_list(&unsolved),
            words.item,
            (words.unsolved_advice)(best)
        ),
    })
}
