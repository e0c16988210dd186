//! The word cache's compact entries: a word of at most 15 bytes split into at
//! most 3 pieces (most words of a text) takes 32 bytes with its key, so a
//! lookup touches one cache line instead of the two or three of a general
//! entry (88 bytes): the lookups of a warm cache mostly wait on memory. They
//! sit in an open-addressed table of 32-byte aligned slots ([`SmallTable`]),
//! whose slot for a word can be requested ahead ([`SmallTable::prefetch`]):
//! the encoder asks for the next word's while it uses the current one.

use crate::prefetch::prefetch;

/// The longest word with a compact entry.
pub const MAX_SMALL_WORD: usize = 15;
const PIECES: usize = 3;
/// A piece is `id << LEN_BITS | byte length` (lengths are 1..=15).
const LEN_BITS: u32 = 4;

/// A word of at most 15 bytes, inline: its bytes, zero-padded, and its
/// length in the last byte (never all zero: words are not empty).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SmallKey([u64; 2]);

impl SmallKey {
    pub fn new(word: &[u8]) -> Option<SmallKey> {
        let mut bytes = [0u8; 16];
        bytes.get_mut(..word.len()).filter(|_| word.len() <= MAX_SMALL_WORD)?.copy_from_slice(word);
        bytes[15] = word.len() as u8;
        let half = |k: usize| u64::from_le_bytes(std::array::from_fn(|i| bytes[8 * k + i]));
        Some(SmallKey([half(0), half(1)]))
    }

    /// The key's hash (FxHash's mixing with MurmurHash3's finalizer; tables index by the low bits).
    #[inline]
    pub fn hash(&self) -> u64 {
        const K: u64 = 0x517C_C1B7_2722_0A95;
        let mut h = self.0[0].wrapping_mul(K);
        h = (h.rotate_left(5) ^ self.0[1]).wrapping_mul(K);
        h ^= h >> 33;
        h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^ (h >> 33)
    }
}

#[derive(Clone, Copy, Default)]
pub struct SmallEntry {
    /// The general entry's slack rounded down to f32 (so a word it accepts, the exact slack accepts too).
    slack: f32,
    /// The pieces in order; an empty slot (0) ends them.
    pieces: [u32; PIECES],
}

impl SmallEntry {
    /// The entry for a word's `slack` and its `(byte length, id)` pieces, or
    /// None where they do not fit (more than 3 pieces, an id of 2^28 or more).
    pub fn new(slack: f64, pieces: impl ExactSizeIterator<Item = (u32, u32)>) -> Option<SmallEntry> {
        if pieces.len() > PIECES {
            return None;
        }
        let mut packed = [0u32; PIECES];
        for (slot, (len, id)) in packed.iter_mut().zip(pieces) {
            let fits = (1..1 << LEN_BITS).contains(&len) && id < 1 << (32 - LEN_BITS);
            *slot = fits.then_some(id << LEN_BITS | len)?;
        }
        // NaN stays NaN (no check accepts it); a rounding up is undone.
        let mut low = slack as f32;
        if low as f64 > slack {
            low = next_down(low);
        }
        Some(SmallEntry { slack: low, pieces: packed })
    }

    pub fn slack(&self) -> f64 {
        self.slack as f64
    }

    /// `(byte length, id)` of each piece.
    pub fn pieces(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.pieces.iter().take_while(|&&p| p != 0).map(|&p| (p & ((1 << LEN_BITS) - 1), p >> LEN_BITS))
    }
}

/// The largest f32 below `x` (not NaN nor -inf): `f32::next_down`, which needs Rust 1.86 (the MSRV is 1.85).
fn next_down(x: f32) -> f32 {
    if x == f32::INFINITY {
        return f32::MAX;
    }
    if x == 0.0 {
        return -f32::from_bits(1);
    }
    f32::from_bits(if x > 0.0 { x.to_bits() - 1 } else { x.to_bits() + 1 })
}

/// One slot: a word and its entry, half a cache line.
#[derive(Clone, Copy, Default)]
#[repr(align(32))]
struct Slot {
    key: SmallKey,
    entry: SmallEntry,
}

/// Compact entries by word: linear probing in a power-of-two number of slots,
/// at most 3/4 full (an empty key marks an empty slot).
#[derive(Default)]
pub struct SmallTable {
    slots: Vec<Slot>,
    len: usize,
}

impl SmallTable {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Requests the cache line of the slot where a lookup of `key` (hashed `hash`) starts.
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        if let Some(slot) = self.slots.get(hash as usize & self.slots.len().wrapping_sub(1)) {
            prefetch(slot);
        }
    }

    #[inline]
    pub fn get(&self, key: &SmallKey, hash: u64) -> Option<&SmallEntry> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut i = hash as usize & mask;
        loop {
            let slot = self.slots.get(i)?;
            if slot.key == *key {
                return Some(&slot.entry);
            }
            if slot.key == SmallKey::default() {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `key` (not in the table) with `entry`.
    pub fn insert(&mut self, key: SmallKey, hash: u64, entry: SmallEntry) {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            let size = (self.slots.len() * 2).max(1024);
            let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
            for slot in old.into_iter().filter(|s| s.key != SmallKey::default()) {
                self.place(slot, slot.key.hash());
            }
        }
        self.place(Slot { key, entry }, hash);
        self.len += 1;
    }

    fn place(&mut self, slot: Slot, hash: u64) {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        // At most 3/4 full: an empty slot is always found.
        while let Some(s) = self.slots.get_mut(i) {
            if s.key == SmallKey::default() {
                *s = slot;
                return;
            }
            i = (i + 1) & mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_keep_their_pieces_or_refuse() {
        let pieces = [(3, 7), (1, (1 << 28) - 1), (15, 0)];
        let e = SmallEntry::new(1.5, pieces.into_iter()).unwrap();
        assert_eq!(e.pieces().collect::<Vec<_>>(), pieces);
        assert!(SmallEntry::new(0.0, [(1, 1); 4].into_iter()).is_none());
        assert!(SmallEntry::new(0.0, [(1, 1 << 28)].into_iter()).is_none());
        assert!(SmallEntry::new(0.0, [(16, 1)].into_iter()).is_none());
        assert_eq!(SmallEntry::new(0.0, std::iter::empty()).unwrap().pieces().count(), 0);
    }

    #[test]
    fn slack_is_rounded_down() {
        for s in [0.1f64, -0.1, 1e39, -1e39, 3.0, f64::INFINITY, f64::NEG_INFINITY, 16777217.0] {
            let low = SmallEntry::new(s, std::iter::empty()).unwrap().slack();
            assert!(low <= s, "{s}");
        }
        assert!(SmallEntry::new(f64::NAN, std::iter::empty()).unwrap().slack().is_nan());
        for x in [1.0f32, -1.0, 0.0, f32::INFINITY, f32::MIN_POSITIVE, -f32::MAX, 3e-45] {
            assert!(next_down(x) < x, "{x}");
        }
        assert_eq!(next_down(1.0), 1.0 - f32::EPSILON / 2.0);
        assert_eq!(next_down(-1.0), -1.0 - f32::EPSILON);
        assert_eq!(next_down(0.0), -f32::from_bits(1));
        assert_eq!(next_down(f32::INFINITY), f32::MAX);
    }

    #[test]
    fn the_table_finds_what_it_holds_past_growing() {
        let mut table = SmallTable::default();
        let words: Vec<Vec<u8>> = (0..5000u32).map(|k| k.to_string().into_bytes()).collect();
        for (k, w) in words.iter().enumerate() {
            let key = SmallKey::new(w).unwrap();
            assert!(table.get(&key, key.hash()).is_none());
            table.insert(key, key.hash(), SmallEntry::new(k as f64, [(w.len() as u32, k as u32)].into_iter()).unwrap());
        }
        assert_eq!(table.len(), words.len());
        for (k, w) in words.iter().enumerate() {
            let key = SmallKey::new(w).unwrap();
            table.prefetch(key.hash());
            let entry = table.get(&key, key.hash()).unwrap();
            assert_eq!(entry.pieces().collect::<Vec<_>>(), [(w.len() as u32, k as u32)]);
        }
        assert!(table.get(&SmallKey::new(b"x").unwrap(), SmallKey::new(b"x").unwrap().hash()).is_none());
    }

    #[test]
    fn keys_differ_by_length_and_bytes() {
        assert!(SmallKey::new(b"ab") != SmallKey::new(b"ab\0"));
        assert!(SmallKey::new(b"") != SmallKey::new(b"\0"));
        assert!(SmallKey::new(&[7; MAX_SMALL_WORD]).is_some());
        assert!(SmallKey::new(&[7; MAX_SMALL_WORD + 1]).is_none());
    }
}
