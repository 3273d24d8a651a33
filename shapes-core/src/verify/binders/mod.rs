//! Where a struct's variables can be read without verifying it: what
//! `#[shapes::check(self)]` on a method uses to share the bindings of `self`'s fields.
//!
//! For each variable of a [`Shaped`] struct's scope, the derive knows which field binds it
//! first on every run: the first tensor field reached with no `Option` and no collection on the
//! way (through nested structs sharing the scope, under their renames) whose pattern has the
//! variable as a plain dim at a fixed axis (before any `...` or `*rest`). That field is its
//! [`Binder`], and the table of them, [`Binders`], is a constant built at compile time from the
//! nested structs' tables. Reading a variable is then one dim of one tensor
//! ([`Shaped::read_binder`](super::Shaped::read_binder)), and the binder names where the value came from when a method's
//! argument disagrees with it (`d_model = 384 bound by Bert.embeddings.word.weight axis 1`).
//!
//! A variable with no such binder (bound only inside arithmetic, only under an `Option` or a
//! `Vec`, only by a `count`, a `given` or a `where` equation) cannot be read this cheaply: a
//! method that uses it with `#[shapes::check(self)]` is a compile error naming it.
//!
//! At compile time the same table also gives what a successful `verify()` that bound every
//! variable at its first binder records: the order of its bindings and the path and axis of
//! each one's origin ([`BindingOrder`], `order.rs`). `Bindings` itself never reads a binder.

mod binder;
mod order;

pub use self::binder::Binder;
pub use self::order::BindingOrder;
use super::vars::{MAX_VARS, VarTable, rename};

/// Each variable's [`Binder`], by its index in the struct's [`VarTable`]: what the derive
/// emits as [`Shaped::BINDERS`](super::Shaped::BINDERS), built in `const` context from the fields in order (the first
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
    /// Bit `i`: the binder of the variable at `i` is conditional: under an `Option`, or in
    /// the first element of a list. It names where a successful verification bound the
    /// variable (when it is [`first`](Self::first)), but is not reached on every run, so
    /// [`get`](Self::get) and [`mask`](Self::mask) leave it out.
    cond: u64,
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
            cond: 0,
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
            cond: 0,
        }
    }

    /// The table with the variables of `bits` (bit `i` for the variable at `i`) bound by
    /// some dim of the field just added, or of a field that binds nothing for sure.
    pub const fn may(self, bits: u64) -> Self {
        self.add_may(bits, 0)
    }

    /// `bits` may be bound by the field just added, whose own conditional binders are `own`:
    /// a conditional binder of an earlier field is no longer where a successful run binds its
    /// variable for sure (an empty list or a `None` leaves it to this field), so it is no
    /// longer first.
    const fn add_may(mut self, bits: u64, own: u64) -> Self {
        self.first &= !(bits & self.cond & !own);
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
        self,
        vars: &VarTable,
        child_vars: &VarTable,
        child: &Binders,
        renames: &[(&'static str, &'static str)],
    ) -> Self {
        let bits = Self::child_may(vars, child_vars, child, renames);
        self.add_may(bits, 0)
    }

    /// The variables of `vars` that the nested struct of table `child_vars` and binders
    /// `child` may bind, under `renames`.
    const fn child_may(
        vars: &VarTable,
        child_vars: &VarTable,
        child: &Binders,
        renames: &[(&'static str, &'static str)],
    ) -> u64 {
        let mut bits = 0;
        let mut j = 0;
        while j < child_vars.len() && j < MAX_VARS {
            if child.may & (1 << j) != 0
                && let Some(i) = vars.index_of(rename(child_vars.name(j), renames))
                && i < MAX_VARS
            {
                bits |= 1 << i;
            }
            j += 1;
        }
        bits
    }

    /// The variables whose binder is the first dim that can bind them on any run (bit `i` for
    /// the variable at `i`): nothing before it may bind them, in a table built with
    /// [`listed`](Self::listed).
    pub const fn first(&self) -> u64 {
        self.first
    }

    /// Whether every variable of `vars` (the struct's table) has a binder that is
    /// [`first`](Self::first): a verification that succeeds binds each of them there, so its
    /// bindings can name where every value came from without recording a path (what lets
    /// `verify` run the fast pass, [`StructCx`](super::StructCx)).
    ///
    /// ```
    /// use shapes::__private::{Binders, VarTable};
    /// const VARS: VarTable = VarTable::new().with("n").with("d");
    /// const B: Binders = Binders::listed().dims(&VARS, &["n", "d"], "w", 0);
    /// assert!(B.all_static(&VARS));
    /// assert!(!Binders::listed().may(0b01).dims(&VARS, &["n", "d"], "w", 1).all_static(&VARS));
    /// ```
    pub const fn all_static(&self, vars: &VarTable) -> bool {
        let all = match vars.len() {
            n if n >= MAX_VARS => u64::MAX,
            n => (1u64 << n) - 1,
        };
        self.first & all == all
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
        if index >= MAX_VARS {
            return self;
        }
        let bit = 1 << index;
        // ok: `index < MAX_VARS`, checked just above.
        if self.at[index].is_none() || self.cond & bit != 0 {
            // A conditional binder of an earlier field gives way to one reached on every run;
            // the variable is then not first (that field may bind it).
            self.at[index] = Some(Binder::Dim { name, member, axis });
            self.cond &= !bit;
            if self.may & bit == 0 {
                self.first |= bit;
            } else {
                self.first &= !bit;
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
    pub const fn may_dims(self, vars: &VarTable, names: &[&str]) -> Self {
        let mut bits = 0;
        let mut axis = 0;
        while axis < names.len() {
            // ok: `axis < names.len()` (the loop condition).
            if let Some(i) = vars.index_of(names[axis])
                && i < MAX_VARS
            {
                bits |= 1 << i;
            }
            axis += 1;
        }
        self.add_may(bits, 0)
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
        self,
        vars: &VarTable,
        child_vars: &VarTable,
        child: &'static Binders,
        renames: &[(&'static str, &'static str)],
        name: &'static str,
        member: u16,
    ) -> Self {
        self.through(
            vars,
            child_vars,
            child,
            renames,
            name,
            member,
            Reach::Always,
        )
    }

    /// [`nested`](Self::nested) for a nested field that a run may not reach: under an
    /// `Option` (`list` false), or a list whose first element is the binder (`list` true:
    /// then only a binder the element reaches on every run counts). Its binders are
    /// conditional: they name where a successful verification bound a variable that nothing
    /// before or after the field may bind, and a method never reads them.
    ///
    /// ```
    /// use shapes::__private::{Binders, VarTable};
    /// const CHILD: VarTable = VarTable::new().with("d_ff");
    /// static LAYER: Binders = Binders::listed().dims(&CHILD, &["d_ff"], "up", 0);
    /// const VARS: VarTable = VarTable::new().with("d_ff");
    /// static MODEL: Binders = Binders::listed().nested_cond(&VARS, &CHILD, &LAYER, &[], "layers", 0, true);
    /// assert!(MODEL.all_static(&VARS) && MODEL.get(0).is_none());
    /// let origin = MODEL.origin_binder(0).unwrap().origin("M");
    /// assert_eq!(origin.to_string(), "M.layers[0].up axis 0");
    /// // A later field that may bind `d_ff` binds it when the list is empty.
    /// static LATER: Binders = Binders::listed()
    ///     .nested_cond(&VARS, &CHILD, &LAYER, &[], "layers", 0, true)
    ///     .may(0b1);
    /// assert!(!LATER.all_static(&VARS));
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub const fn nested_cond(
        self,
        vars: &VarTable,
        child_vars: &VarTable,
        child: &'static Binders,
        renames: &[(&'static str, &'static str)],
        name: &'static str,
        member: u16,
        list: bool,
    ) -> Self {
        let reach = if list { Reach::First } else { Reach::Maybe };
        self.through(vars, child_vars, child, renames, name, member, reach)
    }

    /// [`dim_at`](Self::dim_at) for a tensor field a run may not reach: under an `Option`
    /// (`list` false) or the first of a list of tensors (`list` true). Its dims at `at` are
    /// `(variable index, axis)`, and its plain dims may bind `bits`: conditional binders (see
    /// [`nested_cond`](Self::nested_cond)).
    ///
    /// ```
    /// use shapes::__private::{Binders, VarTable};
    /// const VARS: VarTable = VarTable::new().with("d");
    /// static B: Binders = Binders::listed().dims_cond(&[(0, 0)], 0b1, "bias", 0, false);
    /// assert!(B.all_static(&VARS) && B.get(0).is_none() && B.mask() == 0);
    /// static L: Binders = Binders::listed().dims_cond(&[(0, 1)], 0b1, "heads", 0, true);
    /// assert_eq!(L.origin_binder(0).unwrap().origin("M").to_string(), "M.heads[0] axis 1");
    /// ```
    pub const fn dims_cond(
        mut self,
        at: &[(usize, u16)],
        bits: u64,
        name: &'static str,
        member: u16,
        list: bool,
    ) -> Self {
        let mut own = 0;
        let mut k = 0;
        while k < at.len() {
            // ok: `k < at.len()` (the loop condition).
            let (index, axis) = at[k];
            if index < MAX_VARS && self.at[index].is_none() && self.may & (1 << index) == 0 {
                let binder = if list {
                    Binder::ElementDim { name, member, axis }
                } else {
                    Binder::Dim { name, member, axis }
                };
                // ok: `index < MAX_VARS`, checked just above.
                self.at[index] = Some(binder);
                self.cond |= 1 << index;
                self.first |= 1 << index;
                own |= 1 << index;
            }
            k += 1;
        }
        self.add_may(bits, own)
    }

    /// The nested field's binders, reached as `reach` says (see [`nested`](Self::nested) and
    /// [`nested_cond`](Self::nested_cond)).
    #[allow(clippy::too_many_arguments)]
    const fn through(
        mut self,
        vars: &VarTable,
        child_vars: &VarTable,
        child: &'static Binders,
        renames: &[(&'static str, &'static str)],
        name: &'static str,
        member: u16,
        reach: Reach,
    ) -> Self {
        // The variables given a binder by this field, those of them that stay first, and
        // those whose binder is conditional.
        let mut fresh: u64 = 0;
        let mut first: u64 = 0;
        let mut cond: u64 = 0;
        let mut j = 0;
        while j < child_vars.len() && j < MAX_VARS {
            // ok: `j < MAX_VARS` (the loop condition).
            if let Some(b) = &child.at[j]
                && let Some(i) = vars.index_of(rename(child_vars.name(j), renames))
                && i < MAX_VARS
            {
                let bit = 1 << i;
                let b_cond = !matches!(reach, Reach::Always) || child.cond & (1 << j) != 0;
                let earlier = match &self.at[i] {
                    None => true,
                    // Several of the child's variables renamed to one: the binder the child's
                    // checks reach first, one reached on every run before a conditional one.
                    Some(
                        Binder::Nested { child: other, .. } | Binder::Element { child: other, .. },
                    ) if fresh & bit != 0 => {
                        if (cond & bit != 0) != b_cond {
                            !b_cond
                        } else {
                            b.is_before(other)
                        }
                    }
                    // An earlier field's conditional binder gives way to one reached on every
                    // run (and the variable is not first: that field may bind it).
                    Some(_) => self.cond & bit != 0 && !b_cond,
                };
                if earlier {
                    if fresh & bit == 0 {
                        fresh |= bit;
                        first |= (!self.may) & bit;
                        self.first &= !bit;
                    }
                    let binder = match reach {
                        Reach::First => Binder::Element {
                            name,
                            member,
                            child: b,
                        },
                        Reach::Always | Reach::Maybe => Binder::Nested {
                            name,
                            member,
                            child: b,
                        },
                    };
                    // ok: `i < MAX_VARS`, checked just above.
                    self.at[i] = Some(binder);
                    if b_cond {
                        cond |= bit;
                    } else {
                        cond &= !bit;
                    }
                }
            }
            j += 1;
        }
        // A variable stays first only if every child variable renamed to it that the child
        // may bind is first in the child; for a list, also reached by every element.
        let mut j = 0;
        while j < child_vars.len() && j < MAX_VARS {
            let not_first = child.first & (1 << j) == 0
                || (matches!(reach, Reach::First) && child.cond & (1 << j) != 0);
            if child.may & (1 << j) != 0
                && not_first
                && let Some(i) = vars.index_of(rename(child_vars.name(j), renames))
                && i < MAX_VARS
            {
                first &= !(1 << i);
            }
            j += 1;
        }
        self.first |= first;
        self.cond = (self.cond & !fresh) | cond;
        let bits = Self::child_may(vars, child_vars, child, renames);
        self.add_may(bits, fresh & cond)
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
            if self.at[i].is_some() && self.cond & (1 << i) == 0 {
                mask |= 1 << i;
            }
            i += 1;
        }
        mask
    }

    /// The binder of the variable at `var` in the struct's table.
    pub const fn get(&'static self, var: usize) -> Option<&'static Binder> {
        if var < MAX_VARS && self.cond & (1 << var) == 0 {
            // ok: `var < MAX_VARS`, checked just above.
            self.at[var].as_ref()
        } else {
            None
        }
    }

    /// The binder where a successful verification bound the variable at `var`, when it is
    /// [`first`](Self::first): [`get`](Self::get)'s, or a conditional one.
    ///
    /// ```
    /// use shapes::__private::{Binders, VarTable};
    /// const VARS: VarTable = VarTable::new().with("d");
    /// static B: Binders = Binders::listed().dims_cond(&[(0, 0)], 0b1, "bias", 0, false);
    /// assert_eq!(B.origin_binder(0).unwrap().origin("M").to_string(), "M.bias axis 0");
    /// ```
    pub const fn origin_binder(&'static self, var: usize) -> Option<&'static Binder> {
        if var < MAX_VARS && self.first & (1 << var) != 0 {
            // ok: `var < MAX_VARS`, checked just above.
            self.at[var].as_ref()
        } else {
            None
        }
    }
}

/// How a run reaches a nested field's binders.
#[derive(Clone, Copy)]
enum Reach {
    /// On every run.
    Always,
    /// When its `Option` is `Some`.
    Maybe,
    /// In the first element of its list, when the list is not empty.
    First,
}

impl Default for Binders {
    fn default() -> Self {
        Binders::new()
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
    fn a_conditional_binder_names_the_origin_only_while_nothing_else_may_bind() {
        const VARS: VarTable = VarTable::new().with("d");
        static OPT: Binders = Binders::listed().dims_cond(&[(0, 0)], 0b1, "bias", 0, false);
        // Under an `Option`: first, but no binder for a method and not bound for sure.
        assert!(OPT.all_static(&VARS) && OPT.get(0).is_none() && OPT.mask() == 0);
        // A required field after it binds `d` on every run: its binder, not first.
        static THEN: Binders = OPT.dim(&VARS, "d", "w", 1, 1);
        assert_eq!(
            THEN.get(0).map(|b| b.origin("M").to_string()).as_deref(),
            Some("M.w axis 1")
        );
        assert_eq!((THEN.mask(), THEN.first()), (0b1, 0));
        // A second optional field may bind it when the first is `None`.
        assert_eq!(OPT.dims_cond(&[(0, 0)], 0b1, "other", 1, false).first(), 0);
        // Through a list, only what the element binds on every run is the first element's.
        const CHILD: VarTable = VarTable::new().with("d");
        static ELEM: Binders =
            Binders::listed().nested_cond(&CHILD, &CHILD, &OPT, &[], "x", 0, true);
        assert_eq!(ELEM.first(), 0);
        static WRAPPED: Binders =
            Binders::listed().nested_cond(&CHILD, &CHILD, &OPT, &[], "x", 0, false);
        assert_eq!(
            WRAPPED
                .origin_binder(0)
                .map(|b| b.origin("M").to_string())
                .as_deref(),
            Some("M.x.bias axis 0")
        );
        // A required nested field keeps its child's binder conditional.
        static NESTED: Binders = Binders::listed().nested(&CHILD, &CHILD, &OPT, &[], "x", 0);
        assert!(NESTED.all_static(&VARS) && NESTED.get(0).is_none());
    }

    #[test]
    fn the_binding_order_is_the_order_the_checks_reach_the_binders() {
        static CHILD_FIRST: Binders = Binders::listed().dims(&CHILD, &["d_out", "d_in"], "w", 0);
        // `layers: Vec<Linear>` (member 1) renamed into `d_model`, then `pos` (member 2)
        // binding `seq`, after an own field (member 0) that binds nothing.
        static ORDERED: Binders = Binders::listed()
            .may(0)
            .nested_cond(
                &PARENT,
                &CHILD,
                &CHILD_FIRST,
                &[("d_in", "d_model"), ("d_out", "d_model")],
                "layers",
                1,
                true,
            )
            .dims(&PARENT, &["seq"], "pos", 2);
        assert_eq!(ORDERED.first(), 0b11);
        assert_eq!(ORDERED.bind_order::<4>(PARENT.len()).vars(), &[1, 0]);
        // At most `N`, and none for a variable without a first binder.
        assert_eq!(ORDERED.bind_order::<1>(PARENT.len()).mask(), 0b10);
        assert!(MODEL.bind_order::<4>(PARENT.len()).vars().is_empty());
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
