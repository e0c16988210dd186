//! A per-thread memo of recent words' WordPiece ids, in front of the
//! matcher. Text is Zipfian: a few thousand word forms make up most of it,
//! and the vocabulary's tables (hundreds of kB to MBs) do not stay in cache,
//! so each whole-word probe and each trie step is a cache miss. The memo is
//! small enough to stay mostly in L2 and answers a repeated word with one
//! cache line.
//!
//! A word's ids depend on its bytes only (the matcher is a pure function of
//! them), so a hit is exact: the key is the whole word, compared in full.
//! Two tables: words of up to 16 bytes with up to 3 ids (most words), and of
//! up to 32 bytes with up to 7 (long words, and short ones of many pieces:
//! non-Latin scripts, compounds); such a short word leaves a mark in the
//! short table, so the common miss, a new short word, probes one table. Each is
//! two-way set associative, a set per cache line or two: a hit in the older
//! way swaps it to the front, a new word pushes the older one out.
//! (Simulated on the UD files and en-large, two ways and the long table raise
//! the hit rate by 2 to 12 points over one direct-mapped table of short words.)

use std::sync::atomic::{AtomicU64, Ordering};

/// Bumped by [`forget_all`]: a memo from an older generation starts empty.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Makes every thread's memo forget its words before its next use (so a
/// benchmark can time text the memos have not seen; never needed for exactness).
pub fn forget_all() {
    GENERATION.fetch_add(1, Ordering::Relaxed);
}

/// Longest word kept (bytes).
pub const MAX_BYTES: usize = 32;
/// Sets of each table (powers of two): 16384 × 64 B + 8192 × 128 B = 2 MiB
/// (more than L2 here, but a miss costs over ten hits; doubling the long
/// table from 4096 sets made a warm memo 20 % faster on ud-ru and left
/// en-large unchanged).
const SHORT_SETS: usize = 16384;
/// Most ids a short entry holds.
const SHORT_IDS: usize = 3;
const LONG_SETS: usize = 8192;

/// One memoized word: its bytes in `W` little-endian words (zero padded),
/// its length (0 = empty) and up to `I` ids.
#[derive(Clone, Copy)]
#[repr(C)]
struct Entry<const W: usize, const I: usize> {
    key: [u64; W],
    len: u8,
    n: u8,
    ids: [u32; I],
}

/// Two entries, aligned so that a set is one (or two adjacent) cache lines.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Set<E>([E; 2]);

/// A word packed for a table: comparing keys compares words.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Key<const W: usize> {
    words: [u64; W],
    len: u8,
}

impl<const W: usize> Key<W> {
    /// `word` must be 1..=8·W bytes. Whole 16-byte pieces, then the rest
    /// loaded as overlapping pieces rather than a byte loop.
    #[inline]
    pub fn new(word: &[u8]) -> Self {
        debug_assert!((1..=8 * W).contains(&word.len()));
        let mut words = [0u64; W];
        let (mut rest, mut k) = (word, 0);
        while rest.len() > 16 && k + 2 < W {
            words[k] = le8(rest, 0);
            words[k + 1] = le8(rest, 8);
            (rest, k) = (&rest[16..], k + 2);
        }
        let [a, b] = pack16(rest);
        words[k] = a;
        if k + 1 < W {
            words[k + 1] = b;
        }
        Key { words, len: word.len() as u8 }
    }

    /// The set of this key in a table of `sets` sets (a power of two): the
    /// top bits of a sum of products, one odd multiplier per word (the top
    /// bits of a product depend on all bits of the word).
    #[inline(always)]
    fn set(&self, sets: usize) -> usize {
        const MUL: [u64; 4] = [0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x27D4_EB2F_1656_67C5];
        let mut h = (self.len as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        for (k, w) in self.words.iter().enumerate() {
            h = h.wrapping_add(w.wrapping_mul(MUL[k % 4]));
        }
        (h >> (64 - sets.trailing_zeros())) as usize
    }
}

#[inline]
fn le8(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]))
}

/// 1..=16 bytes as two words, byte `i` at position `i`, zero padded.
#[inline]
fn pack16(word: &[u8]) -> [u64; 2] {
    let n = word.len();
    let le4 = |at: usize| u32::from_le_bytes(word[at..at + 4].try_into().unwrap_or([0; 4])) as u64;
    if n > 8 {
        // Bytes n-8..n, moved down to positions 8..n of the second word.
        [le8(word, 0), le8(word, n - 8) >> (8 * (16 - n))]
    } else if n == 8 {
        [le8(word, 0), 0]
    } else if n >= 4 {
        [le4(0) | le4(n - 4) << (8 * (n - 4)), 0]
    } else if n > 0 {
        let (a, b, c) = (word[0] as u64, word[n / 2] as u64, word[n - 1] as u64);
        [a | b << (8 * (n / 2)) | c << (8 * (n - 1)), 0]
    } else {
        [0, 0]
    }
}

/// What a table lookup found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Found {
    /// The word's ids (appended to the output).
    Ids,
    /// Nothing.
    No,
    /// A mark: the word is kept in the long table.
    Elsewhere,
}

/// `n` of an entry marking a word kept in the long table.
const ELSEWHERE: u8 = u8::MAX;

/// One two-way table of words of up to 8·W bytes with up to I ids.
#[derive(Default)]
struct Table<const W: usize, const I: usize> {
    sets: Vec<Set<Entry<W, I>>>,
}

impl<const W: usize, const I: usize> Entry<W, I> {
    /// Whether this entry is `key`'s word (one branch: the differences OR-ed).
    #[inline(always)]
    fn holds(&self, key: &Key<W>) -> bool {
        self.key.iter().zip(&key.words).fold((self.len ^ key.len) as u64, |d, (a, b)| d | (a ^ b)) == 0
    }
}

impl<const W: usize, const I: usize> Table<W, I> {
    const EMPTY: Entry<W, I> = Entry { key: [0; W], len: 0, n: 0, ids: [0; I] };

    fn enable(&mut self, sets: usize) {
        if self.sets.is_empty() {
            self.sets = vec![Set([Self::EMPTY; 2]); sets];
        }
    }

    fn clear(&mut self) {
        self.sets.iter_mut().for_each(|s| s.0.iter_mut().for_each(|e| e.len = 0));
    }

    /// Memoizes `ids` for `key`'s word (ignored when there are too many).
    #[inline]
    fn put(&mut self, key: &Key<W>, ids: &[u32]) {
        if ids.len() > I {
            return;
        }
        if let Some(e) = self.newest(key) {
            e.n = ids.len() as u8;
            e.ids[..ids.len()].copy_from_slice(ids);
        }
    }

    /// Marks `key`'s word as kept in the other (long) table: a later miss
    /// here then costs no probe there.
    #[inline]
    fn put_elsewhere(&mut self, key: &Key<W>) {
        if let Some(e) = self.newest(key) {
            e.n = ELSEWHERE;
        }
    }

    /// The newer way of `key`'s set, holding `key` (what it held moves to
    /// the older way, pushing that out), for the caller to fill in.
    #[inline(always)]
    fn newest(&mut self, key: &Key<W>) -> Option<&mut Entry<W, I>> {
        let n = self.sets.len();
        let set = self.sets.get_mut(key.set(n))?;
        set.0[1] = set.0[0];
        let e = &mut set.0[0];
        e.key = key.words;
        e.len = key.len;
        Some(e)
    }

    /// Appends the ids of `key`'s word to `out` if memoized (a hit in the
    /// older way becomes the newer).
    #[inline(always)]
    fn get(&mut self, key: &Key<W>, out: &mut Vec<u32>) -> Found {
        let sets = self.sets.len();
        if let Some(Set(set)) = self.sets.get_mut(key.set(sets)) {
            let hit = if set[0].holds(key) {
                true
            } else if set[1].holds(key) {
                set.swap(0, 1);
                true
            } else {
                false
            };
            if hit {
                // All I slots written, n of them kept: no loop over the ids.
                let e = &set[0];
                if e.n as usize > I {
                    return Found::Elsewhere;
                }
                out.reserve(I);
                let len = out.len();
                for (slot, &id) in out.spare_capacity_mut().iter_mut().zip(&e.ids) {
                    slot.write(id);
                }
                // SAFETY: the capacity holds at least I more ids (reserved), the
                // first I were just written, and `e.n <= I`.
                unsafe { out.set_len(len + e.n as usize) };
                return Found::Ids;
            }
        }
        Found::No
    }
}

/// The memo. Empty (and allocating nothing) until [`enable`](Self::enable)d,
/// so a short single text does not pay for memory it would never reuse.
#[derive(Default)]
pub struct WordCache {
    short: Table<2, SHORT_IDS>,
    long: Table<4, 7>,
    /// The tokenizer whose words these are (0: none yet).
    owner: u64,
    /// The [`GENERATION`] the words are from.
    generation: u64,
    /// Other tokenizers' memos on this thread, most recent first: a thread
    /// serving several tokenizers in turn swaps memos instead of clearing
    /// 2 MiB at every switch (which cost 36 µs per call).
    parked: Vec<WordCache>,
}

/// Memos parked per thread besides the current one (2 MiB each, touched as used).
const PARKED: usize = 3;

impl WordCache {
    /// Allocates the tables (once).
    pub fn enable(&mut self) {
        self.short.enable(SHORT_SETS);
        self.long.enable(LONG_SETS);
    }

    pub fn is_enabled(&self) -> bool {
        !self.short.sets.is_empty()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.short.clear();
        self.long.clear();
    }

    /// Makes this the memo of tokenizer `owner`, forgetting another's words
    /// (one scratch space may serve several tokenizers in turn) and words
    /// from before a [`forget_all`].
    #[inline]
    pub fn belong_to(&mut self, owner: u64) {
        let generation = GENERATION.load(Ordering::Relaxed);
        if self.owner != owner || self.generation != generation {
            self.switch(owner, generation);
        }
    }

    /// [`belong_to`](Self::belong_to) another tokenizer or generation: an
    /// enabled memo is parked and `owner`'s parked one (or a new one) taken.
    #[cold]
    fn switch(&mut self, owner: u64, generation: u64) {
        let mut fresh = false;
        if self.owner != owner && self.is_enabled() {
            let mut next = match self.parked.iter().position(|p| p.owner == owner) {
                Some(i) => self.parked.remove(i),
                None if self.parked.len() >= PARKED => self.parked.pop().unwrap_or_default(),
                None => WordCache::default(),
            };
            fresh = !next.is_enabled(); // new tables come zeroed (empty) from the allocator
            next.enable();
            std::mem::swap(&mut self.short, &mut next.short);
            std::mem::swap(&mut self.long, &mut next.long);
            std::mem::swap(&mut self.owner, &mut next.owner);
            std::mem::swap(&mut self.generation, &mut next.generation);
            self.parked.insert(0, next);
        }
        if !fresh && (self.owner != owner || self.generation != generation) {
            self.clear();
        }
        self.owner = owner;
        self.generation = generation;
    }

    /// Appends the ids of `word` to `out`: from the memo, or from `compute`
    /// (which appends them), then memoized. Empty words and words longer
    /// than [`MAX_BYTES`] are always computed. A short word with more ids
    /// than a short entry holds (common in non-Latin scripts) is kept in the
    /// long table.
    #[inline(always)]
    pub fn ids(&mut self, word: &[u8], out: &mut Vec<u32>, compute: impl FnOnce(&mut Vec<u32>)) {
        match word.len() {
            1..=16 => {
                let key = Key::new(word);
                match self.short.get(&key, out) {
                    Found::Ids => {}
                    Found::No => self.short_miss(key, word, out, compute),
                    Found::Elsewhere => self.long_lookup(Key::new(word), out, compute),
                }
            }
            17..=MAX_BYTES => self.long_lookup(Key::new(word), out, compute),
            _ => compute(out),
        }
    }

    /// A short word the short table has neither ids nor a mark for:
    /// computed and memoized, its ids in the short table if they fit, else
    /// in the long one with a mark in the short one (so that a new short
    /// word, the common miss, costs no probe of the long table). Out of
    /// line, so that the hit path stays small enough to inline where words end.
    #[inline(never)]
    fn short_miss(&mut self, key: Key<2>, word: &[u8], out: &mut Vec<u32>, compute: impl FnOnce(&mut Vec<u32>)) {
        let mark = out.len();
        compute(out);
        let ids = &out[mark..];
        if ids.len() <= SHORT_IDS {
            self.short.put(&key, ids);
        } else {
            self.long.put(&Key::new(word), ids);
            self.short.put_elsewhere(&key);
        }
    }

    /// A word kept in the long table (or marked as such, but pushed out since).
    #[inline]
    fn long_lookup(&mut self, key: Key<4>, out: &mut Vec<u32>, compute: impl FnOnce(&mut Vec<u32>)) {
        if self.long.get(&key, out) != Found::Ids {
            self.long_miss(key, out, compute);
        }
    }

    /// A long word the memo does not have: computed and memoized (out of line).
    #[inline(never)]
    fn long_miss(&mut self, key: Key<4>, out: &mut Vec<u32>, compute: impl FnOnce(&mut Vec<u32>)) {
        let mark = out.len();
        compute(out);
        self.long.put(&key, &out[mark..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forget_all_empties_every_memo_before_its_next_use() {
        let mut c = WordCache::default();
        c.enable();
        c.belong_to(7);
        let mut computed = 0;
        lookup(&mut c, b"word", &[1], &mut computed);
        lookup(&mut c, b"word", &[1], &mut computed);
        assert_eq!(computed, 1);
        forget_all();
        c.belong_to(7); // what every text's encoding starts with
        lookup(&mut c, b"word", &[1], &mut computed);
        assert_eq!(computed, 2);
        // Another tokenizer's words are forgotten too.
        c.belong_to(8);
        lookup(&mut c, b"word", &[1], &mut computed);
        assert_eq!(computed, 3);
        tokenizers_taking_turns_on_a_thread_keep_their_words();
    }

    /// Part of the test above: `forget_all` is global, so the tests that bump
    /// the generation run one after the other.
    fn tokenizers_taking_turns_on_a_thread_keep_their_words() {
        let mut c = WordCache::default();
        c.enable();
        let mut computed = 0;
        for round in 0..3 {
            for owner in 1..=(PARKED as u64 + 1) {
                c.belong_to(owner);
                assert_eq!(lookup(&mut c, b"word", &[owner as u32], &mut computed), [owner as u32]);
            }
            assert_eq!(computed, PARKED + 1, "round {round}: each tokenizer computed its word once");
        }
        c.belong_to(PARKED as u64 + 2); // one too many: the least recent one is dropped
        lookup(&mut c, b"word", &[9], &mut computed);
        c.belong_to(1);
        lookup(&mut c, b"word", &[1], &mut computed);
        assert_eq!(computed, PARKED + 3);
        forget_all(); // parked memos are forgotten too
        c.belong_to(3);
        lookup(&mut c, b"word", &[3], &mut computed);
        assert_eq!(computed, PARKED + 4);
    }

    #[test]
    fn keys_are_the_words() {
        // Every length, and words differing in one byte at every position, pack differently.
        let mut seen = std::collections::HashSet::new();
        for n in 1..=MAX_BYTES {
            let base: Vec<u8> = (0..n as u8).map(|i| b'a' + i).collect();
            let key = |w: &[u8]| Key::<4>::new(w).words;
            assert!(seen.insert((key(&base), n)));
            for at in 0..n {
                let mut w = base.clone();
                w[at] = b'Z';
                assert!(seen.insert((key(&w), n)), "{:?}", String::from_utf8_lossy(&w));
                // The byte lands at its own position.
                assert_eq!((key(&w)[at / 8] >> (8 * (at % 8))) as u8, b'Z');
                if n <= 16 {
                    assert_eq!(Key::<2>::new(&w).words, key(&w)[..2]);
                }
            }
        }
        // Zero padding does not confuse "a" with "a\0": lengths differ.
        assert!(Key::<2>::new(b"a") != Key::<2>::new(b"a\0"));
    }

    /// Memo lookups through `ids`, recording which words were computed.
    fn lookup(c: &mut WordCache, word: &[u8], ids: &[u32], computed: &mut usize) -> Vec<u32> {
        let mut out = vec![99];
        c.ids(word, &mut out, |o| {
            *computed += 1;
            o.extend_from_slice(ids)
        });
        assert_eq!(out[0], 99, "what was there stays");
        out.split_off(1)
    }

    #[test]
    fn hits_are_exact_and_the_older_way_survives_one_newcomer() {
        let mut c = WordCache::default();
        let mut computed = 0;
        // Disabled: always computed.
        for _ in 0..2 {
            assert_eq!(lookup(&mut c, b"word", &[7], &mut computed), [7]);
        }
        assert_eq!(computed, 2);
        c.enable();
        let word = |i: u32| if i % 3 == 0 { format!("a-long-word-of-many-bytes-{i}") } else { format!("w{i}") };
        let ids = |i: u32| vec![i; 1 + (i % 7) as usize];
        for i in 0..40_000u32 {
            assert_eq!(lookup(&mut c, word(i).as_bytes(), &ids(i), &mut computed), ids(i));
        }
        // Every answer, memoized or not, is the word's own ids.
        computed = 0;
        for i in 0..40_000u32 {
            assert_eq!(lookup(&mut c, word(i).as_bytes(), &ids(i), &mut computed), ids(i));
        }
        assert!(computed < 40_000, "some words are served from the memo");
        // A short word with more ids than a short entry holds is memoized (in the long table).
        computed = 0;
        for _ in 0..3 {
            assert_eq!(lookup(&mut c, b"x", &[1, 2, 3, 4, 5, 6, 7], &mut computed), [1, 2, 3, 4, 5, 6, 7]);
        }
        assert_eq!(computed, 1);
        // Its ids pushed out of the long table by a newer word of the same set, and another: computed again, exactly.
        let long_set = Key::<4>::new(b"x").set(LONG_SETS);
        let rivals: Vec<String> =
            (0..).map(|i| format!("r{i}")).filter(|w| Key::<4>::new(w.as_bytes()).set(LONG_SETS) == long_set).take(2).collect();
        for r in &rivals {
            lookup(&mut c, r.as_bytes(), &[9, 9, 9, 9], &mut computed);
        }
        computed = 0;
        assert_eq!(lookup(&mut c, b"x", &[1, 2, 3, 4, 5, 6, 7], &mut computed), [1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(computed, 1);
        // More ids than any entry holds, or too long: computed each time.
        computed = 0;
        for _ in 0..3 {
            lookup(&mut c, b"z", &[1, 2, 3, 4, 5, 6, 7, 8], &mut computed);
            lookup(&mut c, &[b'y'; MAX_BYTES + 1], &[1], &mut computed);
        }
        assert_eq!(computed, 6);
        // Two words of one set: both stay.
        let mut c = WordCache::default();
        c.enable();
        let first = Key::<2>::new(b"first").set(SHORT_SETS);
        let other = (0..).map(|i| format!("o{i}")).find(|w| Key::<2>::new(w.as_bytes()).set(SHORT_SETS) == first).unwrap_or_default();
        computed = 0;
        for _ in 0..3 {
            lookup(&mut c, b"first", &[1], &mut computed);
            lookup(&mut c, other.as_bytes(), &[2], &mut computed);
        }
        assert_eq!(computed, 2);
        c.clear();
        lookup(&mut c, b"first", &[1], &mut computed);
        assert_eq!(computed, 3);
    }
}
