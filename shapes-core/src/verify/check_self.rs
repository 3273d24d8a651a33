//! What a method checked with `#[shapes::check(self)]` asks of its struct, generic over the
//! struct's [`Shaped`] impl: whether it shares a variable, the binder it reads it through, and
//! the struct's own error when it cannot be read. Above `binders` (the tables) and `shaped`.

use super::binders::Binder;
use super::error::ShapeError;
use super::shaped::Shaped;

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
