//! What a model's checks are, as data: a [`Description`]. `#[derive(Shaped)]` emits one as a
//! constant (`Shaped::DESCRIPTION`), a run-time [`Plan`](super::Plan) builds one from a spec
//! file, the framework layers declare one, and `#[shapes::check]` emits one per group of a
//! function's checks; the interpreter (`interpret.rs`) reads them all.
//!
//! The nodes are `'static` and const-constructible: derived code writes them as constants, and
//! a plan leaks the ones it builds once (see [`Plan`](super::Plan)).

use super::by_name::{ConfigKey, SourceCx, TorchLayout};
use super::checker::Checker;
use super::item_ops::ItemOp;
use super::path::Segment;
use super::plan::{FieldInfo, Place, SlotExpr};
use super::vars::{Slot, SlotMap};
use crate::expr::CmpOp;

/// A compiled pattern: its items and, when it has a `...`/`*name`, where.
///
/// ```
/// use shapes::__private::{Checks, FieldInfo, ItemOp};
/// static W: FieldInfo = FieldInfo { name: "w", pattern: "(3, d)", place: shapes::verify::Place::UNKNOWN };
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
/// static W: FieldInfo = FieldInfo { name: "weight", pattern: "(d,)", place: shapes::verify::Place::UNKNOWN };
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
                place: Place::UNKNOWN,
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
            place: Place::UNKNOWN,
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

    /// A nested struct in this scope: its `check_source_in` and description, the map from its
    /// variables to this struct's locals, and its renames.
    pub const fn nested(
        name: &'static str,
        field: &'static str,
        wraps: &'static [Wrap],
        (run, description): (NestedRun, Option<&'static Description>),
        map: SlotMap,
        renames: &'static [(&'static str, &'static str)],
    ) -> FieldNode {
        let leaf = FieldLeaf::Nested {
            run,
            description,
            map,
            renames,
        };
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

    /// This tensor field with its pattern declared at `line`, `column` of `file`: what its
    /// errors name as [`declared_at`](super::ShapeErrorDetails::declared_at).
    ///
    /// ```
    /// use shapes::__private::{FieldLeaf, FieldNode};
    /// const W: FieldNode = FieldNode::tensor("w", "w", &[], "w", "(d,)", &[], None).at("m.rs", 3, 13);
    /// assert!(matches!(W.leaf, FieldLeaf::Tensor { info, .. } if info.place.line == 3));
    /// ```
    pub const fn at(mut self, file: &'static str, line: u32, column: u32) -> FieldNode {
        if let FieldLeaf::Tensor { info, .. } = &mut self.leaf {
            info.place = Place::at(file, line, column);
        }
        self
    }

    /// This field with its `count = "…"` declared at `line`, `column` of `file`, which the
    /// count's errors name.
    ///
    /// ```
    /// use shapes::__private::FieldNode;
    /// const L: FieldNode = FieldNode::tensor("l", "l", &[], "", "(d,)", &[], None)
    ///     .listed(1, Some(1), "(n,) = the number of elements")
    ///     .count_at("m.rs", 4, 30);
    /// assert_eq!(L.count_info.place.column, 30);
    /// ```
    pub const fn count_at(mut self, file: &'static str, line: u32, column: u32) -> FieldNode {
        self.count_info.place = Place::at(file, line, column);
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
        /// The nested struct's description, for what the scope takes from it besides its
        /// checks (its config keys).
        description: Option<&'static Description>,
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

/// A nested struct's `check_source_in`.
pub type NestedRun = fn(&mut Checker, &SlotMap, &mut SourceCx<'_>);

/// A `where` relation over local slots: `lhs op rhs`.
pub type Relation = (CmpOp, &'static SlotExpr, &'static SlotExpr);

/// A model's checks: its nodes, its `where` relations (equations first, each kind in the order
/// written), the variables its caller must give, the variables a checkpoint's config binds
/// (each with its keys, tried in order) and the tensors a checkpoint may hold that it neither
/// needs nor reports. What `#[derive(Shaped)]` emits as
/// [`Shaped::DESCRIPTION`](super::Shaped::DESCRIPTION), what a run-time
/// [`Plan`](super::Plan) builds from a spec file, and what `#[shapes::check]` emits for each
/// group of a function's checks; the one interpreter reads them all.
///
/// ```
/// use shapes::__private::{CmpOp, ConfigKey, Description, FieldInfo, FieldNode, ItemOp, Node, SlotExpr};
/// use shapes::verify::Place;
/// // Its nodes written in the literal, where the constants they build live as long as it.
/// const D: Description = Description {
///     nodes: &[Node::Field(&FieldNode::tensor("w", "w", &[], "w", "(a, b)", &[ItemOp::Var(0), ItemOp::Var(1)], None))],
///     wheres: &[(CmpOp::Le, &SlotExpr::Var(0), &SlotExpr::Var(1))],
///     where_infos: &[FieldInfo::at("", "", "m.rs", 2, 11)],
///     given: &["b"],
///     config: &[ConfigKey { var: "a", keys: &["hidden_size", "n_embd"] }],
///     config_places: &[Place::at("m.rs", 2, 20)],
///     ignore: &["optimizer.*"],
/// };
/// // Built from parts.
/// static NODES: [Node; 0] = [];
/// const E: Description = Description::new(&NODES, &[]).with_given(&["b"]).with_ignore(&["optimizer.*"]);
/// assert_eq!((E.given, E.ignore), (D.given, D.ignore));
/// assert_eq!((D.wheres.len(), D.given, D.ignore), (1, &["b"][..], &["optimizer.*"][..]));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Description {
    /// The tensors, groups and fields, in the order they are checked.
    pub nodes: &'static [Node],
    /// The `where` relations.
    pub wheres: &'static [Relation],
    /// What each relation's errors name, in the order of `wheres`: no field, no pattern, the
    /// place its `where` is written. A relation past its end is named by no place.
    pub where_infos: &'static [FieldInfo],
    /// The variables the caller is to give (`given`): a dim that waits for one not given says
    /// so.
    pub given: &'static [&'static str],
    /// The variables bound from a checkpoint's config, each with its keys in the order tried
    /// (`config(…)`; a spec file's `[config]`).
    pub config: &'static [ConfigKey],
    /// Where each of `config` is declared, in its order, which an error about its keys (a
    /// misspelt one) names. A binding past its end is named by no place.
    pub config_places: &'static [Place],
    /// Globs (`*`, `?`) of the tensors under this description that a checkpoint may hold and
    /// that are neither needed nor reported.
    pub ignore: &'static [&'static str],
}

impl Description {
    /// A description of `nodes` and `wheres`, with nothing given, bound from a config or
    /// ignored.
    pub const fn new(nodes: &'static [Node], wheres: &'static [Relation]) -> Description {
        Description {
            nodes,
            wheres,
            where_infos: &[],
            given: &[],
            config: &[],
            config_places: &[],
            ignore: &[],
        }
    }

    /// This description with `infos` naming its relations' places (see
    /// [`where_infos`](Self::where_infos)).
    pub const fn with_where_infos(mut self, infos: &'static [FieldInfo]) -> Description {
        self.where_infos = infos;
        self
    }

    /// The relations, each with what its errors name.
    pub(crate) fn relations(&self) -> impl Iterator<Item = (&Relation, &'static FieldInfo)> {
        let infos = self.where_infos;
        (self.wheres.iter().enumerate())
            .map(move |(i, r)| (r, infos.get(i).unwrap_or(&super::path::NO_FIELD)))
    }

    /// Its own config bindings (not its nested structs'), each with the place it is declared.
    pub(crate) fn own_config(&self) -> impl Iterator<Item = (ConfigKey, Place)> + '_ {
        let places = self.config_places.iter().copied();
        let places = places.chain(std::iter::repeat(Place::UNKNOWN));
        self.config.iter().copied().zip(places)
    }

    /// This description with `given` as the variables its caller gives.
    pub const fn with_given(mut self, given: &'static [&'static str]) -> Description {
        self.given = given;
        self
    }

    /// This description with `config` as the variables a checkpoint's config binds.
    pub const fn with_config(mut self, config: &'static [ConfigKey]) -> Description {
        self.config = config;
        self
    }

    /// This description with `places` as where its config bindings are declared (see
    /// [`config_places`](Self::config_places)).
    pub const fn with_config_places(mut self, places: &'static [Place]) -> Description {
        self.config_places = places;
        self
    }

    /// This description with `ignore` as the globs of the tensors it ignores.
    pub const fn with_ignore(mut self, ignore: &'static [&'static str]) -> Description {
        self.ignore = ignore;
        self
    }

    /// Appends the config keys of this description's scope, each with the place it is
    /// declared: its own, then those of the structs nested in it (not those in a scope of
    /// their own), their variables renamed into it. What `verify_source` binds from a
    /// checkpoint's config.
    pub(crate) fn config_keys(&self, out: &mut Vec<(ConfigKey, Place)>) {
        out.extend(self.own_config());
        for node in self.nodes {
            if let Node::Field(FieldNode {
                leaf:
                    FieldLeaf::Nested {
                        description: Some(child),
                        renames,
                        ..
                    },
                ..
            }) = node
            {
                let start = out.len();
                child.config_keys(out);
                for (key, _) in &mut out[start..] {
                    super::by_name::rename_config(std::slice::from_mut(key), renames);
                }
            }
        }
    }
}
