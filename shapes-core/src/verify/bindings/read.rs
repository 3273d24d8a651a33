//! What a [`Bindings`] is asked: a variable's size, sub-shape, value or origin, every
//! binding in order, and equality and `Debug` over them.

use core::fmt;
use std::borrow::Cow;

use super::{Binding, Bindings, Value};
use crate::shape::Shape;
use crate::verify::path::Origin;

impl Bindings {
    /// The size bound to `name` (`None` when unbound or bound to a sub-shape).
    ///
    /// ```
    /// assert_eq!(shapes::Bindings::new().get("x"), None);
    /// ```
    #[inline]
    pub fn get(&self, name: &str) -> Option<usize> {
        match self.entry(name) {
            Some(e) => match self.shape_of_slot(usize::from(e.slot)) {
                Some(_) => None,
                None => Some(e.size),
            },
            None => self.named(name)?.ok(),
        }
    }

    /// The sub-shape bound to the variadic `name`.
    ///
    /// ```
    /// assert_eq!(shapes::Bindings::new().get_shape("batch"), None);
    /// ```
    pub fn get_shape(&self, name: &str) -> Option<&Shape> {
        match self.entry(name) {
            Some(e) => self.shape_of_slot(usize::from(e.slot)),
            None => self.named(name)?.err(),
        }
    }

    /// The value bound to `name`, size or shape.
    ///
    /// ```
    /// use shapes::{Bindings, Value};
    /// assert_eq!(Bindings::new().bind("n", 2).value("n"), Some(Value::Size(2)));
    /// ```
    pub fn value(&self, name: &str) -> Option<Value> {
        match self.entry(name) {
            Some(e) => Some(self.value_of(e)),
            None => self.named(name).map(|v| match v {
                Ok(n) => Value::Size(n),
                Err(shape) => Value::Shape(shape.clone()),
            }),
        }
    }

    /// Where `name`'s value came from.
    ///
    /// ```
    /// use shapes::{Bindings, verify::Origin};
    /// assert_eq!(Bindings::new().bind("n", 2).origin("n"), Some(Origin::Given));
    /// ```
    pub fn origin(&self, name: &str) -> Option<Origin> {
        match self.entry(name) {
            Some(e) => Some(self.origin_of(e)),
            None => self.named(name).map(|_| self.named_origin(name)),
        }
    }

    /// Every binding: those a verification made, in the order it made them, then those made
    /// by name, in the order they were added.
    ///
    /// ```
    /// let b = shapes::Bindings::new().bind("a", 1).bind("b", 2);
    /// assert_eq!(b.iter().map(|x| x.name).collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Binding> + '_ {
        let made = self.entries.iter().map(|e| Binding {
            name: Cow::Borrowed(self.table.name(usize::from(e.slot))),
            value: self.value_of(e),
            origin: self.origin_of(e),
        });
        let named = self.named.iter().map(|n| Binding {
            name: self.name_cow(n),
            value: self.named_to_value(n.value),
            origin: self.named_origin(self.name_of(n)),
        });
        Iter {
            inner: made.chain(named),
            left: self.len(),
        }
    }

    /// The number of bound variables.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len() + self.named.len()
    }

    /// Whether nothing is bound.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.named.is_empty()
    }
}

/// [`Bindings::iter`]'s iterator: a chain with its length known.
struct Iter<I> {
    inner: I,
    left: usize,
}

impl<I: Iterator<Item = Binding>> Iterator for Iter<I> {
    type Item = Binding;

    fn next(&mut self) -> Option<Binding> {
        let b = self.inner.next()?;
        self.left = self.left.saturating_sub(1);
        Some(b)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<I: Iterator<Item = Binding>> ExactSizeIterator for Iter<I> {}

/// Two `Bindings` are equal when they bind the same names to the same values from the same
/// origins, in the same order.
impl PartialEq for Bindings {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter()) && self.tied() == other.tied()
    }
}

impl Eq for Bindings {}

impl fmt::Debug for Bindings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}
