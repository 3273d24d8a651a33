//! What the two header readers (safetensors, GGUF) share: reading a fixed-size prefix that may
//! arrive in pieces, and a list of named entries in file order with an index by name.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::io::{self, Read};

use super::ShapeSource;

/// Reads the first `N` bytes of `reader`, finishing short reads, and returns them with how
/// many arrived: `N`, or fewer only when the reader ran dry first. An I/O error is returned as
/// is.
pub(super) fn read_prefix<const N: usize>(reader: &mut impl Read) -> io::Result<([u8; N], usize)> {
    let mut buf = [0u8; N];
    let mut got = 0;
    // A short read is legal for `Read`: finish it before judging the bytes.
    while got < N {
        // ok: `got < N == buf.len()` (the loop condition).
        match reader.read(&mut buf[got..])? {
            0 => break,
            k => got += k,
        }
    }
    // Clamped, so a reader that over-reports what it read cannot make a caller's slice panic.
    Ok((buf, got.min(N)))
}

/// An entry of a header, found by its name.
pub(super) trait Named {
    /// The name the entry is indexed under.
    fn name(&self) -> &str;
}

/// A tensor's entry in a header: a name and a shape.
pub(super) trait TensorInfo: Named {
    /// The tensor's dims, outermost first.
    fn dims(&self) -> &[usize];
}

/// Metadata pairs are found by their key.
impl<V> Named for (String, V) {
    fn name(&self) -> &str {
        &self.0
    }
}

/// A header's entries in file order, with an index from each name to its entry. Names are
/// unique: [`push`](Self::push) refuses a second entry of one name.
#[derive(Clone)]
pub(super) struct Indexed<T> {
    items: Vec<T>,
    index: HashMap<String, usize>,
}

impl<T: Named> Indexed<T> {
    /// An empty list with room for `capacity` entries.
    pub(super) fn with_capacity(capacity: usize) -> Self {
        Indexed {
            items: Vec::with_capacity(capacity),
            index: HashMap::with_capacity(capacity),
        }
    }

    /// Appends `item`, or hands it back when an entry of the same name is already here.
    pub(super) fn push(&mut self, item: T) -> Result<(), T> {
        match self.index.entry(item.name().to_owned()) {
            Entry::Occupied(_) => Err(item),
            Entry::Vacant(slot) => {
                slot.insert(self.items.len());
                self.items.push(item);
                Ok(())
            }
        }
    }

    /// Every entry, in file order.
    pub(super) fn items(&self) -> &[T] {
        &self.items
    }

    /// The entry called `name`.
    pub(super) fn get(&self, name: &str) -> Option<&T> {
        self.index.get(name).and_then(|&i| self.items.get(i))
    }

    /// The index from names to positions in [`items`](Self::items), for the headers' `Debug`.
    pub(super) fn index(&self) -> &HashMap<String, usize> {
        &self.index
    }
}

impl<T: TensorInfo> ShapeSource for Indexed<T> {
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        self.get(name).map(T::dims)
    }
    fn tensor_names(&self) -> Vec<&str> {
        self.items.iter().map(T::name).collect()
    }
}
