//! A per-thread memo of recent words' WordPiece ids, in front of the
//! matcher. Text is Zipfian: a few thousand word forms make up most of it,
//! and the vocabulary's tables (hundreds of kB to MBs) do not stay in cache,
//! so each whole-word probe and each trie step is a cache miss. The memo is
//! small enough to stay mostly in L2 and answers a repeated word with one
//! cache line.
//!
//! A word's ids depend on its bytes only (the matcher is a pure function of
//! them), so a hit is exact: the key is the whole word, compared in full.
//! Three tables: words of up to 8 bytes with up to 3 ids (most words: four
//! 16-byte entries to a cache line, `word_cache_tiny.rs`), of up to 16 bytes
//! with up to 3 ids, and of up to 32 bytes with up to 7 (long words, and short
//! ones of many pieces: non-Latin scripts, compounds); a word kept in a table
//! for longer words leaves a mark in the table of its length, so the common
//! miss, a new short word, probes one table. The two tables of longer words
//! are two-way set associative, a set per cache line or two: a hit in the
//! older way swaps it to the front, a new word pushes the older one out.
//! (Simulated on the UD files and en-large, two ways and the long table raise
//! the hit rate by 2 to 12 points over one direct-mapped table of short words.)

use std::sync::atomic::{AtomicU64, Ordering};
use table::{Found, Table};
use tiny::Tiny;

pub use key::Key;

// The parts: a word packed as a key, and one two-way table of entries.
#[path = "word_cache_key.rs"]
mod key;
#[path = "word_cache_table.rs"]
mod table;
#[path = "word_cache_tiny.rs"]
mod tiny;

/// Bumped by [`forget_all`]: a memo from an older generation starts empty.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Makes every thread's memo forget its words before its next use (so a
/// benchmark can time text the memos have not seen; never needed for exactness).
pub fn forget_all() {
    GENERATION.fetch_add(1, Ordering::Relaxed);
}

/// Longest word kept (bytes).
pub const MAX_BYTES: usize = 32;
/// Sets of each table (powers of two): 8192 × 64 B (words of up to 8 bytes),
/// plus 16384 × 64 B (9 to 16 bytes: most words of Cyrillic and Greek text; a
/// warm memo replaying ud-ru misses 1,607 times a pass, 2,838 with 8192 sets),
/// plus 8192 × 128 B = 2.5 MiB (more than L2 here, but a miss costs over ten
/// hits; doubling the long table from 4096 sets made a warm memo 20 % faster
/// on ud-ru and left en-large unchanged).
const TINY_SETS: usize = 8192;
const SHORT_SETS: usize = 16384;
/// Most ids a short entry holds.
const SHORT_IDS: usize = 3;
const LONG_SETS: usize = 8192;

/// The memo. Empty (and allocating nothing) until [`enable`](Self::enable)d,
/// so a short single text does not pay for memory it would never reuse.
#[derive(Default)]
pub struct WordCache {
    tiny: Tiny<TINY_SETS>,
    short: Table<2, SHORT_IDS>,
    long: Table<4, 7>,
    /// The tokenizer whose words these are (0: none yet).
    owner: u64,
    /// The [`GENERATION`] the words are from.
    generation: u64,
    /// Other tokenizers' memos on this thread, most recent first: a thread
    /// serving several tokenizers in turn swaps memos instead of clearing
    /// 2.5 MiB at every switch (which cost 36 µs per call).
    parked: Vec<WordCache>,
}

/// Memos parked per thread besides the current one (2.5 MiB each, touched as used).
const PARKED: usize = 3;

impl WordCache {
    /// Allocates the tables (once).
    pub fn enable(&mut self) {
        self.tiny.enable();
        self.short.enable(SHORT_SETS);
        self.long.enable(LONG_SETS);
    }

    pub fn is_enabled(&self) -> bool {
        self.tiny.is_enabled()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.tiny.clear();
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
            std::mem::swap(&mut self.tiny, &mut next.tiny);
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
            1..=8 => self.tiny_lookup(Key::new(word), word, out, compute),
            9..=16 => self.short_lookup(word, out, compute),
            17..=MAX_BYTES => self.long_lookup(Key::new(word), out, compute),
            _ => compute(out),
        }
    }

    /// A word of 9..=16 bytes (or a shorter one the tiny table marks as kept here).
    #[inline(always)]
    fn short_lookup(&mut self, word: &[u8], out: &mut Vec<u32>, compute: impl FnOnce(&mut Vec<u32>)) {
        let key = Key::new(word);
        match self.short.get(&key, out) {
            Found::Ids => {}
            Found::No => self.short_miss(key, word, out, compute),
            Found::Elsewhere => self.long_lookup(Key::new(word), out, compute),
        }
    }

    /// [`ids`](Self::ids) of a word of `len` (2..=8) bytes given packed (see
    /// [`Key::packed8`]): the key without packing the bytes again.
    #[inline(always)]
    pub fn ids_packed8(&mut self, packed: u64, len: usize, out: &mut Vec<u32>, compute: impl FnOnce(&[u8], &mut Vec<u32>)) {
        let bytes = packed.to_le_bytes();
        let word = &bytes[..len];
        self.tiny_lookup(Key::packed8(packed, len), word, out, |out| compute(word, out));
    }

    /// A word of 1..=8 bytes: the tiny table, or where its mark says.
    #[inline(always)]
    fn tiny_lookup(&mut self, key: Key<1>, word: &[u8], out: &mut Vec<u32>, compute: impl FnOnce(&mut Vec<u32>)) {
        match self.tiny.get(&key, out) {
            tiny::Found::Ids => {}
            tiny::Found::No => self.tiny_miss(key, word, out, compute),
            tiny::Found::Short => self.short_lookup(word, out, compute),
            tiny::Found::Long => self.long_lookup(Key::new(word), out, compute),
        }
    }

    /// A word of up to 8 bytes the tiny table has neither ids nor a mark
    /// for: computed, and memoized there if its ids fit, else in the table
    /// they fit with a mark in the tiny one (out of line, as `short_miss`).
    #[inline(never)]
    fn tiny_miss(&mut self, key: Key<1>, word: &[u8], out: &mut Vec<u32>, compute: impl FnOnce(&mut Vec<u32>)) {
        let mark = out.len();
        compute(out);
        let ids = &out[mark..];
        if self.tiny.put(&key, ids) {
            return;
        }
        let long = ids.len() > SHORT_IDS;
        if long {
            self.long.put(&Key::new(word), ids);
        } else {
            self.short.put(&Key::new(word), ids);
        }
        self.tiny.put_mark(&key, long);
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
    fn a_table_the_memory_is_not_there_for_stays_empty() {
        // 2^60 sets cannot be had: no abort, the table empty, every word a miss, still exact
        let mut t = Table::<2, SHORT_IDS>::default();
        t.enable(1 << 60);
        assert!(t.sets.is_empty());
        let key = Key::<2>::new(b"word");
        t.put(&key, &[7]);
        let mut out = Vec::new();
        assert_eq!(t.get(&key, &mut out), Found::No);
        assert!(out.is_empty());
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
        // Two words of one set of the short table (9..=16 bytes): both stay.
        let mut c = WordCache::default();
        c.enable();
        let first = Key::<2>::new(b"first-word").set(SHORT_SETS);
        let other =
            (0..).map(|i| format!("other-{i}")).find(|w| Key::<2>::new(w.as_bytes()).set(SHORT_SETS) == first).unwrap_or_default();
        computed = 0;
        for _ in 0..3 {
            lookup(&mut c, b"first-word", &[1], &mut computed);
            lookup(&mut c, other.as_bytes(), &[2], &mut computed);
        }
        assert_eq!(computed, 2);
        c.clear();
        lookup(&mut c, b"first-word", &[1], &mut computed);
        assert_eq!(computed, 3);
    }

    #[test]
    fn every_length_and_id_count_is_memoized_where_it_fits() {
        let mut c = WordCache::default();
        c.enable();
        // Ids of up to 17 bits fit the tiny table's entries; larger ones go to the short table.
        let id_sets: [&[u32]; 7] = [&[3], &[1 << 17], &[5, 6, 7], &[1, 2, 1 << 20], &[1, 2, 3, 4], &[9; 7], &[8; 8]];
        for round in 0..2 {
            for len in 1..=MAX_BYTES + 2 {
                for (k, ids) in id_sets.iter().enumerate() {
                    let word: Vec<u8> = (0..len).map(|i| b'a' + ((i * 7 + k) % 26) as u8).collect();
                    let mut computed = 0;
                    for _ in 0..3 {
                        assert_eq!(lookup(&mut c, &word, ids, &mut computed), *ids, "{len} {k}");
                    }
                    let kept = len <= MAX_BYTES && ids.len() <= 7;
                    let want = if kept { round ^ 1 } else { 3 }; // kept: computed once, in the first round only
                    assert_eq!(computed, want, "round {round}, {} bytes, ids {ids:?}", len);
                }
            }
        }
        // A tiny set holds four words: a fifth pushes out the least recently used.
        let set = |w: &str| Tiny::<TINY_SETS>::set(&Key::new(w.as_bytes()));
        let rivals: Vec<String> = (0..).map(|i| format!("t{i}")).filter(|w| set(w) == set("t0")).take(5).collect();
        let mut c = WordCache::default();
        c.enable();
        let mut computed = 0;
        for (i, w) in rivals.iter().enumerate() {
            lookup(&mut c, w.as_bytes(), &[i as u32], &mut computed);
        }
        assert_eq!(computed, 5);
        for (i, w) in rivals.iter().enumerate().rev() {
            assert_eq!(lookup(&mut c, w.as_bytes(), &[i as u32], &mut computed), [i as u32]);
        }
        assert_eq!(computed, 6, "only the first was pushed out");
    }
}
