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

/// A slot's word length: the meta's low 7 bits (slots hold words of up to 16 bytes).
pub(super) const LEN_BITS: u32 = 0x7F;
/// In a slot's meta: the word is two tokens, both ids in the slot (see [`pair_count`]).
pub(super) const PAIR_META: u32 = 0x80;
/// In the count of pieces that [`WordCache::get`] returns and `insert` takes:
/// the word is two tokens, `value` the first id, the count's low 24 bits
/// `second id << 4 | first token's bytes` (see [`pair_count`]).
pub const PAIR: u32 = 1 << 31;
/// Second ids below this fit a slot's meta (GPT-2's 50,257 do; larger ones stay in `pieces`).
pub const PAIR_IDS: u32 = 1 << 20;

/// The count that caches a two-token word inline (`value` its first id):
/// the AVX-512 loop answers it from the slot like a one-token word, no
/// second load. None when the second id is too large (then `pieces`).
#[inline]
pub fn pair_count(second: u32, first_len: u32) -> Option<u32> {
    (second < PAIR_IDS && first_len < 16).then_some(PAIR | second << 4 | first_len)
}

/// The two ids and the first token's bytes of a [`pair_count`] count.
#[inline]
pub fn unpair(n: u32) -> (u32, u32) {
    ((n & 0xFF_FFFF) >> 4, n & 15)
}

/// A slot's meta from a count ([`pair_count`] or plain) and the word's length.
#[inline]
fn meta(n: u32, len: u32) -> u32 {
    (n & 0xFF_FFFF) << 8 | (n >> 31) << 7 | len
}

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
    /// pieces << 8 | word length, or for a two-token word `second id << 12
    /// | first token's bytes << 8 | PAIR_META | length` ([`pair_count`]); 0 marks
    /// an empty slot (words are never empty).
    meta: u32,
}

// the AVX-512 loop's offsets: key, then value, then meta
const _: () = assert!(std::mem::size_of::<Slot<u64>>() == 16 && std::mem::size_of::<Slot<[u64; 2]>>() == 24);

impl<K: Key> Slot<K> {
    /// (value, count of pieces) if this slot holds the word `key` of `len` bytes.
    #[inline(always)]
    fn holds(&self, key: K, len: u32) -> Option<(u32, u32)> {
        (self.key == key && self.meta & LEN_BITS == len).then_some((self.value, self.meta >> 8 | (self.meta & PAIR_META) << 24))
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
        self.place(Slot { key, value, meta: meta(n, len) });
        self.words += 1;
    }

    fn place(&mut self, slot: Slot<K>) {
        let mask = self.slots.len() - 1;
        let mut i = self.home(slot.key, slot.meta & LEN_BITS);
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
    /// Two-token words among the pieces the AVX-512 loop saw lately (which loop it takes).
    pair_lanes: u32,
    lanes: u32,
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
        WordCache { owner: u64::MAX, short: Table::new(), mid: Table::new(), long: FxHashMap::default(), pieces: Vec::new(), pair_lanes: 0, lanes: 0 }
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
    /// count of pieces `n` (the caller's, already pushed to `pieces` if n > 1),
    /// or a [`pair_count`] count (`value` the first id; only for words of up to 16 bytes).
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

    /// Whether two-token words have lately been common enough (over 1 in
    /// 50 pieces: GPT-2's real ranks on English 4.3%, a vocabulary trained
    /// on the text 0.3%) that the AVX-512 loop answers them from their slot
    /// too: that loop costs ~6-9% where they are rare, the other one ~4%
    /// where they are common (docs/benchmarks/bpe-bulk-round11.md).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    #[inline]
    pub(super) fn pairs_often(&self) -> bool {
        u64::from(self.pair_lanes) * 50 > u64::from(self.lanes)
    }

    /// Counts `pairs` two-token words among `lanes` pieces for
    /// [`WordCache::pairs_often`] (halved now and then: recent texts count).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) fn count_pairs(&mut self, pairs: u32, lanes: u32) {
        self.pair_lanes = self.pair_lanes.saturating_add(pairs);
        self.lanes = self.lanes.saturating_add(lanes);
        if self.lanes > 1 << 14 {
            self.pair_lanes /= 2;
            self.lanes /= 2;
        }
    }

    /// Sets the counts so that the next text takes the loop that answers
    /// two-token words from their slot (`often`) or the one that does not.
    #[cfg(test)]
    pub(super) fn force_pairs(&mut self, often: bool) {
        (self.pair_lanes, self.lanes) = (if often { 1 << 12 } else { 0 }, 1 << 13);
    }

    /// True when no more words fit: the caller clears before caching more.
    pub fn is_full(&self) -> bool {
        self.short.words + self.mid.words + self.long.len() >= CACHE_WORDS
    }
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;
