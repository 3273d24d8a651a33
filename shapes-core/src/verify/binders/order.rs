//! [`BindingOrder`]: the order in which a successful verification binds a struct's
//! variables at their first binders, known at compile time from its [`Binders`].

use super::{Binder, Binders};
use crate::verify::vars::MAX_VARS;

impl Binders {
    /// The variables with an [`origin_binder`](Self::origin_binder) among the first `len` of
    /// the table, in the order the struct's checks reach their binders
    /// ([`Binder::is_before`]), at most `N` of them: the order a successful verification
    /// that binds each variable at its first binder binds them in, which is what its
    /// bindings list. Evaluated at compile time for each struct.
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
            len: 0,
            mask: 0,
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
            let Some((i, _)) = best else {
                break;
            };
            order.mask |= 1 << i;
            // ok: `order.len < N` (the loop condition); `i < MAX_VARS = 64 < 256`.
            order.vars[order.len] = i as u8;
            order.len += 1;
        }
        order
    }
}

/// The variables a successful verification binds at their first binders, in the order it
/// binds them: [`Binders::bind_order`].
#[derive(Debug, Clone, Copy)]
pub struct BindingOrder<const N: usize> {
    vars: [u8; N],
    len: usize,
    /// Bit `i`: the variable at `i` is in `vars`.
    mask: u64,
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
}
