//! Bindings made by name ([`Bindings::bind`] and its kin): plain data inline, what they own
//! in the bindings' `Extra`.

use std::borrow::Cow;

use super::{Bindings, Value};
use crate::shape::Shape;

/// A binding made by name. Plain data, so that the inline list of them has no drop glue to
/// run (every `verify()` drops a `Bindings`): a static name and a size are held here; an
/// owned name or a sub-shape (rare) is kept in the bindings' `Extra` and named by index.
#[derive(Debug, Clone, Copy)]
pub(super) struct Named {
    pub(super) name: NameAt,
    pub(super) value: NamedValue,
}

/// Where a [`Named`]'s name is.
#[derive(Debug, Clone, Copy)]
pub(super) enum NameAt {
    Static(&'static str),
    /// At this index of `Extra::names`.
    Owned(usize),
}

/// Where a [`Named`]'s value is.
#[derive(Debug, Clone, Copy)]
pub(super) enum NamedValue {
    Size(usize),
    /// At this index of `Extra::named_shapes`.
    Shape(usize),
}

impl Bindings {
    /// `n`'s name.
    #[inline]
    pub(super) fn name_of(&self, n: &Named) -> &str {
        match n.name {
            NameAt::Static(name) => name,
            NameAt::Owned(i) => self
                .extra
                .as_ref()
                .and_then(|x| x.names.get(i))
                .map_or("", String::as_str),
        }
    }

    /// `n`'s name, as a [`Binding`](super::Binding) holds it.
    pub(super) fn name_cow(&self, n: &Named) -> Cow<'static, str> {
        match n.name {
            NameAt::Static(name) => Cow::Borrowed(name),
            NameAt::Owned(_) => Cow::Owned(self.name_of(n).to_owned()),
        }
    }

    /// A value made by name: its size, or its sub-shape.
    #[inline]
    pub(super) fn named_value(&self, v: NamedValue) -> Result<usize, &Shape> {
        match v {
            NamedValue::Size(n) => Ok(n),
            NamedValue::Shape(i) => match self.extra.as_ref().and_then(|x| x.named_shapes.get(i)) {
                Some(shape) => Err(shape),
                // Unreachable: an index is only made by `keep_value`, which pushes its shape.
                None => Ok(0),
            },
        }
    }

    /// [`named_value`](Self::named_value) as a [`Value`].
    pub(super) fn named_to_value(&self, v: NamedValue) -> Value {
        match self.named_value(v) {
            Ok(n) => Value::Size(n),
            Err(shape) => Value::Shape(shape.clone()),
        }
    }

    /// The value bound by name to `name`.
    #[inline]
    pub(super) fn named(&self, name: &str) -> Option<Result<usize, &Shape>> {
        let n = self
            .named
            .iter()
            .find(|n| super::same_name(self.name_of(n), name))?;
        Some(self.named_value(n.value))
    }

    /// `name`, kept: a static name as it is, an owned one in `Extra`.
    pub(super) fn keep_name(&mut self, name: Cow<'static, str>) -> NameAt {
        match name {
            Cow::Borrowed(name) => NameAt::Static(name),
            Cow::Owned(name) => {
                let names = &mut self.extra_mut().names;
                names.push(name);
                NameAt::Owned(names.len() - 1)
            }
        }
    }

    /// `value`, kept: a size as it is, a sub-shape in `Extra`, where it replaces the
    /// sub-shape `old` if that is what the name held.
    pub(super) fn keep_value(&mut self, value: Value, old: Option<NamedValue>) -> NamedValue {
        match value {
            Value::Size(n) => NamedValue::Size(n),
            Value::Shape(shape) => {
                let shapes = &mut self.extra_mut().named_shapes;
                if let Some(NamedValue::Shape(i)) = old
                    && let Some(at) = shapes.get_mut(i)
                {
                    *at = shape;
                    return NamedValue::Shape(i);
                }
                shapes.push(shape);
                NamedValue::Shape(shapes.len() - 1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_names_and_sub_shapes_are_kept_once_and_replaced_in_place() {
        let b = Bindings::new()
            .bind(String::from("heads"), 12)
            .bind_shape("batch", [2, 3])
            .bind_shape("batch", [4])
            .bind("heads", 8);
        assert_eq!(b.get("heads"), Some(8));
        assert_eq!(b.get_shape("batch"), Some(&Shape::from([4])));
        assert_eq!(b.value("batch"), Some(Value::Shape(Shape::from([4]))));
        let names: Vec<_> = b.iter().map(|x| x.name.into_owned()).collect();
        assert_eq!(names, ["heads", "batch"]);
        let kept = b
            .extra
            .as_ref()
            .map(|x| (x.names.len(), x.named_shapes.len()));
        assert_eq!(kept, Some((1, 1)));
    }
}
