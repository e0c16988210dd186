//! The exact-match table of word-initial tokens (one hash probe for a word
//! that is a token).

use super::trie::NO_TOKEN;
use crate::fxhash::hash_bytes as hash;

/// Exact-match table of the vocabulary's word-initial tokens: most words
/// are one token, and one hash probe finds them faster than a walk down the
/// trie. Open addressing over a power-of-two table of `(hash tag, entry)`;
/// each entry is a `u32` (length << 24 | id) then the bytes, in one
/// arena, so a probe touches two compact arrays and allocates nothing.
#[derive(Clone, Debug)]
pub(super) struct WholeWords {
    pub(super) slots: Vec<(u32, u32)>, // (tag, arena offset); NO_TOKEN offset = empty
    arena: Vec<u8>,
}

/// The largest whole-word table probed for words the memo has not seen:
/// 512 KiB of slots. The 30K-token vocabularies need 256 KiB,
/// multilingual-cased 1 MiB.
pub(super) const SMALL_WHOLE_SLOTS: usize = 1 << 16;

impl WholeWords {
    /// Tokens starting with "##" are left out: a word spelled like one goes
    /// through the greedy loop, which handles it.
    pub(super) fn build(tokens: &[&[u8]], ids: &[u32]) -> Self {
        let n = tokens.iter().filter(|t| !t.starts_with(b"##")).count();
        let size = (n + n / 4).next_power_of_two().max(16);
        let mut w = WholeWords { slots: vec![(0, NO_TOKEN); size], arena: Vec::new() };
        for (i, t) in tokens.iter().enumerate() {
            // Long tokens and huge vocabularies do not fit the entry header; the trie has them.
            if t.starts_with(b"##") || t.is_empty() || t.len() > 255 || ids[i] >= 1 << 24 {
                continue;
            }
            let h = hash(t);
            let mut k = h as usize & (size - 1);
            while w.slots[k].1 != NO_TOKEN {
                if w.entry_at(w.slots[k], (h >> 32) as u32, t).is_some() {
                    break; // a repeated token keeps its first index
                }
                k = (k + 1) & (size - 1);
            }
            if w.slots[k].1 != NO_TOKEN {
                continue;
            }
            w.slots[k] = ((h >> 32) as u32, w.arena.len() as u32);
            w.arena.extend_from_slice(&((t.len() as u32) << 24 | ids[i]).to_le_bytes());
            w.arena.extend_from_slice(t);
        }
        w
    }

    #[inline]
    pub(super) fn get(&self, word: &[u8]) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let h = hash(word);
        let tag = (h >> 32) as u32;
        let mut k = h as usize & mask;
        loop {
            let slot = self.slots[k];
            if slot.1 == NO_TOKEN {
                return None;
            }
            if let Some(id) = self.entry_at(slot, tag, word) {
                return Some(id);
            }
            k = (k + 1) & mask;
        }
    }

    /// The id in the occupied slot `(tag, offset)` if its entry is `word` (with hash tag `tag`).
    #[inline]
    fn entry_at(&self, (g, at): (u32, u32), tag: u32, word: &[u8]) -> Option<u32> {
        if g != tag {
            return None;
        }
        let at = at as usize;
        let head = self.arena.get(at..at + 4)?;
        let head = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let len = (head >> 24) as usize;
        (len == word.len() && self.arena.get(at + 4..at + 4 + len) == Some(word)).then_some(head & 0xFF_FFFF)
    }
}
