//! [`Bindings`]: the values a verification gave the shape variables.

use core::fmt;
use std::borrow::Cow;

use smallvec::SmallVec;

use super::path::{Origin, RawOrigin, RawPath, Segment};
use crate::shape::Shape;

/// A variable's value: one size, or a sub-shape for a variadic `*name`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    /// A dim variable's size.
    Size(usize),
    /// A variadic's sub-shape.
    Shape(Shape),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Size(n) => write!(f, "{n}"),
            Value::Shape(s) => write!(f, "{s}"),
        }
    }
}

/// One bound variable, as [`Bindings::iter`] hands it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The variable's name.
    pub name: Cow<'static, str>,
    /// Its value.
    pub value: Value,
    /// Where the value came from.
    pub origin: Origin,
}

/// `Entry::slot` of a binding made by name, not by the checker (slots are below 64).
const NO_SLOT: u8 = u8::MAX;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    name: Cow<'static, str>,
    /// The checker's slot of the variable, or `NO_SLOT` for a value given by name.
    slot: u8,
    size: usize,
    /// Index into `shapes` for a variadic's sub-shape.
    shape: Option<u8>,
    origin: RawOrigin,
}

/// The values of a struct's shape variables after a successful `verify`, each with where it was
/// bound; also the way to pre-bind values before verifying (`verify_with`).
///
/// Up to 8 variables live inline and origins are kept in a compact form until asked for, so a
/// successful `verify` of a typical model returns its bindings without allocating.
///
/// ```
/// use shapes::Bindings;
/// let pre = Bindings::new().bind("heads", 12).bind("head_dim", 64);
/// assert_eq!(pre.get("heads"), Some(12));
/// assert_eq!(pre.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bindings {
    entries: SmallVec<[Entry; 8]>,
    /// The distinct paths the entries' origins point at (bindings made under the same struct
    /// share one; there are never more paths than bound variables, so never more than 8
    /// without allocating when there are no more than 8 variables).
    paths: SmallVec<[RawPath; 8]>,
    shapes: SmallVec<[Shape; 1]>,
}

// Hand-written and `#[inline]` (like `new`, `len`, `is_empty`): `verify()` builds one inside
// its checker, and an out-of-line constructor in another crate would be built elsewhere and
// copied in, ≈1.4 KB.
impl Default for Bindings {
    #[inline]
    fn default() -> Self {
        Bindings {
            entries: SmallVec::new(),
            paths: SmallVec::new(),
            shapes: SmallVec::new(),
        }
    }
}

impl Bindings {
    /// No bindings.
    #[inline]
    pub fn new() -> Self {
        Bindings::default()
    }

    /// These bindings with `name = size` added (replacing an earlier value of `name`).
    ///
    /// ```
    /// let b = shapes::Bindings::new().bind("d_model", 768);
    /// assert_eq!(b.get("d_model"), Some(768));
    /// ```
    pub fn bind(mut self, name: impl Into<Cow<'static, str>>, size: usize) -> Self {
        self.insert(name.into(), Value::Size(size), RawOrigin::GIVEN);
        self
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
        self.insert(name.into(), Value::Shape(shape.into()), RawOrigin::GIVEN);
        self
    }

    /// Adds a binding whose name is known not to be bound yet (the checker binds each slot
    /// once), skipping the search `insert` does.
    ///
    /// `slot` is the checker's slot of the variable, for [`origin_of_slot`](Self::origin_of_slot);
    /// `origin.path` an index from [`find_path`](Self::find_path) or
    /// [`push_path`](Self::push_path).
    #[inline(always)]
    pub(crate) fn push_slot(
        &mut self,
        slot: u8,
        name: &'static str,
        value: Value,
        origin: RawOrigin,
    ) {
        let (size, shape) = self.store(value);
        self.entries.push(Entry {
            name: Cow::Borrowed(name),
            slot,
            size,
            shape,
            origin,
        });
    }

    /// The index of the recorded path `root` / `segments`, if there is one.
    #[inline]
    pub(crate) fn find_path(&self, root: &'static str, segments: &[Segment]) -> Option<u8> {
        // At most one path per bound variable (64 in a scope): the index fits in a u8.
        let i = self.paths.iter().rposition(|p| p.is(root, segments))?;
        Some(u8::try_from(i).unwrap_or(u8::MAX))
    }

    /// Records `path` and returns its index.
    #[inline(always)]
    pub(crate) fn push_path(&mut self, path: RawPath) -> u8 {
        self.paths.push(path);
        // `len() >= 1` after the push.
        u8::try_from(self.paths.len() - 1).unwrap_or(u8::MAX)
    }

    #[inline(always)]
    fn store(&mut self, value: Value) -> (usize, Option<u8>) {
        match value {
            Value::Size(n) => (n, None),
            Value::Shape(s) => {
                self.shapes.push(s);
                // More than 255 variadics in one scope cannot come from derived code (64
                // variables at most); saturate rather than wrap.
                (
                    0,
                    Some(u8::try_from(self.shapes.len() - 1).unwrap_or(u8::MAX)),
                )
            }
        }
    }

    pub(crate) fn insert(&mut self, name: Cow<'static, str>, value: Value, origin: RawOrigin) {
        let (size, shape) = self.store(value);
        let entry = Entry {
            name,
            slot: NO_SLOT,
            size,
            shape,
            origin,
        };
        match self.entries.iter_mut().find(|e| e.name == entry.name) {
            Some(e) => *e = entry,
            None => self.entries.push(entry),
        }
    }

    /// Where the checker's `slot` was bound, if it is.
    pub(crate) fn origin_of_slot(&self, slot: usize) -> Option<Origin> {
        self.entries
            .iter()
            .find(|e| e.slot != NO_SLOT && usize::from(e.slot) == slot)
            .map(|e| e.origin.origin(&self.paths))
    }

    fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    fn value_of(&self, e: &Entry) -> Value {
        match e.shape.and_then(|i| self.shapes.get(usize::from(i))) {
            Some(s) => Value::Shape(s.clone()),
            None => Value::Size(e.size),
        }
    }

    /// The size bound to `name` (`None` when unbound or bound to a sub-shape).
    ///
    /// ```
    /// assert_eq!(shapes::Bindings::new().get("x"), None);
    /// ```
    pub fn get(&self, name: &str) -> Option<usize> {
        self.entry(name)
            .filter(|e| e.shape.is_none())
            .map(|e| e.size)
    }

    /// The sub-shape bound to the variadic `name`.
    ///
    /// ```
    /// assert_eq!(shapes::Bindings::new().get_shape("batch"), None);
    /// ```
    pub fn get_shape(&self, name: &str) -> Option<&Shape> {
        let i = self.entry(name)?.shape?;
        self.shapes.get(usize::from(i))
    }

    /// The value bound to `name`, size or shape.
    ///
    /// ```
    /// use shapes::{Bindings, Value};
    /// assert_eq!(Bindings::new().bind("n", 2).value("n"), Some(Value::Size(2)));
    /// ```
    pub fn value(&self, name: &str) -> Option<Value> {
        self.entry(name).map(|e| self.value_of(e))
    }

    /// Where `name`'s value came from.
    ///
    /// ```
    /// use shapes::{Bindings, Origin};
    /// assert_eq!(Bindings::new().bind("n", 2).origin("n"), Some(Origin::Given));
    /// ```
    pub fn origin(&self, name: &str) -> Option<Origin> {
        self.entry(name).map(|e| e.origin.origin(&self.paths))
    }

    /// Every binding, in the order the variables were bound.
    ///
    /// ```
    /// let b = shapes::Bindings::new().bind("a", 1).bind("b", 2);
    /// assert_eq!(b.iter().map(|x| x.name).collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Binding> + '_ {
        self.entries.iter().map(|e| Binding {
            name: e.name.clone(),
            value: self.value_of(e),
            origin: e.origin.origin(&self.paths),
        })
    }

    /// The number of bound variables.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is bound.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A table: one line per variable, `name  value  bound by …`.
impl fmt::Display for Bindings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rows: Vec<Binding> = self.iter().collect();
        let name_w = rows
            .iter()
            .map(|b| b.name.chars().count())
            .max()
            .unwrap_or(0);
        let values: Vec<String> = rows.iter().map(|b| b.value.to_string()).collect();
        let value_w = values.iter().map(|v| v.chars().count()).max().unwrap_or(0);
        for (b, v) in rows.iter().zip(&values) {
            writeln!(
                f,
                "{:<name_w$}  {:>value_w$}  bound by {}",
                b.name, v, b.origin
            )?;
        }
        Ok(())
    }
}
