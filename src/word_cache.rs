//! A per-thread memo of recent words' WordPiece ids, in front of the
//! matcher. Text is Zipfian: a few thousand word forms make up most of it,
//! and the vocabulary's tables (hundreds of kB to MBs) do not stay in cache,
//! so each whole-word probe and each trie step is a cache miss. This table is
//! small enough to stay mostly in L2 and answers a repeated word with one
//! load (simulated on en-large.txt: 94 % of words hit).
//!
//! A word's ids depend on its bytes only (the matcher is a pure function of
//! them), so a hit is exact: the key is the whole word, compared in full.
//! Direct-mapped, newest wins: no bookkeeping on the hot path.

use std::sync::atomic::{AtomicU64, Ordering};

/// Bumped by [`forget_all`]: a memo from an older generation starts empty.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Makes every thread's memo forget its words before its next use (so a
/// benchmark can time text the memos have not seen; never needed for exactness).
pub fn forget_all() {
    GENERATION.fetch_add(1, Ordering::Relaxed);
}

/// Longest word kept (bytes) and most ids per word kept.
pub const MAX_BYTES: usize = 16;
const MAX_IDS: usize = 3;
/// Entries (a power of two): 16384 × 32 bytes = 512 KiB, about an L2 cache.
const SIZE: usize = 16384;

#[derive(Clone, Copy, Default)]
#[repr(C, align(32))]
struct Entry {
    key: [u64; 2],
    /// Word length in bytes; 0 = empty.
    len: u8,
    n: u8,
    ids: [u32; MAX_IDS],
}

/// The memo. Empty (and allocating nothing) until [`enable`](Self::enable)d,
/// so a short single text does not pay for 512 KiB it would never reuse.
#[derive(Default)]
pub struct WordCache {
    entries: Vec<Entry>,
    /// The tokenizer whose words these are (0: none yet).
    owner: u64,
    /// The [`GENERATION`] the words are from.
    generation: u64,
}

/// A word packed for the memo: its bytes in two little-endian words (zero
/// padded) and its length, so that comparing keys compares words.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Key {
    words: [u64; 2],
    len: u8,
}

impl Key {
    /// `word` must be 1..=MAX_BYTES bytes. Loads overlapping pieces instead
    /// of a byte loop or a variable-length copy.
    #[inline]
    pub fn new(word: &[u8]) -> Self {
        let n = word.len();
        debug_assert!((1..=MAX_BYTES).contains(&n));
        let le8 = |at: usize| u64::from_le_bytes(word[at..at + 8].try_into().unwrap_or([0; 8]));
        let le4 = |at: usize| u32::from_le_bytes(word[at..at + 4].try_into().unwrap_or([0; 4])) as u64;
        let words = if n > 8 {
            // Bytes n-8..n, moved down to positions 8..n of the second word.
            [le8(0), le8(n - 8) >> (8 * (16 - n))]
        } else if n == 8 {
            [le8(0), 0]
        } else if n >= 4 {
            [le4(0) | le4(n - 4) << (8 * (n - 4)), 0]
        } else {
            let (a, b, c) = (word[0] as u64, word[n / 2] as u64, word[n - 1] as u64);
            [a | b << (8 * (n / 2)) | c << (8 * (n - 1)), 0]
        };
        Key { words, len: n as u8 }
    }

    #[inline]
    fn slot(&self) -> usize {
        let h = (self.words[0] ^ self.len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ self.words[1].wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        (h >> (64 - SIZE.trailing_zeros())) as usize
    }
}

impl WordCache {
    /// Allocates the table (once).
    pub fn enable(&mut self) {
        if self.entries.is_empty() {
            self.entries = vec![Entry::default(); SIZE];
        }
    }

    pub fn is_enabled(&self) -> bool {
        !self.entries.is_empty()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.entries.iter_mut().for_each(|e| e.len = 0);
    }

    /// Makes this the memo of tokenizer `owner`, forgetting another's words
    /// (one scratch space may serve several tokenizers in turn) and words
    /// from before a [`forget_all`].
    #[inline]
    pub fn belong_to(&mut self, owner: u64) {
        let generation = GENERATION.load(Ordering::Relaxed);
        if self.owner != owner || self.generation != generation {
            self.clear();
            self.owner = owner;
            self.generation = generation;
        }
    }

    /// The ids of `key`'s word, if memoized.
    #[inline]
    pub fn get(&self, key: &Key) -> Option<&[u32]> {
        let e = self.entries.get(key.slot())?;
        (e.len == key.len && e.key == key.words).then(|| &e.ids[..e.n as usize])
    }

    /// Memoizes `ids` for `key`'s word (ignored when there are too many).
    #[inline]
    pub fn put(&mut self, key: &Key, ids: &[u32]) {
        if ids.len() > MAX_IDS {
            return;
        }
        if let Some(e) = self.entries.get_mut(key.slot()) {
            e.key = key.words;
            e.len = key.len;
            e.n = ids.len() as u8;
            e.ids[..ids.len()].copy_from_slice(ids);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_words() {
        // Every length, and words differing in one byte at every position, pack differently.
        let mut seen = std::collections::HashSet::new();
        for n in 1..=MAX_BYTES {
            let base: Vec<u8> = (0..n as u8).map(|i| b'a' + i).collect();
            assert!(seen.insert((Key::new(&base).words, n)));
            for at in 0..n {
                let mut w = base.clone();
                w[at] = b'Z';
                assert!(seen.insert((Key::new(&w).words, n)), "{:?}", String::from_utf8_lossy(&w));
                // The byte lands at its own position.
                let k = Key::new(&w);
                assert_eq!((k.words[at / 8] >> (8 * (at % 8))) as u8, b'Z');
            }
        }
        // Zero padding does not confuse "a" with "a\0": lengths differ.
        assert!(Key::new(b"a") != Key::new(b"a\0"));
    }

    #[test]
    fn newest_wins_and_hits_are_exact() {
        let mut c = WordCache::default();
        assert_eq!(c.get(&Key::new(b"word")), None);
        c.put(&Key::new(b"word"), &[7]); // disabled: ignored
        assert_eq!(c.get(&Key::new(b"word")), None);
        c.enable();
        for i in 0..20_000u32 {
            let w = format!("w{i}");
            c.put(&Key::new(w.as_bytes()), &[i, i + 1]);
            assert_eq!(c.get(&Key::new(w.as_bytes())), Some(&[i, i + 1][..]));
        }
        // Every hit is the word's own ids, whatever was evicted.
        for i in 0..20_000u32 {
            let w = format!("w{i}");
            if let Some(ids) = c.get(&Key::new(w.as_bytes())) {
                assert_eq!(ids, &[i, i + 1]);
            }
        }
        c.put(&Key::new(b"long"), &[1, 2, 3, 4]);
        assert_eq!(c.get(&Key::new(b"long")), None);
        c.clear();
        assert_eq!(c.get(&Key::new(b"w19999")), None);
    }
}
