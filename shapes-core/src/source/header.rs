//! What the two header readers (safetensors, GGUF) share: reading a fixed-size prefix that may
//! arrive in pieces, and a list of named entries in file order with an index by name.

use std::io::{self, Read};

use super::ShapeSource;

/// The most tensors a header may list: 2^20 (1,048,576). The largest published checkpoints
/// list a few thousand tensors per file (a mixture of experts with every expert apart, tens of
/// thousands over all its shards); a header claiming more is corrupt or hostile, and each
/// tensor costs about 120 bytes in memory for 30 to 60 in the file.
pub(super) const MAX_TENSORS: usize = 1 << 20;

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
/// unique: [`new`](Self::new) refuses a second entry of one name.
///
/// The index is the entries' positions sorted by name (4 bytes an entry, found by binary
/// search), not a map from a copy of every name: a header of a million short-named tensors
/// would otherwise hold each name twice, with a hash table on top.
#[derive(Clone)]
pub(super) struct Indexed<T> {
    items: Vec<T>,
    by_name: Vec<u32>,
}

impl<T: Named> Indexed<T> {
    /// Indexes `items`, or hands back the first entry (in file order) whose name an earlier
    /// entry has. More than `u32::MAX` entries cannot come from a header of bounded length;
    /// they are refused the same way, with the first entry past the limit.
    pub(super) fn new(items: Vec<T>) -> Result<Self, T> {
        Self::new_or_repeat(items).map_err(|(mut items, i)| items.swap_remove(i))
    }

    /// [`new`](Self::new), handing back every entry and the position of the first repeat on
    /// failure, so that a caller can name the entry it repeats.
    pub(super) fn new_or_repeat(items: Vec<T>) -> Result<Self, (Vec<T>, usize)> {
        let Ok(len) = u32::try_from(items.len()) else {
            return Err((items, u32::MAX as usize));
        };
        let mut by_name: Vec<u32> = (0..len).collect();
        // ok: every position in `by_name` is below `len == items.len()`.
        by_name.sort_unstable_by(|&a, &b| {
            items[a as usize]
                .name()
                .cmp(items[b as usize].name())
                .then(a.cmp(&b))
        });
        // Within a run of one name, positions ascend: the second is that name's first repeat.
        let repeat = by_name
            .windows(2)
            .filter(|w| items[w[0] as usize].name() == items[w[1] as usize].name())
            .map(|w| w[1])
            .min();
        match repeat {
            Some(i) => Err((items, i as usize)),
            None => Ok(Indexed { items, by_name }),
        }
    }

    /// Every entry, in file order.
    pub(super) fn items(&self) -> &[T] {
        &self.items
    }

    /// The entry called `name`.
    pub(super) fn get(&self, name: &str) -> Option<&T> {
        let k = self
            .by_name
            .binary_search_by(|&i| {
                self.items
                    .get(i as usize)
                    .map_or(std::cmp::Ordering::Less, |t| t.name().cmp(name))
            })
            .ok()?;
        self.items.get(*self.by_name.get(k)? as usize)
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
