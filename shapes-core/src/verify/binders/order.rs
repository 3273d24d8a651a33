//! [`BindingOrder`]: what a successful verification that binds each of a struct's variables
//! at its first binder records, known at compile time from the struct's [`Binders`]: the
//! order it binds them in, and the path and axis of each one's origin.

use super::{Binder, Binders};
use crate::verify::path::{KnownLevels, ROOT_LEVEL, Segment};
use crate::verify::vars::MAX_VARS;

impl Binders {
    /// The variables with an [`origin_binder`](Self::origin_binder) among the first `len` of
    /// the table, in the order the struct's checks reach their binders
    /// ([`Binder::is_before`]), at most `N` of them, each with the path and axis of its
    /// binder: the order a successful verification that binds each variable at its first
    /// binder binds them in and where it binds them, which is what its bindings list.
    /// Evaluated at compile time for each struct.
    ///
    /// ```
    /// use shapes::__private::{Binders, VarTable};
    /// const VARS: VarTable = VarTable::new().with("d").with("n");
    /// static B: Binders = Binders::listed().dims(&VARS, &["n", "d"], "w", 0);
    /// let order = B.bind_order::<4>(VARS.len());
    /// assert_eq!((order.vars(), order.mask()), (&[1, 0][..], 0b11));
    /// ```
    pub const fn bind_order<const N: usize>(&'static self, len: usize) -> BindingOrder<N> {
        let mut order = BindingOrder {
            vars: [0; N],
            sites: [Site {
                level: ROOT_LEVEL,
                axis: 0,
            }; N],
            len: 0,
            mask: 0,
            levels: KnownLevels::EMPTY,
        };
        // Selection of the earliest binder not placed yet, at most `N` times.
        while order.len < N {
            let mut best: Option<(usize, &'static Binder)> = None;
            let mut i = 0;
            while i < len && i < MAX_VARS {
                if order.mask & (1 << i) == 0
                    && let Some(b) = self.origin_binder(i)
                {
                    best = match best {
                        Some((_, earliest)) if !b.is_before(earliest) => best,
                        _ => Some((i, b)),
                    };
                }
                i += 1;
            }
            let Some((i, binder)) = best else {
                break;
            };
            let Some(site) = order.site_of(binder) else {
                break;
            };
            order.mask |= 1 << i;
            // ok: `order.len < N` (the loop condition); `i < MAX_VARS = 64 < 256`.
            order.vars[order.len] = i as u8;
            order.sites[order.len] = site;
            order.len += 1;
        }
        order
    }
}

/// The variables a successful verification binds at their first binders, in the order it
/// binds them, and the origin of each: [`Binders::bind_order`].
#[derive(Debug, Clone, Copy)]
pub struct BindingOrder<const N: usize> {
    vars: [u8; N],
    /// `sites[k]`: where `vars[k]` is bound.
    sites: [Site; N],
    len: usize,
    /// Bit `i`: the variable at `i` is in `vars`.
    mask: u64,
    /// The path levels the sites name: a tree like the one the general checker records as
    /// it goes (see `Bindings`), each level once. A struct whose first binders need more
    /// than it holds (deep nesting, many distinct fields) lists the variables whose levels
    /// fit, and a verification that binds another is the general checker's.
    levels: KnownLevels,
}

/// Where a variable is bound: the dim `axis` of the tensor at the path `level`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Site {
    pub(crate) level: u16,
    pub(crate) axis: u32,
}

impl<const N: usize> BindingOrder<N> {
    /// The variables, by their index in the struct's table, in order.
    pub fn vars(&self) -> &[u8] {
        self.vars.get(..self.len).unwrap_or(&self.vars)
    }

    /// The same variables as bits (bit `i` for the variable at `i`).
    pub const fn mask(&self) -> u64 {
        self.mask
    }

    /// Where each of [`vars`](Self::vars) is bound.
    pub(crate) fn sites(&self) -> &[Site] {
        self.sites.get(..self.len).unwrap_or(&self.sites)
    }

    /// The path levels [`sites`](Self::sites) name.
    pub(crate) fn levels(&'static self) -> &'static KnownLevels {
        &self.levels
    }

    /// The site of `binder`, its path's levels added to the tree; `None` when they do not
    /// fit. The path is the one [`Binder::origin`] names.
    // (`?` is not available in a `const fn`: each level is matched.)
    const fn site_of(&mut self, binder: &'static Binder) -> Option<Site> {
        let mut parent = ROOT_LEVEL;
        let mut at = binder;
        // A chain of `&'static` references built at compile time ends at a `Dim`; the bound
        // keeps the walk finite whatever the data.
        let mut steps: usize = 0;
        while steps <= u8::MAX as usize {
            // Each step is a field, an element's index below it for a list, then the child
            // binder, or at a `Dim` the axis.
            let (name, element, child, axis) = match at {
                Binder::Nested { name, child, .. } => (*name, false, Some(*child), 0),
                Binder::Element { name, child, .. } => (*name, true, Some(*child), 0),
                Binder::Dim { name, axis, .. } => (*name, false, None, *axis),
                Binder::ElementDim { name, axis, .. } => (*name, true, None, *axis),
            };
            parent = match self.levels.find_or_add(Segment::Field(name), parent) {
                Some(id) => id,
                None => return None,
            };
            if element {
                parent = match self.levels.find_or_add(Segment::Index(0), parent) {
                    Some(id) => id,
                    None => return None,
                };
            }
            match child {
                Some(child) => at = child,
                None => {
                    return Some(Site {
                        level: parent,
                        axis: axis as u32,
                    });
                }
            }
            steps += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::bindings::Bindings;
    use crate::verify::vars::{Slot, VarTable};
    use crate::verify_impl::fast::{STRUCT_VARS, StructCx};

    const LEAF: VarTable = VarTable::new().with("d_out").with("d_in");
    static LINEAR: Binders = Binders::listed().dims(&LEAF, &["d_out", "d_in"], "weight", 0);
    static BLOCK: Binders = Binders::listed().nested(&LEAF, &LEAF, &LINEAR, &[], "up", 0);
    const TOP: VarTable = VarTable::new()
        .with("d_out")
        .with("d_in")
        .with("n_exp")
        .with("seq");
    /// `blocks: Vec<Block>` (a list whose first element's nested `up.weight` binds two
    /// variables under the same levels), `experts: Vec<Shape>` (a list of tensors), and a
    /// plain tensor `pos`.
    static MODEL: Binders = Binders::listed()
        .nested_cond(&TOP, &LEAF, &BLOCK, &[], "blocks", 0, true)
        .dims_cond(&[(2, 1)], 0b100, "experts", 1, true)
        .dim(&TOP, "seq", "pos", 2, 0);
    static ORDER: BindingOrder<STRUCT_VARS> = MODEL.bind_order::<STRUCT_VARS>(TOP.len());

    /// The bindings the fast pass records from `ORDER`, every variable bound to its index.
    fn bindings() -> Bindings {
        let mut fast = StructCx::new();
        for var in 0..TOP.len() {
            fast.preset(Slot::new(var), var);
        }
        let mut out = Bindings::in_scope(&TOP, "M").with_known_levels(ORDER.levels());
        fast.record_into(&mut out, &ORDER);
        out
    }

    #[test]
    fn each_origin_is_the_one_its_binder_names_and_levels_are_shared() {
        assert_eq!(ORDER.vars(), &[0, 1, 2, 3]);
        let b = bindings();
        for (i, name) in TOP.names().iter().enumerate() {
            let binder = MODEL.origin_binder(i).map(|b| b.origin("M"));
            assert_eq!(b.origin(name), binder, "{name}");
        }
        let origin = |name| b.origin(name).map(|o| o.to_string());
        assert_eq!(
            origin("d_in").as_deref(),
            Some("M.blocks[0].up.weight axis 1")
        );
        assert_eq!(origin("n_exp").as_deref(), Some("M.experts[0] axis 1"));
        assert_eq!(origin("seq").as_deref(), Some("M.pos axis 0"));
        // blocks, [0], up, weight; experts, [0]; pos: each level once.
        assert_eq!(ORDER.levels().as_slice().len(), 7);
    }

    #[test]
    fn a_variable_whose_levels_do_not_fit_is_left_to_the_general_checker() {
        // 33 fields named apart, each binding one variable directly: the table holds 32.
        const MANY: VarTable = {
            let mut t = VarTable::new();
            let mut i = 0;
            while i < 33 {
                t = t.with(NAMES[i]);
                i += 1;
            }
            t
        };
        const NAMES: [&str; 33] = [
            "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
            "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25",
            "v26", "v27", "v28", "v29", "v30", "v31", "v32",
        ];
        const FIELDS: [&str; 33] = [
            "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12", "f13",
            "f14", "f15", "f16", "f17", "f18", "f19", "f20", "f21", "f22", "f23", "f24", "f25",
            "f26", "f27", "f28", "f29", "f30", "f31", "f32",
        ];
        static WIDE: Binders = {
            let mut b = Binders::listed();
            let mut i = 0;
            while i < 33 {
                b = b.dim(&MANY, NAMES[i], FIELDS[i], i as u16, 0);
                i += 1;
            }
            b
        };
        let order = const { &WIDE.bind_order::<40>(MANY.len()) };
        assert_eq!(order.vars().len(), 32);
        assert_eq!(order.mask() & (1 << 32), 0);
        assert_eq!(order.levels().as_slice().len(), 32);
    }
}
