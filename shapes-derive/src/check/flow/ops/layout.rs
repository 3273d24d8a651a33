//! The rules of ops that move, reshape, join or reduce axes: `t`, `transpose`, `permute`,
//! `reshape`, `flatten`, `squeeze`, `unsqueeze`, `narrow`, `cat`, `stack`, the reductions,
//! `index_select` and `dims3()` and its kin.

use shapes_core::expr::{ArithOp, DimExpr};

use super::super::dims::{
    Cmp, Dim, Facts, as_literal, bin, compare, greater, product, show_dim, show_shape, simplify,
};
use super::pairs::equal_shapes;
use super::{Axis, Operand, Rule, rank_at_least, resolve};

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
                    Target::Hole => simplify(fill.clone()),
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
