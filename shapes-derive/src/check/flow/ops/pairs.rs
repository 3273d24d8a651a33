//! The rules of ops on two tensors: products (`matmul`, `broadcast_matmul`), numpy
//! broadcasting and element-wise ops.

use super::super::dims::{Cmp, Facts, compare, is_one, product, show_dim, show_shape};
use super::{Operand, Rule, rank_at_least};

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
pub(super) fn equal_shapes(a: &Operand<'_>, b: &Operand<'_>, facts: &Facts, hint: &str) -> Rule {
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
