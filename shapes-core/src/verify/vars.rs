//! [`VarTable`]: a struct's variable names, built at compile time.
//!
//! A derived struct knows its own variable names when the macro runs, but not those of the
//! nested structs it contains (another derive's business). So every `Shaped` type exposes its
//! full table (own names, then nested ones, transitively) as an associated `const`, and a parent
//! merges its children's tables with `const fn`s. Index maps from a child's variables to the
//! parent's slots are constants too, so the generated `verify` never compares a name at run
//! time.

/// The most variables one verification scope can hold (a struct and everything nested in it).
/// Exceeding it is a compile-time error in the derived code's constant evaluation.
pub const MAX_VARS: usize = 64;

/// A variable's slot in a verification scope: an index below `MAX_VARS` (64), checked when it
/// is made (in the `const`s generated code evaluates, so a wrong one is a compile error), so that
/// every use indexes the checker's tables in bounds.
///
/// ```
/// use shapes::__private::Slot;
/// const S: Slot = Slot::new(3);
/// assert_eq!(S.index(), 3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot(u8);

impl Slot {
    /// The slot at `index`.
    ///
    /// # Panics
    /// When `index >= MAX_VARS`: generated code makes slots in `const` context, where this is
    /// a compile error; anywhere else it would be a bug in the caller, reported loudly rather
    /// than aliased to another variable.
    #[inline(always)]
    pub const fn new(index: usize) -> Slot {
        // ok: a documented invariant check, evaluated at compile time by generated code.
        assert!(index < MAX_VARS, "shapes: a variable slot is out of range");
        Slot(index as u8)
    }

    /// The index, below `MAX_VARS` (64).
    #[inline(always)]
    pub const fn index(self) -> usize {
        // `new` is the only constructor and checks the bound, so the mask never changes the
        // value; it only tells the compiler so, which removes bounds checks on `[_; MAX_VARS]`.
        self.0 as usize & (MAX_VARS - 1)
    }

    /// The index as a byte, how [`Bindings`](crate::Bindings) stores it.
    #[inline(always)]
    pub(crate) const fn to_u8(self) -> u8 {
        self.0
    }

    /// The slot's bit in a `u64` set of bound slots.
    #[inline(always)]
    pub(crate) const fn bit(self) -> u64 {
        1 << self.index()
    }
}

const _: () = assert!(MAX_VARS.is_power_of_two() && MAX_VARS <= 64);

/// An ordered, duplicate-free list of variable names, usable in `const` context.
///
/// ```
/// use shapes::__private::VarTable;
/// const T: VarTable = VarTable::new().with("d_model").with("heads").with("d_model");
/// assert_eq!(T.len(), 2);
/// assert_eq!(T.index_of("heads"), Some(1));
/// ```
#[derive(Clone, Copy)]
pub struct VarTable {
    pub(super) names: [&'static str; MAX_VARS],
    pub(super) len: usize,
    /// How many times each name is written in the scope's patterns, `where` clauses and
    /// `count` keys, nested structs included: what the likely-typo check of a whole scope
    /// reads ([`likely_typo`](Self::likely_typo)).
    pub(super) uses: [u16; MAX_VARS],
    /// Who writes each name: bit 0 the struct itself, bit `k + 1` its `k`-th nested field
    /// (see [`merge_field`](Self::merge_field)).
    pub(super) owners: [u64; MAX_VARS],
    /// The names the caller or the config gives (`given`, `config(…)`): checked by their
    /// value, never a likely typo.
    pub(super) declared: u64,
}

pub(super) const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        // ok: `i < a.len() == b.len()` (the loop condition and the length check above).
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl VarTable {
    /// An empty table.
    pub const fn new() -> Self {
        VarTable {
            names: [""; MAX_VARS],
            len: 0,
            uses: [0; MAX_VARS],
            owners: [0; MAX_VARS],
            declared: 0,
        }
    }

    /// The number of names.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the table is empty.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The name at `index` (an empty string past the end).
    pub const fn name(&self, index: usize) -> &'static str {
        if index < self.len {
            // ok: `index < self.len <= MAX_VARS` (`with` is the only thing that grows `len`,
            // and it asserts first); the same invariant covers every `names[i]` with
            // `i < len`, and `slots[i]` of a `SlotMap`, whose `len` is a table's.
            self.names[index]
        } else {
            ""
        }
    }

    /// The position of `name`.
    pub const fn index_of(&self, name: &str) -> Option<usize> {
        let mut i = 0;
        while i < self.len {
            // ok: `i < self.len <= MAX_VARS`.
            if str_eq(self.names[i], name) {
                return Some(i);
            }
            i += 1;
        }
        None
    }

    /// The table with `name` appended, unless it is already there: a name the struct writes
    /// once ([`with_uses`](Self::with_uses) says how many times).
    ///
    /// # Panics
    /// At compile time (the derive evaluates this in a `const`), when the table is full.
    pub const fn with(self, name: &'static str) -> Self {
        self.with_uses(name, 1)
    }

    /// [`with`](Self::with) for a name the struct itself writes `uses` times.
    ///
    /// ```
    /// use shapes::__private::VarTable;
    /// const T: VarTable = VarTable::new().with_uses("d_model", 3).with("d_modle");
    /// assert_eq!(T.uses_of("d_model"), 3);
    /// ```
    pub const fn with_uses(self, name: &'static str, uses: u16) -> Self {
        self.add(name, uses, 1)
    }

    /// How many times `name` is written in the scope (0 for a name not in it).
    pub const fn uses_of(&self, name: &str) -> u16 {
        match self.index_of(name) {
            Some(i) => self.uses[i], // ok: `index_of` returns an index below `len`.
            None => 0,
        }
    }

    /// The table with `name` marked as given by the caller or bound from the config: its
    /// value checks it, so it is never taken for a typo.
    ///
    /// ```
    /// use shapes::__private::VarTable;
    /// const T: VarTable = VarTable::new().with("heads").declare("heads");
    /// assert!(T.likely_typo().is_none());
    /// ```
    pub const fn declare(mut self, name: &str) -> Self {
        if let Some(i) = self.index_of(name) {
            self.declared |= 1 << i;
        }
        self
    }

    /// Adds `uses` uses of `name` by `owners`, appending the name when it is new.
    const fn add(mut self, name: &'static str, uses: u16, owners: u64) -> Self {
        if let Some(i) = self.index_of(name) {
            // ok: `index_of` returns an index below `len <= MAX_VARS`.
            self.uses[i] = self.uses[i].saturating_add(uses);
            self.owners[i] |= owners;
            return self;
        }
        // ok: only ever evaluated in a `const` the derive emits, so this is a compile error
        // naming the limit, never a run-time panic.
        assert!(
            self.len < MAX_VARS,
            "shapes: more than 64 shape variables in one verification scope"
        );
        self.names[self.len] = name; // ok: `self.len < MAX_VARS`, asserted just above.
        self.uses[self.len] = uses; // ok: as above.
        self.owners[self.len] = owners; // ok: as above.
        self.len += 1;
        self
    }

    /// The table with every name of `other` appended (renamed through `renames`, pairs of
    /// `(inner, outer)`), skipping names already present.
    pub const fn merge(self, other: &VarTable, renames: &[(&'static str, &'static str)]) -> Self {
        self.merge_owned(other, renames, 1)
    }

    /// [`merge`](Self::merge) for the struct's `field`-th nested field (counting its nested
    /// fields only): the names it brings are that field's (owner bit `field + 1`, the last
    /// bit for any past 62), so that two names that differ by a slip and that no one field
    /// writes both of are seen to never meet ([`likely_typo`](Self::likely_typo)).
    ///
    /// ```
    /// use shapes::__private::VarTable;
    /// const BLOCK: VarTable = VarTable::new().with_uses("d_modle", 2);
    /// const MODEL: VarTable = VarTable::new().with_uses("d_model", 2).merge_field(&BLOCK, &[], 0);
    /// assert!(MODEL.likely_typo().is_some());
    /// ```
    pub const fn merge_field(
        self,
        other: &VarTable,
        renames: &[(&'static str, &'static str)],
        field: usize,
    ) -> Self {
        let bit = if field + 1 > 63 { 63 } else { field + 1 };
        self.merge_owned(other, renames, 1 << bit)
    }

    const fn merge_owned(
        mut self,
        other: &VarTable,
        renames: &[(&'static str, &'static str)],
        owners: u64,
    ) -> Self {
        let mut i = 0;
        while i < other.len {
            // ok: `i < other.len <= MAX_VARS`.
            let name = rename(other.names[i], renames);
            self = self.add(name, other.uses[i], owners);
            if other.declared & (1 << i) != 0 {
                self = self.declare(name);
            }
            i += 1;
        }
        self
    }

    /// For each variable of `child` (renamed through `renames`), its position in `self`.
    /// Entries past `child.len()` are 0.
    ///
    /// # Panics
    /// At compile time, when a child variable is missing from `self` (the derive always merges
    /// the child first, so this does not happen in generated code).
    pub const fn map_of(
        &self,
        child: &VarTable,
        renames: &[(&'static str, &'static str)],
    ) -> SlotMap {
        let mut slots = [Slot(0); MAX_VARS];
        let mut i = 0;
        // ok: `i < child.len <= MAX_VARS == slots.len()`.
        while i < child.len {
            match self.index_of(rename(child.names[i], renames)) {
                Some(at) => slots[i] = Slot::new(at),
                // ok: const-evaluated (the derive calls this inside `const { … }`): a compile
                // error, and unreachable for generated code, which merges the child's table first.
                None => panic!("shapes: a nested variable is missing from its parent's table"),
            }
            i += 1;
        }
        SlotMap {
            slots,
            len: child.len,
            known: 0,
        }
    }

    /// The identity map of this table onto itself.
    pub const fn identity(&self) -> SlotMap {
        let mut slots = [Slot(0); MAX_VARS];
        let mut i = 0;
        while i < self.len {
            slots[i] = Slot::new(i); // ok: `i < self.len <= MAX_VARS`.
            i += 1;
        }
        SlotMap {
            slots,
            len: self.len,
            known: 0,
        }
    }

    /// The names in order.
    pub fn names(&self) -> &[&'static str] {
        &self.names[..self.len] // ok: `self.len <= MAX_VARS`.
    }
}

impl Default for VarTable {
    fn default() -> Self {
        VarTable::new()
    }
}

pub(crate) const fn rename(
    name: &'static str,
    renames: &[(&'static str, &'static str)],
) -> &'static str {
    let mut i = 0;
    while i < renames.len() {
        // ok: `i < renames.len()` (the loop condition).
        if str_eq(renames[i].0, name) {
            return renames[i].1;
        }
        i += 1;
    }
    name
}

/// Maps a struct's local variable indices to the slots of the scope it is checked in.
///
/// ```
/// use shapes::__private::VarTable;
/// const PARENT: VarTable = VarTable::new().with("vocab").with("d_model");
/// const CHILD: VarTable = VarTable::new().with("d");
/// const MAP: shapes::__private::SlotMap = PARENT.map_of(&CHILD, &[("d", "d_model")]);
/// assert_eq!(MAP.get(0).index(), 1);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SlotMap {
    slots: [Slot; MAX_VARS],
    len: usize,
    /// Bit `i`: local variable `i` is bound for sure when the struct's checks start (by an
    /// earlier check that runs on every verification; see [`knowing`](Self::knowing)), so
    /// checking a dim against it is one comparison.
    known: u64,
}

impl SlotMap {
    /// The scope slot of local variable `local`.
    ///
    /// # Panics
    /// When `local` is not below [`MAX_VARS`]: generated code asks only for indices of its
    /// own table, with constant indices, so the check compiles away.
    #[inline(always)]
    pub fn get(&self, local: usize) -> Slot {
        debug_assert!(
            local < self.len,
            "shapes: local variable {local} is not in the map"
        );
        self.slots[local] // ok: a bug in the caller is reported, not aliased.
    }

    /// Whether local variable `local` is bound for sure when the struct's checks start.
    ///
    /// ```
    /// use shapes::__private::VarTable;
    /// const T: VarTable = VarTable::new().with("d");
    /// assert!(!T.identity().is_known(0));
    /// assert!(T.map_of(&T, &[]).knowing(0b1).is_known(0));
    /// ```
    #[inline(always)]
    pub fn is_known(&self, local: usize) -> bool {
        local < MAX_VARS && self.known & (1 << local) != 0
    }

    /// This map (a child's, onto its parent's locals), told that the parent's locals in
    /// `parent_known` (bit `i` for local `i`) are bound for sure before the child is checked.
    ///
    /// ```
    /// use shapes::__private::VarTable;
    /// const PARENT: VarTable = VarTable::new().with("vocab").with("d_model");
    /// const CHILD: VarTable = VarTable::new().with("d").with("v");
    /// let map = PARENT.map_of(&CHILD, &[("d", "d_model"), ("v", "vocab")]).knowing(0b10);
    /// assert!(map.is_known(0) && !map.is_known(1));
    /// ```
    #[inline(always)]
    pub const fn knowing(mut self, parent_known: u64) -> SlotMap {
        let mut i = 0;
        while i < self.len && i < MAX_VARS {
            // ok: `i < MAX_VARS`; a slot's index is below MAX_VARS.
            if parent_known & (1 << self.slots[i].index()) != 0 {
                self.known |= 1 << i;
            }
            i += 1;
        }
        self
    }

    /// The parent's locals (bit `i` for local `i`) that this map's locals in `locals` are.
    ///
    /// ```
    /// use shapes::__private::VarTable;
    /// const PARENT: VarTable = VarTable::new().with("vocab").with("d_model");
    /// const CHILD: VarTable = VarTable::new().with("d");
    /// let map = PARENT.map_of(&CHILD, &[("d", "d_model")]);
    /// assert_eq!(map.parent_mask(0b1), 0b10);
    /// ```
    pub const fn parent_mask(&self, locals: u64) -> u64 {
        let mut mask = 0;
        let mut i = 0;
        while i < self.len && i < MAX_VARS {
            // ok: `i < MAX_VARS`; a slot's index is below MAX_VARS.
            if locals & (1 << i) != 0 {
                mask |= 1 << self.slots[i].index();
            }
            i += 1;
        }
        mask
    }

    /// This map composed with a child's map: child local → this scope's slot. A child's
    /// variable is known bound if the child's map says so or this map does for the variable
    /// it is here.
    #[inline]
    pub fn then(&self, child: &SlotMap) -> SlotMap {
        let mut slots = [Slot(0); MAX_VARS];
        let mut known = child.known;
        // ok: `child.len <= MAX_VARS` (a table's length); `Slot::index` is below MAX_VARS.
        for (i, (out, &via)) in slots.iter_mut().zip(&child.slots[..child.len]).enumerate() {
            *out = self.slots[via.index()];
            if self.is_known(via.index()) {
                known |= 1 << i;
            }
        }
        SlotMap {
            slots,
            len: child.len,
            known,
        }
    }

    /// The number of mapped variables.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is mapped.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_dedups_and_renames() {
        const CHILD: VarTable = VarTable::new().with("d").with("heads");
        const PARENT: VarTable = VarTable::new()
            .with("d_model")
            .merge(&CHILD, &[("d", "d_model")]);
        assert_eq!(PARENT.names(), &["d_model", "heads"]);
        const MAP: SlotMap = PARENT.map_of(&CHILD, &[("d", "d_model")]);
        assert_eq!((MAP.get(0).index(), MAP.get(1).index()), (0, 1));
        let id = PARENT.identity();
        let composed = id.then(&MAP);
        assert_eq!((composed.get(0).index(), composed.get(1).index()), (0, 1));
    }

    #[test]
    fn known_variables_compose_down_the_nesting() {
        // Model { d_model, vocab } > Block { d, n } > Norm { w }, with Norm's `w` Block's `d`
        // and Block's `d` the model's `d_model`.
        const MODEL: VarTable = VarTable::new().with("d_model").with("vocab");
        const BLOCK: VarTable = VarTable::new().with("d").with("n");
        const NORM: VarTable = VarTable::new().with("w");
        // The model knows `d_model` bound before the block (bit 0 of its locals).
        let block = MODEL.identity().then(
            &MODEL
                .map_of(&BLOCK, &[("d", "d_model"), ("n", "vocab")])
                .knowing(0b01),
        );
        assert!(block.is_known(0) && !block.is_known(1));
        // The block knows nothing more itself; `w` is known through the model.
        let norm = block.then(&BLOCK.map_of(&NORM, &[("w", "d")]).knowing(0));
        assert!(norm.is_known(0));
        assert_eq!(norm.get(0).index(), 0);
        // Told nothing, nothing is known; an index past the table is not known either.
        let plain = MODEL
            .identity()
            .then(&MODEL.map_of(&BLOCK, &[("d", "d_model"), ("n", "vocab")]));
        assert!(!plain.is_known(0) && !plain.is_known(63) && !plain.is_known(64));
        // A child's variables that are the parent's locals 0 and 1.
        assert_eq!(
            MODEL
                .map_of(&BLOCK, &[("d", "vocab"), ("n", "d_model")])
                .parent_mask(0b01),
            0b10
        );
    }
}
