//! What the two header readers (safetensors, GGUF) share: reading a fixed-size prefix that may
//! arrive in pieces, and a list of named entries in file order with an index by name.

use std::hash::{BuildHasher, RandomState};
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
/// The index is an open-addressed hash table of the entries' positions (at most 8 bytes an
/// entry, no copy of any name): a header of a million short-named tensors would otherwise hold
/// each name twice. A name is found in a probe or two, where a binary search over a sorted
/// index compared ~17 long names sharing their prefix (`model.layers.12.mlp.experts.`) per
/// lookup. The hash is keyed per table (std's `RandomState`), so crafted names cannot make the
/// probes long.
#[derive(Clone)]
pub(super) struct Indexed<T> {
    items: Vec<T>,
    /// Positions in `items`, [`EMPTY`] for a free slot; its length a power of two, at least
    /// twice the entries.
    slots: Vec<u32>,
    hasher: RandomState,
}

/// A free slot of [`Indexed::slots`]: no position (there are at most `u32::MAX` entries, so
/// positions are below it).
const EMPTY: u32 = u32::MAX;

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
            return Err((items, EMPTY as usize));
        };
        let size = items
            .len()
            .saturating_mul(2)
            .max(8)
            .checked_next_power_of_two()
            .unwrap_or(usize::MAX);
        let mut index = Indexed {
            items: Vec::new(),
            slots: vec![EMPTY; size],
            hasher: RandomState::new(),
        };
        // In file order: the first name found already present is the first repeat.
        for (pos, item) in (0..len).zip(&items) {
            match index.probe(&items, item.name()) {
                Err(slot) => {
                    if let Some(s) = index.slots.get_mut(slot) {
                        *s = pos;
                    }
                }
                Ok(_) => return Err((items, pos as usize)),
            }
        }
        index.items = items;
        Ok(index)
    }

    /// The slot of `name` among `items`: `Ok` with its position when present, else `Err` with
    /// the free slot where it would go.
    fn probe(&self, items: &[T], name: &str) -> Result<usize, usize> {
        let mask = self.slots.len().wrapping_sub(1);
        // Truncated on a 32-bit target: the mask keeps the low bits only anyway.
        let mut slot = self.hasher.hash_one(name) as usize & mask;
        // The table is never more than half full, so a free slot ends every probe; the bound
        // only makes that evident.
        for _ in 0..self.slots.len() {
            let at = *self.slots.get(slot).unwrap_or(&EMPTY);
            if at == EMPTY {
                return Err(slot);
            }
            if items.get(at as usize).is_some_and(|t| t.name() == name) {
                return Ok(at as usize);
            }
            slot = slot.wrapping_add(1) & mask;
        }
        Err(slot)
    }

    /// Every entry, in file order.
    pub(super) fn items(&self) -> &[T] {
        &self.items
    }

    /// The entry called `name`.
    pub(super) fn get(&self, name: &str) -> Option<&T> {
        self.items.get(self.get_position(name)?)
    }

    /// The position in [`items`](Self::items) of the entry called `name`.
    pub(super) fn get_position(&self, name: &str) -> Option<usize> {
        self.probe(&self.items, name).ok()
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
