//! The one interpreter of by-name checks: a [`Description`]'s nodes run against a
//! [`SourceCx`] by the general [`Checker`] (or against values in memory, for a checked
//! call's error). A run-time [`Plan`](super::Plan) (what spec files build), a derived struct's
//! `verify_source` (`#[derive(Shaped)]` emits its fields as constant nodes) and a
//! `#[shapes::check]` function's report are all a description, read by this one walk.

use super::bindings::Bindings;
use super::by_name::SourceCx;
use super::checker::Checker;
use super::description::{Description, FieldLeaf, FieldNode, Node, Wrap};
use super::item_checks::ItemChecks;
use super::item_ops::{ItemOp, run_items};
use super::path::Segment;
use super::plan::FieldInfo;
use super::scope_checks::ScopeChecks;
use super::vars::{Slot, SlotMap};

/// Where a walk is: the values given before checking, and the index of the innermost
/// repeated element (for a [`Node::Choice`] with `leading`).
#[derive(Clone, Copy)]
pub(crate) struct Walk<'a> {
    pub(crate) pre: Option<&'a Bindings>,
    pub(crate) index: Option<usize>,
}

/// Runs `d` in `cx`, its local slots mapped by `map`: what a derived struct's
/// `check_source_in` calls.
///
/// ```
/// use std::collections::BTreeMap;
/// use shapes::{Shape, Shaped};
///
/// #[derive(Shaped)]
/// struct Linear { #[shape("(d_out, d_in)")] weight: Shape }
///
/// let src = BTreeMap::from([("weight".to_string(), Shape::from([4, 3]))]);
/// assert_eq!(Linear::verify_source(&src).unwrap().get("d_in"), Some(3));
/// ```
#[inline(never)]
pub fn run_description(cx: &mut Checker, map: &SlotMap, src: &mut SourceCx<'_>, d: &Description) {
    let walk = Walk {
        pre: None,
        index: None,
    };
    run_with(d, cx, map, src, walk);
}

/// [`run_description`] with `walk` (the values given before checking, for a plan's choices).
pub(crate) fn run_with(
    d: &Description,
    cx: &mut Checker,
    map: &SlotMap,
    src: &mut SourceCx<'_>,
    walk: Walk<'_>,
) {
    // Its `ignore` globs are about the names under it, wherever it is read.
    if !d.ignore.is_empty() {
        src.ignore_here(d.ignore);
    }
    run(d.nodes, cx, map, src, walk);
    for ((op, lhs, rhs), info) in d.relations() {
        cx.where_cmp(*op, lhs, rhs, map, info);
    }
}

/// Runs `d` against values in memory rather than by name: `values` holds, in the order of
/// `d`'s nodes, the shape of each (`None` for an absent optional value, whose checks are
/// skipped). What a `#[shapes::check]` function's description is read with when its fast
/// path has found a mismatch: its nodes are its parameters (or its return value), each a
/// [`Node::Tensor`] named after it.
///
/// A description read this way holds tensors only: a node of another kind (a group, a
/// choice, a derived field) is read by name, and here it is an error naming it rather than
/// a check that silently does not run.
pub(crate) fn run_values(
    d: &Description,
    cx: &mut Checker,
    map: &SlotMap,
    values: &[Option<crate::shape::Shape>],
) {
    let mut values = values.iter();
    for node in d.nodes {
        let value = values.next().and_then(Option::as_ref);
        match node {
            Node::Tensor { checks, .. } => {
                if let Some(shape) = value {
                    cx.field(checks.info);
                    run_items(cx, checks.ops, checks.rest, map, shape.dims());
                }
            }
            Node::Tied { name, .. } | Node::Group { prefix: name, .. } => {
                cx.not_in_memory(name);
            }
            Node::Choice { .. } => cx.not_in_memory("a choice"),
            Node::Field(f) => cx.not_in_memory(f.name),
        }
    }
    for ((op, lhs, rhs), info) in d.relations() {
        cx.where_cmp(*op, lhs, rhs, map, info);
    }
}

/// Runs `nodes`, stopping early when the checker has given up.
fn run(nodes: &[Node], cx: &mut Checker, map: &SlotMap, src: &mut SourceCx<'_>, walk: Walk<'_>) {
    for node in nodes {
        if cx.gave_up() {
            return;
        }
        self::node(node, cx, map, src, walk);
    }
}

fn node(node: &Node, cx: &mut Checker, map: &SlotMap, src: &mut SourceCx<'_>, walk: Walk<'_>) {
    match node {
        Node::Tensor { name, checks } => {
            let mark = src.push(name);
            tensor(checks.info, (checks.ops, checks.rest), cx, map, src);
            src.pop(mark);
        }
        Node::Tied {
            name,
            checks,
            to,
            key,
        } => {
            let mark = src.push(name);
            cx.field(checks.info);
            if src.present() || src.tie(cx, mark, to, *key) {
                tensor(checks.info, (checks.ops, checks.rest), cx, map, src);
            }
            src.pop(mark);
        }
        Node::Group {
            prefix,
            field,
            repeat,
            optional,
            children,
        } => group(
            (prefix, field, repeat, *optional, children),
            cx,
            map,
            src,
            walk,
        ),
        Node::Choice {
            alternatives,
            optional,
            leading,
        } => {
            let by_index = leading
                .and_then(|var| walk.pre?.get(var))
                .zip(walk.index)
                .map(|(k, i)| usize::from(i >= k));
            // The alternative with the most of its tensors present, the first on a tie
            // (a relu FFN's `up` is also in the gated one: the gated one wins only with
            // its `gate`).
            let mut held = || {
                let mut best: Option<(usize, usize)> = None;
                for (k, a) in alternatives.iter().enumerate() {
                    let n = self::held(a, src);
                    if n > 0 && best.is_none_or(|(_, b)| n > b) {
                        best = Some((k, n));
                    }
                }
                best.map(|(k, _)| k)
            };
            let pick = match by_index {
                Some(k) => Some(k),
                None => held().or(if *optional { None } else { Some(0) }),
            };
            for child in pick.and_then(|k| alternatives.get(k)).into_iter() {
                run(child, cx, map, src, walk);
            }
        }
        Node::Field(f) => field(f, cx, map, src),
    }
}

type GroupParts<'n> = (
    &'n str,
    &'static Segment,
    &'n Option<(Option<Slot>, &'static FieldInfo)>,
    bool,
    &'static [Node],
);

fn group(
    (prefix, field, repeat, optional, children): GroupParts<'_>,
    cx: &mut Checker,
    map: &SlotMap,
    src: &mut SourceCx<'_>,
    walk: Walk<'_>,
) {
    let mark = src.push(prefix);
    // A group without a prefix adds no level to the paths either.
    let level = cx.level();
    let inner = if prefix.is_empty() {
        level
    } else {
        cx.enter_at(level, field);
        level + 1
    };
    let present = !optional || src.present();
    match repeat {
        _ if !present => {}
        None => run(children, cx, map, src, walk),
        Some((count, info)) => {
            cx.field(info);
            // A repeated group that matches nothing is an error unless optional (then it was
            // present, and needs an element too).
            let n = src.count(cx, 1);
            if let Some(slot) = count {
                src.bind_count(cx, *slot, n);
            }
            cx.enter_at(inner, &Segment::Index(0));
            for i in 0..n {
                if cx.gave_up() {
                    break;
                }
                let m = src.push_index(i);
                cx.index_at(inner, i);
                let walk = Walk {
                    index: Some(i),
                    ..walk
                };
                run(children, cx, map, src, walk);
                src.pop(m);
            }
            cx.leave_to(inner);
        }
    }
    cx.leave_to(level);
    src.pop(mark);
}

/// How many of `nodes` the source holds under the current name (a group counts once).
fn held(nodes: &[Node], src: &mut SourceCx<'_>) -> usize {
    nodes.iter().filter(|node| holds(node, src)).count()
}

/// Whether the source holds `node` (a tensor, or anything of a group) under the current name.
fn holds(node: &Node, src: &mut SourceCx<'_>) -> bool {
    let under = |name: &str, src: &mut SourceCx<'_>| {
        let mark = src.push(name);
        let found = src.present();
        src.pop(mark);
        found
    };
    match node {
        Node::Tensor { name, .. } | Node::Tied { name, .. } => under(name, src),
        Node::Group {
            prefix: "",
            children,
            ..
        } => held(children, src) > 0,
        Node::Group { prefix, .. } => under(prefix, src),
        Node::Choice { alternatives, .. } => alternatives.iter().any(|a| held(a, src) > 0),
        Node::Field(f) => under(f.name, src),
    }
}

/// A tensor's checks, on the shape the source holds under the current name.
fn tensor(
    info: &'static FieldInfo,
    (ops, rest): (&[ItemOp], Option<usize>),
    cx: &mut Checker,
    map: &SlotMap,
    src: &mut SourceCx<'_>,
) {
    cx.field(info);
    let start = src.mark(cx);
    if let Some(dims) = src.tensor(cx) {
        run_items(cx, ops, rest, map, dims);
    }
    src.tag(cx, start);
}

/// A derived struct's field (see [`FieldNode`]).
fn field(f: &'static FieldNode, cx: &mut Checker, map: &SlotMap, src: &mut SourceCx<'_>) {
    let level = cx.level();
    let tie_mark = src.prefix_mark();
    let mark = src.push(f.name);
    if let FieldLeaf::Tensor { torch, .. } = &f.leaf {
        src.note_torch(*torch);
    }
    // A nested struct, and a tensor in a sequence, are a path level of their own.
    let seq = f.wraps.contains(&Wrap::Seq);
    let entered = matches!(f.leaf, FieldLeaf::Nested { .. } | FieldLeaf::Own { .. }) || seq;
    if entered {
        cx.enter_at(level, &f.field);
    }
    // A nested struct's renames apply to the errors below it, until it is checked.
    let renames = match &f.leaf {
        FieldLeaf::Nested { renames, .. } if !renames.is_empty() => Some(*renames),
        _ => None,
    };
    if let Some(renames) = renames {
        cx.renames_at(level, renames);
    }
    match (&f.leaf, f.wraps) {
        // A tied tensor: absent is allowed when the tie holds (see `SourceCx::tie`).
        (
            FieldLeaf::Tensor {
                info,
                tied: Some((to, key)),
                ..
            },
            [Wrap::Option, inner @ ..],
        ) => {
            cx.field(info);
            if src.present() || src.tie(cx, tie_mark, to, *key) {
                wraps(f, inner, level, 0, true, cx, map, src);
            }
        }
        (_, wraps_all) => wraps(f, wraps_all, level, 0, false, cx, map, src),
    }
    if renames.is_some() {
        cx.renames_end(level);
    }
    if entered {
        cx.leave_to(level);
    }
    src.pop(mark);
}

/// Walks `rest` of `f`'s wrappers, `seqs` sequences entered on the way, then runs its leaf.
#[allow(clippy::too_many_arguments)]
fn wraps(
    f: &'static FieldNode,
    rest: &[Wrap],
    level: usize,
    seqs: usize,
    counted: bool,
    cx: &mut Checker,
    map: &SlotMap,
    src: &mut SourceCx<'_>,
) {
    match rest {
        [] => leaf(f, cx, map, src),
        [Wrap::Deref, inner @ ..] => wraps(f, inner, level, seqs, counted, cx, map, src),
        [Wrap::Option, inner @ ..] => {
            if src.present() {
                // The count belongs to a sequence outside any `Option`.
                wraps(f, inner, level, seqs, true, cx, map, src);
            }
        }
        [Wrap::Seq, inner @ ..] => {
            let at = level + 1 + seqs;
            cx.field(&f.count_info);
            let n = src.count(cx, f.min);
            if let (false, Some(slot)) = (counted, f.count) {
                src.bind_count(cx, map.get(usize::from(slot)), n);
            }
            cx.enter_at(at, &Segment::Index(0));
            for i in 0..n {
                let m = src.push_index(i);
                cx.index_at(at, i);
                wraps(f, inner, level, seqs + 1, true, cx, map, src);
                src.pop(m);
            }
            cx.leave_to(at);
        }
    }
}

fn leaf(f: &'static FieldNode, cx: &mut Checker, map: &SlotMap, src: &mut SourceCx<'_>) {
    match &f.leaf {
        FieldLeaf::Tensor {
            info, ops, rest, ..
        } => tensor(info, (ops, *rest), cx, map, src),
        FieldLeaf::Nested {
            run, map: child, ..
        } => run(cx, &map.then(child), src),
        FieldLeaf::Own { run } => run(cx, src),
    }
}
