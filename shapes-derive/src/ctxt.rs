//! Collects every error of one macro call so they are all reported together (serde's `Ctxt`).

use std::cell::RefCell;
use std::fmt::Display;
use std::thread;

use quote::ToTokens;

/// The errors found so far. Dropping a `Ctxt` without calling [`Ctxt::check`] panics: in a
/// proc macro a panic is a compile error, so a forgotten `check` can never make errors vanish
/// silently.
pub struct Ctxt {
    /// `None` once `check` has run: that is what the drop bomb looks at.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    pub fn error_spanned(&self, tokens: impl ToTokens, message: impl Display) {
        self.syn_error(syn::Error::new_spanned(tokens, message));
    }

    pub fn error_at(&self, span: proc_macro2::Span, message: impl Display) {
        self.syn_error(syn::Error::new(span, message));
    }

    pub fn syn_error(&self, error: syn::Error) {
        match self.errors.borrow_mut().as_mut() {
            Some(errors) => errors.push(error),
            // `check` takes `self`, so nothing can report after it.
            None => unreachable!("internal: an error reported after Ctxt::check"),
        }
    }

    /// All errors combined into one, if there are any.
    pub fn check(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.take().into_iter().flatten();
        let Some(mut first) = errors.next() else {
            return Ok(());
        };
        for e in errors {
            first.combine(e);
        }
        Err(first)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        // Not while unwinding from another panic: that one is the error to see.
        if !thread::panicking() && self.errors.get_mut().is_some() {
            panic!("internal: a Ctxt was dropped without Ctxt::check, which would lose its errors");
        }
    }
}
