//! Where a struct's variables can be read without verifying it: what
//! `#[shapes::check(self)]` on a method uses to share the bindings of `self`'s fields.
//!
//! For each variable of a [`Shaped`] struct's scope, the derive knows which field binds it
//! first on every run: the first tensor field reached with no `Option` and no collection on the
//! way (through nested structs sharing the scope, under their renames) whose pattern has the
//! variable as a plain dim at a fixed axis (before any `...` or `*rest`). That field is its
//! [`Binder`], and the table of them, [`Binders`], is a constant built at compile time from the
//! nested structs' tables. Reading a variable is then one dim of one tensor
//! ([`Shaped::read_binder`]), and the binder names where the value came from when a method's
//! argument disagrees with it (`d_model = 384 bound by Bert.embeddings.word.weight axis 1`).
//!
//! A variable with no such binder (bound only inside arithmetic, only under an `Option` or a
//! `Vec`, only by a `count`, a `given` or a `where` equation) cannot be read this cheaply: a
//! method that uses it with `#[shapes::check(self)]` is a compile error naming it.

use smallvec::SmallVec;

use super::error::ShapeError;
use super::path::{FieldPath, Origin, Segment};
use super::shaped::Shaped;
use super::vars::{MAX_VARS, VarTable, rename};

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
                (
                    Binder::Nested {
                        member: m,
                        child: x,
                        ..
                    },
                    Binder::Nested {
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
                    },
                    Binder::Dim {
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
    const fn member(&self) -> u16 {
        match self {
            Binder::Dim { member, .. } | Binder::Nested { member, .. } => *member,
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
                Binder::Dim { name, axis, .. } => {
                    segments.push(Segment::Field(name));
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

/// Each variable's [`Binder`], by its index in the struct's [`VarTable`]: what the derive
/// emits as [`Shaped::BINDERS`], built in `const` context from the fields in order (the first
/// binder of a variable wins).
///
/// ```
/// use shapes::__private::{Binders, VarTable};
/// const CHILD: VarTable = VarTable::new().with("d");
/// static INNER: Binders = Binders::new().dims(&CHILD, &["d"], "w", 0);
/// const VARS: VarTable = VarTable::new().with("d_model").with("n");
/// static OUTER: Binders = Binders::new()
///     .nested(&VARS, &CHILD, &INNER, &[("d", "d_model")], "block", 0)
///     .dim(&VARS, "d_model", "other", 1, 0);
/// assert_eq!(OUTER.get(0).unwrap().origin("M").to_string(), "M.block.w axis 0");
/// assert!(OUTER.get(1).is_none());
/// ```
///
/// The table also knows which variables a tensor's dim may bind anywhere in the struct (`may`,
/// under an `Option` or in a collection too), and so which binders are the first dim that can
/// bind their variable on any run ([`first`](Self::first)): a verification that succeeds
/// names those as where the variable was bound without recording its path.
#[derive(Debug, Clone, Copy)]
pub struct Binders {
    at: [Option<Binder>; MAX_VARS],
    /// Bit `i`: a dim of a field listed so far may bind the variable at `i`.
    may: u64,
    /// Bit `i`: the variable at `i` has a binder, and no dim before it may bind it.
    first: u64,
}

impl Binders {
    /// No variable has a binder: what a hand-written `Shaped` impl has by default.
    pub const NONE: Binders = Binders::new();

    /// An empty table, for a struct whose checks may bind any variable anywhere: no binder
    /// added to it is [`first`](Self::first). A hand-written impl starts here.
    pub const fn new() -> Self {
        Binders {
            at: [None; MAX_VARS],
            may: u64::MAX,
            first: 0,
        }
    }

    /// An empty table to which every field is added in the order the checks visit them,
    /// binders or not (with [`may`](Self::may), [`may_nested`](Self::may_nested) for the
    /// others), so it knows which binders come first. The derive starts here.
    ///
    /// ```
    /// use shapes::__private::{Binders, VarTable};
    /// const VARS: VarTable = VarTable::new().with("n").with("d");
    /// // `mask: Option<Tensor>` "(n,)" comes before `w` "(n, d)".
    /// const B: Binders = Binders::listed().may(0b01).dims(&VARS, &["n", "d"], "w", 1);
    /// assert_eq!((B.mask(), B.first()), (0b11, 0b10));
    /// ```
    pub const fn listed() -> Self {
        Binders {
            at: [None; MAX_VARS],
            may: 0,
            first: 0,
        }
    }

    /// The table with the variables of `bits` (bit `i` for the variable at `i`) bound by
    /// some dim of the field just added, or of a field that binds nothing for sure.
    pub const fn may(mut self, bits: u64) -> Self {
        self.may |= bits;
        self
    }

    /// [`may`](Self::may) for the variables that the nested field of struct `child_vars`,
    /// `child` (renamed through `renames`), may bind.
    ///
    /// ```
    /// use shapes::__private::{Binders, VarTable};
    /// const CHILD: VarTable = VarTable::new().with("d");
    /// static INNER: Binders = Binders::listed().dims(&CHILD, &["d"], "w", 0);
    /// const VARS: VarTable = VarTable::new().with("n").with("d_model");
    /// // `blocks: Vec<Block>` may bind `d_model` before `out` "(n, d_model)".
    /// const B: Binders = Binders::listed()
    ///     .may_nested(&VARS, &CHILD, &INNER, &[("d", "d_model")])
    ///     .dims(&VARS, &["n", "d_model"], "out", 1);
    /// assert_eq!((B.mask(), B.first()), (0b11, 0b01));
    /// ```
    pub const fn may_nested(
        mut self,
        vars: &VarTable,
        child_vars: &VarTable,
        child: &Binders,
        renames: &[(&'static str, &'static str)],
    ) -> Self {
        let mut j = 0;
        while j < child_vars.len() && j < MAX_VARS {
            if child.may & (1 << j) != 0
                && let Some(i) = vars.index_of(rename(child_vars.name(j), renames))
                && i < MAX_VARS
            {
                self.may |= 1 << i;
            }
            j += 1;
        }
        self
    }

    /// The variables whose binder is the first dim that can bind them on any run (bit `i` for
    /// the variable at `i`): nothing before it may bind them, in a table built with
    /// [`listed`](Self::listed).
    pub const fn first(&self) -> u64 {
        self.first
    }

    /// The table with `var` (a variable of `vars`, the struct's table) bound at `axis` of the
    /// tensor field `name`, unless an earlier field binds it.
    pub const fn dim(
        self,
        vars: &VarTable,
        var: &str,
        name: &'static str,
        member: u16,
        axis: u16,
    ) -> Self {
        match vars.index_of(var) {
            Some(i) => self.dim_at(i, name, member, axis),
            None => self,
        }
    }

    /// [`dim`](Self::dim) for the variable at `index` in the struct's table.
    pub const fn dim_at(
        mut self,
        index: usize,
        name: &'static str,
        member: u16,
        axis: u16,
    ) -> Self {
        if index < MAX_VARS && self.at[index].is_none() {
            // ok: `index < MAX_VARS`, checked just above.
            self.at[index] = Some(Binder::Dim { name, member, axis });
            if self.may & (1 << index) == 0 {
                self.first |= 1 << index;
            }
        }
        self
    }

    /// [`dim`](Self::dim) for every axis of a tensor whose pattern is `(vars[0], vars[1], …)`.
    pub const fn dims(
        mut self,
        vars: &VarTable,
        names: &[&str],
        name: &'static str,
        member: u16,
    ) -> Self {
        let mut axis = 0;
        while axis < names.len() && axis <= u16::MAX as usize {
            // ok: `axis < names.len()` (the loop condition).
            self = self.dim(vars, names[axis], name, member, axis as u16);
            axis += 1;
        }
        self.may_dims(vars, names)
    }

    /// [`may`](Self::may) for the variables of a tensor whose pattern is `(names[0],
    /// names[1], …)`, and that binds nothing for sure (an optional bias).
    ///
    /// ```
    /// use shapes::__private::{Binders, VarTable};
    /// const VARS: VarTable = VarTable::new().with("d_out").with("d_in");
    /// // An optional `scale` "(d_out,)" before the required `weight`.
    /// const B: Binders = Binders::listed()
    ///     .may_dims(&VARS, &["d_out"])
    ///     .dims(&VARS, &["d_out", "d_in"], "weight", 1);
    /// assert_eq!(B.first(), 0b10);
    /// ```
    pub const fn may_dims(mut self, vars: &VarTable, names: &[&str]) -> Self {
        let mut axis = 0;
        while axis < names.len() {
            // ok: `axis < names.len()` (the loop condition).
            if let Some(i) = vars.index_of(names[axis])
                && i < MAX_VARS
            {
                self.may |= 1 << i;
            }
            axis += 1;
        }
        self
    }

    /// The table with the binders of the nested field `name` (a struct whose table is
    /// `child_vars` and binders `child`, its variables renamed through `renames`) for every
    /// variable no earlier field binds.
    ///
    /// When several of the child's variables are renamed to one of this table's (a linear
    /// layer's `d_in` and `d_out` both to `d_model`), the child's binder that its checks reach
    /// first is the binder; it is [`first`](Self::first) if each of them is first in the child
    /// and nothing before the field may bind the variable.
    pub const fn nested(
        mut self,
        vars: &VarTable,
        child_vars: &VarTable,
        child: &'static Binders,
        renames: &[(&'static str, &'static str)],
        name: &'static str,
        member: u16,
    ) -> Self {
        // The variables given a binder by this field, and those of them that stay first.
        let mut fresh: u64 = 0;
        let mut first: u64 = 0;
        let mut j = 0;
        while j < child_vars.len() && j < MAX_VARS {
            // ok: `j < MAX_VARS` (the loop condition).
            if let Some(b) = &child.at[j]
                && let Some(i) = vars.index_of(rename(child_vars.name(j), renames))
                && i < MAX_VARS
            {
                let earlier = match &self.at[i] {
                    None => true,
                    Some(Binder::Nested { child: other, .. }) => {
                        fresh & (1 << i) != 0 && b.is_before(other)
                    }
                    Some(_) => false,
                };
                if earlier {
                    if fresh & (1 << i) == 0 {
                        fresh |= 1 << i;
                        first |= (!self.may) & (1 << i);
                    }
                    // ok: `i < MAX_VARS`, checked just above.
                    self.at[i] = Some(Binder::Nested {
                        name,
                        member,
                        child: b,
                    });
                }
            }
            j += 1;
        }
        // A variable stays first only if every child variable renamed to it that the child
        // may bind is first in the child.
        let mut j = 0;
        while j < child_vars.len() && j < MAX_VARS {
            if child.may & (1 << j) != 0
                && child.first & (1 << j) == 0
                && let Some(i) = vars.index_of(rename(child_vars.name(j), renames))
                && i < MAX_VARS
            {
                first &= !(1 << i);
            }
            j += 1;
        }
        self.first |= first;
        self.may_nested(vars, child_vars, child, renames)
    }

    /// The variables that have a binder (bit `i` for the variable at `i`): those the struct's
    /// checks bind for sure, on every run that does not fail.
    ///
    /// ```
    /// use shapes::__private::{Binders, VarTable};
    /// const VARS: VarTable = VarTable::new().with("n").with("d");
    /// const B: Binders = Binders::new().dim(&VARS, "d", "w", 0, 0);
    /// assert_eq!(B.mask(), 0b10);
    /// ```
    pub const fn mask(&self) -> u64 {
        let mut mask = 0;
        let mut i = 0;
        while i < MAX_VARS {
            // ok: `i < MAX_VARS` (the loop condition).
            if self.at[i].is_some() {
                mask |= 1 << i;
            }
            i += 1;
        }
        mask
    }

    /// The binder of the variable at `var` in the struct's table.
    pub const fn get(&'static self, var: usize) -> Option<&'static Binder> {
        if var < MAX_VARS {
            // ok: `var < MAX_VARS`, checked just above.
            self.at[var].as_ref()
        } else {
            None
        }
    }
}

impl Default for Binders {
    fn default() -> Self {
        Binders::new()
    }
}

/// The binder of `S`'s variable `name`: `None` when `S` has no such variable (the method's
/// own) or no binder for it (a compile error, see [`shares_var`]).
pub const fn struct_binder<S: Shaped + ?Sized>(name: &str) -> Option<&'static Binder> {
    match S::VARS.index_of(name) {
        Some(i) => S::BINDERS.get(i),
        None => None,
    }
}

/// Whether a method of `S` checked with `#[shapes::check(self)]` may use `name`: it is the
/// method's own (not a variable of `S`), or `S` has a binder for it and the method uses it as a
/// single dim (`variadic` false). Generated code asserts it in a `const`.
pub const fn shares_var<S: Shaped + ?Sized>(name: &str, variadic: bool) -> bool {
    match S::VARS.index_of(name) {
        None => true,
        Some(i) => !variadic && S::BINDERS.get(i).is_some(),
    }
}

/// Bit `k` set when `names[k]` is a variable of `S` (read from `self`): which of the
/// variables the arguments alone cannot determine the struct provides.
pub const fn shared_mask<S: Shaped + ?Sized>(names: &[&str]) -> usize {
    let mut mask = 0;
    let mut k = 0;
    while k < names.len() && k < usize::BITS as usize {
        // ok: `k < names.len()` (the loop condition).
        if S::VARS.index_of(names[k]).is_some() {
            mask |= 1 << k;
        }
        k += 1;
    }
    mask
}

/// The error of a method whose `self` cannot be read: a binder's tensor lacks the axis, so
/// the struct does not verify; its verification says why.
#[cold]
#[inline(never)]
pub fn struct_error<S: Shaped + ?Sized>(s: &S) -> ShapeError {
    match s.verify() {
        Err(e) => e,
        Ok(_) => ShapeError::unrecorded(S::NAME),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHILD: VarTable = VarTable::new().with("d_out").with("d_in");
    static LINEAR: Binders = Binders::new().dims(&CHILD, &["d_out", "d_in"], "weight", 0);
    const PARENT: VarTable = VarTable::new()
        .with("seq")
        .merge(&CHILD, &[("d_in", "d_model"), ("d_out", "d_model")]);
    static MODEL: Binders = proj(Binders::new(), &LINEAR, 1)
        .dim(&PARENT, "seq", "pos", 0, 0)
        .dim(&PARENT, "d_model", "pos", 0, 1);

    /// `t` with the nested field `proj`, a linear layer (`CHILD`) with binders `child` whose
    /// widths are both renamed `d_model`.
    const fn proj(t: Binders, child: &'static Binders, member: u16) -> Binders {
        t.nested(
            &PARENT,
            &CHILD,
            child,
            &[("d_in", "d_model"), ("d_out", "d_model")],
            "proj",
            member,
        )
    }

    #[test]
    fn a_binder_is_first_when_nothing_before_it_may_bind_its_variable() {
        // A linear layer's weight binds `d_out` at axis 0 and `d_in` at axis 1, its optional
        // bias `d_out` again.
        static LISTED: Binders = Binders::listed()
            .dims(&CHILD, &["d_out", "d_in"], "weight", 0)
            .may_dims(&CHILD, &["d_out"]);
        assert_eq!((LISTED.mask(), LISTED.first()), (0b11, 0b11));
        // Both renamed to `d_model`: the binder is the axis the checks reach first, and it is
        // first; `seq` comes after an optional field that may bind it.
        static PROJ: Binders =
            proj(Binders::listed().may(0b01), &LISTED, 1).dim(&PARENT, "seq", "pos", 2, 0);
        assert_eq!((PROJ.mask(), PROJ.first()), (0b11, 0b10));
        assert_eq!(
            PROJ.get(1).map(|b| b.origin("M").to_string()).as_deref(),
            Some("M.proj.weight axis 0")
        );
        // A hand-written child may bind any of its variables anywhere: none of them is
        // first, while a variable it does not have is.
        static HAND: Binders = proj(Binders::listed(), &LINEAR, 0).dim(&PARENT, "seq", "pos", 1, 0);
        assert_eq!((HAND.mask(), HAND.first()), (0b11, 0b01));
        // The child's later axis does not replace its earlier one, whatever the table order.
        const SWAPPED: VarTable = VarTable::new().with("d_in").with("d_out");
        static SW: Binders = Binders::listed().dims(&SWAPPED, &["d_out", "d_in"], "weight", 0);
        static SW_PARENT: Binders = Binders::listed().nested(
            &PARENT,
            &SWAPPED,
            &SW,
            &[("d_in", "d_model"), ("d_out", "d_model")],
            "proj",
            0,
        );
        assert!(matches!(
            SW_PARENT.get(1),
            Some(Binder::Nested {
                child: Binder::Dim { axis: 0, .. },
                ..
            })
        ));
        assert_eq!(SW_PARENT.first(), 0b10);
    }

    #[test]
    fn the_first_binder_wins_through_renames() {
        assert_eq!(PARENT.names(), &["seq", "d_model"]);
        let origin = |i: usize| MODEL.get(i).map(|b| b.origin("Model").to_string());
        assert_eq!(origin(0).as_deref(), Some("Model.pos axis 0"));
        // `d_out` and `d_in` both map to `d_model`: the first axis of the nested weight wins,
        // and the later own field does not replace it.
        assert_eq!(origin(1).as_deref(), Some("Model.proj.weight axis 0"));
        assert!(MODEL.get(2).is_none() && MODEL.get(MAX_VARS).is_none());
        match MODEL.get(1) {
            Some(Binder::Nested { member, child, .. }) => {
                assert_eq!(*member, 1);
                assert!(matches!(
                    child,
                    Binder::Dim {
                        member: 0,
                        axis: 0,
                        ..
                    }
                ));
            }
            other => panic!("{other:?}"),
        }
    }
}
