//! The one interpreter of by-name checks: a description's [`Node`]s run against a
//! [`SourceCx`] by the general [`Checker`]. A run-time [`Plan`](super::Plan) (what spec files
//! build) and a derived struct's `verify_source` (`#[derive(Shaped)]` emits its fields as
//! constant nodes) are both this description, read by this one walk.
//!
//! The nodes are `'static` and const-constructible: derived code writes them as constants, and
//! a plan leaks the ones it builds once (see [`Plan`](super::Plan)).

use super::bindings::Bindings;
use super::by_name::{SourceCx, TorchLayout};
use super::checker::Checker;
use super::item_checks::ItemChecks;
use super::item_ops::{ItemOp, run_items};
use super::path::Segment;
use super::plan::{FieldInfo, SlotExpr};
use super::scope_checks::ScopeChecks;
use super::vars::{Slot, SlotMap};
use crate::expr::CmpOp;

/// A compiled pattern: its items and, when it has a `...`/`*name`, where.
///
/// ```
/// use shapes::__private::{Checks, FieldInfo, ItemOp};
/// static W: FieldInfo = FieldInfo { name: "w", pattern: "(3, d)" };
/// let checks = Checks { info: &W, ops: &[ItemOp::Lit(3), ItemOp::Var(0)], rest: None };
/// assert_eq!(checks.ops.len(), 2);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Checks {
    /// The field and pattern errors name.
    pub info: &'static FieldInfo,
    /// The pattern's items, in local slots.
    pub ops: &'static [ItemOp],
    /// The index of its `...`/`*name`, if any.
    pub rest: Option<usize>,
}

/// One node of a description of by-name checks (see the module docs).
///
/// ```
/// use shapes::__private::{Checks, FieldInfo, Node};
/// static W: FieldInfo = FieldInfo { name: "weight", pattern: "(d,)" };
/// let node = Node::Tensor { name: "weight", checks: Checks { info: &W, ops: &[], rest: None } };
/// assert!(matches!(node, Node::Tensor { .. }));
/// ```
#[derive(Debug, Clone, Copy)]
pub enum Node {
    /// A tensor: its name (under the enclosing prefixes) and its checks.
    Tensor {
        /// The name in the source, joined to the enclosing prefixes with `.`.
        name: &'static str,
        /// Its pattern's checks.
        checks: Checks,
    },
    /// A tensor that may be absent when tied to `to` (see
    /// [`PlanNode::Tied`](super::PlanNode::Tied)).
    Tied {
        /// The name in the source.
        name: &'static str,
        /// Its pattern's checks.
        checks: Checks,
        /// The tensor it is tied to, under the same enclosing prefixes.
        to: &'static str,
        /// The key that states whether the tie is on.
        key: Option<&'static str>,
    },
    /// Tensors under a name prefix (see [`PlanNode::Group`](super::PlanNode::Group)).
    Group {
        /// The prefix; empty for none.
        prefix: &'static str,
        /// The path level a named prefix enters.
        field: &'static Segment,
        /// For a run `prefix.0`, `prefix.1`, …: the slot the count binds, if any, and the
        /// field its errors name.
        repeat: Option<(Option<Slot>, &'static FieldInfo)>,
        /// Whether the group may be absent.
        optional: bool,
        /// What it holds.
        children: &'static [Node],
    },
    /// One of several sets of nodes (see [`PlanNode::Choice`](super::PlanNode::Choice)).
    Choice {
        /// The alternatives.
        alternatives: &'static [&'static [Node]],
        /// Whether none may be present.
        optional: bool,
        /// The variable counting the leading elements that take the first alternative.
        leading: Option<&'static str>,
    },
    /// A field of a derived struct.
    Field(&'static FieldNode),
}

/// A field of a derived struct, read by name: its wrappers (an `Option` is present when the
/// source has something under the name, a sequence is `name.0`, `name.1`, … as far as the
/// source goes, with at least `min` elements), then its leaf. Derived code builds it with the
/// `const fn`s below.
///
/// ```
/// use shapes::__private::{FieldNode, ItemOp, Wrap};
/// const EXPERTS: FieldNode =
///     FieldNode::tensor("experts", "experts", &[Wrap::Seq], "", "(d,)", &[ItemOp::Var(0)], None)
///         .listed(1, Some(1), "(n,) = the number of elements");
/// assert_eq!(EXPERTS.wraps.len(), 1);
/// ```
#[derive(Debug)]
pub struct FieldNode {
    /// The name in the source (`name = "…"`/`prefix = "…"`, else the field's).
    pub name: &'static str,
    /// The field's name as the path level of a sequence or a nested struct.
    pub field: Segment,
    /// The wrappers around the leaf, outermost first.
    pub wraps: &'static [Wrap],
    /// The fewest elements a sequence has.
    pub min: usize,
    /// The local slot the first sequence's length binds (`count = "…"`).
    pub count: Option<u8>,
    /// What an error of that count names.
    pub count_info: FieldInfo,
    /// What the wrappers hold.
    pub leaf: FieldLeaf,
}

impl FieldNode {
    const fn new(
        name: &'static str,
        field: &'static str,
        wraps: &'static [Wrap],
        leaf: FieldLeaf,
    ) -> FieldNode {
        FieldNode {
            name,
            field: Segment::Field(field),
            wraps,
            min: 1,
            count: None,
            count_info: FieldInfo {
                name: "",
                pattern: "",
            },
            leaf,
        }
    }

    /// A tensor field named `name` in the source, `field` in Rust, whose errors name
    /// `info_name` (empty in a sequence, whose path names it) and `pattern`.
    pub const fn tensor(
        name: &'static str,
        field: &'static str,
        wraps: &'static [Wrap],
        info_name: &'static str,
        pattern: &'static str,
        ops: &'static [ItemOp],
        rest: Option<usize>,
    ) -> FieldNode {
        let info = FieldInfo {
            name: info_name,
            pattern,
        };
        let leaf = FieldLeaf::Tensor {
            info,
            ops,
            rest,
            tied: None,
            torch: TorchLayout::Same,
        };
        FieldNode::new(name, field, wraps, leaf)
    }

    /// A nested struct in this scope: its `check_source_in`, the map from its variables to
    /// this struct's locals, and its renames.
    pub const fn nested(
        name: &'static str,
        field: &'static str,
        wraps: &'static [Wrap],
        run: fn(&mut Checker, &SlotMap, &mut SourceCx<'_>),
        map: SlotMap,
        renames: &'static [(&'static str, &'static str)],
    ) -> FieldNode {
        let leaf = FieldLeaf::Nested { run, map, renames };
        FieldNode::new(name, field, wraps, leaf)
    }

    /// A nested struct in a scope of its own.
    pub const fn own(
        name: &'static str,
        field: &'static str,
        wraps: &'static [Wrap],
        run: fn(&mut Checker, &mut SourceCx<'_>),
    ) -> FieldNode {
        FieldNode::new(name, field, wraps, FieldLeaf::Own { run })
    }

    /// This field with its sequences holding at least `min` elements, the first one's length
    /// bound to the local `count` (its error showing `count_pattern`).
    pub const fn listed(
        mut self,
        min: usize,
        count: Option<u8>,
        count_pattern: &'static str,
    ) -> FieldNode {
        self.min = min;
        self.count = count;
        self.count_info.pattern = count_pattern;
        self
    }

    /// This tensor field laid out by PyTorch as `layout` says (a framework layer's tensor:
    /// burn's `Linear` weight is transposed), for the report of a checkpoint in PyTorch's
    /// layout.
    pub const fn torch(mut self, layout: TorchLayout) -> FieldNode {
        if let FieldLeaf::Tensor { torch, .. } = &mut self.leaf {
            *torch = layout;
        }
        self
    }

    /// This tensor field tied to `to` (see [`PlanNode::Tied`](super::PlanNode::Tied)), the tie
    /// stated by `key`.
    pub const fn tied(mut self, to: &'static str, key: Option<&'static str>) -> FieldNode {
        if let FieldLeaf::Tensor { tied, .. } = &mut self.leaf {
            *tied = Some((to, key));
        }
        self
    }
}

/// A wrapper of a derived field's value.
///
/// ```
/// assert_ne!(shapes::__private::Wrap::Option, shapes::__private::Wrap::Seq);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrap {
    /// A reference or a box: nothing to walk.
    Deref,
    /// An `Option`.
    Option,
    /// A sequence (`Vec`, a slice, an array).
    Seq,
}

/// What a derived field holds.
///
/// ```
/// use shapes::__private::{FieldLeaf, FieldNode};
/// const W: FieldNode = FieldNode::tensor("w", "w", &[], "w", "(d,)", &[], None).tied("embed", None);
/// assert!(matches!(W.leaf, FieldLeaf::Tensor { tied: Some(_), .. }));
/// ```
#[derive(Debug)]
pub enum FieldLeaf {
    /// A tensor, tied to another (`to`, and the key stating the tie) or not.
    Tensor {
        /// The field and pattern its errors name.
        info: FieldInfo,
        /// The pattern's items, in local slots.
        ops: &'static [ItemOp],
        /// The index of its `...`/`*name`, if any.
        rest: Option<usize>,
        /// `tied = "…"`, with `tie_key`.
        tied: Option<(&'static str, Option<&'static str>)>,
        /// How PyTorch lays it out, when the framework does otherwise.
        torch: TorchLayout,
    },
    /// A nested struct in this scope.
    Nested {
        /// The nested struct's `check_source_in`.
        run: fn(&mut Checker, &SlotMap, &mut SourceCx<'_>),
        /// Its variables in this struct's locals.
        map: SlotMap,
        /// `rename(inner = "outer")` pairs, for its errors' patterns.
        renames: &'static [(&'static str, &'static str)],
    },
    /// A nested struct in a scope of its own (`scope = "own"`).
    Own {
        /// Its verification, whose errors are absorbed.
        run: fn(&mut Checker, &mut SourceCx<'_>),
    },
}

/// A `where` relation over local slots: `lhs op rhs`.
pub type Relation = (CmpOp, &'static SlotExpr, &'static SlotExpr);

/// The by-name checks of a model: its nodes, then its `where` relations (equations first, each
/// kind in the order written). What `#[derive(Shaped)]` emits as
/// [`Shaped::DESCRIPTION`](super::Shaped::DESCRIPTION) and what a run-time
/// [`Plan`](super::Plan) builds from a spec file; [`run_description`] reads both.
///
/// ```
/// use shapes::__private::{CmpOp, Description, FieldNode, ItemOp, Node, SlotExpr};
/// const D: Description = Description {
///     nodes: &[Node::Field(&FieldNode::tensor("w", "w", &[], "w", "(a, b)", &[ItemOp::Var(0), ItemOp::Var(1)], None))],
///     wheres: &[(CmpOp::Le, &SlotExpr::Var(0), &SlotExpr::Var(1))],
/// };
/// assert_eq!(D.wheres.len(), 1);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Description {
    /// The tensors, groups and fields, in the order they are checked.
    pub nodes: &'static [Node],
    /// The `where` relations.
    pub wheres: &'static [Relation],
}

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
    run(d.nodes, cx, map, src, walk);
    for (op, lhs, rhs) in d.wheres {
        cx.where_cmp(*op, lhs, rhs, map);
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
    for (op, lhs, rhs) in d.wheres {
        cx.where_cmp(*op, lhs, rhs, map);
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
