//! The memo's table of words of up to 8 bytes (nine English words in ten):
//! four 16-byte entries to a cache line, one line a set. Four times as many
//! words per line as the two-way tables hold, so the frequent words fill
//! fewer lines (more of them stay in L1 and L2), and four ways push out
//! fewer words than two.

use super::key::Key;

/// Bits of each id in an entry: ids of vocabularies of up to 131,072 tokens
/// fit; a word with a larger id is kept in the short table (a mark here).
const ID_BITS: u32 = 17;
const ID_MASK: u64 = (1 << ID_BITS) - 1;
/// Most ids an entry holds.
pub(super) const IDS: usize = 3;
/// Where an entry's ids start: `meta` is the length (bits 0..4, 0 = empty),
/// then what the entry holds (bits 4..7: 0..=3 ids, or a mark), then the ids.
const IDS_AT: u32 = 7;
/// Marks: the word is kept in the short table, or in the long one.
const IN_SHORT: u64 = 4;
const IN_LONG: u64 = 5;

/// One word (its bytes as [`Key::packed8`] packs them) and its `meta`.
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Slot {
    word: u64,
    meta: u64,
}

/// Four ways, most recently used first, in one cache line.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Line([Slot; 4]);

/// What a lookup found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Found {
    /// The word's ids (appended to the output).
    Ids,
    No,
    /// A mark: the word's ids are in the short table.
    Short,
    /// A mark: the word's ids are in the long table.
    Long,
}

/// The four-way table of words of 1..=8 bytes with up to three ids, in
/// `SETS` sets (a power of two: a set's index is a shift by a constant, with
/// no bounds check). None until enabled.
#[derive(Default)]
pub(super) struct Tiny<const SETS: usize> {
    sets: Option<Box<[Line; SETS]>>,
}

impl Slot {
    /// Whether this slot is `key`'s word (one branch: the differences OR-ed;
    /// the length is compared too, "a" and "a\0" packing alike).
    #[inline(always)]
    fn holds(&self, key: &Key<1>) -> bool {
        (self.word ^ key.words[0]) | ((self.meta ^ key.len as u64) & 15) == 0
    }
}

impl<const SETS: usize> Tiny<SETS> {
    const BITS: u32 = SETS.trailing_zeros();

    pub(super) fn enable(&mut self) {
        const { assert!(SETS.is_power_of_two() && SETS > 1) };
        // Without the memory the table stays off (every lookup a miss), never an abort.
        let mut lines = Vec::new();
        if self.sets.is_none() && lines.try_reserve_exact(SETS).is_ok() {
            lines.resize(SETS, Line::default());
            self.sets = lines.into_boxed_slice().try_into().ok();
        }
    }

    pub(super) fn is_enabled(&self) -> bool {
        self.sets.is_some()
    }

    pub(super) fn clear(&mut self) {
        self.sets.iter_mut().flat_map(|t| t.iter_mut()).for_each(|l| l.0.iter_mut().for_each(|s| s.meta = 0));
    }

    /// The set of `key`'s word: the top bits of a product, which depend on
    /// every bit of the word. The length is left out (compared in the
    /// entries: only a word ending in zero bytes shares a set with a shorter one).
    #[inline(always)]
    pub(super) fn set(key: &Key<1>) -> usize {
        (key.words[0].wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::BITS)) as usize
    }

    #[inline(always)]
    fn line(&mut self, key: &Key<1>) -> Option<&mut [Slot; 4]> {
        self.sets.as_mut().map(|t| &mut t[Self::set(key)].0)
    }

    /// Appends the ids of `key`'s word to `out` if memoized. A hit in the
    /// first way writes nothing; in another, the word moves to the front.
    #[inline(always)]
    pub(super) fn get(&mut self, key: &Key<1>, out: &mut Vec<u32>) -> Found {
        emit(self.get_meta(key), out)
    }

    /// The `meta` of `key`'s word (0: not here), the word moved to the front.
    #[inline(always)]
    pub(super) fn get_meta(&mut self, key: &Key<1>) -> u64 {
        let Some(line) = self.line(key) else { return 0 };
        if line[0].holds(key) {
            line[0].meta
        } else if let Some(k) = (1..4).find(|&k| line[k].holds(key)) {
            let hit = line[k];
            for j in (0..k).rev() {
                line[j + 1] = line[j];
            }
            line[0] = hit;
            hit.meta
        } else {
            0
        }
    }

    /// Memoizes `ids` for `key`'s word; false (nothing kept) when there are
    /// more than [`IDS`] or one does not fit the id bits.
    #[inline]
    pub(super) fn put(&mut self, key: &Key<1>, ids: &[u32]) -> bool {
        if ids.len() > IDS || ids.iter().any(|&id| id as u64 > ID_MASK) {
            return false;
        }
        let packed = ids.iter().enumerate().fold(0, |m, (k, &id)| m | (id as u64) << (IDS_AT + k as u32 * ID_BITS));
        self.insert(key, key.len as u64 | (ids.len() as u64) << 4 | packed);
        true
    }

    /// Marks `key`'s word as kept in the short table (`long` false) or the long one.
    #[inline]
    pub(super) fn put_mark(&mut self, key: &Key<1>, long: bool) {
        self.insert(key, key.len as u64 | (if long { IN_LONG } else { IN_SHORT }) << 4);
    }

    /// `key`'s word in the first way, the others moving back one (the last pushed out).
    #[inline(always)]
    fn insert(&mut self, key: &Key<1>, meta: u64) {
        if let Some(line) = self.line(key) {
            line[3] = line[2];
            line[2] = line[1];
            line[1] = line[0];
            line[0] = Slot { word: key.words[0], meta };
        }
    }
}

/// Appends the ids of an entry's `meta` (0: none) to `out`.
#[inline(always)]
pub(super) fn emit(meta: u64, out: &mut Vec<u32>) -> Found {
    if meta == 0 {
        return Found::No;
    }
    let n = (meta >> 4) & 7;
    if n > IDS as u64 {
        return if n == IN_SHORT { Found::Short } else { Found::Long };
    }
    out.reserve(IDS);
    let len = out.len();
    // All three slots written, n of them kept: no loop over the ids.
    if let [a, b, c, ..] = out.spare_capacity_mut() {
        a.write((meta >> IDS_AT & ID_MASK) as u32);
        b.write((meta >> (IDS_AT + ID_BITS) & ID_MASK) as u32);
        c.write((meta >> (IDS_AT + 2 * ID_BITS) & ID_MASK) as u32);
        // SAFETY: the first three spare slots were just written, and n <= 3.
        unsafe { out.set_len(len + n as usize) };
    }
    Found::Ids
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<const S: usize>(t: &mut Tiny<S>, word: &[u8]) -> (Found, Vec<u32>) {
        let mut out = vec![99];
        let found = t.get(&Key::new(word), &mut out);
        assert_eq!(out[0], 99, "what was there stays");
        (found, out.split_off(1))
    }

    #[test]
    fn a_table_the_memory_is_not_there_for_stays_off() {
        // 2^50 lines of 64 bytes (64 PiB) cannot be had: no abort, the table off, every lookup a miss
        let mut t = Tiny::<{ 1 << 50 }>::default();
        t.enable();
        assert!(!t.is_enabled());
        t.put(&Key::new(b"word"), &[1]);
        assert_eq!(get(&mut t, b"word").0, Found::No);
    }

    #[test]
    fn entries_hold_every_length_and_id_count_exactly() {
        let mut t = Tiny::<64>::default();
        assert_eq!(get(&mut t, b"off").0, Found::No, "disabled: nothing");
        t.enable();
        let max = ID_MASK as u32;
        let cases: [&[u32]; 6] = [&[], &[0], &[max], &[1, max, 2], &[max, max, max], &[5, 0]];
        for len in 1..=8 {
            for (c, ids) in cases.iter().enumerate() {
                let word: Vec<u8> = (0..len).map(|k| (k * 37 + c * 11) as u8).collect(); // zero bytes too
                assert!(t.put(&Key::new(&word), ids));
                assert_eq!(get(&mut t, &word), (Found::Ids, ids.to_vec()), "{word:?}");
                // The same bytes with a zero byte more are another word.
                if len < 8 {
                    let longer = [&word[..], &[0]].concat();
                    assert_eq!(get(&mut t, &longer).0, Found::No, "{longer:?}");
                }
            }
        }
        // Too many ids, or an id over the bits: not kept.
        assert!(!t.put(&Key::new(b"four"), &[1, 2, 3, 4]));
        assert!(!t.put(&Key::new(b"big"), &[max + 1]));
        assert_eq!(get(&mut t, b"four").0, Found::No);
        assert_eq!(get(&mut t, b"big").0, Found::No);
        t.put_mark(&Key::new(b"four"), true);
        t.put_mark(&Key::new(b"big"), false);
        assert_eq!(get(&mut t, b"four"), (Found::Long, vec![]));
        assert_eq!(get(&mut t, b"big"), (Found::Short, vec![]));
        t.clear();
        assert_eq!(get(&mut t, b"four").0, Found::No);
    }

    #[test]
    fn a_set_keeps_its_four_most_recently_used_words() {
        let mut t = Tiny::<256>::default();
        t.enable();
        let set = |w: &str| Tiny::<256>::set(&Key::new(w.as_bytes()));
        let words: Vec<String> = (0..).map(|i| format!("w{i}")).filter(|w| set(w) == set("w0")).take(6).collect();
        let put = |t: &mut Tiny<256>, i: usize| assert!(t.put(&Key::new(words[i].as_bytes()), &[i as u32]));
        for i in 0..4 {
            put(&mut t, i);
        }
        for i in 0..4 {
            assert_eq!(get(&mut t, words[i].as_bytes()), (Found::Ids, vec![i as u32]));
        }
        // Used order now 3, 2, 1, 0: touch 0 again, then a newcomer pushes out 1 (the least recent).
        get(&mut t, words[0].as_bytes());
        put(&mut t, 4);
        assert_eq!(get(&mut t, words[1].as_bytes()).0, Found::No);
        for i in [0, 2, 3, 4] {
            assert_eq!(get(&mut t, words[i].as_bytes()), (Found::Ids, vec![i as u32]), "{i}");
        }
        // Another newcomer pushes out the least recent of those: 0.
        put(&mut t, 5);
        assert_eq!(get(&mut t, words[0].as_bytes()).0, Found::No);
        for i in [2, 3, 4, 5] {
            assert_eq!(get(&mut t, words[i].as_bytes()), (Found::Ids, vec![i as u32]), "{i}");
        }
    }
}
