//! The walk on bodies written as text: errors and gaps.

use super::super::dims::shape_of;
use super::effects::assigned;
use super::*;
use proc_macro2::TokenStream;
use syn::Block;

/// Walks `body` with the given tensor parameters; the errors' and gaps' messages.
fn walk(params: &[(&str, &str)], ret: Option<&str>, body: &str) -> (Vec<String>, Vec<String>) {
    let facts = Facts::default();
    let ret = ret.map(shape_of);
    let block: Block = syn::parse_str(&format!("{{ {body} }}")).expect("a block");
    let mut w = Walker::new(&facts, ret.as_deref(), None);
    for (n, p) in params {
        w.bind_param(n, Val::Tensor(Some(shape_of(p))));
    }
    w.walk_fn_body(&block);
    (
        w.errors.iter().map(ToString::to_string).collect(),
        w.gaps.iter().map(|g| g.message.clone()).collect(),
    )
}

#[test]
fn attention_without_transpose_is_an_error() {
    let (errors, _) = walk(
        &[
            ("q", "(b, heads, s, head_dim)"),
            ("k", "(b, heads, s, head_dim)"),
        ],
        None,
        "let att = q.matmul(&k)?; att",
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("`q.matmul(&k)`: inner dims differ"),
        "{errors:?}"
    );
    let (errors, _) = walk(
        &[
            ("q", "(b, heads, s, head_dim)"),
            ("k", "(b, heads, s, head_dim)"),
        ],
        None,
        "let att = q.matmul(&k.t()?)?; att",
    );
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn dims_locals_feed_reshape() {
    let (errors, _) = walk(
        &[("x", "(b, s, d)")],
        Some("(b, s, d)"),
        "let (b, s, d) = x.dims3()?; let y = x.reshape((b, s, 2, d / 2))?; y.reshape((b, s, d))",
    );
    assert!(errors.is_empty(), "{errors:?}");
    let (errors, _) = walk(
        &[("x", "(b, s, d)")],
        None,
        "let (b, s, d) = x.dims3()?; x.reshape((b, s, s))",
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
}

#[test]
fn the_return_value_is_checked() {
    let (errors, _) = walk(
        &[("x", "(b, heads, s, head_dim)")],
        Some("(b, s, d_model)"),
        "Ok(x.contiguous()?)",
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("rank 4 vs 3"), "{errors:?}");
    let (errors, _) = walk(
        &[("x", "(b, s)")],
        Some("(b, s)"),
        "if true { return Ok(x.t()?); } Ok(x)",
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
}

#[test]
fn shadowing_and_scopes() {
    let (errors, _) = walk(
        &[("x", "(a, b)"), ("y", "(b, c)")],
        None,
        "let x = x.t()?; { let x = y.t()?; let _ = x.matmul(&y)?; } let z = x.matmul(&y)?; let x = foo(); x.matmul(&y)",
    );
    // `x` is (b, a) after the first let, (c, b) inside the block; `x.matmul(&y)` in the
    // block is (c, b)@(b, c): fine; after the block `x` is (b, a) again: a ≠ b.
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].starts_with("`x.matmul(&y)`"), "{errors:?}");
}

#[test]
fn unknown_code_is_never_an_error() {
    let (errors, gaps) = walk(
        &[("x", "(a, b)"), ("y", "(a, b)")],
        None,
        "let h = self.proj.forward(&x)?; let g = helper(&y); h.matmul(&g)?; let mut z = x.clone(); for _ in 0..2 { z = z.t()?; } z.matmul(&y)",
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert!(
        gaps.iter().any(|g| g.contains("self.proj.forward(&x)")),
        "{gaps:?}"
    );
    assert!(
        gaps.iter()
            .any(|g| g.contains("`z` may be changed by a loop")),
        "{gaps:?}"
    );
}

#[test]
fn branches_that_disagree_forget() {
    let (errors, gaps) = walk(
        &[("x", "(a, b)"), ("y", "(a, b)")],
        None,
        "let mut z = x.clone(); if c { z = z.t()?; } z.matmul(&y)",
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    let (errors, _) = walk(
        &[("x", "(a, b)"), ("y", "(a, b)")],
        None,
        "let z = if c { x.clone() } else { y.clone() }; z.matmul(&y)",
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
}

#[test]
fn closures_and_macros_forget_what_they_may_assign() {
    let (errors, _) = walk(
        &[("x", "(a, b)"), ("y", "(a, b)")],
        None,
        "let mut z = x.clone(); let mut f = || { z = z.t().unwrap(); }; f(); z.matmul(&y)",
    );
    assert!(errors.is_empty(), "{errors:?}");
    let (errors, _) = walk(
        &[("x", "(a, b)"), ("y", "(a, b)")],
        None,
        "let mut z = x.clone(); my_macro!(z); z.matmul(&y)",
    );
    assert!(errors.is_empty(), "{errors:?}");
    let (errors, _) = walk(
        &[("x", "(a, b)"), ("y", "(a, b)")],
        None,
        "let z = x.clone(); println!(\"{z:?}\"); z.matmul(&y)",
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
}

#[test]
fn cat_and_repeat() {
    let (errors, _) = walk(
        &[("k", "(b, kv, s, d)"), ("q", "(b, h, s, d)")],
        Some("(b, kv, s * 2, d)"),
        "let (b, kv, s, d) = k.dims4()?; let n = 2; let r = Tensor::cat(&vec![&k; n], 2)?; r",
    );
    assert!(errors.is_empty(), "{errors:?}");
    let (errors, _) = walk(
        &[("k", "(b, kv, s, d)"), ("v", "(b, kv, s, e)")],
        None,
        "Tensor::cat(&[&k, &v], 2)",
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
}

#[test]
fn integer_division_is_exact_only_for_a_factor() {
    let (errors, _) = walk(
        &[("w", "(heads * head_dim, d)"), ("c", "(s, head_dim)")],
        Some("(heads,)"),
        "let hd = c.dim(1)?; let heads = w.dim(0)? / hd; let r = w.narrow(0, 0, heads)?.narrow(0, 0, heads + 1)?; Ok(r)",
    );
    // `heads + 1` is not past `heads`' start at 0 … only past the first narrow's `heads`.
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("narrows past the end"), "{errors:?}");
}

#[test]
fn assignments_are_found_in_tokens() {
    let mut out = Vec::new();
    let ts: TokenStream =
        syn::parse_str("{ a = 1; b += 2; c == d; e => f; swap(&mut g, &h); i <<= 1; }")
            .expect("tokens");
    assigned(ts, false, &mut out);
    let names: Vec<&str> = out.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "b", "g", "i"]);
}

#[test]
fn odd_bodies_never_panic() {
    let bodies = [
        "x.narrow(0, 18446744073709551615, 18446744073709551615)",
        "x.narrow(0, 340282366920938463463374607431768211455, 1)",
        "x.transpose(99, 100)",
        "x.reshape(((), ()))",
        "x.reshape(())",
        "x.dim(D::Minus(0))",
        "x.dim(D::Minus(18446744073709551615))",
        "x.permute(())",
        "x.permute((0, 0))",
        "Tensor::cat(&[], 0)",
        "Tensor::stack(&vec![], D::Minus1)",
        "x.unsqueeze(D::Minus(99))",
        "x.flatten(1, 0)",
        "x.squeeze(5)",
        "x.t()?.t()?.t()?.matmul(&x.t()?)?.sum_keepdim(7)",
        "let (a, b) = x.dims2()?; x.reshape((a - b - b, b * 18446744073709551615))",
        "let (a, b) = x.dims2()?; let c = a / 0; x.reshape((c % 0, b))",
        "loop { let x = x.t()?; } ",
        "match x { y if y.dims2().is_ok() => y, _ => x }",
        "let f = async { x }; x",
    ];
    for body in bodies {
        // Errors are allowed here; a panic is not.
        let _ = walk(&[("x", "(a, b)")], Some("(a, b)"), body);
    }
}

#[test]
fn optional_masks_are_read_through_some() {
    let facts = Facts::default();
    let block: Block = syn::parse_str(
        "{ let mut att = att.clone(); if let Some(m) = mask { att = att.broadcast_add(m)?; } \
           match mask { Some(m) => att.broadcast_add(&m.t()?), None => Ok(att) } }",
    )
    .expect("a block");
    let mut w = Walker::new(&facts, None, None);
    w.bind_param("att", Val::Tensor(Some(shape_of("(b, heads, s, s)"))));
    w.bind_param(
        "mask",
        Val::Some(Box::new(Val::Tensor(Some(shape_of("(b, 1, 1, s)"))))),
    );
    w.walk_fn_body(&block);
    // `m.t()` is (b, 1, s, 1): fine; a mask of (b, heads, 1, s) would be too. Only the
    // shapes that provably clash are errors:
    assert!(w.errors.is_empty(), "{:?}", w.errors);
    assert!(
        w.gaps.is_empty(),
        "{:?}",
        w.gaps.iter().map(|g| &g.message).collect::<Vec<_>>()
    );
    let block: Block = syn::parse_str(
        "{ if let Some(m) = mask { att.broadcast_add(m) } else { Ok(att.clone()) } }",
    )
    .expect("a block");
    let mut w = Walker::new(&facts, None, None);
    w.bind_param("att", Val::Tensor(Some(shape_of("(b, heads, s, s)"))));
    w.bind_param(
        "mask",
        Val::Some(Box::new(Val::Tensor(Some(shape_of("(b, s, 1, 1)"))))),
    );
    w.walk_fn_body(&block);
    assert_eq!(w.errors.len(), 1, "{:?}", w.errors);
}

#[test]
fn if_let_bindings_stay_in_their_branch() {
    // The outer `m` is (b, s); the `m` of the `if let` (the mask) must not leak past the if.
    let (errors, _) = walk(
        &[("x", "(b, s)"), ("m", "(s, e)")],
        None,
        "if let Some(m) = Some(x.clone()) { let _ = m; } x.matmul(&m)",
    );
    assert!(errors.is_empty(), "{errors:?}");
}
