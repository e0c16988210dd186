//! The per-thread word cache of the byte-level fast path: word (raw bytes)
//! -> its tokens. The lookup is the largest cost of the bulk path (one random
//! read per word, ≈ 4.6 bytes of English), so the tables are kept small:
//! words of up to 8 bytes (91% of English words with their space) in 16-byte
//! slots keyed by one u64, two a bucket, words of 9 to 16 bytes in 24-byte
//! slots keyed by two, one a bucket, both open addressing, the first up to
//! half full (more words in their home bucket, where the scanner's loop reads
//! them inline: [`table`]), the second up to three quarters (its words are
//! rarer and its slots larger: half full, twice the memory they need, read
//! from farther out in the CPU's caches); longer words in a
//! hash map. The keys are loaded straight from the text (one unaligned load, masked to the
//! word's length) where 8 bytes past the word's start are in the text.
//! Bounded: at `CACHE_WORDS` words it starts over.

use crate::fxhash::FxHashMap;

#[path = "table.rs"]
mod table;

pub(super) use table::RawTable;
use table::Table;

/// (id, bytes covered) of one token of a word.
pub type Piece = (u32, u32);

/// Cached words per thread before the cache starts over.
pub(super) const CACHE_WORDS: usize = 1 << 16;
/// Words up to this many bytes have their key inline (one u64 up to 8, two up to 16).
const SHORT: usize = 16;
/// First table size (slots, a power of two); doubled at half or three quarters full (`Key::FULL` in table.rs).
const FIRST_SLOTS: usize = 1 << 10;

pub(super) struct WordCache {
    /// The model whose words these are.
    pub owner: u64,
    /// How many times it started over (the AVX-512 loop's lookups made before one are stale).
    pub clears: u32,
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

impl WordCache {
    /// The short (1–8 bytes, buckets of two 16-byte slots) and mid (9–16
    /// bytes, one 24-byte slot a bucket) tables as [`RawTable`]s, valid until the cache next changes
    /// (an insert may grow a table, a full cache clears).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) fn raw_tables(&self) -> (Option<RawTable>, Option<RawTable>) {
        (self.short.raw(), self.mid.raw())
    }

    pub fn new() -> WordCache {
        WordCache { owner: u64::MAX, clears: 0, short: Table::new(), mid: Table::new(), long: FxHashMap::default(), pieces: Vec::new() }
    }

    pub fn clear(&mut self) {
        self.clears = self.clears.wrapping_add(1);
        self.short.clear();
        self.mid.clear();
        self.long.clear();
        self.pieces.clear();
    }

    /// (what was stored, count of pieces) of the cached word `text[start..end]` (non-empty).
    #[inline]
    pub fn get(&self, text: &[u8], start: usize, end: usize) -> Option<(u32, u32)> {
        self.get_inline(text, start, end)
    }

    /// [`WordCache::get`] always inlined, for [`super::merge::Words::cached`]:
    /// with the two-slot home bucket LLVM kept the lookup out of the offsets
    /// loop (a call per word: 0.94–0.98× on that call); the AVX-512 loop's
    /// `learn_byte` keeps `get` (`get` always inlined measured 2–4% slower on
    /// the ids call).
    #[inline(always)]
    pub fn get_inline(&self, text: &[u8], start: usize, end: usize) -> Option<(u32, u32)> {
        let len = end - start;
        if len <= 8 {
            self.short.get(key8(text, start, len), len as u32)
        } else {
            self.get_longer(text, start, end)
        }
    }

    /// (what was stored, count of pieces) of the word `text[start..start +
    /// len]` when it is 2 to 16 bytes long and in its home bucket (~98% of
    /// English words of 2 to 16 bytes, one token or several, once the
    /// frequent ones are moved there: benches/bulk_bpe_pieces.py): the few
    /// instructions inlined into the scanner's loop; None sends the word to
    /// [`WordCache::get`].
    #[inline(always)]
    pub fn get_home(&self, text: &[u8], start: usize, len: usize) -> Option<(u32, u32)> {
        if len <= 8 {
            self.short.get_home(key8(text, start, len), len as u32)
        } else if len <= SHORT {
            self.mid.get_home([key8(text, start, 8), key8(text, start + 8, len - 8)], len as u32)
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

    /// Moves the word `text[start..end]` (1 to 16 bytes) into its home bucket
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
            // without the memory the word is not cached (its tokens are made again), never an abort
            let Ok(key) = crate::room::try_copy(word, "word cache key") else { return };
            if self.long.try_reserve(1).is_ok() {
                self.long.insert(key.into_boxed_slice(), (value, n));
            }
        }
    }

    /// True when no more words fit: the caller clears before caching more.
    pub fn is_full(&self) -> bool {
        self.short.words + self.mid.words + self.long.len() >= CACHE_WORDS
    }
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;
