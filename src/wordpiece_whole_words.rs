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

#[cfg(test)]
mod tests {
    use super::*;

    /// The table against a map of the kept tokens (first index wins), for
    /// vocabularies from a few tokens to 200,000, with repeated, "##",
    /// empty, over-long tokens and ids too large for the entry header among them.
    #[test]
    fn probes_find_exactly_the_word_initial_tokens() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut rng = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for size in [3usize, 40, 1000, 30_000, 200_000] {
            let mut tokens: Vec<Vec<u8>> = (0..size)
                .map(|_| {
                    let len = match rng() % 50 {
                        0 => 0,
                        1 => 256 + (rng() % 10) as usize,
                        _ => 1 + (rng() % 12) as usize,
                    };
                    let mut t: Vec<u8> = (0..len).map(|_| b"abcdefghij##\xC3\xA9"[(rng() % 14) as usize]).collect();
                    if rng() % 5 == 0 && t.len() >= 2 {
                        t[..2].copy_from_slice(b"##");
                    }
                    t
                })
                .collect();
            tokens.push(tokens[0].clone()); // a repeated token
            let ids: Vec<u32> = (0..tokens.len() as u32).map(|i| if i % 97 == 5 { (1 << 24) + i } else { i * 3 }).collect();
            let refs: Vec<&[u8]> = tokens.iter().map(|t| t.as_slice()).collect();
            let w = WholeWords::build(&refs, &ids);
            let mut want = std::collections::HashMap::new();
            for (t, &id) in refs.iter().zip(&ids) {
                if !t.starts_with(b"##") && !t.is_empty() && t.len() <= 255 && id < 1 << 24 {
                    want.entry(*t).or_insert(id);
                }
            }
            for t in &refs {
                assert_eq!(w.get(t), want.get(t).copied(), "{size} tokens, {t:?}");
            }
            for _ in 0..2000 {
                let t: Vec<u8> = (0..1 + rng() % 12).map(|_| b"abcdefghijk"[(rng() % 11) as usize]).collect();
                assert_eq!(w.get(&t), want.get(t.as_slice()).copied(), "{size} tokens, {t:?}");
            }
        }
    }
}
