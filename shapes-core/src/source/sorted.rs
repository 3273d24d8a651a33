//! A source's names sorted once: what every check by name starts from, and a source whose
//! names come sorted, for running several checks of one large checkpoint (each check sorts
//! the names it is given unless they come sorted).

#[cfg(feature = "spec")]
use super::ConfigEntry;
use super::ShapeSource;

/// `src` with [`tensor_names`](ShapeSource::tensor_names) sorted and without repeats, sorted
/// once; everything else as `src` says.
#[cfg(feature = "spec")]
pub(crate) struct SortedNames<'a, S: ?Sized> {
    src: &'a S,
    names: Vec<&'a str>,
}

/// `src`'s tensor names sorted and without repeats. Checkpoint headers usually list their
/// names sorted already (safetensors writers do): checking is linear, sorting long
/// shared-prefix names is not.
pub(crate) fn sorted_names<S: ShapeSource + ?Sized>(src: &S) -> Vec<&str> {
    let mut names = src.tensor_names();
    if !names.is_sorted() {
        names.sort_unstable();
    }
    names.dedup();
    names
}

#[cfg(feature = "spec")]
impl<'a, S: ShapeSource + ?Sized> SortedNames<'a, S> {
    pub(crate) fn new(src: &'a S) -> Self {
        SortedNames {
            src,
            names: sorted_names(src),
        }
    }
}

#[cfg(feature = "spec")]
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
