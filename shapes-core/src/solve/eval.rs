//! Evaluation under a substitution: sizes are folded, shape operations on known operands are
//! computed (numpy semantics, see [`ops`](super::ops)), constraints are decided when closed.
//! Whatever still depends on an unknown stays symbolic.

use super::arith::{fold, natural_dim};
use super::error::{InferError, InferErrorKind, bad_op, err};
use super::ops;
use super::size;
use super::subst::{Substitution, Term};
use crate::expr::{ArithOp, Axis, CmpOp, DimExpr, Expr, Item, Operand, Pattern, Pred, SliceSpec};

/// A constraint's value under a substitution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Truth {
    True,
    False,
    /// Depends on something still unknown.
    Open,
}

/// Evaluates the size `d` under `s`. An error, before anything is built, when writing `s`'s
/// values into `d` would build a term past the limits (see `size`); the same holds for
/// [`eval_expr`], [`eval_pattern`] and [`eval_pred`]. The checks are made once, here: the
/// recursion below them goes through the unchecked `*_value` functions.
pub(crate) fn eval_dim(d: &DimExpr, s: &Substitution) -> Result<DimExpr, InferError> {
    size::check_dim(d, s)?;
    dim_value(d, s)
}

/// Evaluates `e` under `s`: substitutes, folds, computes operations whose operands are known,
/// checks closed constraints (a false one is an error) and keeps open ones.
pub(crate) fn eval_expr(e: &Expr, s: &Substitution) -> Result<Expr, InferError> {
    size::check_expr(e, s)?;
    expr_value(e, s)
}

/// Evaluates a pattern under `s`, splicing bound variadics.
pub(crate) fn eval_pattern(p: &Pattern, s: &Substitution) -> Result<Pattern, InferError> {
    size::check_pattern(p, s)?;
    pattern_value(p, s)
}

/// Decides a constraint under `s`.
pub(crate) fn eval_pred(p: &Pred, s: &Substitution) -> Result<Truth, InferError> {
    size::check_pred(p, s)?;
    pred_truth(p, s)
}

// The recursion (`dim_value` → `expr_value` → `pattern_value` → `dim_value` …) is as deep as
// the term. Each of these three functions keeps only what one level needs in its frame and
// hands the work of each case to a helper that does not recurse (or only through them):
// unoptimised, a `match` whose arms do the work keeps every arm's temporaries in one frame
// (10 KB for `expr_value`), and a term at `Substitution::MAX_TERM_DEPTH` would then need
// more than a 2 MiB stack.

fn dim_value(d: &DimExpr, s: &Substitution) -> Result<DimExpr, InferError> {
    match d {
        DimExpr::Lit(_) => Ok(d.clone()),
        DimExpr::Var(n) => var_dim(d, n, s),
        DimExpr::Bin(op, a, b) => bin_value(*op, a, b, s),
        DimExpr::Rank(e) => rank_value(e, s),
        DimExpr::Prod(e) => reduce_dims(e, s, ArithOp::Mul, 1, DimExpr::Prod),
        DimExpr::Sum(e) => reduce_dims(e, s, ArithOp::Add, 0, DimExpr::Sum),
        DimExpr::Index(e, i) => index_value(e, *i, s),
    }
}

fn bin_value(
    op: ArithOp,
    a: &DimExpr,
    b: &DimExpr,
    s: &Substitution,
) -> Result<DimExpr, InferError> {
    fold(op, dim_value(a, s)?, dim_value(b, s)?)
}

/// A size variable's value.
fn var_dim(d: &DimExpr, n: &crate::expr::Name, s: &Substitution) -> Result<DimExpr, InferError> {
    match s.lookup(n) {
        None => Ok(d.clone()),
        Some(Term::Dim(v)) => Ok(v.clone()),
        // ok: the guard says `p.items` has exactly one element.
        Some(Term::Expr(Expr::Pattern(p))) if p.items.len() == 1 => match &p.items[0] {
            // A rank-1 shape in a size position is its one dim (the grammar's `Π a` in a
            // shape position is `(Π a,)`; this is the way back).
            Item::Dim(v) => Ok(v.clone()),
            _ => not_a_dim(n, s),
        },
        Some(Term::Expr(_)) => not_a_dim(n, s),
    }
}

/// `e` evaluated, refused when it is a function: a size of an arrow (`D`, `Π`, `Σ`, `e[i]`)
/// has no meaning, and no text would spell it (the grammar takes these operators of shapes).
fn shape_operand(e: &Expr, op: &'static str, s: &Substitution) -> Result<Expr, InferError> {
    let e = expr_value(e, s)?;
    if matches!(e, Expr::Arrow(..)) {
        return err(InferErrorKind::BadOperation {
            op,
            detail: format!("{e} is a function, not a shape"),
        });
    }
    Ok(e)
}

/// `D e`.
fn rank_value(e: &Expr, s: &Substitution) -> Result<DimExpr, InferError> {
    let e = shape_operand(e, "rank", s)?;
    Ok(match rank_of(&e) {
        Some(n) => DimExpr::Lit(n),
        None => DimExpr::Rank(Box::new(e)),
    })
}

/// `e[i]` (a size).
fn index_value(e: &Expr, i: isize, s: &Substitution) -> Result<DimExpr, InferError> {
    let e = shape_operand(e, "index", s)?;
    match dims_of(&e) {
        Some(dims) => {
            let rank = dims.len();
            let j = if i < 0 {
                rank.checked_sub(i.unsigned_abs())
            } else {
                Some(i.unsigned_abs()).filter(|&j| j < rank)
            };
            // ok: `j < rank == dims.len()` on both arms above (`rank - |i|`, or filtered).
            match j {
                Some(j) => Ok(match &dims[j] {
                    Some(d) => d.clone(),
                    None => DimExpr::Index(Box::new(e), i),
                }),
                None => err(InferErrorKind::AxisOutOfRange {
                    op: "index",
                    axis: i,
                    rank,
                }),
            }
        }
        // The language indexes only a name or a pattern (`a[0]`, `(2, 3)[1]`): another
        // expression whose dims are not known yet has no spelling, so the answer would not
        // print to anything that parses back.
        None if matches!(e, Expr::Var(_) | Expr::Pattern(_)) => Ok(DimExpr::Index(Box::new(e), i)),
        None => err(InferErrorKind::BadOperation {
            op: "index",
            detail: format!("the size of axis {i} of {e} is not known while {e} is not a shape"),
        }),
    }
}

fn not_a_dim<T>(n: &crate::expr::Name, s: &Substitution) -> Result<T, InferError> {
    err(InferErrorKind::NotADim {
        var: n.clone(),
        value: s.lookup(n).map(|t| t.to_string()).unwrap_or_default(),
    })
}

/// `Π` / `Σ` of an evaluated expression: folded when every dim is known, a product / sum of
/// the dims when the rank is known, otherwise `wrap(e)`.
///
/// A product of symbolic dims is a chain as long as the rank (`Π (a, b, c)` is
/// `a × b × c`), so a chain that would nest past [`Substitution::MAX_TERM_DEPTH`] (and deeper
/// than any of its dims) is an error before it is built.
fn reduce_dims(
    e: &Expr,
    s: &Substitution,
    op: ArithOp,
    unit: usize,
    wrap: fn(Box<Expr>) -> DimExpr,
) -> Result<DimExpr, InferError> {
    let name = if op == ArithOp::Mul { "prod" } else { "sum" };
    reduce_evaluated(shape_operand(e, name, s)?, op, unit, wrap)
}

/// [`reduce_dims`] once `e` is evaluated.
fn reduce_evaluated(
    e: Expr,
    op: ArithOp,
    unit: usize,
    wrap: fn(Box<Expr>) -> DimExpr,
) -> Result<DimExpr, InferError> {
    let Some(dims) = dims_of(&e) else {
        return Ok(wrap(Box::new(e)));
    };
    if dims.iter().any(Option::is_none) {
        return Ok(wrap(Box::new(e)));
    }
    let mut acc = DimExpr::Lit(unit);
    // The depth of `acc`, following `fold`: literals fold, the unit is dropped, anything else
    // is one more level.
    let mut depth = 1;
    for d in dims.into_iter().flatten() {
        let deeper = match (&acc, &d) {
            (DimExpr::Lit(_), DimExpr::Lit(_)) => 1,
            (_, DimExpr::Lit(u)) if *u == unit => depth,
            (DimExpr::Lit(u), _) if *u == unit => size::Size::of_dim(&d).depth,
            _ => {
                let own = size::Size::of_dim(&d).depth;
                let deeper = 1 + depth.max(own);
                if deeper > Substitution::MAX_TERM_DEPTH.max(own + 1) {
                    return err(InferErrorKind::TermTooDeep {
                        limit: Substitution::MAX_TERM_DEPTH,
                    });
                }
                deeper
            }
        };
        acc = fold(op, acc, d)?;
        depth = deeper;
    }
    Ok(acc)
}

/// The rank of an evaluated expression, when known: a pattern without a variadic, or a list
/// (`D X[1 0]` = 2, `D Sz[0 1]` = 2).
pub(crate) fn rank_of(e: &Expr) -> Option<usize> {
    match e {
        Expr::Pattern(p) => pattern_rank(p),
        Expr::Axes(v) | Expr::Sizes(v) => Some(v.len()),
        Expr::Slices(v) => Some(v.len()),
        _ => None,
    }
}

/// The rank of a pattern without a variadic.
pub(crate) fn pattern_rank(p: &Pattern) -> Option<usize> {
    if p.items
        .iter()
        .any(|i| matches!(i, Item::Ellipsis | Item::Variadic(_)))
    {
        None
    } else {
        Some(p.items.len())
    }
}

/// The dims of an evaluated expression of known rank: `Some(dim)` for a sized item, `None`
/// for `_` / `#n` (whose size is not fixed).
fn dims_of(e: &Expr) -> Option<Vec<Option<DimExpr>>> {
    match e {
        Expr::Pattern(p) => {
            pattern_rank(p)?;
            Some(
                p.items
                    .iter()
                    .map(|i| match i {
                        Item::Dim(d) => Some(d.clone()),
                        _ => None,
                    })
                    .collect(),
            )
        }
        Expr::Axes(v) | Expr::Sizes(v) => Some(v.iter().map(|&n| Some(DimExpr::Lit(n))).collect()),
        _ => None,
    }
}

/// Literal dims of a pattern with no variadic, or `None`.
fn concrete(p: &Pattern) -> Option<crate::shape::Shape> {
    p.as_concrete()
}

fn pattern_value(p: &Pattern, s: &Substitution) -> Result<Pattern, InferError> {
    let mut items = Vec::with_capacity(p.items.len());
    for item in &p.items {
        match item {
            Item::Dim(d) => items.push(Item::Dim(natural_dim(dim_value(d, s)?)?)),
            Item::Broadcast(d) => items.push(Item::Broadcast(natural_dim(dim_value(d, s)?)?)),
            Item::Any | Item::Ellipsis => items.push(item.clone()),
            Item::Variadic(n) => splice(&mut items, item, n, s)?,
        }
    }
    Ok(Pattern::new(items))
}

/// A variadic `*n` of a pattern: its dims when bound.
fn splice(
    items: &mut Vec<Item>,
    item: &Item,
    n: &crate::expr::Name,
    s: &Substitution,
) -> Result<(), InferError> {
    match s.lookup(n) {
        None => items.push(item.clone()),
        Some(Term::Expr(Expr::Pattern(q))) => items.extend(q.items.iter().cloned()),
        Some(Term::Expr(Expr::Var(m))) => items.push(Item::Variadic(m.clone())),
        Some(Term::Dim(d)) => items.push(Item::Dim(d.clone())),
        Some(Term::Expr(other)) => {
            return err(InferErrorKind::KindMismatch {
                left: format!("*{n}"),
                right: other.to_string(),
            });
        }
    }
    Ok(())
}

fn expr_value(e: &Expr, s: &Substitution) -> Result<Expr, InferError> {
    match e {
        Expr::Var(n) => Ok(match s.lookup(n) {
            None => e.clone(),
            Some(t) => t.to_expr(),
        }),
        Expr::Pattern(p) => pattern_value(p, s).map(Expr::Pattern),
        Expr::Arrow(a, b) => arrow_value(a, b, s),
        Expr::Compound(a, p) => compound_value(a, p, s),
        Expr::Axes(_) | Expr::Sizes(_) | Expr::Slices(_) => Ok(e.clone()),
        Expr::Slice(a, idx) => slice_value(a, idx, s),
        Expr::Transpose(axes, a) => transpose_value(axes, a, s),
        Expr::Reduce(axis, a) => reduce_value(*axis, a, s),
        Expr::Broadcast(a, b) => broadcast_value(a, b, s),
        Expr::Repeat(axis, reps, a) => repeat_value(*axis, reps, a, s),
        Expr::Concat(axis, a, b) => concat_value(*axis, a, b, s),
    }
}

fn arrow_value(a: &Expr, b: &Expr, s: &Substitution) -> Result<Expr, InferError> {
    Ok(Expr::arrow(expr_value(a, s)?, expr_value(b, s)?))
}

/// `{ a | p }`: `a` when `p` holds, an error when it is false, and `p` kept when open.
fn compound_value(a: &Expr, p: &Pred, s: &Substitution) -> Result<Expr, InferError> {
    let a = expr_value(a, s)?;
    match pred_truth(p, s)? {
        Truth::True => Ok(a),
        Truth::False => err(InferErrorKind::ConstraintFailed {
            pred: s.subst_pred(p).to_string(),
        }),
        Truth::Open => Ok(Expr::Compound(Box::new(a), Box::new(s.subst_pred(p)))),
    }
}

fn slice_value(a: &Expr, idx: &Expr, s: &Substitution) -> Result<Expr, InferError> {
    let (a, idx) = (expr_value(a, s)?, expr_value(idx, s)?);
    if let (Expr::Pattern(p), Expr::Slices(specs)) = (&a, &idx)
        && let Some(out) = slice_pattern(p, specs)?
    {
        return Ok(Expr::Pattern(out));
    }
    Ok(Expr::Slice(Box::new(a), Box::new(idx)))
}

fn transpose_value(axes: &[usize], a: &Expr, s: &Substitution) -> Result<Expr, InferError> {
    let a = expr_value(a, s)?;
    if let Expr::Pattern(p) = &a
        && pattern_rank(p).is_some()
    {
        let items = ops::permute(axes, &p.items)?;
        return Ok(Expr::Pattern(Pattern::new(items)));
    }
    Ok(Expr::Transpose(axes.to_vec(), Box::new(a)))
}

fn reduce_value(axis: Axis, a: &Expr, s: &Substitution) -> Result<Expr, InferError> {
    let a = expr_value(a, s)?;
    if let Expr::Pattern(p) = &a
        && let Some(rank) = pattern_rank(p)
    {
        return Ok(Expr::Pattern(match axis {
            Axis::All => Pattern::default(),
            Axis::One(i) => {
                ops::check_axis("reduce", i, rank)?;
                let mut items = p.items.clone();
                items.remove(i); // ok: `i < rank == items.len()`, checked above.
                Pattern::new(items)
            }
        }));
    }
    Ok(Expr::Reduce(axis, Box::new(a)))
}

fn broadcast_value(a: &Expr, b: &Expr, s: &Substitution) -> Result<Expr, InferError> {
    let (a, b) = (expr_value(a, s)?, expr_value(b, s)?);
    if let (Expr::Pattern(p), Expr::Pattern(q)) = (&a, &b)
        && let Some(out) = broadcast_patterns(p, q)?
    {
        return Ok(Expr::Pattern(out));
    }
    Ok(Expr::Broadcast(Box::new(a), Box::new(b)))
}

fn repeat_value(
    axis: Axis,
    reps: &[usize],
    a: &Expr,
    s: &Substitution,
) -> Result<Expr, InferError> {
    let a = expr_value(a, s)?;
    if let Expr::Pattern(p) = &a
        && let Some(out) = repeat_pattern(p, axis, reps)?
    {
        return Ok(Expr::Pattern(out));
    }
    Ok(Expr::Repeat(axis, reps.to_vec(), Box::new(a)))
}

fn concat_value(axis: usize, a: &Expr, b: &Expr, s: &Substitution) -> Result<Expr, InferError> {
    let (a, b) = (expr_value(a, s)?, expr_value(b, s)?);
    if let (Expr::Pattern(p), Expr::Pattern(q)) = (&a, &b)
        && let Some(out) = concat_patterns(axis, p, q)?
    {
        return Ok(Expr::Pattern(out));
    }
    Ok(Expr::Concat(axis, Box::new(a), Box::new(b)))
}

/// numpy indexing of a pattern; `None` (stay symbolic) when a sliced dim is not known.
fn slice_pattern(p: &Pattern, specs: &[SliceSpec]) -> Result<Option<Pattern>, InferError> {
    let Some(rank) = pattern_rank(p).or_else(|| {
        // a variadic after every sliced axis does not matter
        let first = p
            .items
            .iter()
            .position(|i| matches!(i, Item::Ellipsis | Item::Variadic(_)))?;
        (first >= specs.len()).then_some(usize::MAX)
    }) else {
        return Ok(None);
    };
    if rank != usize::MAX && specs.len() > rank {
        return bad_op(
            "slice",
            format!("too many indices: {} for {p}, of rank {rank}", specs.len()),
        );
    }
    let mut items = Vec::with_capacity(p.items.len());
    for (axis, item) in p.items.iter().enumerate() {
        match specs.get(axis) {
            None => items.push(item.clone()),
            Some(&spec) => {
                if spec
                    == (SliceSpec::Range {
                        start: None,
                        end: None,
                        step: None,
                    })
                {
                    items.push(item.clone());
                    continue;
                }
                let Item::Dim(DimExpr::Lit(size)) = item else {
                    return Ok(None);
                };
                if let Some(n) = ops::slice_axis(*size, spec, axis)? {
                    items.push(Item::Dim(DimExpr::Lit(n)));
                }
            }
        }
    }
    Ok(Some(Pattern::new(items)))
}

/// numpy broadcasting of two patterns; symbolic where the answer does not depend on the
/// unknown (`(x, 1) || (x, 3)` is `(x, 3)`), `None` where it does.
fn broadcast_patterns(p: &Pattern, q: &Pattern) -> Result<Option<Pattern>, InferError> {
    if let (Some(a), Some(b)) = (concrete(p), concrete(q)) {
        return match crate::broadcast_shapes(&[a.dims(), b.dims()]) {
            Ok(out) => Ok(Some(Pattern::from(out))),
            Err(e) => bad_op("broadcast", e.to_string()),
        };
    }
    let (Some(_), Some(_)) = (pattern_rank(p), pattern_rank(q)) else {
        return Ok(None);
    };
    let rank = p.items.len().max(q.items.len());
    let mut items = Vec::with_capacity(rank);
    for k in 0..rank {
        // ok: `rank` is the larger length and `k < rank`, so `k - (rank - len) < len`.
        let a = k.checked_sub(rank - p.items.len()).map(|i| &p.items[i]);
        let b = k.checked_sub(rank - q.items.len()).map(|i| &q.items[i]);
        items.push(match (a, b) {
            (Some(x), None) | (None, Some(x)) => x.clone(),
            (Some(Item::Dim(x)), Some(Item::Dim(y))) => match (x, y) {
                (DimExpr::Lit(1), _) => Item::Dim(y.clone()),
                (_, DimExpr::Lit(1)) => Item::Dim(x.clone()),
                (DimExpr::Lit(m), DimExpr::Lit(n)) if m != n => {
                    return bad_op(
                        "broadcast",
                        format!("{p} and {q} differ on dim {k}: {m} against {n}, and neither is 1"),
                    );
                }
                _ if x == y => Item::Dim(x.clone()),
                _ => return Ok(None),
            },
            _ => return Ok(None),
        });
    }
    Ok(Some(Pattern::new(items)))
}

fn repeat_pattern(p: &Pattern, axis: Axis, reps: &[usize]) -> Result<Option<Pattern>, InferError> {
    if let Some(shape) = concrete(p) {
        // The shape only: `ops::repeat` would also write out one count per element.
        return Ok(Some(Pattern::from(
            ops::repeat_shape(&shape, axis, reps)?.0,
        )));
    }
    let (Axis::One(a), Some(rank)) = (axis, pattern_rank(p)) else {
        return Ok(None);
    };
    ops::check_axis("repeat", a, rank)?;
    // ok: `a < rank == p.items.len()` (`check_axis` above, `pattern_rank` is the length).
    let Item::Dim(d) = &p.items[a] else {
        return Ok(None);
    };
    let new = match (reps, d) {
        ([r], _) => fold(ArithOp::Mul, d.clone(), DimExpr::Lit(*r))?,
        (rs, DimExpr::Lit(n)) if rs.len() == *n => DimExpr::Lit(
            rs.iter()
                .try_fold(0usize, |acc, &r| acc.checked_add(r))
                .ok_or_else(|| {
                    InferError::new(InferErrorKind::BadOperation {
                        op: "repeat",
                        detail: "the repeated size overflows usize".to_string(),
                    })
                })?,
        ),
        (rs, DimExpr::Lit(n)) => {
            return bad_op(
                "repeat",
                format!(
                    "{} repeat counts for an axis of size {n}: give one count, or one per element",
                    rs.len()
                ),
            );
        }
        // one count per element of an axis of unknown size: wait until it is known
        _ => return Ok(None),
    };
    let mut items = p.items.clone();
    items[a] = Item::Dim(new); // ok: `a < p.items.len()`, checked above.
    Ok(Some(Pattern::new(items)))
}

fn concat_patterns(axis: usize, p: &Pattern, q: &Pattern) -> Result<Option<Pattern>, InferError> {
    if let (Some(a), Some(b)) = (concrete(p), concrete(q)) {
        return Ok(Some(Pattern::from(ops::concat(
            Axis::One(axis),
            &[a.dims(), b.dims()],
        )?)));
    }
    let (Some(rp), Some(rq)) = (pattern_rank(p), pattern_rank(q)) else {
        return Ok(None);
    };
    if rp != rq {
        return bad_op("concat", format!("{p} and {q} have different ranks"));
    }
    ops::check_axis("concat", axis, rp)?;
    let mut items = Vec::with_capacity(rp);
    for (i, (x, y)) in p.items.iter().zip(&q.items).enumerate() {
        let (Item::Dim(x), Item::Dim(y)) = (x, y) else {
            return Ok(None);
        };
        if i == axis {
            items.push(Item::Dim(fold(ArithOp::Add, x.clone(), y.clone())?));
        } else if x == y {
            items.push(Item::Dim(x.clone()));
        } else if let (DimExpr::Lit(_), DimExpr::Lit(_)) = (x, y) {
            return bad_op(
                "concat",
                format!(
                    "{p} and {q} differ on axis {i}, which is not the concatenation axis {axis}"
                ),
            );
        } else {
            return Ok(None);
        }
    }
    Ok(Some(Pattern::new(items)))
}

/// The sizes an operand stands for: one, or every dim of a `∀` (`None` when the list itself
/// is not known yet).
fn operand_values(
    o: &Operand,
    s: &Substitution,
) -> Result<Option<Vec<Option<DimExpr>>>, InferError> {
    match o {
        Operand::Size(d) => Ok(Some(vec![Some(dim_value(d, s)?)])),
        Operand::ForAll(e) => Ok(dims_of(&expr_value(e, s)?)),
    }
}

fn pred_truth(p: &Pred, s: &Substitution) -> Result<Truth, InferError> {
    match p {
        Pred::Cmp(op, a, b) => {
            let (Some(xs), Some(ys)) = (operand_values(a, s)?, operand_values(b, s)?) else {
                return Ok(Truth::Open);
            };
            let pairs: Vec<(Option<DimExpr>, Option<DimExpr>)> = match (
                matches!(a, Operand::ForAll(_)),
                matches!(b, Operand::ForAll(_)),
            ) {
                (true, true) => {
                    if xs.len() != ys.len() {
                        return Ok(Truth::False);
                    }
                    xs.into_iter().zip(ys).collect()
                }
                // ok: a non-`∀` operand is `Operand::Size`, which `operand_values` returns as
                // exactly one value, so `xs[0]` / `ys[0]` exist on the arms that use them.
                (true, false) => xs.into_iter().map(|x| (x, ys[0].clone())).collect(),
                (false, true) => ys.into_iter().map(|y| (xs[0].clone(), y)).collect(),
                (false, false) => vec![(xs[0].clone(), ys[0].clone())],
            };
            let mut truth = Truth::True;
            for (x, y) in pairs {
                // A side whose value is past `usize` (or below zero) is no size: an error, not
                // an open question (`Π a = Π b` over dims whose product overflows).
                let (x, y) = (
                    x.map(natural_dim).transpose()?,
                    y.map(natural_dim).transpose()?,
                );
                match (x, y) {
                    (Some(DimExpr::Lit(x)), Some(DimExpr::Lit(y))) => {
                        if !op.holds(x, y) {
                            return Ok(Truth::False);
                        }
                    }
                    (Some(x), Some(y)) if x == y => {
                        if !matches!(op, CmpOp::Eq | CmpOp::Le | CmpOp::Ge) {
                            return Ok(Truth::False);
                        }
                    }
                    _ => truth = Truth::Open,
                }
            }
            Ok(truth)
        }
        Pred::Broadcastable(a, b) => {
            let a = expr_value(a, s)?;
            let b = expr_value(b, s)?;
            match (&a, &b) {
                (Expr::Pattern(p), Expr::Pattern(q)) => match broadcast_patterns(p, q) {
                    Ok(Some(_)) => Ok(Truth::True),
                    Ok(None) => Ok(Truth::Open),
                    Err(_) => Ok(Truth::False),
                },
                _ => Ok(Truth::Open),
            }
        }
        Pred::And(a, b) => Ok(match (pred_truth(a, s)?, pred_truth(b, s)?) {
            (Truth::False, _) | (_, Truth::False) => Truth::False,
            (Truth::True, Truth::True) => Truth::True,
            _ => Truth::Open,
        }),
        Pred::Or(a, b) => Ok(match (pred_truth(a, s)?, pred_truth(b, s)?) {
            (Truth::True, _) | (_, Truth::True) => Truth::True,
            (Truth::False, Truth::False) => Truth::False,
            _ => Truth::Open,
        }),
    }
}

impl Expr {
    /// Evaluates the expression: folds size arithmetic, computes shape operations whose
    /// operands are known (numpy semantics) and checks constraints that are closed. What
    /// depends on a variable stays symbolic.
    ///
    /// ```
    /// use shapes::expr::parse;
    /// let e = |s: &str| parse(s).unwrap().eval().unwrap().to_string();
    /// assert_eq!(e("T⁽¹ ⁰⁾ (1, 1 + 2)"), "(3, 1)");
    /// assert_eq!(e("(5,)[0:5:2]"), "(3,)");
    /// assert_eq!(e("((2, 1, 4)||(3, 1))"), "(2, 3, 4)");
    /// assert_eq!(e("Repeat⁰{[3]} (a, b)"), "(a × 3, b)");
    /// assert_eq!(e("T⁽¹ ⁰⁾ (x, y)"), "(y, x)");
    /// assert!(parse("(2 - 3,)").unwrap().eval().is_err());
    /// ```
    ///
    /// A product or sum of symbolic dims is a chain as long as the rank (`Π (a, b, c)` is
    /// `a × b × c`): one nesting deeper than
    /// [`Substitution::MAX_TERM_DEPTH`](crate::solve::Substitution::MAX_TERM_DEPTH) is an error.
    pub fn eval(&self) -> Result<Expr, InferError> {
        eval_expr(self, &Substitution::new())
    }
}

#[cfg(test)]
mod tests;
