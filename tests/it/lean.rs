//! The lean first pass of `verify` returns exactly what the general checker does: the same
//! bindings in the same order with the same origins, or the same first error. Random models
//! whose shapes agree or not, with optional and listed layers, are verified both ways.

use proptest::prelude::*;
use shapes::__testing::verify_general;
use shapes::{Shape, Shaped};

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
    #[shape(nested)]
    blocks: Vec<Block>,
    #[shape(nested)]
    head: Option<Head>,
    #[shape("(n_gate, d_model)")]
    gate: Option<Shape>,
    #[shape("(d_model, n_exp)")]
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
/// still has a static binder, so the lean pass verifies it.
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

/// `verify()` and the general checker agree on `s`.
fn agree<S: Shaped>(s: &S) -> Result<(), TestCaseError> {
    match (s.verify(), verify_general(s)) {
        (Ok(lean), Ok(general)) => {
            let lean: Vec<_> = lean.iter().collect();
            let general: Vec<_> = general.iter().collect();
            prop_assert_eq!(lean, general);
        }
        (Err(lean), Err(general)) => prop_assert_eq!(lean.to_string(), general.to_string()),
        (lean, general) => prop_assert!(false, "verify {lean:?}, general {general:?}"),
    }
    Ok(())
}

#[test]
fn the_models_take_the_lean_pass_only_when_every_variable_has_a_static_binder() {
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn lean_and_general_agree(r in recipe()) {
        let m = build(&r);
        agree(&m)?;
        let last = Shape::new(&m.embed.dims()[1..]);
        let maybe = r.gate.then(|| last.clone());
        agree(&LaterBinder { blocks: m.blocks.clone(), maybe })?;
        agree(&LaterRequired { blocks: m.blocks.clone(), last })?;
        if let Some(first) = m.blocks.first() {
            agree(first)?;
        }
        let (broadcasting, late) = build_broadcasting(&r, &m);
        agree(&broadcasting)?;
        agree(&late)?;
    }
}
