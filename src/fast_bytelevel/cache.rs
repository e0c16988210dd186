//! The per-thread word cache of the byte-level fast path: word (raw bytes)
//! -> its tokens. The lookup is the largest cost of the bulk path (one random
//! read per word, ≈ 4.6 bytes of English), so the tables are kept small:
//! words of up to 8 bytes (91% of English words with their space) in 16-byte
//! slots keyed by one u64, words of 9 to 16 bytes in 24-byte slots keyed by
//! two, both open addressing up to half full (more words in their home
//! slot, where the scanner's loop reads them inline); longer words in a
//! hash map. The keys are loaded straight from the text (one unaligned load, masked to the
//! word's length) where 8 bytes past the word's start are in the text.
//! Bounded: at `CACHE_WORDS` words it starts over.

use crate::fxhash::FxHashMap;

/// (id, bytes covered) of one token of a word.
pub type Piece = (u32, u32);

/// Cached words per thread before the cache starts over.
const CACHE_WORDS: usize = 1 << 16;
/// Words up to this many bytes have their key inline (one u64 up to 8, two up to 16).
const SHORT: usize = 16;
/// First table size (slots, a power of two); doubled at half full.
const FIRST_SLOTS: usize = 1 << 10;

/// A key inline in a slot: one or two u64 of the word's bytes, zero past its end.
trait Key: Copy + Default + PartialEq {
    fn hash(self, len: u32) -> u64;
}

impl Key for u64 {
    #[inline]
    fn hash(self, len: u32) -> u64 {
        (self ^ u64::from(len)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

impl Key for [u64; 2] {
    #[inline]
    fn hash(self, len: u32) -> u64 {
        (self[0].wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ self[1] ^ u64::from(len)).wrapping_mul(0xD6E8_FEB8_6659_FD93)
    }
}

/// `repr(C)`: the AVX-512 loop ([`super::gather`]) reads the key at offset 0
/// and `value | meta << 32` right after it.
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Slot<K> {
    key: K,
    /// What the caller stored with the word (a start in `pieces`, or a token id).
    value: u32,
    /// pieces << 8 | word length; 0 marks an empty slot (words are never empty).
    meta: u32,
}

// the AVX-512 loop's offsets: key, then value, then meta
const _: () = assert!(std::mem::size_of::<Slot<u64>>() == 16 && std::mem::size_of::<Slot<[u64; 2]>>() == 24);

impl<K: Key> Slot<K> {
    /// (value, count of pieces) if this slot holds the word `key` of `len` bytes.
    #[inline(always)]
    fn holds(&self, key: K, len: u32) -> Option<(u32, u32)> {
        (self.key == key && self.meta & 0xFF == len).then_some((self.value, self.meta >> 8))
    }
}

/// Open addressing with linear probing over slots of one key type.
struct Table<K> {
    slots: Vec<Slot<K>>,
    words: usize,
}

impl<K: Key> Table<K> {
    fn new() -> Table<K> {
        Table { slots: Vec::new(), words: 0 }
    }

    #[inline]
    fn home(&self, key: K, len: u32) -> usize {
        (key.hash(len) >> 32) as usize & (self.slots.len().wrapping_sub(1))
    }

    #[inline]
    fn get(&self, key: K, len: u32) -> Option<(u32, u32)> {
        let i = self.find(key, len)?;
        self.slots.get(i)?.holds(key, len)
    }

    /// The slot holding the word.
    #[inline]
    fn find(&self, key: K, len: u32) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(key, len);
        loop {
            let s = self.slots.get(i)?;
            if s.meta == 0 {
                return None;
            }
            if s.holds(key, len).is_some() {
                return Some(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// A word found past its home slot swaps places with the home slot's
    /// word, so that a word looked up often ends up where the inline lookup
    /// ([`WordCache::get_home`]) finds it (growing re-places the words in
    /// slot order, not in the order they came). The probe run stays valid:
    /// the word moved out of the home slot lands further along its own run,
    /// whose slots are all taken.
    fn move_home(&mut self, key: K, len: u32) {
        if let Some(i) = self.find(key, len) {
            let home = self.home(key, len);
            self.slots.swap(i, home);
        }
    }

    fn insert(&mut self, key: K, len: u32, value: u32, n: u32) {
        if 2 * (self.words + 1) > self.slots.len() {
            self.grow();
        }
        self.place(Slot { key, value, meta: (n << 8) | len });
        self.words += 1;
    }

    fn place(&mut self, slot: Slot<K>) {
        let mask = self.slots.len() - 1;
        let mut i = self.home(slot.key, slot.meta & 0xFF);
        while self.slots.get(i).is_some_and(|s| s.meta != 0) {
            i = (i + 1) & mask;
        }
        if let Some(s) = self.slots.get_mut(i) {
            *s = slot;
        }
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(FIRST_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        for s in old.into_iter().filter(|s| s.meta != 0) {
            self.place(s);
        }
    }

    fn clear(&mut self) {
        self.slots.clear();
        self.words = 0;
    }
}

pub(super) struct WordCache {
    /// The model whose words these are.
    pub owner: u64,
    short: Table<u64>,
    mid: Table<[u64; 2]>,
    long: FxHashMap<Box<[u8]>, (u32, u32)>,
    /// The tokens of every cached word, back to back.
    pub pieces: Vec<Piece>,
}

/// The 8 bytes of `text` from `at` as a little-endian u64 (None past the end).
#[inline]
fn load8(text: &[u8], at: usize) -> Option<u64> {
    let b: [u8; 8] = text.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(b))
}

/// `LOW_BYTES[n]`: the low `n` bytes of a u64 set (all 8 from 8 on).
const LOW_BYTES: [u64; 16] = {
    let mut m = [u64::MAX; 16];
    let mut n = 0;
    while n < 8 {
        m[n] = (1u64 << (8 * n)) - 1;
        n += 1;
    }
    m
};

/// The low `len` (0..=8) bytes of `v`: a table's mask, not a branch on
/// `len == 8` (which the CPU mispredicts on the 8-byte words).
#[inline]
fn low(v: u64, len: usize) -> u64 {
    v & LOW_BYTES[len & 15]
}

/// Bytes `start..start+len` (len <= 8) of `text` as a little-endian u64, zero past `len`.
#[inline]
fn key8(text: &[u8], start: usize, len: usize) -> u64 {
    match load8(text, start) {
        Some(v) => low(v, len),
        None => key8_at_end(text, start, len),
    }
}

/// [`key8`] within 8 bytes of the text's end, byte by byte (out of line: rare).
#[inline(never)]
fn key8_at_end(text: &[u8], start: usize, len: usize) -> u64 {
    text.get(start..start + len).unwrap_or_default().iter().rev().fold(0u64, |w, &b| (w << 8) | u64::from(b))
}

/// A table's slots for the AVX-512 loop's gathers: the first slot's address
/// and the slot count less one (a power of two); None when it has no slots.
#[derive(Clone, Copy)]
pub(super) struct RawTable {
    pub slots: *const u8,
    pub mask: u64,
}

impl<K: Key> Table<K> {
    fn raw(&self) -> Option<RawTable> {
        (!self.slots.is_empty()).then(|| RawTable { slots: self.slots.as_ptr().cast(), mask: self.slots.len() as u64 - 1 })
    }
}

impl WordCache {
    /// The short (2–8 bytes, 16-byte slots) and mid (9–16 bytes, 24-byte
    /// slots) tables as [`RawTable`]s, valid until the cache next changes
    /// (an insert may grow a table, a full cache clears).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) fn raw_tables(&self) -> (Option<RawTable>, Option<RawTable>) {
        (self.short.raw(), self.mid.raw())
    }

    pub fn new() -> WordCache {
        WordCache { owner: u64::MAX, short: Table::new(), mid: Table::new(), long: FxHashMap::default(), pieces: Vec::new() }
    }

    pub fn clear(&mut self) {
        self.short.clear();
        self.mid.clear();
        self.long.clear();
        self.pieces.clear();
    }

    /// (what was stored, count of pieces) of the cached word `text[start..end]` (non-empty).
    #[inline]
    pub fn get(&self, text: &[u8], start: usize, end: usize) -> Option<(u32, u32)> {
        let len = end - start;
        if len <= 8 {
            self.short.get(key8(text, start, len), len as u32)
        } else {
            self.get_longer(text, start, end)
        }
    }

    /// (what was stored, count of pieces) of the word `text[start..start +
    /// len]` when it is 2 to 16 bytes long and in its home slot (~98% of
    /// English words of 2 to 16 bytes, one token or several, once the
    /// frequent ones are moved there: benches/bulk_bpe_pieces.py): the few
    /// instructions inlined into the scanner's loop; None sends the word to
    /// [`WordCache::get`].
    #[inline(always)]
    pub fn get_home(&self, text: &[u8], start: usize, len: usize) -> Option<(u32, u32)> {
        if len <= 8 {
            let key = key8(text, start, len);
            self.short.slots.get(self.short.home(key, len as u32))?.holds(key, len as u32)
        } else if len <= SHORT {
            let key = [key8(text, start, 8), key8(text, start + 8, len - 8)];
            self.mid.slots.get(self.mid.home(key, len as u32))?.holds(key, len as u32)
        } else {
            None
        }
    }

    /// [`WordCache::get`] for words over 8 bytes (out of line: the short
    /// words' lookup stays small enough to inline into the scanner's loop).
    #[inline(never)]
    fn get_longer(&self, text: &[u8], start: usize, end: usize) -> Option<(u32, u32)> {
        let len = end - start;
        if len <= SHORT {
            self.mid.get([key8(text, start, 8), key8(text, start + 8, len - 8)], len as u32)
        } else {
            self.long.get(text.get(start..end)?).copied()
        }
    }

    /// Moves the word `text[start..end]` (1 to 16 bytes) into its home slot
    /// if it is cached past it (see [`Table::move_home`]).
    pub fn move_home(&mut self, text: &[u8], start: usize, end: usize) {
        let len = end - start;
        if len <= 8 {
            self.short.move_home(key8(text, start, len), len as u32);
        } else if len <= SHORT {
            self.mid.move_home([key8(text, start, 8), key8(text, start + 8, len - 8)], len as u32);
        }
    }

    /// Caches the word `text[start..end]` (non-empty) with `value` and its
    /// count of pieces `n` (the caller's, already pushed to `pieces` if n > 1).
    pub fn insert(&mut self, text: &[u8], start: usize, end: usize, value: u32, n: u32) {
        let len = end - start;
        if len <= 8 {
            self.short.insert(key8(text, start, len), len as u32, value, n);
        } else if len <= SHORT {
            self.mid.insert([key8(text, start, 8), key8(text, start + 8, len - 8)], len as u32, value, n);
        } else if let Some(word) = text.get(start..end) {
            self.long.insert(word.into(), (value, n));
        }
    }

    /// True when no more words fit: the caller clears before caching more.
    pub fn is_full(&self) -> bool {
        self.short.words + self.mid.words + self.long.len() >= CACHE_WORDS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_tell_apart_lengths_and_long_words() {
        let mut c = WordCache::new();
        let words: Vec<Vec<u8>> = (0..5000u32)
            .map(|k| k.to_string().into_bytes())
            .chain([b"a".to_vec(), b"a\0".to_vec(), b"\0".to_vec(), vec![7; 8], vec![7; 9], vec![7; 16], vec![7; 17], vec![7; 40]])
            .chain([b"abcdefgh\0".to_vec(), b"abcdefgh".to_vec(), b"abcdefg".to_vec()])
            .collect();
        // each word alone (keys loaded byte by byte) and inside a longer text (8-byte loads past its end)
        let at_end = |w: &Vec<u8>| (w.clone(), 0, w.len());
        let inside = |w: &Vec<u8>| {
            let mut t = b"xx".to_vec();
            t.extend_from_slice(w);
            t.extend_from_slice(b"zzzzzzzzzzzzzzzzz");
            (t, 2, 2 + w.len())
        };
        for (k, w) in words.iter().enumerate() {
            let (t, a, b) = at_end(w);
            assert_eq!(c.get(&t, a, b), None);
            c.insert(&t, a, b, k as u32, 1);
        }
        for (k, w) in words.iter().enumerate() {
            for (t, a, b) in [at_end(w), inside(w)] {
                assert_eq!(c.get(&t, a, b), Some((k as u32, 1)), "{w:?}");
            }
        }
        c.clear();
        assert_eq!(c.get(b"a", 0, 1), None);
    }

    /// The inline lookup agrees with `get` wherever it answers: words of 2
    /// to 16 bytes in their home slot, of one piece or several (colliding
    /// words later in the probe run go to `get`), keys loaded at a text's end
    /// and inside it; a word past its home slot is in it after `move_home`,
    /// and every word is still found.
    #[test]
    fn get_home_is_get_for_words_in_their_home_slot() {
        let mut c = WordCache::new();
        // 3,000 words of 2 to 16 bytes: the tables grow, and some words land past their home slot
        let words: Vec<Vec<u8>> = (0..3000u32).map(|k| format!("{k:0>width$}", width = 2 + k as usize % 15).into_bytes()).collect();
        let n_of = |k: usize| if k % 7 == 0 { 2 + k as u32 % 3 } else { 1 }; // some words of several pieces
        for (k, w) in words.iter().enumerate() {
            c.insert(w, 0, w.len(), k as u32, n_of(k));
        }
        let (mut inline, mut several, mut probed) = (0, 0, 0);
        for (k, w) in words.iter().enumerate() {
            let mut inside = b"x".to_vec();
            inside.extend_from_slice(w);
            inside.extend_from_slice(b"yyyyyyyyyyyyyyyyyy");
            for (t, a) in [(w.as_slice(), 0), (inside.as_slice(), 1)] {
                let got = c.get_home(t, a, w.len());
                let want = c.get(t, a, a + w.len());
                assert_eq!(want, Some((k as u32, n_of(k))), "{w:?}");
                match got {
                    Some(found) => {
                        assert_eq!(Some(found), want, "{w:?}");
                        inline += 1;
                        several += (found.1 > 1) as usize;
                    }
                    None => {
                        probed += 1;
                        // moved to its home slot, the inline lookup finds it
                        c.move_home(t, a, a + w.len());
                        assert_eq!(c.get_home(t, a, w.len()), want, "{w:?} after move_home");
                    }
                }
            }
        }
        assert!(inline > 1000 && several > 100 && probed > 0, "inline {inline} ({several} of several pieces), past their home slot {probed}");
        // every word is still found after the moves
        for (k, w) in words.iter().enumerate() {
            assert_eq!(c.get(w, 0, w.len()), Some((k as u32, n_of(k))), "{w:?} after the moves");
        }
        // a missing word, a one-byte word, a word over 16 bytes: never inline
        assert_eq!(c.get_home(b"zz", 0, 2), None);
        assert_eq!(c.get_home(b"0", 0, 1), None);
        c.insert(&[b'7'; 17], 0, 17, 5, 1);
        assert_eq!(c.get_home(&[b'7'; 17], 0, 17), None);
    }
}
