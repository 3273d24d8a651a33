//! Compiled checks and the interpreter agree. `#[derive(Shaped)]` and `#[shapes::check]`
//! compile a description into straight-line checks, run by the fast checker (`FastCx`) and,
//! when it does not settle, by the general checker, which builds the errors; a run-time
//! [`Plan`] (what spec files build) interprets the same description. For random models and
//! shapes, in memory and read by name, they give the same verdict, the same bindings with the
//! same origins, and the same error text; a passing call never leaves the fast path.
//!
//! Two families of models: layouts (nested blocks with renames, lists, optional tensors and
//! blocks, broadcastable dims, a list's `count`), and dim expressions (one operator between
//! two leaves, decided by the inlined shortcut `ItemChecks::bin`; deeper ones, decided on the
//! expression tree; `where` relations that compare or solve).

use std::collections::BTreeMap;

use proptest::prelude::*;
use shapes::__testing::verify_general;
use shapes::{Bindings, Plan, Shape, ShapeError, Shaped, check, verify::PlanNode};

use crate::common::bert;

#[derive(Shaped, Debug, Clone)]
struct Proj {
    #[shape("(d_out, d_in)")]
    w: Shape,
    #[shape("(d_out,)")]
    b: Option<Shape>,
}

#[derive(Shaped, Debug, Clone)]
struct Block {
    #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
    up: Proj,
    #[shape(nested, rename(d_in = "d_ff", d_out = "d_model"))]
    down: Proj,
    #[shape("(d_model,)")]
    norm: Shape,
}

#[derive(Shaped, Debug, Clone)]
struct Head {
    #[shape("(n_classes, d_model)")]
    w: Shape,
}

/// Every variable has a static binder: `d_ff` in the first block, `n_classes` in the head
/// when there is one, `n_gate` in an optional tensor, `n_exp` in the first of a list of
/// tensors.
#[derive(Shaped, Debug, Clone)]
struct Model {
    #[shape("(vocab, d_model)")]
    embed: Shape,
    #[shape(nested, min = 0)]
    blocks: Vec<Block>,
    #[shape(nested)]
    head: Option<Head>,
    #[shape("(n_gate, d_model)")]
    gate: Option<Shape>,
    #[shape("(d_model, n_exp)", min = 0)]
    experts: Vec<Shape>,
}

/// `d_ff` may also be bound after the list, by an optional tensor (when the list is empty)
/// or by a required one: then not every variable has a static binder, and the general
/// checker alone verifies it.
#[derive(Shaped, Debug, Clone)]
struct LaterBinder {
    #[shape(nested)]
    blocks: Vec<Block>,
    #[shape("(d_ff,)")]
    maybe: Option<Shape>,
}

#[derive(Shaped, Debug, Clone)]
struct LaterRequired {
    #[shape(nested)]
    blocks: Vec<Block>,
    #[shape("(d_ff,)")]
    last: Shape,
}

/// `d_model` and `vocab` may be bound by broadcastable `#` dims (when not 1) before their plain
/// dims, and `n_blocks` by the list's `count` before `gates`: those bind first, and the
/// bindings must say so. `late` comes after the binders, so it only compares.
#[derive(Shaped, Debug, Clone)]
struct Broadcasting {
    #[shape("(#d_model, #vocab)")]
    scale: Shape,
    #[shape(nested, count = "n_blocks")]
    blocks: Vec<Block>,
    #[shape("(n_blocks, d_model)")]
    gates: Shape,
    #[shape("(vocab, d_model)")]
    embed: Shape,
    #[shape("(#d_model, #n_blocks)")]
    late: Shape,
}

/// `#` dims and a `count` only after the plain dims that bind their variables: every variable
/// still has a static binder, so the fast checker verifies it.
#[derive(Shaped, Debug, Clone)]
struct LateBroadcast {
    #[shape("(n_blocks, d_model)")]
    gates: Shape,
    #[shape(nested, count = "n_blocks")]
    blocks: Vec<Block>,
    #[shape("(#d_model, #n_blocks)")]
    late: Shape,
}

/// The sizes a model is built from, its layout, and what to corrupt: `(tensor, axis, how)`.
#[derive(Debug, Clone)]
struct Recipe {
    sizes: [usize; 6],
    blocks: usize,
    experts: usize,
    biases: [bool; 2],
    head: bool,
    gate: bool,
    /// Which `#` dims of `Broadcasting` are 1 (`scale`'s two, `late`'s two).
    ones: [bool; 4],
    corrupt: Option<(usize, usize, bool)>,
}

fn recipe() -> impl Strategy<Value = Recipe> {
    (
        prop::array::uniform6(1usize..=4),
        (0usize..3, 0usize..3),
        any::<[bool; 2]>(),
        any::<(bool, bool)>(),
        any::<[bool; 4]>(),
        prop::option::of((0usize..64, 0usize..2, any::<bool>())),
    )
        .prop_map(
            |(sizes, (blocks, experts), biases, (head, gate), ones, corrupt)| Recipe {
                sizes,
                blocks,
                experts,
                biases,
                head,
                gate,
                ones,
                corrupt,
            },
        )
}

/// The model `r` describes, consistent but for its corruption: one axis one larger, or one
/// more axis.
fn build(r: &Recipe) -> Model {
    let [vocab, d_model, d_ff, n_classes, n_gate, n_exp] = r.sizes;
    let proj = |o: usize, i: usize, bias: bool| Proj {
        w: Shape::from([o, i]),
        b: bias.then(|| Shape::from([o])),
    };
    let mut m = Model {
        embed: Shape::from([vocab, d_model]),
        blocks: (0..r.blocks)
            .map(|_| Block {
                up: proj(d_ff, d_model, r.biases[0]),
                down: proj(d_model, d_ff, r.biases[1]),
                norm: Shape::from([d_model]),
            })
            .collect(),
        head: r.head.then(|| Head {
            w: Shape::from([n_classes, d_model]),
        }),
        gate: r.gate.then(|| Shape::from([n_gate, d_model])),
        experts: vec![Shape::from([d_model, n_exp]); r.experts],
    };
    if let Some((k, axis, grow)) = r.corrupt {
        let mut tensors: Vec<&mut Shape> = vec![&mut m.embed];
        for b in &mut m.blocks {
            tensors.push(&mut b.up.w);
            tensors.extend(b.up.b.as_mut());
            tensors.push(&mut b.down.w);
            tensors.extend(b.down.b.as_mut());
            tensors.push(&mut b.norm);
        }
        tensors.extend(m.head.as_mut().map(|h| &mut h.w));
        tensors.extend(m.gate.as_mut());
        tensors.extend(m.experts.iter_mut());
        let n = tensors.len();
        if let Some(t) = tensors.get_mut(k % n) {
            corrupt(t, axis, grow);
        }
    }
    m
}

/// One axis of `t` one larger, or one more axis (see [`build`]).
fn corrupt(t: &mut Shape, axis: usize, grow: bool) {
    let mut d = t.dims().to_vec();
    if grow || d.is_empty() {
        d.push(1);
    } else {
        let a = axis % d.len();
        d[a] += 1;
    }
    *t = Shape::new(&d);
}

/// The [`Broadcasting`] and [`LateBroadcast`] models `r` describes, from the blocks of `m`
/// (built from the same recipe): each `#` dim 1 or its variable's size, corrupted like
/// [`build`]'s.
fn build_broadcasting(r: &Recipe, m: &Model) -> (Broadcasting, LateBroadcast) {
    let [vocab, d_model, ..] = r.sizes;
    let n_blocks = m.blocks.len();
    let or_one = |one: bool, d: usize| if one { 1 } else { d };
    let mut b = Broadcasting {
        scale: Shape::from([or_one(r.ones[0], d_model), or_one(r.ones[1], vocab)]),
        blocks: m.blocks.clone(),
        gates: Shape::from([n_blocks, d_model]),
        embed: m.embed.clone(),
        late: Shape::from([or_one(r.ones[2], d_model), or_one(r.ones[3], n_blocks)]),
    };
    if let Some((k, axis, grow)) = r.corrupt {
        match k % 5 {
            0 => corrupt(&mut b.scale, axis, grow),
            1 => corrupt(&mut b.gates, axis, grow),
            2 => corrupt(&mut b.embed, axis, grow),
            3 => corrupt(&mut b.late, axis, grow),
            // One block fewer than `gates` counts.
            _ => {
                b.blocks.pop();
            }
        }
    }
    let late = LateBroadcast {
        gates: b.gates.clone(),
        blocks: b.blocks.clone(),
        late: b.late.clone(),
    };
    (b, late)
}

/// [`Model`] as a run-time plan, its patterns written in the root's names (the renames done).
fn model_plan() -> Plan {
    let proj = |name: &str, out: &str, inp: &str| {
        PlanNode::group(
            name,
            vec![
                PlanNode::tensor("w", format!("({out}, {inp})")),
                PlanNode::tensor("b", format!("({out},)")).optional(),
            ],
        )
    };
    Plan::build(
        "Model",
        &[
            PlanNode::tensor("embed", "(vocab, d_model)"),
            PlanNode::group(
                "blocks",
                vec![
                    proj("up", "d_ff", "d_model"),
                    proj("down", "d_model", "d_ff"),
                    PlanNode::tensor("norm", "(d_model,)"),
                ],
            )
            .repeated(None)
            .optional(),
            PlanNode::group("head", vec![PlanNode::tensor("w", "(n_classes, d_model)")]).optional(),
            PlanNode::tensor("gate", "(n_gate, d_model)").optional(),
            PlanNode::tensor("experts", "(d_model, n_exp)")
                .repeated(None)
                .optional(),
        ],
        &[],
    )
    .unwrap()
}

/// The tensors of `m` by name, as a checkpoint would hold them.
fn model_source(m: &Model) -> BTreeMap<String, Shape> {
    let mut src = BTreeMap::new();
    let mut put = |name: String, s: &Shape| {
        src.insert(name, s.clone());
    };
    put("embed".into(), &m.embed);
    for (i, b) in m.blocks.iter().enumerate() {
        for (p, proj) in [("up", &b.up), ("down", &b.down)] {
            put(format!("blocks.{i}.{p}.w"), &proj.w);
            if let Some(bias) = &proj.b {
                put(format!("blocks.{i}.{p}.b"), bias);
            }
        }
        put(format!("blocks.{i}.norm"), &b.norm);
    }
    if let Some(h) = &m.head {
        put("head.w".into(), &h.w);
    }
    if let Some(g) = &m.gate {
        put("gate".into(), g);
    }
    for (i, e) in m.experts.iter().enumerate() {
        put(format!("experts.{i}"), e);
    }
    src
}

/// Every case of the shortcut and the tree: solved from the left or the right of each operator,
/// below zero in between, a floor division only known once its operand is, a power (left to
/// the tree), a variable waiting for a later dim, a variadic before an expression, and
/// `where` relations (an equation, comparisons, one side below zero, and equations that solve
/// a variable no field has: `area` always, `half` only when `cols * pad + cols` is even).
#[derive(Shaped)]
#[shapes(
    where = "rows + cols = pad + y, q % 3 != 1, h - k <= 2 * s, area = rows * cols, 2 * half = cols * pad + cols"
)]
#[allow(dead_code)]
struct Exprs {
    #[shape("(rows * 7, 3 * cols, cols + pad)")]
    windows: Shape,
    #[shape("((h - k + 2 * p) // s + 1, h, k, p, s)")]
    conv: Shape,
    #[shape("(10 - m, m / 2, q % 4)")]
    right: Shape,
    #[shape("(z * z * z, q)")]
    cube: Shape,
    #[shape("(*b, y * 2 - 1, y)")]
    tail: Shape,
}

const PATTERNS: [(&str, &str); 5] = [
    ("windows", "(rows * 7, 3 * cols, cols + pad)"),
    ("conv", "((h - k + 2 * p) // s + 1, h, k, p, s)"),
    ("right", "(10 - m, m / 2, q % 4)"),
    ("cube", "(z * z * z, q)"),
    ("tail", "(*b, y * 2 - 1, y)"),
];

fn exprs_plan() -> Plan {
    let nodes: Vec<PlanNode> = PATTERNS
        .iter()
        .map(|(name, pattern)| PlanNode::tensor(*name, *pattern))
        .collect();
    Plan::build(
        "Exprs",
        &nodes,
        &["rows + cols = pad + y, q % 3 != 1, h - k <= 2 * s, area = rows * cols, 2 * half = cols * pad + cols"],
    )
    .unwrap()
}

/// Shapes that satisfy the patterns, with one dim off by one half of the time: a small
/// deterministic walk through values near the interesting ones (0, exact and inexact
/// divisions, negative intermediates).
fn sample(seed: u64) -> Exprs {
    let mut state = seed;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) % n) as usize
    };
    let (rows, cols, pad) = (next(4), next(4), next(3));
    let (h, k, p, s) = (next(6), 1 + next(4), next(3), 1 + next(2));
    let conv = ((h as i64 - k as i64 + 2 * p as i64).div_euclid(s as i64) + 1).max(0) as usize;
    let (m, q, z, y) = (next(11), next(9), next(5), 1 + next(5));
    let mut dims: Vec<Vec<usize>> = vec![
        vec![rows * 7, 3 * cols, cols + pad],
        vec![conv, h, k, p, s],
        vec![10 - m, m / 2, q % 4],
        vec![z * z * z, q],
        [&[2, 3][..next(3)], &[y * 2 - 1, y]].concat(),
    ];
    if next(2) == 0 {
        let t = next(5);
        let a = next(dims[t].len() as u64);
        dims[t][a] = if next(2) == 0 {
            dims[t][a] + 1
        } else {
            dims[t][a].saturating_sub(1)
        };
    }
    let s = |i: usize| Shape::new(&dims[i]);
    Exprs {
        windows: s(0),
        conv: s(1),
        right: s(2),
        cube: s(3),
        tail: s(4),
    }
}

#[check]
fn windows(#[shape("(batch, h_wins * 7, w_wins * 7, c)")] x: &Shape) -> Result<usize, ShapeError> {
    Ok(x.dims()[0])
}

#[check]
fn conv(
    #[shape("((h - k + 2 * p) // s + 1,)")] out: &Shape,
    #[shape("(h, k, p, s)")] params: &Shape,
) -> Result<usize, ShapeError> {
    Ok(out.dims()[0])
}

/// `where` equations that solve variables no argument has, one through an exact division.
#[check(where = "2 * half = w, area = h * half")]
fn halves(#[shape("(h, w)")] x: &Shape) -> Result<usize, ShapeError> {
    Ok(x.dims()[0])
}

/// A checked call and a plan of the function's parameters agree: the same verdict, and the
/// call's error is the plan's first.
fn call_and_plan_agree(
    call: Result<usize, ShapeError>,
    function: &str,
    params: &[(&str, &str, &Shape)],
    wheres: &[&str],
) -> Result<(), TestCaseError> {
    let nodes: Vec<PlanNode> = params
        .iter()
        .map(|(name, pattern, _)| PlanNode::tensor(*name, *pattern))
        .collect();
    let plan = Plan::build(function, &nodes, wheres).unwrap();
    let src: BTreeMap<String, Shape> = params
        .iter()
        .map(|(name, _, s)| (name.to_string(), (*s).clone()))
        .collect();
    match (call, plan.verify_source(&src)) {
        (Ok(_), Ok(_)) => {}
        (Err(a), Err(b)) => {
            // The plan read the values by name, and says which tensor it read.
            let first = b.first().cloned().map(|e| {
                let mut details = e.into_details();
                details.tensor = None;
                ShapeError::from(details).to_string()
            });
            let first = first.unwrap_or_default();
            prop_assert_eq!(a.to_string(), first, "{:?}", src);
        }
        (a, b) => prop_assert!(false, "{src:?}: the call says {a:?}, the plan {b:?}"),
    }
    Ok(())
}

/// The tensors of an [`Exprs`] by name.
fn exprs_source(value: &Exprs) -> BTreeMap<String, Shape> {
    [
        ("windows", &value.windows),
        ("conv", &value.conv),
        ("right", &value.right),
        ("cube", &value.cube),
        ("tail", &value.tail),
    ]
    .into_iter()
    .map(|(n, s)| (n.to_string(), s.clone()))
    .collect()
}

/// Bindings as a user reads them: every variable's value and where it was bound, in order.
fn readable(b: &Bindings) -> Vec<String> {
    b.iter()
        .map(|x| format!("{} = {} from {}", x.name, x.value, x.origin))
        .collect()
}

/// The same, in name order: a plan and a struct may bind in different orders.
fn sorted(b: &Bindings) -> Vec<String> {
    let mut out = readable(b);
    out.sort();
    out
}

/// `verify()` (the fast checker first) and the general checker alone agree on `s`.
fn fast_and_general_agree<S: Shaped>(s: &S) -> Result<(), TestCaseError> {
    match (s.verify(), verify_general(s)) {
        (Ok(fast), Ok(general)) => prop_assert_eq!(readable(&fast), readable(&general)),
        (Err(fast), Err(general)) => prop_assert_eq!(fast.to_string(), general.to_string()),
        (fast, general) => prop_assert!(false, "verify {fast:?}, general {general:?}"),
    }
    Ok(())
}

/// The compiled checks of `S`, read by name from `src`, and `plan` interpreting the same
/// description agree: the same bindings or the same errors. In memory, `value` gets the same
/// verdict and bindings from `verify()` as the plan gives by name.
fn compiled_and_plan_agree<S: Shaped>(
    value: &S,
    plan: &Plan,
    src: &BTreeMap<String, Shape>,
) -> Result<(), TestCaseError> {
    let by_plan = plan.verify_source(src);
    match (S::verify_source(src), &by_plan) {
        (Ok(a), Ok(b)) => prop_assert_eq!(sorted(&a), sorted(b), "{:?}", src),
        (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string(), "{:?}", src),
        (a, b) => prop_assert!(false, "{src:?}: the derive says {a:?}, the plan {b:?}"),
    }
    match (value.verify(), by_plan) {
        (Ok(a), Ok(b)) => prop_assert_eq!(sorted(&a), sorted(&b), "{:?}", src),
        (Err(_), Err(_)) => {}
        (a, b) => prop_assert!(false, "{src:?}: in memory {a:?}, the plan {b:?}"),
    }
    Ok(())
}

#[test]
fn the_models_take_the_fast_pass_only_when_every_variable_has_a_static_binder() {
    assert!(<Model as Shaped>::BINDERS.all_static(&<Model as Shaped>::VARS));
    assert!(<Block as Shaped>::BINDERS.all_static(&<Block as Shaped>::VARS));
    assert!(!<LaterBinder as Shaped>::BINDERS.all_static(&<LaterBinder as Shaped>::VARS));
    assert!(!<LaterRequired as Shaped>::BINDERS.all_static(&<LaterRequired as Shaped>::VARS));
    // A `#` dim or a `count` that may bind before a plain dim takes its static binder away.
    assert!(!<Broadcasting as Shaped>::BINDERS.all_static(&<Broadcasting as Shaped>::VARS));
    assert!(<LateBroadcast as Shaped>::BINDERS.all_static(&<LateBroadcast as Shaped>::VARS));
    // A conditional binder is no binder for a method checked with `#[shapes::check(self)]`.
    for var in ["d_ff", "n_classes", "n_gate", "n_exp"] {
        let i = <Model as Shaped>::VARS.index_of(var).unwrap();
        assert!(<Model as Shaped>::BINDERS.get(i).is_none(), "{var}");
    }
}

#[test]
fn a_variable_bound_in_a_list_names_its_first_element() {
    let b = bert::bert_base().verify().unwrap();
    assert_eq!(
        b.origin("d_ff").map(|o| o.to_string()).as_deref(),
        Some("Bert.layers[0].up_w axis 0")
    );
    assert_eq!(
        b.origin("d_model").map(|o| o.to_string()).as_deref(),
        Some("Bert.embeddings.word axis 1")
    );
    let names: Vec<_> = b.iter().map(|b| b.name).collect();
    assert_eq!(names, ["vocab", "d_model", "max_pos", "type_vocab", "d_ff"]);
}

#[test]
#[cfg(not(shapes_no_checks))]
fn checked_calls_say_where_and_why() {
    let before = shapes::__testing::call_reports();
    assert_eq!(windows(&Shape::from([2, 56, 28, 96])).unwrap(), 2);
    assert_eq!(halves(&Shape::from([3, 8])).unwrap(), 3);
    // 2 - 3 is below zero in between: fine.
    assert_eq!(
        conv(&Shape::from([2]), &Shape::from([2, 3, 1, 1])).unwrap(),
        2
    );
    assert_eq!(shapes::__testing::call_reports(), before);
    let e = windows(&Shape::from([2, 55, 28, 96]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("windows.x: axis 1"), "{e}");
    let e = halves(&Shape::from([3, 7])).unwrap_err().to_string();
    assert!(e.contains("2 * half = 7 has no whole solution"), "{e}");
    assert_eq!(shapes::__testing::call_reports(), before + 2);
}

/// A derived struct and a plan of the same patterns are one description: the same nodes'
/// count and the same `where` relations, over the same slots, read by one interpreter.
#[test]
fn a_derived_struct_and_a_plan_are_one_description() {
    let derived = <Exprs as Shaped>::DESCRIPTION.expect("a derived struct describes itself");
    let plan = exprs_plan();
    let built = plan.description();
    assert_eq!(derived.nodes.len(), built.nodes.len());
    assert_eq!(
        format!("{:?}", derived.wheres),
        format!("{:?}", built.wheres)
    );
    assert_eq!(<Exprs as Shaped>::VARS.names(), plan.variables());
}

/// An attention block whose head count no tensor determines: the caller gives it, or the
/// checkpoint's config states it.
#[derive(Shaped)]
#[shapes(
    given = "heads",
    config(d_model = "hidden_size | n_embd"),
    ignore = "optimizer.*",
    where = "d_model >= head_dim"
)]
struct GivenAttn {
    #[shape("(heads * head_dim, d_model)", name = "qkv.weight")]
    qkv: Shape,
}

/// [`GivenAttn`] as a spec file.
const GIVEN_ATTN: &str = r#"
name = "GivenAttn"
given = ["heads"]
where = ["d_model >= head_dim"]
ignore = ["optimizer.*"]

[config]
d_model = ["hidden_size", "n_embd"]

[tensors]
"qkv.weight" = "(heads * head_dim, d_model)"
"#;

#[cfg(feature = "spec")]
#[test]
fn given_config_keys_and_ignore_are_one_description_too() {
    let derived = <GivenAttn as Shaped>::DESCRIPTION.expect("a derived struct describes itself");
    let spec = shapes::Spec::from_toml("given_attn.toml", GIVEN_ATTN).expect("a valid spec");
    let built = spec.plan().description();
    assert_eq!(derived.given, built.given);
    assert_eq!(derived.ignore, built.ignore);
    assert_eq!(
        format!("{:?}", derived.config),
        format!("{:?}", built.config)
    );
    assert_eq!(
        format!("{:?}", derived.wheres),
        format!("{:?}", built.wheres)
    );
    // Read by the one driver: the ignored tensor is not reported, and the dim waiting for
    // `heads` asks for it in the same words.
    let src = BTreeMap::from([
        ("qkv.weight".to_string(), Shape::from([48, 16])),
        ("optimizer.step".to_string(), Shape::from([1])),
    ]);
    let (from_rust, from_spec) = (
        GivenAttn::verify_source(&src).expect_err("heads is not given"),
        spec.plan()
            .verify_source(&src)
            .expect_err("heads is not given"),
    );
    // The field's path is its Rust name (`qkv`) or the spec's tensor name (`qkv.weight`).
    assert_eq!(
        from_rust.to_string(),
        from_spec
            .to_string()
            .replace("GivenAttn.qkv.weight", "GivenAttn.qkv")
    );
    assert!(
        from_rust.to_string().contains("given") && !from_rust.to_string().contains("optimizer"),
        "{from_rust}"
    );
    let given = Bindings::new().bind("heads", 4);
    let options = || shapes::verify::SourceOptions::new().bindings(given.clone());
    let (a, b) = (
        GivenAttn::verify_source_options(&src, options()).expect("heads given"),
        spec.plan()
            .verify_source_options(&src, options())
            .expect("heads given"),
    );
    assert_eq!((a.get("head_dim"), b.get("head_dim")), (Some(12), Some(12)));
}

/// The walk of [`sample`] reaches both verdicts often, so the property below tests both.
#[test]
fn the_expression_walk_reaches_both_verdicts() {
    let plan = exprs_plan();
    let passed = (0..4000)
        .filter(|&seed| plan.verify_source(&exprs_source(&sample(seed))).is_ok())
        .count();
    assert!(passed > 30 && 4000 - passed > 30, "{passed} of 4000 passed");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn layouts_agree(r in recipe()) {
        let m = build(&r);
        fast_and_general_agree(&m)?;
        compiled_and_plan_agree(&m, &model_plan(), &model_source(&m))?;
        let last = Shape::new(&m.embed.dims()[1..]);
        let maybe = r.gate.then(|| last.clone());
        fast_and_general_agree(&LaterBinder { blocks: m.blocks.clone(), maybe })?;
        fast_and_general_agree(&LaterRequired { blocks: m.blocks.clone(), last })?;
        if let Some(first) = m.blocks.first() {
            fast_and_general_agree(first)?;
        }
        let (broadcasting, late) = build_broadcasting(&r, &m);
        fast_and_general_agree(&broadcasting)?;
        fast_and_general_agree(&late)?;
    }

    #[test]
    fn expressions_agree(seed in any::<u64>(), x in prop::array::uniform4(0usize..4), off in 0usize..8) {
        let value = sample(seed);
        fast_and_general_agree(&value)?;
        compiled_and_plan_agree(&value, &exprs_plan(), &exprs_source(&value))?;

        // The same patterns as checked calls: against a plan of their parameters, and a
        // passing call never leaves the fast path. (Nothing to compare when the build turns
        // checks off.)
        if !shapes::__testing::CHECKS {
            return Ok(());
        }
        let before = shapes::__testing::call_reports();
        // One dim in eight off by one.
        let nudge = |d: usize, i: usize| if off == i { d + 1 } else { d };
        let w = Shape::from([x[0], nudge(7 * x[1], 1), 7 * x[2], nudge(x[3], 3)]);
        let out = Shape::new(&value.conv.dims()[..1]);
        let params = Shape::new(&value.conv.dims()[1..]);
        let h = Shape::from([x[0], nudge(2 * x[1], 2)]);
        let calls = [
            (windows(&w), "windows", vec![("x", "(batch, h_wins * 7, w_wins * 7, c)", &w)], vec![]),
            (
                conv(&out, &params),
                "conv",
                vec![("out", "((h - k + 2 * p) // s + 1,)", &out), ("params", "(h, k, p, s)", &params)],
                vec![],
            ),
            (halves(&h), "halves", vec![("x", "(h, w)", &h)], vec!["2 * half = w, area = h * half"]),
        ];
        let passing = calls.iter().filter(|c| c.0.is_ok()).count();
        for (call, function, params, wheres) in calls {
            call_and_plan_agree(call, function, &params, &wheres)?;
        }
        let slow = shapes::__testing::call_reports() - before;
        prop_assert_eq!(slow, 3 - passing, "a passing call left the fast path");
    }
}

/// One block of [`Wide`].
#[derive(Shaped, Clone)]
struct WideBlock {
    #[shape("(d, e)")]
    w: Shape,
}

/// Writes a struct of 15 tensors, a run of two nested blocks across the first boundary
/// between its check functions (fields 15 and 16), 60 more tensors and a list of blocks: a
/// struct above 64 fields has its in-memory checks split into functions of 16 fields.
macro_rules! wide {
    ($($t:ident)*; $($u:ident)*) => {
        #[derive(Shaped)]
        struct Wide {
            $(#[shape("(n, d)")] $t: Shape,)*
            #[shape(nested)] inner_a: WideBlock,
            #[shape(nested)] inner_b: WideBlock,
            $(#[shape("(e, #m)")] $u: Shape,)*
            #[shape(nested, count = "blocks")] tail: Vec<WideBlock>,
        }

        impl Wide {
            fn new(n: usize, d: usize, e: usize) -> Wide {
                let block = WideBlock { w: Shape::from([d, e]) };
                Wide {
                    $($t: Shape::from([n, d]),)*
                    inner_a: block.clone(),
                    inner_b: block.clone(),
                    $($u: Shape::from([e, 1]),)*
                    tail: vec![block.clone(), block],
                }
            }

            /// Its tensors by name, as a checkpoint holds them.
            fn source(&self) -> BTreeMap<String, Shape> {
                let mut src = BTreeMap::new();
                $(src.insert(stringify!($t).to_string(), self.$t.clone());)*
                src.insert("inner_a.w".to_string(), self.inner_a.w.clone());
                src.insert("inner_b.w".to_string(), self.inner_b.w.clone());
                $(src.insert(stringify!($u).to_string(), self.$u.clone());)*
                for (i, b) in self.tail.iter().enumerate() {
                    src.insert(format!("tail.{i}.w"), b.w.clone());
                }
                src
            }
        }
    };
}

wide!(
    t0 t1 t2 t3 t4 t5 t6 t7 t8 t9 t10 t11 t12 t13 t14;
    u0 u1 u2 u3 u4 u5 u6 u7 u8 u9 u10 u11 u12 u13 u14 u15 u16 u17 u18 u19
    u20 u21 u22 u23 u24 u25 u26 u27 u28 u29 u30 u31 u32 u33 u34 u35 u36 u37 u38 u39
    u40 u41 u42 u43 u44 u45 u46 u47 u48 u49 u50 u51 u52 u53 u54 u55 u56 u57 u58 u59
);

#[test]
fn a_struct_checked_in_several_functions_reads_as_one() {
    let ok = Wide::new(2, 3, 5);
    let b = ok.verify().expect("a consistent struct verifies");
    assert_eq!(
        (
            b.get("n"),
            b.get("d"),
            b.get("e"),
            b.get("blocks"),
            b.get("m")
        ),
        // A broadcastable `#m` of size 1 binds nothing.
        (Some(2), Some(3), Some(5), Some(2), None)
    );
    assert_eq!(
        sorted(&b),
        sorted(&Wide::verify_source(&ok.source()).unwrap())
    );
    assert_eq!(readable(&b), readable(&verify_general(&ok).unwrap()));

    // Mismatches on both sides of the functions' boundaries, in a run of nested fields and
    // in the list after them: the paths are the fields', whichever function checked them.
    let mut bad = Wide::new(2, 3, 5);
    bad.inner_b.w = Shape::from([4, 5]);
    bad.u59 = Shape::from([6, 1]);
    bad.tail[1].w = Shape::from([3, 7]);
    let errors = bad.verify_all().expect_err("three mismatches");
    let text = errors.to_string();
    for path in [
        "Wide.inner_b.w: axis 0 expected d = 3, found 4",
        "Wide.u59: axis 0 expected e = 5, found 6",
        "Wide.tail[1].w: axis 1 expected e = 5, found 7",
    ] {
        assert!(text.contains(path), "{text}");
    }
    assert_eq!(errors.len(), 3, "{text}");
    let general = verify_general(&bad).expect_err("the general checker agrees");
    assert_eq!(bad.verify().unwrap_err().to_string(), general.to_string());
    let by_name = Wide::verify_source(&bad.source()).expect_err("by name too");
    assert_eq!(by_name.len(), 3, "{by_name}");
}
