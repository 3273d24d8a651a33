//! The vocabulary's shape rules, on tracked shapes alone: what each candle op makes of its
//! operands' shapes, or why it provably fails.
//!
//! Each rule returns `Ok(Some(shape))` when the result's rank is known (its dims may still be
//! unknown), `Ok(None)` when the result cannot be tracked, and `Err(detail)` only for a
//! mismatch [`compare`] proves (or ranks that are both known and wrong). `detail` names the
//! operands by the `text` they are given, and is completed with the op by the caller.

use shapes_core::expr::{ArithOp, DimExpr};

use super::diag::Quote;
use super::dims::{
    Cmp, Dim, Facts, as_literal, bin, compare, greater, is_one, product, show_dim, show_shape,
};

/// A tracked tensor operand: how it is written, and its shape.
pub struct Operand<'a> {
    pub text: Quote<'a>,
    pub dims: &'a [Dim],
}

/// An axis as written: a literal index, or `D::Minus1` (`-1`), `D::Minus2`, `D::Minus(n)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    Index(usize),
    FromEnd(usize),
}

/// The result of a rule.
pub type Rule = Result<Option<Vec<Dim>>, String>;

/// `axis` as an index into a shape of `rank` dims (`rank + 1` positions with `extra`, as for
/// `unsqueeze`), or the error.
pub fn resolve(
    axis: Axis,
    rank: usize,
    of: impl std::fmt::Display,
    extra: bool,
) -> Result<usize, String> {
    let len = rank + usize::from(extra);
    let idx = match axis {
        Axis::Index(i) => Some(i).filter(|i| *i < len),
        Axis::FromEnd(n) => len.checked_sub(n).filter(|_| n >= 1),
    };
    idx.ok_or_else(|| {
        let shown = match axis {
            Axis::Index(i) => i.to_string(),
            Axis::FromEnd(n) => format!("D::Minus({n})"),
        };
        format!("axis {shown} is out of range: `{of}` has rank {rank}")
    })
}

fn rank_at_least(a: &Operand<'_>, n: usize, op: &str) -> Result<(), String> {
    if a.dims.len() < n {
        return Err(format!(
            "`{op}` needs a tensor of rank {n} or more, but `{}` is {} (rank {})",
            a.text,
            show_shape(a.dims),
            a.dims.len()
        ));
    }
    Ok(())
}

/// `a.matmul(b)`: equal ranks (at least 2), equal batch sizes (candle compares their
/// products), and `a`'s last dim equal to `b`'s second-to-last.
pub fn matmul(a: &Operand<'_>, b: &Operand<'_>, facts: &Facts) -> Rule {
    rank_at_least(a, 2, "matmul")?;
    rank_at_least(b, 2, "matmul")?;
    let (ra, rb) = (a.dims.len(), b.dims.len());
    if ra != rb {
        return Err(format!(
            "ranks differ: `{}` is {} (rank {ra}), `{}` is {} (rank {rb}); `matmul` does not broadcast, `broadcast_matmul` does",
            a.text,
            show_shape(a.dims),
            b.text,
            show_shape(b.dims)
        ));
    }
    inner(a, b, facts)?;
    let (ba, bb) = (product(&a.dims[..ra - 2]), product(&b.dims[..rb - 2]));
    if compare(&ba, &bb, facts) == Cmp::Differ {
        return Err(format!(
            "batch dims differ: `{}` is {}, `{}` is {} (batch {} vs {})",
            a.text,
            show_shape(a.dims),
            b.text,
            show_shape(b.dims),
            show_dim(&ba),
            show_dim(&bb)
        ));
    }
    let mut out = a.dims[..ra - 1].to_vec();
    out.push(b.dims[rb - 1].clone());
    Ok(Some(out))
}

/// The inner dims of a product: `a`'s last against `b`'s second-to-last.
fn inner(a: &Operand<'_>, b: &Operand<'_>, facts: &Facts) -> Result<(), String> {
    let (ra, rb) = (a.dims.len(), b.dims.len());
    let (k1, k2) = (&a.dims[ra - 1], &b.dims[rb - 2]);
    if compare(k1, k2, facts) != Cmp::Differ {
        return Ok(());
    }
    let bt = b.text.to_string();
    let transposed = bt.ends_with(".t()") || bt.ends_with(".t()?");
    let hint = if !transposed && compare(k1, &b.dims[rb - 1], facts) == Cmp::Equal {
        format!("; did you mean `{}.t()`?", b.text)
    } else {
        String::new()
    };
    Err(format!(
        "inner dims differ: `{}` is {}, `{}` is {} (axis {} of `{}` is {}, axis {} of `{}` is {}){hint}",
        a.text,
        show_shape(a.dims),
        b.text,
        show_shape(b.dims),
        ra - 1,
        a.text,
        show_dim(k1),
        rb - 2,
        b.text,
        show_dim(k2),
    ))
}

/// `a.broadcast_matmul(b)`: the batch dims broadcast, then a matmul.
pub fn broadcast_matmul(a: &Operand<'_>, b: &Operand<'_>, facts: &Facts) -> Rule {
    rank_at_least(a, 2, "broadcast_matmul")?;
    rank_at_least(b, 2, "broadcast_matmul")?;
    inner(a, b, facts)?;
    let (ra, rb) = (a.dims.len(), b.dims.len());
    let batch_a = Operand {
        text: a.text,
        dims: &a.dims[..ra - 2],
    };
    let batch_b = Operand {
        text: b.text,
        dims: &b.dims[..rb - 2],
    };
    let mut out = broadcast(&batch_a, &batch_b, facts).map_err(|e| format!("batch {e}"))?;
    if let Some(out) = &mut out {
        out.push(a.dims[ra - 2].clone());
        out.push(b.dims[rb - 1].clone());
    }
    Ok(out)
}

/// numpy broadcasting of two shapes, aligned from the last dim: equal dims stay, a literal 1
/// stretches. A mismatch is proved only for two dims that [`compare`] proves different and
/// neither of which is 1: a dim written as a variable is not taken to be 1.
pub fn broadcast(a: &Operand<'_>, b: &Operand<'_>, facts: &Facts) -> Rule {
    let (ra, rb) = (a.dims.len(), b.dims.len());
    let rank = ra.max(rb);
    let mut out = Vec::with_capacity(rank);
    for i in 0..rank {
        let x = (i + ra).checked_sub(rank).map(|k| &a.dims[k]);
        let y = (i + rb).checked_sub(rank).map(|k| &b.dims[k]);
        let d = match (x, y) {
            (Some(x), None) => x.clone(),
            (None, Some(y)) => y.clone(),
            (None, None) => None,
            (Some(x), Some(y)) => {
                if is_one(x, facts) {
                    y.clone()
                } else if is_one(y, facts) {
                    x.clone()
                } else {
                    match compare(x, y, facts) {
                        Cmp::Equal => x.clone(),
                        Cmp::Unknown => None,
                        Cmp::Differ => {
                            return Err(format!(
                                "dims do not broadcast: `{}` is {}, `{}` is {} (axis {} of `{}` is {}, axis {} of `{}` is {}, and neither is 1)",
                                a.text,
                                show_shape(a.dims),
                                b.text,
                                show_shape(b.dims),
                                i + ra - rank,
                                a.text,
                                show_dim(x),
                                i + rb - rank,
                                b.text,
                                show_dim(y),
                            ));
                        }
                    }
                }
            }
        };
        out.push(d);
    }
    Ok(Some(out))
}

/// `a.add(b)`, `a + b`, …: candle's element-wise ops want equal shapes (no broadcasting);
/// a 1 against another dim is left alone (burn broadcasts it).
pub fn elementwise(a: &Operand<'_>, b: &Operand<'_>, facts: &Facts) -> Rule {
    equal_shapes(a, b, facts, "; `broadcast_add` and its kin broadcast")
}

/// Equal shapes, as element-wise ops and `stack` want them; `hint` ends the message.
fn equal_shapes(a: &Operand<'_>, b: &Operand<'_>, facts: &Facts, hint: &str) -> Rule {
    if a.dims.len() != b.dims.len() {
        return Err(format!(
            "shapes differ: `{}` is {}, `{}` is {} (ranks {} and {}){hint}",
            a.text,
            show_shape(a.dims),
            b.text,
            show_shape(b.dims),
            a.dims.len(),
            b.dims.len()
        ));
    }
    let mut out = Vec::with_capacity(a.dims.len());
    for (i, (x, y)) in a.dims.iter().zip(b.dims).enumerate() {
        // A dim of 1 against another is candle's error but burn's broadcasting (its
        // `Tensor` has the same method names): never reported.
        if is_one(x, facts) || is_one(y, facts) {
            out.push(if is_one(x, facts) {
                y.clone()
            } else {
                x.clone()
            });
            continue;
        }
        match compare(x, y, facts) {
            Cmp::Differ => {
                return Err(format!(
                    "shapes differ: `{}` is {}, `{}` is {} (axis {i}: {} vs {}){hint}",
                    a.text,
                    show_shape(a.dims),
                    b.text,
                    show_shape(b.dims),
                    show_dim(x),
                    show_dim(y),
                ));
            }
            Cmp::Equal => out.push(x.clone()),
            Cmp::Unknown => out.push(x.clone().or_else(|| y.clone())),
        }
    }
    Ok(Some(out))
}

/// `a.t()`: the last two dims swapped.
pub fn t(a: &Operand<'_>) -> Rule {
    rank_at_least(a, 2, "t")?;
    let r = a.dims.len();
    let mut out = a.dims.to_vec();
    out.swap(r - 2, r - 1);
    Ok(Some(out))
}

/// `a.transpose(i, j)`.
pub fn transpose(a: &Operand<'_>, i: Axis, j: Axis) -> Rule {
    let r = a.dims.len();
    let (i, j) = (resolve(i, r, a.text, false)?, resolve(j, r, a.text, false)?);
    let mut out = a.dims.to_vec();
    out.swap(i, j);
    Ok(Some(out))
}

/// `a.permute((…))`: each axis exactly once.
pub fn permute(a: &Operand<'_>, axes: &[Axis]) -> Rule {
    let r = a.dims.len();
    if axes.len() != r {
        return Err(format!(
            "{} axes for `{}`, which is {} (rank {r})",
            axes.len(),
            a.text,
            show_shape(a.dims)
        ));
    }
    let mut seen = vec![false; r];
    let mut out = Vec::with_capacity(r);
    for axis in axes {
        let k = resolve(*axis, r, a.text, false)?;
        if std::mem::replace(&mut seen[k], true) {
            return Err(format!("axis {k} is listed twice"));
        }
        out.push(a.dims[k].clone());
    }
    Ok(Some(out))
}

/// One dim of a `reshape` target: a size, or `()`, the one hole candle fills in.
pub enum Target {
    Dim(Dim),
    Hole,
}

/// `a.reshape((…))`: the element counts must agree; a hole is the quotient.
pub fn reshape(a: &Operand<'_>, target: &[Target], facts: &Facts) -> Rule {
    let holes = target.iter().filter(|t| matches!(t, Target::Hole)).count();
    if holes > 1 {
        return Ok(None);
    }
    let given: Vec<Dim> = target
        .iter()
        .filter_map(|t| match t {
            Target::Dim(d) => Some(d.clone()),
            Target::Hole => None,
        })
        .collect();
    let (from, to) = (product(a.dims), product(&given));
    if holes == 1 {
        let fill = match (&from, &to) {
            (Some(_), Some(_)) => bin(ArithOp::Div, &from, &to),
            _ => None,
        };
        return Ok(Some(
            target
                .iter()
                .map(|t| match t {
                    Target::Dim(d) => d.clone(),
                    Target::Hole => super::dims::simplify(fill.clone()),
                })
                .collect(),
        ));
    }
    if compare(&from, &to, facts) == Cmp::Differ {
        return Err(format!(
            "element counts differ: `{}` is {} ({} elements), the target {} has {}",
            a.text,
            show_shape(a.dims),
            show_dim(&from),
            show_shape(&given),
            show_dim(&to),
        ));
    }
    Ok(Some(given))
}

/// `a.flatten(start, end)` (both inclusive); `flatten_from`, `flatten_to` and `flatten_all`
/// are its cases. A scalar flattens to one dim of 1.
pub fn flatten(a: &Operand<'_>, start: Option<Axis>, end: Option<Axis>) -> Rule {
    let r = a.dims.len();
    if r == 0 {
        return Ok(Some(vec![Some(DimExpr::Lit(1))]));
    }
    let s = match start {
        Some(x) => resolve(x, r, a.text, false)?,
        None => 0,
    };
    let e = match end {
        Some(x) => resolve(x, r, a.text, false)?,
        None => r - 1,
    };
    if s > e {
        return Ok(None);
    }
    let mut out = a.dims[..s].to_vec();
    out.push(product(&a.dims[s..=e]));
    out.extend_from_slice(&a.dims[e + 1..]);
    Ok(Some(out))
}

/// `a.squeeze(i)`: candle removes the dim when it is 1 and returns the tensor unchanged
/// otherwise, so the result is known only when the dim is a literal.
pub fn squeeze(a: &Operand<'_>, axis: Axis, facts: &Facts) -> Rule {
    let r = a.dims.len();
    let k = resolve(axis, r, a.text, false)?;
    match as_literal(&a.dims[k], facts) {
        Some(1) => {
            let mut out = a.dims.to_vec();
            out.remove(k);
            Ok(Some(out))
        }
        Some(_) => Ok(Some(a.dims.to_vec())),
        None => Ok(None),
    }
}

/// `a.unsqueeze(i)`: a dim of 1 inserted at `i` (`D::Minus1` appends).
pub fn unsqueeze(a: &Operand<'_>, axis: Axis) -> Rule {
    let r = a.dims.len();
    let k = resolve(axis, r, a.text, true)?;
    let mut out = a.dims.to_vec();
    out.insert(k, Some(DimExpr::Lit(1)));
    Ok(Some(out))
}

/// `a.narrow(axis, start, len)`: `start + len` must not pass the dim.
pub fn narrow(a: &Operand<'_>, axis: Axis, start: &Dim, len: &Dim, facts: &Facts) -> Rule {
    let r = a.dims.len();
    let k = resolve(axis, r, a.text, false)?;
    let end = bin(ArithOp::Add, start, len);
    if greater(&end, &a.dims[k], facts) {
        return Err(format!(
            "narrows past the end: axis {k} of `{}` is {}, but start + len is {}",
            a.text,
            show_dim(&a.dims[k]),
            show_dim(&end),
        ));
    }
    let mut out = a.dims.to_vec();
    out[k] = len.clone();
    Ok(Some(out))
}

/// `Tensor::cat(&[…], axis)`: equal ranks, equal dims but along `axis`, where they add up.
pub fn cat(parts: &[Operand<'_>], axis: Axis, facts: &Facts) -> Rule {
    let Some(first) = parts.first() else {
        return Ok(None);
    };
    let r = first.dims.len();
    let k = resolve(axis, r, first.text, false)?;
    let mut sum = first.dims[k].clone();
    for p in &parts[1..] {
        if p.dims.len() != r {
            return Err(format!(
                "ranks differ: `{}` is {}, `{}` is {}",
                first.text,
                show_shape(first.dims),
                p.text,
                show_shape(p.dims)
            ));
        }
        for (i, (x, y)) in first.dims.iter().zip(p.dims).enumerate() {
            if i != k && compare(x, y, facts) == Cmp::Differ {
                return Err(format!(
                    "dims other than the concatenated axis {k} differ: `{}` is {}, `{}` is {} (axis {i}: {} vs {})",
                    first.text,
                    show_shape(first.dims),
                    p.text,
                    show_shape(p.dims),
                    show_dim(x),
                    show_dim(y)
                ));
            }
        }
        sum = bin(ArithOp::Add, &sum, &p.dims[k]);
    }
    let mut out = first.dims.to_vec();
    out[k] = sum;
    Ok(Some(out))
}

/// `Tensor::cat(&vec![&x; n], axis)`: `x` repeated `n` times along `axis`.
pub fn cat_repeat(a: &Operand<'_>, n: &Dim, axis: Axis) -> Rule {
    let r = a.dims.len();
    let k = resolve(axis, r, a.text, false)?;
    let mut out = a.dims.to_vec();
    out[k] = bin(ArithOp::Mul, &a.dims[k], n);
    Ok(Some(out))
}

/// `Tensor::stack(&[…], axis)`: equal shapes, a new axis of the count.
pub fn stack(parts: &[Operand<'_>], axis: Axis, facts: &Facts) -> Rule {
    let Some(first) = parts.first() else {
        return Ok(None);
    };
    for p in &parts[1..] {
        equal_shapes(
            first,
            p,
            facts,
            "; `Tensor::cat` joins along an axis that exists",
        )?;
    }
    let k = resolve(axis, first.dims.len(), first.text, true)?;
    let mut out = first.dims.to_vec();
    out.insert(k, Some(DimExpr::Lit(parts.len())));
    Ok(Some(out))
}

/// `a.sum_keepdim(i)` and its kin: the dim becomes 1; with `keep` false (`sum(i)`), it goes.
pub fn reduce(a: &Operand<'_>, axis: Axis, keep: bool) -> Rule {
    let k = resolve(axis, a.dims.len(), a.text, false)?;
    let mut out = a.dims.to_vec();
    if keep {
        out[k] = Some(DimExpr::Lit(1));
    } else {
        out.remove(k);
    }
    Ok(Some(out))
}

/// `a.index_select(ids, axis)`: `ids` is one-dimensional; the axis takes its length.
pub fn index_select(a: &Operand<'_>, ids: &Operand<'_>, axis: Axis) -> Rule {
    let k = resolve(axis, a.dims.len(), a.text, false)?;
    if ids.dims.len() != 1 {
        return Err(format!(
            "the indices `{}` are {}, not of rank 1",
            ids.text,
            show_shape(ids.dims)
        ));
    }
    let mut out = a.dims.to_vec();
    out[k] = ids.dims[0].clone();
    Ok(Some(out))
}

/// `a.dims3()` and its kin: the rank must be `n`.
pub fn dims_n(a: &Operand<'_>, n: usize) -> Result<Vec<Dim>, String> {
    if a.dims.len() != n {
        return Err(format!(
            "`{}` is {}, of rank {}, not {n}",
            a.text,
            show_shape(a.dims),
            a.dims.len()
        ));
    }
    Ok(a.dims.to_vec())
}

#[cfg(test)]
mod tests {
    use super::super::dims::shape_of;
    use super::*;

    fn op<'a>(text: &'a str, dims: &'a [Dim]) -> Operand<'a> {
        Operand {
            text: Quote::Str(text),
            dims,
        }
    }

    fn ok(r: Rule) -> String {
        show_shape(&r.expect("no mismatch").expect("a known shape"))
    }

    #[test]
    fn matmul_checks_inner_and_batch_dims() {
        let f = Facts::default();
        let q = shape_of("(b, heads, s, head_dim)");
        let kt = shape_of("(b, heads, head_dim, s)");
        assert_eq!(
            ok(matmul(&op("q", &q), &op("kt", &kt), &f)),
            "(b, heads, s, s)"
        );
        let err = matmul(&op("q", &q), &op("k", &q), &f).unwrap_err();
        assert!(
            err.starts_with("inner dims differ: `q` is (b, heads, s, head_dim)"),
            "{err}"
        );
        assert!(err.ends_with("did you mean `k.t()`?"), "{err}");
        let kv = shape_of("(b, kv_heads, head_dim, s)");
        let err = matmul(&op("q", &q), &op("k", &kv), &f).unwrap_err();
        assert!(err.starts_with("batch dims differ"), "{err}");
        let unknown = shape_of("(b, _, head_dim, s)");
        assert!(matmul(&op("q", &q), &op("k", &unknown), &f).is_ok());
        let w = shape_of("(d, e)");
        assert!(
            matmul(&op("q", &q), &op("w", &w), &f)
                .unwrap_err()
                .starts_with("ranks differ")
        );
    }

    #[test]
    fn broadcast_matmul_broadcasts_batches() {
        let f = Facts::default();
        let x = shape_of("(b, s, d)");
        let w = shape_of("(d, e)");
        assert_eq!(
            ok(broadcast_matmul(&op("x", &x), &op("w", &w), &f)),
            "(b, s, e)"
        );
    }

    #[test]
    fn broadcasting_needs_a_literal_one() {
        let f = Facts::default();
        let att = shape_of("(b, heads, s, s)");
        let mask = shape_of("(b, 1, 1, s)");
        assert_eq!(
            ok(broadcast(&op("att", &att), &op("mask", &mask), &f)),
            "(b, heads, s, s)"
        );
        let wrong = shape_of("(b, s, 1, 1)");
        assert!(broadcast(&op("att", &att), &op("mask", &wrong), &f).is_err());
        let lit = shape_of("(b, 7, s, s)");
        assert_eq!(
            ok(broadcast(&op("att", &att), &op("m", &lit), &f)),
            "(b, _, s, s)"
        );
    }

    #[test]
    fn elementwise_wants_equal_shapes() {
        let f = Facts::default();
        let x = shape_of("(b, s, d_model)");
        let y = shape_of("(b, s, d_ff)");
        assert!(
            elementwise(&op("x", &x), &op("y", &y), &f)
                .unwrap_err()
                .contains("axis 2: d_model vs d_ff")
        );
        assert_eq!(
            ok(elementwise(&op("x", &x), &op("x", &x), &f)),
            "(b, s, d_model)"
        );
    }

    #[test]
    fn axes_resolve_from_either_end() {
        let x = shape_of("(a, b, c)");
        assert_eq!(
            ok(transpose(&op("x", &x), Axis::Index(0), Axis::FromEnd(1))),
            "(c, b, a)"
        );
        assert!(transpose(&op("x", &x), Axis::Index(3), Axis::Index(0)).is_err());
        assert_eq!(
            ok(unsqueeze(&op("x", &x), Axis::FromEnd(1))),
            "(a, b, c, 1)"
        );
        assert_eq!(
            ok(permute(
                &op("x", &x),
                &[Axis::Index(2), Axis::Index(0), Axis::Index(1)]
            )),
            "(c, a, b)"
        );
        assert!(
            permute(
                &op("x", &x),
                &[Axis::Index(2), Axis::Index(2), Axis::Index(1)]
            )
            .is_err()
        );
        assert_eq!(ok(t(&op("x", &x))), "(a, c, b)");
    }

    #[test]
    fn reshape_counts_elements() {
        let f = Facts::default();
        let x = shape_of("(b, s, heads * head_dim)");
        let to = |s: &str| -> Vec<Target> { shape_of(s).into_iter().map(Target::Dim).collect() };
        assert_eq!(
            ok(reshape(&op("x", &x), &to("(b, s, heads, head_dim)"), &f)),
            "(b, s, heads, head_dim)"
        );
        assert!(reshape(&op("x", &x), &to("(b, s, kv_heads, head_dim)"), &f).is_err());
        assert!(reshape(&op("x", &x), &to("(b, s, _, head_dim)"), &f).is_ok());
        let hole = vec![Target::Dim(shape_of("(b,)")[0].clone()), Target::Hole];
        assert_eq!(
            ok(reshape(&op("x", &x), &hole, &f)),
            "(b, head_dim * heads * s)"
        );
    }

    #[test]
    fn flatten_and_squeeze() {
        let f = Facts::default();
        let x = shape_of("(b, heads, s, 1)");
        assert_eq!(
            ok(flatten(
                &op("x", &x),
                Some(Axis::Index(1)),
                Some(Axis::Index(2))
            )),
            "(b, heads * s, 1)"
        );
        assert_eq!(ok(flatten(&op("x", &x), None, None)), "(b * heads * s,)");
        assert_eq!(
            ok(squeeze(&op("x", &x), Axis::FromEnd(1), &f)),
            "(b, heads, s)"
        );
        assert_eq!(squeeze(&op("x", &x), Axis::Index(1), &f), Ok(None));
    }

    #[test]
    fn narrow_past_a_known_size() {
        let f = Facts::default();
        let x = shape_of("(s, 8)");
        let d = |s: &str| shape_of(&format!("({s},)")).pop().flatten();
        assert!(narrow(&op("x", &x), Axis::Index(1), &d("4"), &d("5"), &f).is_err());
        assert_eq!(
            ok(narrow(&op("x", &x), Axis::Index(1), &d("4"), &d("4"), &f)),
            "(s, 4)"
        );
        assert!(narrow(&op("x", &x), Axis::Index(0), &d("1"), &d("s"), &f).is_err());
        assert!(narrow(&op("x", &x), Axis::Index(0), &d("p"), &d("n"), &f).is_ok());
    }

    #[test]
    fn cat_and_stack() {
        let f = Facts::default();
        let a = shape_of("(b, s, d)");
        let c = shape_of("(b, p, d)");
        assert_eq!(
            ok(cat(&[op("a", &a), op("c", &c)], Axis::Index(1), &f)),
            "(b, s + p, d)"
        );
        assert!(cat(&[op("a", &a), op("c", &c)], Axis::Index(2), &f).is_err());
        assert_eq!(
            ok(stack(&[op("a", &a), op("a", &a)], Axis::Index(0), &f)),
            "(2, b, s, d)"
        );
        let n = shape_of("(n,)").pop().flatten();
        assert_eq!(
            ok(cat_repeat(&op("a", &a), &n, Axis::Index(0))),
            "(b * n, s, d)"
        );
    }

    #[test]
    fn index_select_takes_the_indices_length() {
        let emb = shape_of("(vocab, d)");
        let ids = shape_of("(n,)");
        assert_eq!(
            ok(index_select(
                &op("emb", &emb),
                &op("ids", &ids),
                Axis::Index(0)
            )),
            "(n, d)"
        );
        let ids2 = shape_of("(b, n)");
        assert!(index_select(&op("emb", &emb), &op("ids", &ids2), Axis::Index(0)).is_err());
    }

    #[test]
    fn reductions_and_dims() {
        let x = shape_of("(b, s, d)");
        assert_eq!(
            ok(reduce(&op("x", &x), Axis::FromEnd(1), true)),
            "(b, s, 1)"
        );
        assert_eq!(ok(reduce(&op("x", &x), Axis::Index(0), false)), "(s, d)");
        assert!(dims_n(&op("x", &x), 4).is_err());
    }
}
