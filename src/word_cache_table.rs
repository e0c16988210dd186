//! One two-way set-associative table of the memo: entries of words of up to
//! 8·W bytes with up to I ids.

use super::key::Key;

/// One memoized word: its bytes in `W` little-endian words (zero padded),
/// its length (0 = empty) and up to `I` ids.
#[derive(Clone, Copy)]
#[repr(C)]
pub(super) struct Entry<const W: usize, const I: usize> {
    key: [u64; W],
    len: u8,
    n: u8,
    ids: [u32; I],
}

/// Two entries, aligned so that a set is one (or two adjacent) cache lines.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(super) struct Set<E>([E; 2]);

/// What a table lookup found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Found {
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
pub(super) struct Table<const W: usize, const I: usize> {
    pub(super) sets: Vec<Set<Entry<W, I>>>,
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

    /// Allocates the table; if the memory is not there, it stays empty (every
    /// lookup a miss: slower, never an abort).
    pub(super) fn enable(&mut self, sets: usize) {
        if self.sets.is_empty() && self.sets.try_reserve_exact(sets).is_ok() {
            self.sets.resize(sets, Set([Self::EMPTY; 2]));
        }
    }

    pub(super) fn clear(&mut self) {
        self.sets.iter_mut().for_each(|s| s.0.iter_mut().for_each(|e| e.len = 0));
    }

    /// Memoizes `ids` for `key`'s word (ignored when there are too many).
    #[inline]
    pub(super) fn put(&mut self, key: &Key<W>, ids: &[u32]) {
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
    pub(super) fn put_elsewhere(&mut self, key: &Key<W>) {
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
    pub(super) fn get(&mut self, key: &Key<W>, out: &mut Vec<u32>) -> Found {
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
