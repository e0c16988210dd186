//! The per-thread word cache of the byte-level fast path: word (raw bytes)
//! -> its tokens. Profiling showed the lookup as the largest cost of the bulk
//! path (hashing a `Box<[u8]>` key twice, then `memcmp`), so words of up to
//! 16 bytes (nearly all English words with their space) live in an open
//! addressing table keyed by two u64s compared as integers; longer ones in
//! a hash map. Bounded: at `CACHE_WORDS` words it starts over.

use super::merge::Piece;
use crate::fxhash::FxHashMap;

/// Cached words per thread before the cache starts over.
const CACHE_WORDS: usize = 1 << 16;
/// Words up to this many bytes have their key inline.
const SHORT: usize = 16;
/// First table size (slots, a power of two); doubled at half full.
const FIRST_SLOTS: usize = 1 << 10;

#[derive(Clone, Copy, Default)]
struct Slot {
    k0: u64,
    k1: u64,
    /// What the caller stored with the word (a start in `pieces`, or a token id).
    start: u32,
    /// pieces << 8 | word length; 0 marks an empty slot (words are never empty).
    n_len: u32,
}

pub(super) struct WordCache {
    /// The model whose words these are.
    pub owner: u64,
    slots: Vec<Slot>,
    short_words: usize,
    long: FxHashMap<Box<[u8]>, (u32, u32)>,
    /// The tokens of every cached word, back to back.
    pub pieces: Vec<Piece>,
}

/// The word's bytes as two integers, exact for its length (which the slot
/// keeps too). Overlapping unaligned loads, not a copy into a padded buffer:
/// the copy's byte stores stalled the following 8-byte loads (profiled).
#[inline]
fn key(word: &[u8]) -> (u64, u64) {
    let n = word.len();
    let le64 = |at: usize| word.get(at..at + 8).map_or(0, |s| u64::from_le_bytes(s.try_into().unwrap_or([0; 8])));
    let le32 = |at: usize| word.get(at..at + 4).map_or(0, |s| u64::from(u32::from_le_bytes(s.try_into().unwrap_or([0; 4]))));
    match n {
        9..=16 => (le64(0), le64(n - 8) >> ((16 - n) * 8)),
        8 => (le64(0), 0),
        4..=7 => (le32(0) | ((le32(n - 4) >> ((8 - n) * 8)) << 32), 0),
        _ => (word.iter().rev().fold(0u64, |w, &b| (w << 8) | u64::from(b)), 0),
    }
}

#[inline]
fn slot_of(k0: u64, k1: u64, len: usize, mask: usize) -> usize {
    let h = (k0.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ k1 ^ len as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    (h >> 32) as usize & mask
}

impl WordCache {
    pub fn new() -> WordCache {
        WordCache { owner: u64::MAX, slots: Vec::new(), short_words: 0, long: FxHashMap::default(), pieces: Vec::new() }
    }

    pub fn clear(&mut self) {
        self.slots.clear();
        self.short_words = 0;
        self.long.clear();
        self.pieces.clear();
    }

    /// (start in `pieces`, count) of a cached word.
    #[inline]
    pub fn get(&self, word: &[u8]) -> Option<(u32, u32)> {
        if word.len() > SHORT {
            return self.long.get(word).copied();
        }
        if self.slots.is_empty() {
            return None;
        }
        let (k0, k1) = key(word);
        let mask = self.slots.len() - 1;
        let mut i = slot_of(k0, k1, word.len(), mask);
        loop {
            let s = self.slots.get(i)?;
            if s.n_len == 0 {
                return None;
            }
            if s.k0 == k0 && s.k1 == k1 && (s.n_len & 0xFF) as usize == word.len() {
                return Some((s.start, s.n_len >> 8));
            }
            i = (i + 1) & mask;
        }
    }

    /// Caches `word`'s tokens (the last `n` of `pieces`, already pushed);
    /// starts over first when full.
    pub fn insert(&mut self, word: &[u8], start: u32, n: u32) {
        if word.len() > SHORT {
            self.long.insert(word.into(), (start, n));
            return;
        }
        if self.slots.len() < 2 * (self.short_words + 1) {
            self.grow();
        }
        let (k0, k1) = key(word);
        let mask = self.slots.len() - 1;
        let mut i = slot_of(k0, k1, word.len(), mask);
        while self.slots.get(i).is_some_and(|s| s.n_len != 0) {
            i = (i + 1) & mask;
        }
        if let Some(s) = self.slots.get_mut(i) {
            *s = Slot { k0, k1, start, n_len: (n << 8) | word.len() as u32 };
            self.short_words += 1;
        }
    }

    /// True when no more words fit: the caller clears before caching more.
    pub fn is_full(&self) -> bool {
        self.short_words + self.long.len() >= CACHE_WORDS
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(FIRST_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        let mask = size - 1;
        for s in old.into_iter().filter(|s| s.n_len != 0) {
            let mut i = slot_of(s.k0, s.k1, (s.n_len & 0xFF) as usize, mask);
            while self.slots.get(i).is_some_and(|s| s.n_len != 0) {
                i = (i + 1) & mask;
            }
            if let Some(slot) = self.slots.get_mut(i) {
                *slot = s;
            }
        }
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
            .chain([b"a".to_vec(), b"a\0".to_vec(), b"\0".to_vec(), vec![7; 16], vec![7; 17], vec![7; 40]])
            .collect();
        for (k, w) in words.iter().enumerate() {
            assert_eq!(c.get(w), None);
            c.insert(w, k as u32, 1);
        }
        for (k, w) in words.iter().enumerate() {
            assert_eq!(c.get(w), Some((k as u32, 1)), "{w:?}");
        }
        c.clear();
        assert_eq!(c.get(b"a"), None);
    }
}
