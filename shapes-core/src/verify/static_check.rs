//! Compile-time checks of `#[shape]` patterns on fixed-size array fields.

/// One pattern item as the compile-time check sees it.
#[derive(Debug, Clone, Copy)]
pub enum StaticItem {
    /// A literal dim.
    Lit(usize),
    /// A broadcastable literal `#n` (1 or n).
    Broadcast(usize),
    /// A variable (its local index): repeated variables must have equal dims.
    Var(u8),
    /// Any one dim (`_`, an expression): not checked statically.
    Any,
    /// `...` or `*name`: any number of dims.
    Rest,
}

/// Whether `dims` (an array type's shape) can match `items`; evaluated in a `const` by derived
/// code, so a mismatch fails the build.
///
/// ```
/// use shapes::__private::{static_matches, StaticItem::*};
/// assert!(static_matches(&[3, 4], &[Lit(3), Any]));
/// assert!(!static_matches(&[3, 4], &[Lit(3), Lit(5)]));
/// assert!(!static_matches(&[3, 4], &[Var(0), Var(0)]));
/// assert!(static_matches(&[2, 3, 4], &[Rest, Lit(4)]));
/// assert!(static_matches(&[3], &[Lit(3), Rest]));
/// assert!(static_matches(&[], &[Rest]));
/// ```
pub const fn static_matches(dims: &[usize], items: &[StaticItem]) -> bool {
    let mut rest = items.len();
    let mut i = 0;
    while i < items.len() {
        // ok: `i < items.len()` (the loop condition); the same for `items[i]` below.
        if matches!(items[i], StaticItem::Rest) {
            rest = i;
        }
        i += 1;
    }
    let fixed = if rest < items.len() {
        items.len() - 1
    } else {
        items.len()
    };
    if rest == items.len() && dims.len() != fixed || dims.len() < fixed {
        return false;
    }
    // The axis each item stands for (items after a rest count from the end).
    const fn axis(i: usize, rest: usize, items: usize, dims: usize) -> usize {
        if i > rest { dims - (items - i) } else { i }
    }
    let mut i = 0;
    while i < items.len() {
        let at = axis(i, rest, items.len(), dims.len());
        // Out of range only for a trailing `Rest` that stands for no dims (`(3, ...)` against
        // `[3]`), which reads no dim (indexing there panicked: a compile error in the derive's
        // `const` check of a pattern that does match).
        if at >= dims.len() {
            i += 1;
            continue;
        }
        let d = dims[at]; // ok: `at < dims.len()`, checked just above.
        let ok = match items[i] {
            StaticItem::Lit(n) => d == n,
            StaticItem::Broadcast(n) => d == n || d == 1,
            StaticItem::Var(v) => {
                let mut j = 0;
                let mut same = true;
                while j < i {
                    // ok: `j < i < items.len()`, and item `j` is a `Var`, never skipped above, so
                    // its axis passed `at < dims.len()` on an earlier iteration.
                    if let StaticItem::Var(w) = items[j]
                        && w == v
                        && dims[axis(j, rest, items.len(), dims.len())] != d
                    {
                        same = false;
                    }
                    j += 1;
                }
                same
            }
            StaticItem::Any | StaticItem::Rest => true,
        };
        if !ok {
            return false;
        }
        i += 1;
    }
    true
}
