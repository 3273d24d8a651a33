//! [`Binder`]: the one field that binds a variable first on every run, and the place it
//! names as that variable's origin.

use smallvec::SmallVec;

use crate::verify::path::{FieldPath, Origin, Segment};

/// The field that binds a variable first, on every run (see the module docs).
///
/// ```
/// use shapes::__private::{Binder, Binders, VarTable};
/// const VARS: VarTable = VarTable::new().with("vocab").with("d_model");
/// static B: Binders = Binders::new().dims(&VARS, &["vocab", "d_model"], "weight", 0);
/// let b: &Binder = B.get(1).unwrap();
/// assert_eq!(b.origin("Embedding").to_string(), "Embedding.weight axis 1");
/// ```
#[derive(Debug, Clone, Copy)]
pub enum Binder {
    /// Dim `axis` of the struct's tensor field `name`, its `member`-th field.
    Dim {
        /// The field's name, as error paths print it.
        name: &'static str,
        /// The field's position among the struct's fields.
        member: u16,
        /// The axis.
        axis: u16,
    },
    /// The nested field `name` (its `member`-th field), in whose struct `child` binds it.
    Nested {
        /// The field's name, as error paths print it.
        name: &'static str,
        /// The field's position among the struct's fields.
        member: u16,
        /// The binder in the nested struct.
        child: &'static Binder,
    },
    /// Dim `axis` of the first tensor of the list field `name` (its `member`-th field): a
    /// conditional binder (the list may be empty), never read by a method.
    ElementDim {
        /// The field's name, as error paths print it.
        name: &'static str,
        /// The field's position among the struct's fields.
        member: u16,
        /// The axis.
        axis: u16,
    },
    /// The first element of the list field `name` (its `member`-th field), in whose struct
    /// `child` binds it: a conditional binder (the list may be empty), never read by a method.
    Element {
        /// The field's name, as error paths print it.
        name: &'static str,
        /// The field's position among the struct's fields.
        member: u16,
        /// The binder in the element's struct.
        child: &'static Binder,
    },
}

impl Binder {
    /// Whether the checks of the struct reach this binder before `other`, a binder of the
    /// same struct: the earlier field, then in one field the earlier axis.
    ///
    /// ```
    /// use shapes::__private::Binder;
    /// let at = |member, axis| Binder::Dim { name: "w", member, axis };
    /// assert!(at(0, 1).is_before(&at(1, 0)) && at(1, 0).is_before(&at(1, 1)));
    /// assert!(!at(1, 1).is_before(&at(1, 1)));
    /// ```
    pub const fn is_before(&self, other: &Binder) -> bool {
        let (mut a, mut b) = (self, other);
        // A chain of `&'static` references built at compile time ends at a `Dim`; the bound
        // keeps the walk finite whatever the data.
        let mut steps: usize = 0;
        while steps <= u8::MAX as usize {
            match (a, b) {
                // One field is reached one way: nested, or its list's first element.
                (
                    Binder::Nested {
                        member: m,
                        child: x,
                        ..
                    }
                    | Binder::Element {
                        member: m,
                        child: x,
                        ..
                    },
                    Binder::Nested {
                        member: n,
                        child: y,
                        ..
                    }
                    | Binder::Element {
                        member: n,
                        child: y,
                        ..
                    },
                ) if *m == *n => {
                    a = x;
                    b = y;
                }
                (
                    Binder::Dim {
                        member: m, axis: x, ..
                    }
                    | Binder::ElementDim {
                        member: m, axis: x, ..
                    },
                    Binder::Dim {
                        member: n, axis: y, ..
                    }
                    | Binder::ElementDim {
                        member: n, axis: y, ..
                    },
                ) if *m == *n => return *x < *y,
                _ => return a.member() < b.member(),
            }
            steps += 1;
        }
        false
    }

    /// The position of the binder's field among its struct's fields.
    pub(super) const fn member(&self) -> u16 {
        match self {
            Binder::Dim { member, .. }
            | Binder::ElementDim { member, .. }
            | Binder::Nested { member, .. }
            | Binder::Element { member, .. } => *member,
        }
    }

    /// Where a value read through this binder comes from, in a struct called `root`.
    pub fn origin(&self, root: &'static str) -> Origin {
        let mut segments: SmallVec<[Segment; 6]> = SmallVec::new();
        let mut at = self;
        // A chain of `&'static` references built at compile time ends at a `Dim`; the bound
        // keeps the walk finite whatever the data.
        for _ in 0..=u8::MAX {
            match at {
                Binder::Nested { name, child, .. } => {
                    segments.push(Segment::Field(name));
                    at = child;
                }
                Binder::Element { name, child, .. } => {
                    segments.push(Segment::Field(name));
                    segments.push(Segment::Index(0));
                    at = child;
                }
                Binder::Dim { name, axis, .. } | Binder::ElementDim { name, axis, .. } => {
                    segments.push(Segment::Field(name));
                    if matches!(at, Binder::ElementDim { .. }) {
                        segments.push(Segment::Index(0));
                    }
                    return Origin::Field {
                        path: FieldPath::new(root, &segments),
                        axis: usize::from(*axis),
                    };
                }
            }
        }
        Origin::Field {
            path: FieldPath::new(root, &segments),
            axis: 0,
        }
    }
}
