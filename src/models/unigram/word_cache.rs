//! The fused path's per-thread word cache: a word's bytes -> its pieces (ids
//! and byte spans in the word), exact because Metaspace's words are tokenized
//! independently (the model sees one word at a time). A slot (32 bytes, two
//! to a cache line) holds the key's hash and, for the common case, the key
//! (up to 16 bytes) and the ids (up to 2) themselves: a hit on such a word
//! is one cache miss. Longer keys and more ids live back to back in arenas.
//! No per-word allocation, no pointer to chase (a `HashMap<Box<[u8]>,
//! Box<[ModelToken]>>` cost ~30% of a warm pass in hashing, `memcmp` through
//! the boxed key and the 24-byte tokens; arenas alone still cost a miss for
//! the slot, one for the key and one for the ids). A word that starts with
//! the owner's Metaspace replacement is keyed by the rest of it, with a flag
//! (`prefixed`): the bulk path looks its words up straight from the text
//! (a space, then the key), without copying them.

use crate::models::ModelToken;
use crate::prefetch::prefetch;
use crate::room::try_copy;

/// Words a thread's cache holds (~5 MB for English); once full it keeps what
/// it has (the first words seen are mostly the frequent ones). 8 MB of
/// English has ~78,000 word forms: they all fit.
const MAX_WORDS: usize = 1 << 17;
/// Longer words are tokenized every time (they rarely repeat); spans fit a u8.
pub(super) const MAX_WORD_BYTES: usize = 64;

/// Keys this long or shorter are kept in their slot.
const INLINE_KEY: usize = 16;
/// This many ids or fewer are kept in their slot.
const INLINE_IDS: usize = 2;

/// `key_len`'s flag: the word is the replacement, then the key.
const PREFIXED: u8 = 0x80;

/// 32 bytes aligned to 32: two to a cache line, never across two (with the
/// spans' start in it, it was 36 bytes and every other slot straddled lines).
#[derive(Clone, Copy, Default)]
#[repr(C, align(32))]
struct Slot {
    /// The key's hash, never 0; 0 marks an empty slot.
    tag: u32,
    /// The key's length, `| PREFIXED` for a prefixed word.
    key_len: u8,
    pieces: u8,
    /// The ids (`pieces <= INLINE_IDS`), else `[where they start in `ids`, 0]`.
    ids: [u32; INLINE_IDS],
    /// The key (`key_len <= INLINE_KEY`, zero-padded), else where it starts in `keys` (first 4 bytes).
    key: [u8; INLINE_KEY],
}

/// A word's first 16 bytes as two little-endian words, zero past its end:
/// what an inline slot key holds, so a lookup compares two words, and what
/// [`hash`] reads, so a word is hashed from the text with two masked loads
/// (no copy of the word, no `memcpy` call of its length).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Key {
    lo: u64,
    hi: u64,
}

impl Key {
    /// The key of `text[start..start + len]` (a range inside `text`).
    #[inline(always)]
    pub(super) fn of(text: &[u8], start: usize, len: usize) -> Key {
        let lo = load(text, start, len.min(8));
        let hi = if len > 8 { load(text, start + 8, (len - 8).min(8)) } else { 0 };
        Key { lo, hi }
    }
}

/// The `n` (<= 8) bytes of `text` from `at` as a little-endian word, zero above:
/// one load where 8 bytes are there, else the text's last 8 shifted down.
#[inline(always)]
fn load(text: &[u8], at: usize, n: usize) -> u64 {
    if n == 0 {
        return 0;
    }
    let keep = if n >= 8 { u64::MAX } else { (1u64 << (8 * n)) - 1 };
    let word = |s: &[u8]| <[u8; 8]>::try_from(s).map_or(0, u64::from_le_bytes);
    if let Some(w) = text.get(at..at + 8) {
        return word(w) & keep;
    }
    match text.len().checked_sub(8).and_then(|from| Some((text.get(from..)?, at.checked_sub(from)?))) {
        Some((last, skip)) => (word(last) >> (8 * skip)) & keep,
        // a text under 8 bytes
        None => text.get(at..at + n).unwrap_or_default().iter().rev().fold(0, |w, &b| w << 8 | b as u64),
    }
}

#[derive(Default)]
pub(super) struct WordCache {
    /// Open addressing, linear probing, a power-of-two length at most three quarters full.
    slots: Vec<Slot>,
    /// Where each slot's spans start in `spans` (beside the slots: only offsets need them).
    span_at: Vec<u32>,
    keys: Vec<u8>,
    ids: Vec<u32>,
    spans: Vec<[u8; 2]>,
    len: usize,
}

fn flag(prefixed: bool) -> u8 {
    if prefixed {
        PREFIXED
    } else {
        0
    }
}

/// `a == b` in at most two overlapping word loads each for keys up to 16
/// bytes (a `memcmp` call was 5% of a warm pass).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let w8 = |s: &[u8], at: usize| s.get(at..at + 8).and_then(|x| <[u8; 8]>::try_from(x).ok()).map(u64::from_ne_bytes);
    let w4 = |s: &[u8], at: usize| s.get(at..at + 4).and_then(|x| <[u8; 4]>::try_from(x).ok()).map(u32::from_ne_bytes);
    match n {
        8..=16 => w8(a, 0) == w8(b, 0) && w8(a, n - 8) == w8(b, n - 8),
        4..=7 => w4(a, 0) == w4(b, 0) && w4(a, n - 4) == w4(b, n - 4),
        0..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        _ => a == b,
    }
}

const K: u64 = 0x517c_c1b7_2722_0a95;

/// A key's hash (FxHash-style over 8-byte chunks, the last zero-padded) with its flag, never 0.
#[inline]
fn hash(word: &[u8], flag: u8) -> u32 {
    if word.len() <= INLINE_KEY {
        return hash_key(&Key::of(word, 0, word.len()), word.len(), flag);
    }
    let mut h = word.len() as u64 | (flag as u64) << 8;
    for at in (0..word.len()).step_by(8) {
        h = (h.rotate_left(5) ^ load(word, at, (word.len() - at).min(8))).wrapping_mul(K);
    }
    ((h ^ (h >> 32)) as u32).max(1)
}

/// [`hash`] of a word of `len` <= 16 bytes from its [`Key`]: the same rounds (one per 8 bytes begun).
#[inline(always)]
fn hash_key(key: &Key, len: usize, flag: u8) -> u32 {
    let mut h = len as u64 | (flag as u64) << 8;
    if len > 0 {
        h = (h.rotate_left(5) ^ key.lo).wrapping_mul(K);
    }
    if len > 8 {
        h = (h.rotate_left(5) ^ key.hi).wrapping_mul(K);
    }
    ((h ^ (h >> 32)) as u32).max(1)
}

impl WordCache {
    pub(super) fn clear(&mut self) {
        *self = WordCache::default();
    }

    /// A copy, or None when there is no memory for it (the copy shared with
    /// other threads is only a speed-up: `clone` would abort instead).
    pub(super) fn try_clone(&self) -> Option<WordCache> {
        const WHAT: &str = "Unigram word cache";
        Some(WordCache {
            slots: try_copy(&self.slots, WHAT).ok()?,
            span_at: try_copy(&self.span_at, WHAT).ok()?,
            keys: try_copy(&self.keys, WHAT).ok()?,
            ids: try_copy(&self.ids, WHAT).ok()?,
            spans: try_copy(&self.spans, WHAT).ok()?,
            len: self.len,
        })
    }

    /// The words cached.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Asks for the slot of the word whose tag is `tag` (from [`WordCache::prefetch`] on any cache).
    #[inline]
    pub(super) fn prefetch_tag(&self, tag: u32) {
        if let Some(slot) = self.slots.get(tag as usize & self.slots.len().wrapping_sub(1)) {
            prefetch(slot);
        }
    }

    /// The ids and spans (bytes of the whole word) of the pieces of `word`
    /// (`prefixed`: of the replacement then `word`), if cached.
    #[inline]
    pub(super) fn get(&self, prefixed: bool, word: &[u8]) -> Option<(&[u32], &[[u8; 2]])> {
        let i = self.find(hash(word, flag(prefixed)), prefixed, word, None)?;
        let (s, at) = (self.slots.get(i)?, *self.span_at.get(i)? as usize);
        Some((self.ids_of(s)?, self.spans.get(at..at + s.pieces as usize)?))
    }

    /// `word`'s tag (its [`Key`] from [`Key::of`]), its slot's cache line
    /// requested (a hint: a later [`WordCache::get_ids`] finds it loaded, or
    /// loading, instead of waiting for it then).
    #[inline]
    pub(super) fn prefetch(&self, prefixed: bool, word: &[u8], key: &Key) -> u32 {
        let tag = match word.len() <= INLINE_KEY {
            true => hash_key(key, word.len(), flag(prefixed)),
            false => hash(word, flag(prefixed)),
        };
        if let Some(slot) = self.slots.get(tag as usize & self.slots.len().wrapping_sub(1)) {
            prefetch(slot);
        }
        tag
    }

    /// The ids of `word`'s pieces, with the tag [`WordCache::prefetch`] gave and its [`Key`].
    #[inline]
    pub(super) fn get_ids(&self, tag: u32, prefixed: bool, word: &[u8], key: &Key) -> Option<&[u32]> {
        self.ids_of(self.slots.get(self.find(tag, prefixed, word, Some(key))?)?)
    }

    #[inline]
    fn ids_of<'s>(&'s self, s: &'s Slot) -> Option<&'s [u32]> {
        let n = s.pieces as usize;
        match n <= INLINE_IDS {
            true => s.ids.get(..n),
            false => self.ids.get(s.ids[0] as usize..s.ids[0] as usize + n),
        }
    }

    /// The slot of `word` (with its tag and, if known, its key), if cached.
    #[inline(always)]
    fn find(&self, tag: u32, prefixed: bool, word: &[u8], key: Option<&Key>) -> Option<usize> {
        if self.slots.is_empty() || word.len() > MAX_WORD_BYTES {
            return None;
        }
        let key_len = word.len() as u8 | flag(prefixed);
        let mask = self.slots.len() - 1;
        let mut i = tag as usize & mask;
        loop {
            let s = self.slots.get(i)?;
            if s.tag == 0 {
                return None;
            }
            if s.tag == tag && s.key_len == key_len {
                let same = match (key, word.len() <= INLINE_KEY) {
                    // an inline key is zero-padded, as a `Key` is
                    (Some(k), true) => inline_key(s) == *k,
                    _ => self.key_of(s).is_some_and(|k| same_bytes(k, word)),
                };
                if same {
                    return Some(i);
                }
            }
            i = (i + 1) & mask;
        }
    }

    #[inline]
    fn key_of<'s>(&'s self, s: &'s Slot) -> Option<&'s [u8]> {
        let len = (s.key_len & !PREFIXED) as usize;
        if len <= INLINE_KEY {
            return s.key.get(..len);
        }
        let at = u32::from_le_bytes([s.key[0], s.key[1], s.key[2], s.key[3]]) as usize;
        self.keys.get(at..at + len)
    }

    /// Caches the `pieces` (byte spans in the whole word) of `word` (`prefixed`:
    /// of the replacement then `word`) unless it is too long or the cache is full.
    pub(super) fn insert(&mut self, prefixed: bool, word: &[u8], pieces: &[ModelToken]) {
        if word.len() > MAX_WORD_BYTES || pieces.len() > MAX_WORD_BYTES || self.len >= MAX_WORDS {
            return;
        }
        // spans are bytes of the whole word (the key and up to 4 bytes of replacement)
        if pieces.iter().any(|p| p.2 > u8::MAX as usize) {
            return;
        }
        let flag = flag(prefixed);
        // Without the memory for the table or the arenas the word is not
        // cached (it is tokenized again when seen again), never an abort.
        if (self.len + 1) * 4 > self.slots.len() * 3 && !self.resize_to((self.slots.len() * 2).max(1024)) {
            return;
        }
        let arenas = (self.keys.try_reserve(word.len()), self.ids.try_reserve(pieces.len()), self.spans.try_reserve(pieces.len()));
        if arenas.0.is_err() || arenas.1.is_err() || arenas.2.is_err() {
            return;
        }
        let mut slot = Slot { tag: hash(word, flag), key_len: word.len() as u8 | flag, pieces: pieces.len() as u8, ..Slot::default() };
        match slot.key.get_mut(..word.len()) {
            Some(inline) => inline.copy_from_slice(word),
            None => {
                slot.key[..4].copy_from_slice(&(self.keys.len() as u32).to_le_bytes());
                self.keys.extend_from_slice(word);
            }
        }
        if pieces.len() <= INLINE_IDS {
            slot.ids.iter_mut().zip(pieces).for_each(|(id, p)| *id = p.0);
        } else {
            slot.ids[0] = self.ids.len() as u32;
            self.ids.extend(pieces.iter().map(|p| p.0));
        }
        let span_at = self.spans.len() as u32;
        self.spans.extend(pieces.iter().map(|p| [p.1 as u8, p.2 as u8]));
        self.place(slot, span_at);
        self.len += 1;
    }

    fn place(&mut self, slot: Slot, span_at: u32) {
        let mask = self.slots.len() - 1;
        let mut i = slot.tag as usize & mask;
        while self.slots.get(i).is_some_and(|s| s.tag != 0) {
            i = (i + 1) & mask;
        }
        if let (Some(s), Some(at)) = (self.slots.get_mut(i), self.span_at.get_mut(i)) {
            *s = slot;
            *at = span_at;
        }
    }

    /// Re-places the words in `size` (a power of two) slots; false, the
    /// cache as it was, when that memory cannot be had.
    fn resize_to(&mut self, size: usize) -> bool {
        let (mut slots, mut span_at) = (Vec::new(), Vec::new());
        if slots.try_reserve_exact(size).is_err() || span_at.try_reserve_exact(size).is_err() {
            return false;
        }
        slots.resize(size, Slot::default());
        span_at.resize(size, 0);
        let old = std::mem::replace(&mut self.slots, slots);
        let old_at = std::mem::replace(&mut self.span_at, span_at);
        old.into_iter().zip(old_at).filter(|(s, _)| s.tag != 0).for_each(|(s, at)| self.place(s, at));
        true
    }
}

/// An inline slot key as a [`Key`].
#[inline(always)]
fn inline_key(s: &Slot) -> Key {
    let half = |at: usize| s.key.get(at..at + 8).and_then(|b| <[u8; 8]>::try_from(b).ok()).map_or(0, u64::from_le_bytes);
    Key { lo: half(0), hi: half(8) }
}

#[cfg(test)]
#[path = "word_cache_tests.rs"]
mod tests;
