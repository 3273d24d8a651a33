//! [`Plan`]: checks built at run time from pattern strings (a spec file, say): the same
//! [`Description`] a derived struct emits for `verify_source`, run by the same interpreter
//! (`interpret.rs`), in the same order and with the same messages.
//!
//! A plan is built from a tree of [`PlanNode`]s, the run-time twin of a derived struct's
//! fields: a tensor with its pattern, a group of tensors under a name prefix (a nested struct),
//! a repeated group (`layers.0`, `layers.1`, …, a `Vec` of nested structs) and optional
//! groups. Building it parses every pattern with the one parser, turns variables into slots of
//! one scope, and compiles each pattern item into an `ItemOp`.
//!
//! Errors name their struct, fields and patterns with `&'static str`s, as derived code's do
//! (they are part of every `ShapeError` and `Bindings`), and a description is `'static` data,
//! so a plan's description, names and patterns are leaked once, when it is built. A plan built again from the same nodes is the one built
//! before (the last 64 distinct ones are remembered: `remembered.rs`), so that a program that
//! loads the same spec for each checkpoint (`Spec::for_checkpoint`) leaks it once.

use core::fmt;

use super::bindings::Bindings;
use super::by_name::{ConfigKey, SourceCx, SourceOptions};
use super::checker::Checker;
use super::description::{Checks, Description, Node, Relation};
use super::drive::{Described, verify_by_name};
use super::error::ShapeErrors;
use super::interpret::{self, Walk};
use super::item_ops::ItemOp;
use super::path::{NO_FIELD, Segment};
use super::plan::{FieldInfo, Place, SlotExpr};
use super::vars::{MAX_VARS, Slot, SlotMap, VarTable};
use crate::expr::{CmpOp, DimExpr, Item, Pattern};
use crate::parse::{parse_constraints, parse_pattern};
use crate::source::ShapeSource;

mod error;
#[cfg(feature = "spec")]
mod fit;
mod node;
mod remembered;

#[cfg(feature = "spec")]
pub(crate) use remembered::file_name;

pub use self::error::{PlanError, PlanErrorKind};
#[cfg(feature = "spec")]
pub(crate) use self::fit::Fit;
pub use self::node::PlanNode;

/// Checks built at run time, run against a [`ShapeSource`] by the checker derived code uses.
///
/// ```
/// use std::collections::BTreeMap;
/// use shapes::{Plan, Shape, verify::PlanNode};
///
/// let plan = Plan::build(
///     "Model",
///     &[
///         PlanNode::tensor("embed.weight", "(vocab, d_model)"),
///         PlanNode::group("layers", vec![PlanNode::tensor("up.weight", "(d_ff, d_model)")])
///             .repeated(Some("n_layers")),
///     ],
///     &[],
/// )
/// .unwrap();
/// let mut src = BTreeMap::new();
/// src.insert("embed.weight".to_string(), Shape::from([100, 8]));
/// src.insert("layers.0.up.weight".to_string(), Shape::from([32, 8]));
/// src.insert("layers.1.up.weight".to_string(), Shape::from([32, 7]));
/// let err = plan.verify_source(&src).unwrap_err();
/// assert!(err.to_string().starts_with(
///     "Model.layers[1].up.weight (tensor \"layers.1.up.weight\"): axis 1 expected d_model = 8, found 7"
/// ));
/// ```
#[derive(Clone)]
pub struct Plan {
    root: &'static str,
    table: &'static VarTable,
    map: SlotMap,
    /// What it checks: the nodes and `where` relations, leaked with the names.
    description: Description,
}

impl fmt::Debug for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plan")
            .field("root", &self.root)
            .field("variables", &self.variables())
            .field("description", &self.description)
            .finish()
    }
}

/// Leaks `s` into a `&'static str` (see the module doc: once per plan).
fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

struct Builder {
    table: VarTable,
}

impl Builder {
    fn slot(&mut self, name: &str, at: &str) -> Result<Slot, PlanError> {
        if let Some(i) = self.table.index_of(name) {
            return Ok(Slot::new(i));
        }
        if self.table.len() >= MAX_VARS {
            return Err(PlanError {
                at: at.to_owned(),
                kind: PlanErrorKind::TooManyVariables,
            });
        }
        self.table = self.table.with(leak(name));
        Ok(Slot::new(self.table.len() - 1))
    }

    fn expr(&mut self, e: &DimExpr, at: &str) -> Result<&'static SlotExpr, PlanError> {
        let compiled = match e {
            DimExpr::Lit(n) => SlotExpr::Lit(*n),
            DimExpr::Var(v) => {
                let slot = self.slot(v.as_str(), at)?;
                SlotExpr::Var(slot.to_u8())
            }
            DimExpr::Bin(op, l, r) => SlotExpr::Bin(*op, self.expr(l, at)?, self.expr(r, at)?),
            DimExpr::Rank(_) => return unsupported(at, "`D` (rank of a shape)"),
            DimExpr::Prod(_) => return unsupported(at, "`Π`/`prod` (product of a shape)"),
            DimExpr::Sum(_) => return unsupported(at, "`Σ`/`sum` (sum of a shape)"),
            DimExpr::Index(..) => return unsupported(at, "indexing a shape"),
        };
        Ok(Box::leak(Box::new(compiled)))
    }

    fn checks(
        &mut self,
        field: &'static str,
        pattern: &str,
        place: Option<Place>,
        at: &str,
    ) -> Result<Checks, PlanError> {
        let parsed: Pattern = parse_pattern(pattern).map_err(|e| PlanError {
            at: at.to_owned(),
            kind: PlanErrorKind::Parse(e),
        })?;
        let mut ops = Vec::with_capacity(parsed.items.len());
        let mut rest = None;
        for (i, item) in parsed.items.iter().enumerate() {
            // The plan's map is the identity: a slot is its own local index.
            ops.push(match item {
                Item::Dim(DimExpr::Lit(n)) => ItemOp::Lit(*n),
                Item::Dim(DimExpr::Var(v)) => ItemOp::Var(self.slot(v.as_str(), at)?.to_u8()),
                Item::Dim(e) => ItemOp::Expr(self.expr(e, at)?),
                Item::Broadcast(DimExpr::Lit(n)) => ItemOp::BcastLit(*n),
                Item::Broadcast(DimExpr::Var(v)) => {
                    ItemOp::BcastVar(self.slot(v.as_str(), at)?.to_u8())
                }
                Item::Broadcast(_) | Item::Any => ItemOp::Skip,
                Item::Ellipsis => {
                    rest = Some(i);
                    ItemOp::Skip
                }
                Item::Variadic(v) => {
                    rest = Some(i);
                    ItemOp::Variadic(self.slot(v.as_str(), at)?.to_u8())
                }
            });
        }
        let info = Box::leak(Box::new(FieldInfo {
            name: field,
            pattern: leak(pattern),
            place: place.unwrap_or(Place::UNKNOWN),
        }));
        Ok(Checks {
            info,
            ops: Vec::leak(ops),
            rest,
        })
    }

    fn nodes(&mut self, nodes: &[PlanNode], at: &str) -> Result<Vec<Node>, PlanError> {
        nodes.iter().map(|n| self.node(n, at)).collect()
    }

    /// [`nodes`](Self::nodes), leaked: the children of a group or a choice.
    fn leaked(&mut self, nodes: &[PlanNode], at: &str) -> Result<&'static [Node], PlanError> {
        Ok(Vec::leak(self.nodes(nodes, at)?))
    }

    fn node(&mut self, node: &PlanNode, at: &str) -> Result<Node, PlanError> {
        match node {
            PlanNode::Tensor {
                name,
                pattern,
                place,
            } => {
                let here = join(at, name);
                // The field is the tensor's name under its group, so that the error path reads
                // `Model.layers[1].up.weight`; a derived field of that name reads the same.
                let field = leak(name);
                Ok(Node::Tensor {
                    name: field,
                    checks: self.checks(field, pattern, *place, &here)?,
                })
            }
            PlanNode::Tied {
                name,
                pattern,
                place,
                to,
                key,
            } => {
                let here = join(at, name);
                let field = leak(name);
                Ok(Node::Tied {
                    name: field,
                    checks: self.checks(field, pattern, *place, &here)?,
                    to: leak(to),
                    key: key.as_deref().map(leak),
                })
            }
            PlanNode::Group {
                prefix,
                repeat,
                optional,
                children,
                place,
            } => {
                let here = join(at, prefix);
                let name = leak(prefix);
                let field: &'static Segment = Box::leak(Box::new(Segment::Field(name)));
                let place = place.unwrap_or(Place::UNKNOWN);
                let repeat = match repeat {
                    None => None,
                    Some(None) if !place.is_known() => Some((None, &NO_FIELD)),
                    Some(None) => {
                        let info = FieldInfo::at("", "", place.file, place.line, place.column);
                        Some((None, &*Box::leak(Box::new(info))))
                    }
                    Some(Some(count)) => {
                        if !crate::parse::is_identifier(count) {
                            return Err(PlanError {
                                at: here,
                                kind: PlanErrorKind::BadCount(count.clone()),
                            });
                        }
                        let slot = self.slot(count, &here)?;
                        let text = leak(&format!("({count},) = the number of elements"));
                        let info: &'static FieldInfo = Box::leak(Box::new(FieldInfo {
                            name: "",
                            pattern: text,
                            place,
                        }));
                        Some((Some(slot), info))
                    }
                };
                Ok(Node::Group {
                    prefix: name,
                    field,
                    repeat,
                    optional: *optional,
                    children: self.leaked(children, &here)?,
                })
            }
            PlanNode::Choice {
                alternatives,
                optional,
                leading,
            } => {
                let leading = match leading {
                    None => None,
                    Some(var) if crate::parse::is_identifier(var) => {
                        // A variable of the plan, so that `bind_from` may bind it.
                        self.slot(var, at)?;
                        Some(leak(var))
                    }
                    Some(var) => {
                        return Err(PlanError {
                            at: at.to_owned(),
                            kind: PlanErrorKind::BadCount(var.clone()),
                        });
                    }
                };
                let alternatives = alternatives
                    .iter()
                    .map(|a| self.leaked(a, at))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Node::Choice {
                    alternatives: Vec::leak(alternatives),
                    optional: *optional,
                    leading,
                })
            }
        }
    }
}

fn unsupported<T>(at: &str, what: &'static str) -> Result<T, PlanError> {
    Err(PlanError {
        at: at.to_owned(),
        kind: PlanErrorKind::Unsupported(what),
    })
}

fn join(prefix: &str, part: &str) -> String {
    match (prefix.is_empty(), part.is_empty()) {
        (_, true) => prefix.to_owned(),
        (true, false) => part.to_owned(),
        (false, false) => format!("{prefix}.{part}"),
    }
}

impl Plan {
    /// Builds the plan of a model called `root` from its `nodes` and its `where` constraints
    /// (`"d_model = heads * head_dim"`, `"heads % kv_heads = 0, head_dim <= 256"`): every
    /// pattern parsed, every variable given a slot. An equation may determine a variable; the
    /// other comparisons are checked once their variables are bound.
    ///
    /// ```
    /// use shapes::{Plan, verify::PlanNode};
    /// let err = Plan::build("M", &[PlanNode::tensor("w", "(a b)")], &[]).unwrap_err();
    /// assert_eq!(err.to_string(), "w: expected ',' or ')', found 'b' at byte 3\n  (a b)\n     ^");
    /// ```
    pub fn build(root: &str, nodes: &[PlanNode], wheres: &[&str]) -> Result<Plan, PlanError> {
        let wheres: Vec<(&str, Place)> = wheres.iter().map(|w| (*w, Place::UNKNOWN)).collect();
        Plan::build_at(root, nodes, &wheres)
    }

    /// [`build`](Self::build) with each `where` string's place, which its errors name (a spec
    /// file's).
    pub(crate) fn build_at(
        root: &str,
        nodes: &[PlanNode],
        wheres: &[(&str, Place)],
    ) -> Result<Plan, PlanError> {
        remembered::build(root, nodes, wheres, || Self::build_new(root, nodes, wheres))
    }

    /// [`build_at`](Self::build_at) itself, leaking the plan's names.
    fn build_new(
        root: &str,
        nodes: &[PlanNode],
        wheres: &[(&str, Place)],
    ) -> Result<Plan, PlanError> {
        let mut b = Builder {
            table: VarTable::new(),
        };
        let nodes = b.nodes(nodes, "")?;
        let mut compiled = Vec::with_capacity(wheres.len());
        for &(text, place) in wheres {
            let at = || format!("where {text:?}");
            let all = parse_constraints(text).map_err(|e| PlanError {
                at: at(),
                kind: PlanErrorKind::Parse(e),
            })?;
            // What its errors name: no field, no pattern, its place.
            let info = FieldInfo::at("", "", place.file, place.line, place.column);
            for (lhs, op, rhs, _) in all {
                let relation = (op, b.expr(&lhs, &at())?, b.expr(&rhs, &at())?);
                compiled.push((relation, info));
            }
        }
        // The equations first, then the other comparisons, each in the order written: the
        // order derived code checks them in, so errors come in the same order.
        compiled.sort_by_key(|((op, ..), _)| *op != CmpOp::Eq);
        let (compiled, infos): (Vec<Relation>, Vec<FieldInfo>) = compiled.into_iter().unzip();
        let table: &'static VarTable = Box::leak(Box::new(b.table));
        Ok(Plan {
            root: leak(root),
            table,
            map: table.identity(),
            description: Description::new(Vec::leak(nodes), Vec::leak(compiled))
                .with_where_infos(Vec::leak(infos)),
        })
    }

    /// This plan with the source's tensors that `globs` match neither needed nor reported
    /// when nothing describes them (see [`SourceOptions::ignore`]: `*` any run of
    /// characters, `?` one).
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use shapes::{Plan, Shape, verify::PlanNode};
    /// let plan = Plan::build("Bert", &[PlanNode::tensor("w", "(n,)")], &[]).unwrap();
    /// let src = HashMap::from([
    ///     ("w".to_string(), Shape::from([3])),
    ///     ("pooler.dense.weight".to_string(), Shape::from([3, 3])),
    /// ]);
    /// assert!(plan.verify_source(&src).is_err());
    /// let plan = plan.ignore(["pooler.*"]);
    /// assert_eq!(plan.ignored(), ["pooler.*"]);
    /// assert!(plan.verify_source(&src).is_ok());
    /// ```
    pub fn ignore<I, S>(mut self, globs: I) -> Plan
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut all: Vec<String> = self.ignored().iter().map(|g| (*g).to_owned()).collect();
        for g in globs {
            let g = g.into();
            if !all.contains(&g) {
                all.push(g);
            }
        }
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        self.description.ignore = remembered::key_list(&all);
        self
    }

    /// The globs of the tensors the plan ignores (see [`ignore`](Self::ignore)).
    ///
    /// ```
    /// let plan = shapes::Plan::build("M", &[shapes::verify::PlanNode::tensor("w", "(n,)")], &[]).unwrap();
    /// assert!(plan.ignored().is_empty());
    /// ```
    pub fn ignored(&self) -> &[&'static str] {
        self.description.ignore
    }

    /// This plan with `names` as variables its caller is to give (a spec file's `given`): a
    /// dim that waits for one the caller did not give says so, rather than that nothing
    /// determines it.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use shapes::{Plan, Shape, verify::PlanNode};
    /// let plan = Plan::build("Attn", &[PlanNode::tensor("qkv", "(3 * heads * head_dim, d)")], &[])
    ///     .unwrap()
    ///     .given(&["heads"])
    ///     .unwrap();
    /// assert_eq!(plan.description().given, ["heads"]);
    /// let src = HashMap::from([("qkv".to_string(), Shape::from([48, 16]))]);
    /// let err = plan.verify_source(&src).unwrap_err();
    /// assert!(err.to_string().contains(
    ///     "axis 0 cannot check 3 * heads * head_dim: `heads` is `given`: pass it with `verify_with(Bindings::new().bind(\"heads\", …))` (`verify_source_with` for a checkpoint)"
    /// ), "{err}");
    /// let err = plan.given(&["haeds"]).unwrap_err();
    /// assert_eq!(err.to_string(), "given: \"haeds\" is not a variable of the plan (did you mean \"heads\"?)");
    /// ```
    pub fn given(mut self, names: &[&str]) -> Result<Plan, PlanError> {
        let mut all: Vec<&'static str> = self.description.given.to_vec();
        for name in names {
            let Some(i) = self.table.index_of(name) else {
                return Err(PlanError {
                    at: "given".to_owned(),
                    kind: PlanErrorKind::UnknownVariable {
                        name: (*name).to_owned(),
                        suggestion: crate::verify::suggest::closest(name, self.table.names()),
                    },
                });
            };
            let name = self.table.name(i);
            if !all.contains(&name) {
                all.push(name);
            }
        }
        self.description.given = remembered::key_list(&all);
        Ok(self)
    }

    /// This plan with `var` bound from the first of `keys` that a checkpoint states (its
    /// `config.json`, its metadata), when `verify_source` runs on a source that states keys
    /// (a [`Checkpoint`](crate::Checkpoint)): a given value, checked against the tensors, its
    /// origin naming the key. `{arch}` in a key stands for the checkpoint's architecture
    /// (GGUF `general.architecture`, or `model_type` in `config.json`); a dotted key also
    /// reaches into nested objects of `config.json` (`text_config.hidden_size`). A value the
    /// caller binds in [`SourceOptions`] wins over the checkpoint's.
    ///
    /// ```
    /// use shapes::{Plan, verify::PlanNode};
    /// let plan = Plan::build("Mlp", &[PlanNode::tensor("up.weight", "(d_ff, d_model)")], &[])
    ///     .unwrap()
    ///     .bind_from("d_ff", &["intermediate_size", "{arch}.feed_forward_length"])
    ///     .unwrap();
    /// assert_eq!(plan.key_bindings().next(), Some(("d_ff", &["intermediate_size", "{arch}.feed_forward_length"][..])));
    /// let err = plan.bind_from("d_mdoel", &["hidden_size"]).unwrap_err();
    /// assert_eq!(err.to_string(), "bind_from: \"d_mdoel\" is not a variable of the plan (did you mean \"d_model\"?)");
    /// ```
    pub fn bind_from(self, var: &str, keys: &[&str]) -> Result<Plan, PlanError> {
        self.bind_from_at(var, keys, Place::UNKNOWN)
    }

    /// [`bind_from`](Self::bind_from) with the place the keys are declared (a spec file's
    /// `[config]` entry), which an error about them names.
    pub(crate) fn bind_from_at(
        mut self,
        var: &str,
        keys: &[&str],
        place: Place,
    ) -> Result<Plan, PlanError> {
        let error = |kind| PlanError {
            at: "bind_from".to_owned(),
            kind,
        };
        let Some(i) = self.table.index_of(var) else {
            return Err(error(PlanErrorKind::UnknownVariable {
                name: var.to_owned(),
                suggestion: crate::verify::suggest::closest(var, self.table.names()),
            }));
        };
        if keys.is_empty() {
            return Err(error(PlanErrorKind::NoKeys));
        }
        let key = ConfigKey {
            var: self.table.name(i),
            keys: remembered::key_list(keys),
        };
        let mut all: Vec<(ConfigKey, Place)> = self.description.own_config().collect();
        all.retain(|(k, _)| k.var != key.var);
        all.push((key, place));
        let (keys, places): (Vec<ConfigKey>, Vec<Place>) = all.into_iter().unzip();
        self.description.config = remembered::config_list(&keys);
        self.description.config_places = remembered::place_list(&places);
        Ok(self)
    }

    /// The variables bound from checkpoint keys, each with its keys in the order they are
    /// tried (see [`bind_from`](Self::bind_from)).
    ///
    /// ```
    /// use shapes::{Plan, verify::PlanNode};
    /// let plan = Plan::build("M", &[PlanNode::tensor("w", "(a,)")], &[]).unwrap();
    /// assert_eq!(plan.key_bindings().count(), 0);
    /// ```
    pub fn key_bindings(
        &self,
    ) -> impl Iterator<Item = (&'static str, &'static [&'static str])> + '_ {
        self.description.config.iter().map(|k| (k.var, k.keys))
    }

    /// What the plan checks: the description a derived struct emits as its
    /// `Shaped::DESCRIPTION`, here built from the nodes and `where` clauses.
    ///
    /// ```
    /// use shapes::{Plan, verify::PlanNode};
    /// let plan = Plan::build("M", &[PlanNode::tensor("w", "(a, b)")], &["a <= b"]).unwrap();
    /// assert_eq!((plan.description().nodes.len(), plan.description().wheres.len()), (1, 1));
    /// ```
    #[doc(hidden)]
    pub fn description(&self) -> &Description {
        &self.description
    }

    /// The plan's variables, in order of first appearance.
    ///
    /// ```
    /// use shapes::{Plan, verify::PlanNode};
    /// let plan = Plan::build("M", &[PlanNode::tensor("w", "(d_out, d_in)")], &[]).unwrap();
    /// assert_eq!(plan.variables(), ["d_out", "d_in"]);
    /// ```
    pub fn variables(&self) -> &[&'static str] {
        self.table.names()
    }

    /// Verifies `src` strictly (every tensor of the source described), nothing pre-bound: what
    /// a derived struct's `verify_source` does.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use shapes::{Plan, Shape, verify::PlanNode};
    /// let plan = Plan::build("Linear", &[PlanNode::tensor("weight", "(d_out, d_in)")], &[]).unwrap();
    /// let src = HashMap::from([("weight".to_string(), Shape::from([4, 3]))]);
    /// assert_eq!(plan.verify_source(&src).unwrap().get("d_in"), Some(3));
    /// ```
    pub fn verify_source<S: ShapeSource + ?Sized>(&self, src: &S) -> Result<Bindings, ShapeErrors> {
        self.verify_source_options(src, SourceOptions::new())
    }

    /// [`verify_source`](Self::verify_source) with some variables pre-bound (the `given`
    /// ones, say), as a derived struct's `verify_source_with`.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use shapes::{Bindings, Plan, Shape, verify::PlanNode};
    /// let plan = Plan::build("Attn", &[PlanNode::tensor("qkv", "(heads * head_dim, d)")], &[])
    ///     .unwrap()
    ///     .given(&["heads"])
    ///     .unwrap();
    /// let src = HashMap::from([("qkv".to_string(), Shape::from([48, 16]))]);
    /// let b = plan.verify_source_with(&src, Bindings::new().bind("heads", 4)).unwrap();
    /// assert_eq!(b.get("head_dim"), Some(12));
    /// ```
    pub fn verify_source_with<S: ShapeSource + ?Sized>(
        &self,
        src: &S,
        pre: Bindings,
    ) -> Result<Bindings, ShapeErrors> {
        self.verify_source_options(src, SourceOptions::new().bindings(pre))
    }

    /// [`verify_source`](Self::verify_source) with pre-bound values and strictness.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use shapes::{Bindings, Plan, Shape, verify::{PlanNode, SourceOptions}};
    /// let plan = Plan::build("Linear", &[PlanNode::tensor("weight", "(d_out, d_in)")], &[]).unwrap();
    /// let src = HashMap::from([("weight".to_string(), Shape::from([4, 3]))]);
    /// let opts = SourceOptions::new().bindings(Bindings::new().bind("d_out", 5));
    /// let err = plan.verify_source_options(&src, opts).unwrap_err();
    /// assert!(err.to_string().contains("expected d_out = 5, found 4"));
    /// ```
    pub fn verify_source_options<S: ShapeSource + ?Sized>(
        &self,
        src: &S,
        options: SourceOptions,
    ) -> Result<Bindings, ShapeErrors> {
        let src = &src;
        let what = Described {
            root: self.root,
            table: self.table,
            description: Some(&self.description),
        };
        verify_by_name(what, src, &options, &|cx, src, pre| {
            self.check_source_in(cx, src, pre)
        })
    }

    /// One pass over the plan: what a derived `check_source_in` does.
    fn check_source_in(&self, cx: &mut Checker, src: &mut SourceCx<'_>, pre: &Bindings) {
        let walk = Walk {
            pre: Some(pre),
            index: None,
        };
        interpret::run_with(&self.description, cx, &self.map, src, walk);
    }
}
