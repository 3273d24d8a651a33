//! A source whose names come sorted: for running several checks of one large checkpoint
//! (each check sorts the names it is given unless they come sorted).

use super::{ConfigEntry, ShapeSource};

/// `src` with [`tensor_names`](ShapeSource::tensor_names) sorted and without repeats, sorted
/// once; everything else as `src` says.
pub(crate) struct SortedNames<'a, S: ?Sized> {
    src: &'a S,
    names: Vec<&'a str>,
}

impl<'a, S: ShapeSource + ?Sized> SortedNames<'a, S> {
    pub(crate) fn new(src: &'a S) -> Self {
        let mut names = src.tensor_names();
        if !names.is_sorted() {
            names.sort_unstable();
        }
        names.dedup();
        SortedNames { src, names }
    }
}

impl<S: ShapeSource + ?Sized> ShapeSource for SortedNames<'_, S> {
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        self.src.shape_of(name)
    }
    fn tensor_names(&self) -> Vec<&str> {
        self.names.clone()
    }
    fn config(&self, key: &str) -> Option<ConfigEntry> {
        self.src.config(key)
    }
    fn dtype_of(&self, name: &str) -> Option<&str> {
        self.src.dtype_of(name)
    }
    fn config_near(&self, key: &str) -> Option<ConfigEntry> {
        self.src.config_near(key)
    }
}
