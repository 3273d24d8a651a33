//! [`Bindings`]: the values a verification gave the shape variables.

use std::borrow::Cow;

use smallvec::SmallVec;

use super::path::{
    FieldPath, KnownLevels, NO_FIELD, Origin, OriginKind, PathNode, ROOT_LEVEL, Segment,
};
use super::plan::FieldInfo;
use super::vars::VarTable;
use crate::shape::Shape;

mod binding;
mod named;
mod read;
mod table;

use self::named::{Named, NamedValue};

pub use self::binding::{Binding, Tie, Value};

/// A variable bound by the checker: its slot (the name is the scope table's), its value and
/// where it came from. Plain data, 24 bytes, so that recording one is a few stores and the
/// whole `Bindings` stays small enough to return cheaply.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// The size (unused for a variadic, whose sub-shape is in `Extra::shapes` under the same
    /// slot).
    size: usize,
    /// The field that bound it (`NO_FIELD` for none).
    field: &'static FieldInfo,
    /// The axis it was bound at.
    axis: u32,
    /// The innermost level of the path it was bound under (see [`Bindings::level`];
    /// `ROOT_LEVEL`: directly in the root struct).
    node: u16,
    /// The checker's slot of the variable.
    slot: u8,
    kind: OriginKind,
}

/// The values of a struct's shape variables after a successful `verify`, each with where it was
/// bound; also the way to pre-bind values before verifying (`verify_with`).
///
/// A successful `verify` that binds up to 8 variables under up to 8 distinct nested levels
/// returns its bindings without allocating (a variadic's sub-shape is the exception): names
/// stay in the struct's static table and origins in a compact form until asked for. Binding
/// up to two sizes by `&'static str` names (`Bindings::new().bind("heads", 12)…`, for
/// `verify_with`) allocates nothing either.
///
/// ```
/// use shapes::Bindings;
/// let pre = Bindings::new().bind("heads", 12).bind("head_dim", 64);
/// assert_eq!(pre.get("heads"), Some(12));
/// assert_eq!(pre.len(), 2);
/// ```
#[derive(Clone)]
pub struct Bindings {
    /// The names of the checker's slots (empty for bindings made by name only).
    table: &'static VarTable,
    /// The struct the origins' paths start at.
    root: &'static str,
    /// The checker's bindings, in the order they were made.
    entries: SmallVec<[Entry; 8]>,
    /// The levels of the origins' paths known before the checks ran: a fast verification's,
    /// where its struct's binders are (computed at compile time, `Binders::bind_order`).
    /// Level `i` is `known`'s `i`-th.
    known: &'static KnownLevels,
    /// The levels of the origins' paths recorded as the checks went: level
    /// `known.len() + i` is `nodes[i]`.
    nodes: SmallVec<[PathNode; 8]>,
    /// Bindings made by name ([`bind`](Bindings::bind)) for names not in `table`, in the order
    /// they were made: inline, so that pre-binding a few values allocates nothing.
    named: SmallVec<[Named; 2]>,
    /// What few bindings have, boxed so that the common case stays small to return.
    extra: Option<Box<Extra>>,
}

#[derive(Debug, Clone, Default)]
struct Extra {
    /// Variadic sub-shapes, by slot.
    shapes: Vec<(u8, Shape)>,
    /// The origins of given values that did not come from the caller (a checkpoint's
    /// config), by slot for the checker's entries and by name for `named`.
    stated: Vec<(u8, Origin)>,
    stated_named: Vec<(Cow<'static, str>, Origin)>,
    /// Tensors absent from a checkpoint because tied to another.
    tied: Vec<Tie>,
    /// Tensors of a checkpoint nothing describes, allowed by non-strict mode.
    allowed_unexpected: Vec<String>,
    /// The owned names and the sub-shapes of bindings made by name (see `named.rs`).
    names: Vec<String>,
    named_shapes: Vec<Shape>,
}

/// The table of a `Bindings` made by name.
static NO_VARS: VarTable = VarTable::new();

// Hand-written and `#[inline]` (like `new`, `len`, `is_empty`): `verify()` builds one inside
// its checker, and an out-of-line constructor in another crate would be built elsewhere and
// copied in.
impl Default for Bindings {
    #[inline]
    fn default() -> Self {
        Bindings::in_scope(&NO_VARS, "")
    }
}

impl Bindings {
    /// No bindings.
    #[inline]
    pub fn new() -> Self {
        Bindings::default()
    }

    /// No bindings yet, for the checker of the struct `root` whose scope is `table`.
    #[inline(always)]
    pub(crate) fn in_scope(table: &'static VarTable, root: &'static str) -> Self {
        Bindings {
            table,
            root,
            entries: SmallVec::new(),
            known: &KnownLevels::EMPTY,
            nodes: SmallVec::new(),
            named: SmallVec::new(),
            extra: None,
        }
    }

    /// These bindings with `name = size` added (replacing an earlier value of `name`).
    ///
    /// ```
    /// let b = shapes::Bindings::new().bind("d_model", 768);
    /// assert_eq!(b.get("d_model"), Some(768));
    /// ```
    #[inline(always)]
    pub fn bind(mut self, name: impl Into<Cow<'static, str>>, size: usize) -> Self {
        self.insert_size(name.into(), size);
        self
    }

    /// These bindings with `name = size` added as stated by a checkpoint (`origin` names the
    /// key), replacing an earlier value of `name`: what `verify_source` does with the keys a
    /// struct or plan declares.
    ///
    /// ```
    /// use shapes::{Bindings, verify::Origin};
    /// let origin = Origin::Config { key: "hidden_size".into() };
    /// let b = Bindings::new().bind_from("d_model", 768, origin.clone());
    /// assert_eq!((b.get("d_model"), b.origin("d_model")), (Some(768), Some(origin)));
    /// ```
    pub fn bind_from(
        mut self,
        name: impl Into<Cow<'static, str>>,
        size: usize,
        origin: Origin,
    ) -> Self {
        let name = name.into();
        self.insert(name.clone(), Value::Size(size));
        if !matches!(origin, Origin::Given) {
            let x = self.extra_mut();
            x.stated_named.retain(|(n, _)| *n != name);
            x.stated_named.push((name, origin));
        }
        self
    }

    /// Sets where the checker's given `slot` came from (a checkpoint key, not the caller).
    pub(crate) fn set_stated(&mut self, slot: u8, origin: Origin) {
        let x = self.extra_mut();
        x.stated.retain(|(s, _)| *s != slot);
        x.stated.push((slot, origin));
    }

    /// Records that `tie.tensor` is absent because tied (once, however many passes run).
    pub(crate) fn push_tie(&mut self, tie: Tie) {
        let x = self.extra_mut();
        if !x.tied.iter().any(|t| t.tensor == tie.tensor) {
            x.tied.push(tie);
        }
    }

    /// The tensors a checkpoint leaves out because they are tied to another, as declared by
    /// the struct or plan (see [`PlanNode::tied`](crate::verify::PlanNode::tied)).
    ///
    /// ```
    /// assert!(shapes::Bindings::new().tied().is_empty());
    /// ```
    pub fn tied(&self) -> &[Tie] {
        self.extra.as_ref().map_or(&[], |x| &x.tied)
    }

    /// Records the source's tensors nothing describes that non-strict mode allows.
    pub(crate) fn set_allowed_unexpected(&mut self, names: Vec<String>) {
        if !names.is_empty() {
            self.extra_mut().allowed_unexpected = names;
        }
    }

    /// The source's tensors that nothing describes, allowed by non-strict `verify_source`
    /// ([`SourceOptions::strict`](crate::verify::SourceOptions::strict)): warnings, sorted; empty
    /// after a strict check, which makes them errors.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use shapes::{Shape, Shaped, verify::SourceOptions};
    /// #[derive(Shaped)]
    /// struct Norm { #[shape("(d,)")] weight: Shape }
    /// let src = HashMap::from([("weight".to_string(), Shape::from([4])), ("step".to_string(), Shape::from([1]))]);
    /// let b = Norm::verify_source_options(&src, SourceOptions::new().strict(false)).unwrap();
    /// assert_eq!(b.allowed_unexpected(), ["step"]);
    /// ```
    pub fn allowed_unexpected(&self) -> &[String] {
        self.extra.as_ref().map_or(&[], |x| &x.allowed_unexpected)
    }

    fn stated_origin(&self, slot: u8) -> Option<&Origin> {
        let x = self.extra.as_ref()?;
        x.stated.iter().find(|(s, _)| *s == slot).map(|(_, o)| o)
    }

    fn named_origin(&self, name: &str) -> Origin {
        self.extra
            .as_ref()
            .and_then(|x| x.stated_named.iter().find(|(n, _)| n == name))
            .map_or(Origin::Given, |(_, o)| o.clone())
    }

    /// These bindings with the variadic `name` bound to a sub-shape.
    ///
    /// ```
    /// let b = shapes::Bindings::new().bind_shape("batch", [2, 3]);
    /// assert_eq!(b.get_shape("batch"), Some(&shapes::Shape::from([2, 3])));
    /// ```
    pub fn bind_shape(
        mut self,
        name: impl Into<Cow<'static, str>>,
        shape: impl Into<Shape>,
    ) -> Self {
        self.insert(name.into(), Value::Shape(shape.into()));
        self
    }

    /// Records the checker's binding of `slot` (bound once per verification, so never
    /// replacing one) to `size`, made under the path level `node` (from
    /// [`push_node`](Self::push_node), or [`ROOT_LEVEL`]).
    #[inline(always)]
    pub(crate) fn push_slot(
        &mut self,
        slot: u8,
        size: usize,
        field: &'static FieldInfo,
        axis: usize,
        node: u16,
        kind: OriginKind,
    ) {
        self.entries.push(Entry {
            size,
            field,
            axis: u32::try_from(axis).unwrap_or(u32::MAX),
            node,
            slot,
            kind,
        });
    }

    /// No bindings yet, whose origins' path levels `known` were computed before the checks
    /// ran (a fast verification's, from its struct's binders): entries name them by their
    /// index, and levels recorded later come after them.
    #[inline(always)]
    pub(crate) fn with_known_levels(mut self, known: &'static KnownLevels) -> Self {
        self.known = known;
        self
    }

    /// [`push_slot`](Self::push_slot) for a variadic bound to `shape`.
    pub(crate) fn push_slot_shape(
        &mut self,
        slot: u8,
        shape: Shape,
        field: &'static FieldInfo,
        axis: usize,
        node: u16,
        kind: OriginKind,
    ) {
        self.extra_mut().shapes.push((slot, shape));
        self.push_slot(slot, 0, field, axis, node, kind);
    }

    /// Records a path level, `segment` below `parent`, and returns its id; `None` when there
    /// are too many to number (the origin then stops at `parent`).
    #[inline(always)]
    pub(crate) fn push_node(&mut self, segment: Segment, parent: u16) -> Option<u16> {
        let id = u16::try_from(self.known.as_slice().len() + self.nodes.len())
            .ok()
            .filter(|&id| id != ROOT_LEVEL)?;
        self.nodes.push(PathNode { segment, parent });
        Some(id)
    }

    /// The path level `id`: known before the checks ran, or recorded.
    #[inline(always)]
    fn level(&self, id: u16) -> Option<&PathNode> {
        let id = usize::from(id);
        match id.checked_sub(self.known.as_slice().len()) {
            None => self.known.as_slice().get(id),
            Some(recorded) => self.nodes.get(recorded),
        }
    }

    fn extra_mut(&mut self) -> &mut Extra {
        self.extra.get_or_insert_default()
    }

    #[inline]
    fn shapes(&self) -> &[(u8, Shape)] {
        self.extra.as_ref().map_or(&[], |x| &x.shapes)
    }

    /// Whether the recorded level `id` is `segment` below `parent`, told cheaply: field names
    /// are compared as pointers to their static text (two copies of one name look different,
    /// and the caller then records the level again, which only costs room).
    #[inline(always)]
    pub(crate) fn is_node(&self, id: u16, segment: Segment, parent: u16) -> bool {
        self.level(id).is_some_and(|n| {
            n.parent == parent
                && match (n.segment, segment) {
                    (Segment::Field(a), Segment::Field(b)) => core::ptr::eq(a, b),
                    (Segment::Index(a), Segment::Index(b)) => a == b,
                    _ => false,
                }
        })
    }

    /// The sub-shape the checker bound to `slot`, if it is a variadic's.
    #[inline]
    pub(crate) fn shape_of_slot(&self, slot: usize) -> Option<&Shape> {
        self.shapes()
            .iter()
            .find(|(s, _)| usize::from(*s) == slot)
            .map(|(_, shape)| shape)
    }

    /// [`insert`](Self::insert) of a size: a name not bound yet is one push.
    #[inline]
    fn insert_size(&mut self, name: Cow<'static, str>, size: usize) {
        let fresh = self.extra.is_none()
            && !self
                .entries
                .iter()
                .any(|e| same_name(self.table.name(usize::from(e.slot)), &name))
            && !self.named.iter().any(|n| same_name(self.name_of(n), &name));
        if fresh {
            let name = self.keep_name(name);
            self.named.push(Named {
                name,
                value: NamedValue::Size(size),
            });
        } else {
            self.insert(name, Value::Size(size));
        }
    }

    fn insert(&mut self, name: Cow<'static, str>, value: Value) {
        let made = self
            .entries
            .iter()
            .position(|e| self.table.name(usize::from(e.slot)) == name);
        if let Some(e) = made.and_then(|i| self.entries.get_mut(i)) {
            // A variable the verification bound: the caller's value replaces it.
            let slot = e.slot;
            if let Some(x) = &mut self.extra {
                x.shapes.retain(|(s, _)| *s != slot);
                x.stated.retain(|(s, _)| *s != slot);
            }
            let size = match value {
                Value::Size(n) => n,
                Value::Shape(s) => {
                    self.extra.get_or_insert_default().shapes.push((slot, s));
                    0
                }
            };
            *e = Entry {
                size,
                field: &NO_FIELD,
                axis: 0,
                node: ROOT_LEVEL,
                slot,
                kind: OriginKind::Given,
            };
            return;
        }
        if let Some(x) = &mut self.extra {
            x.stated_named.retain(|(n, _)| *n != name);
        }
        let at = self.named.iter().position(|n| self.name_of(n) == name);
        let old = at.and_then(|i| self.named.get(i)).map(|n| n.value);
        let value = self.keep_value(value, old);
        match at.and_then(|i| self.named.get_mut(i)) {
            Some(entry) => entry.value = value,
            None => {
                let name = self.keep_name(name);
                self.named.push(Named { name, value });
            }
        }
    }

    /// Where the checker's `slot` was bound, if it is.
    pub(crate) fn origin_of_slot(&self, slot: usize) -> Option<Origin> {
        self.entries
            .iter()
            .find(|e| usize::from(e.slot) == slot)
            .map(|e| self.origin_of(e))
    }

    /// The path below the root down to the level `node`.
    fn segments_to(&self, node: u16) -> SmallVec<[Segment; 6]> {
        let mut segments: SmallVec<[Segment; 6]> = SmallVec::new();
        let mut at = node;
        // Parents are always recorded before their children, so this walks to the root; the
        // bound on the steps keeps it finite whatever the data.
        for _ in 0..=self.known.as_slice().len() + self.nodes.len() {
            match self.level(at) {
                Some(n) => {
                    segments.push(n.segment);
                    at = n.parent;
                }
                None => break,
            }
        }
        segments.reverse();
        segments
    }

    fn origin_of(&self, e: &Entry) -> Origin {
        let path = || {
            let mut segments = self.segments_to(e.node);
            if !e.field.name.is_empty() {
                segments.push(Segment::Field(e.field.name));
            }
            FieldPath::new(self.root, &segments)
        };
        match e.kind {
            OriginKind::Field => Origin::Field {
                path: path(),
                axis: e.axis as usize,
            },
            OriginKind::Solved => Origin::Solved { path: path() },
            OriginKind::Given => self.stated_origin(e.slot).cloned().unwrap_or(Origin::Given),
        }
    }

    fn value_of(&self, e: &Entry) -> Value {
        match self.shape_of_slot(usize::from(e.slot)) {
            Some(s) => Value::Shape(s.clone()),
            None => Value::Size(e.size),
        }
    }

    #[inline]
    fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| same_name(self.table.name(usize::from(e.slot)), name))
    }

    /// Calls `f` with every binding's name, its size (or sub-shape), and its origin when that
    /// is not the caller: what a checker presets, without building a [`Binding`] for each.
    pub(crate) fn for_each_given(
        &self,
        mut f: impl FnMut(&str, Result<usize, &Shape>, Option<Origin>),
    ) {
        for e in &self.entries {
            let value = match self.shape_of_slot(usize::from(e.slot)) {
                Some(shape) => Err(shape),
                None => Ok(e.size),
            };
            let origin = match self.origin_of(e) {
                Origin::Given => None,
                origin => Some(origin),
            };
            f(self.table.name(usize::from(e.slot)), value, origin);
        }
        for n in &self.named {
            let name = self.name_of(n);
            let origin = self
                .extra
                .as_ref()
                .and_then(|x| x.stated_named.iter().find(|(s, _)| s == name))
                .map(|(_, o)| o.clone());
            f(name, self.named_value(n.value), origin);
        }
    }
}

/// Whether two variable names are the same: the length first, then the address (a name
/// written once in a crate is often one static string), then the bytes, compared inline
/// (names are short: a call of `memcmp` per candidate cost more than the comparison).
#[inline(always)]
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    if core::ptr::eq(a.as_ptr(), b.as_ptr()) {
        return true;
    }
    a.iter().zip(b).all(|(x, y)| x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    static TABLE: VarTable = VarTable::new().with("d").with("e").with("batch");
    static W: FieldInfo = FieldInfo {
        name: "w",
        pattern: "(d, e)",
        place: crate::verify::Place::UNKNOWN,
    };

    /// What a checker records for `Model.layers[2].w` binding `d` and `e`, and `batch` as a
    /// variadic at the root.
    fn recorded() -> Bindings {
        let mut b = Bindings::in_scope(&TABLE, "Model");
        let layers = b.push_node(Segment::Field("layers"), ROOT_LEVEL);
        let two = b.push_node(Segment::Index(2), layers.unwrap());
        b.push_slot(0, 8, &W, 0, two.unwrap(), OriginKind::Field);
        b.push_slot(1, 4, &W, 1, two.unwrap(), OriginKind::Solved);
        b.push_slot_shape(
            2,
            Shape::from([2, 3]),
            &NO_FIELD,
            0,
            ROOT_LEVEL,
            OriginKind::Given,
        );
        b
    }

    #[test]
    fn stays_small_enough_to_return_cheaply() {
        // verify() moves it into its result: keep an eye on the size (the two inline names
        // are what lets `Bindings::new().bind(…)` allocate nothing, the binders' table what
        // lets most origins cost no path).
        assert!(core::mem::size_of::<Bindings>() <= 528);
    }

    #[test]
    fn origins_walk_the_tree_of_levels() {
        let b = recorded();
        assert_eq!(
            b.origin("d").map(|o| o.to_string()).as_deref(),
            Some("Model.layers[2].w axis 0")
        );
        assert_eq!(
            b.origin("e").map(|o| o.to_string()).as_deref(),
            Some("solving Model.layers[2].w")
        );
        assert_eq!(b.origin("batch"), Some(Origin::Given));
        assert_eq!(b.get_shape("batch"), Some(&Shape::from([2, 3])));
        assert_eq!((b.get("d"), b.get("batch")), (Some(8), None));
        assert_eq!(b.origin_of_slot(1), b.origin("e"));
        assert!(b.is_node(1, Segment::Index(2), 0));
        assert!(!b.is_node(1, Segment::Index(3), 0));
        assert!(!b.is_node(7, Segment::Index(2), 0));
    }

    #[test]
    fn binding_by_name_replaces_or_appends() {
        let b = recorded().bind("e", 5).bind("x", 1).bind("x", 2);
        let rows: Vec<(String, Value, Origin)> = b
            .iter()
            .map(|x| (x.name.into_owned(), x.value, x.origin))
            .collect();
        assert_eq!(rows.len(), 4);
        assert_eq!(b.len(), 4);
        assert_eq!(rows[1], ("e".into(), Value::Size(5), Origin::Given));
        assert_eq!(rows[3], ("x".into(), Value::Size(2), Origin::Given));
        // A verified variadic replaced by a size, and back.
        let b = b.bind("batch", 7);
        assert_eq!((b.get("batch"), b.get_shape("batch")), (Some(7), None));
        let b = b.bind_shape("batch", [1]);
        assert_eq!(b.value("batch"), Some(Value::Shape(Shape::from([1]))));
    }

    #[test]
    fn equality_is_what_iter_yields() {
        assert_eq!(recorded(), recorded());
        assert_ne!(recorded(), recorded().bind("d", 9));
        assert_eq!(
            Bindings::new().bind("a", 1).bind("b", 2),
            Bindings::new().bind("a", 1).bind("b", 2)
        );
        assert_ne!(
            Bindings::new().bind("a", 1).bind("b", 2),
            Bindings::new().bind("b", 2).bind("a", 1)
        );
        assert!(Bindings::new().is_empty());
        assert!(format!("{:?}", recorded()).contains("layers"));
    }
}
