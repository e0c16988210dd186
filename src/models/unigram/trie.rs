//! A byte trie of the Unigram pieces for common-prefix search: every piece
//! that starts a text, shortest first (HF's `Trie::common_prefix_search`).
//!
//! Edges live in one open-addressing table keyed by (node, byte): a step is
//! one hash probe, where a sorted child list per node cost a binary search of
//! up to 8 mispredicted steps per byte (the `▁` node has hundreds of
//! children); that search was 40% of a Unigram encode's profile.

/// An empty slot of the edge table.
const EMPTY: u64 = u64::MAX;

#[derive(Clone, Debug)]
pub struct Trie {
    /// The piece id ending at each node (`u32::MAX`: none) and its score,
    /// side by side: a Viterbi step reads both, and a separate score table
    /// indexed by id cost a cache miss per piece found (19% of a miss's time).
    piece: Vec<(u32, f64)>,
    /// (node << 8 | byte, child), linear probing, a power-of-two length.
    edges: Vec<(u64, u32)>,
    mask: usize,
}

#[inline]
fn slot(key: u64, mask: usize) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask
}

impl Trie {
    /// The trie of `pieces` (an empty piece is never matched, as in HF).
    pub fn new<'a>(pieces: impl IntoIterator<Item = (&'a [u8], u32, f64)>) -> Trie {
        let mut piece = vec![(u32::MAX, 0.0)];
        let mut edges: Vec<(u64, u32)> = Vec::new();
        let mut children = crate::fxhash::FxHashMap::<u64, u32>::default();
        for (bytes, id, score) in pieces {
            let mut node = 0u32;
            for &b in bytes {
                let key = (node as u64) << 8 | b as u64;
                node = *children.entry(key).or_insert_with(|| {
                    piece.push((u32::MAX, 0.0));
                    (piece.len() - 1) as u32
                });
            }
            if !bytes.is_empty() {
                piece[node as usize] = (id, score);
            }
        }
        let size = (children.len() * 2).next_power_of_two().max(2);
        edges.resize(size, (EMPTY, 0));
        let mask = size - 1;
        for (key, child) in children {
            let mut i = slot(key, mask);
            while edges[i].0 != EMPTY {
                i = (i + 1) & mask;
            }
            edges[i] = (key, child);
        }
        Trie { piece, edges, mask }
    }

    #[inline]
    fn child(&self, node: u32, b: u8) -> Option<u32> {
        let key = (node as u64) << 8 | b as u64;
        let mut i = slot(key, self.mask);
        loop {
            let &(k, child) = self.edges.get(i)?;
            if k == key {
                return Some(child);
            }
            if k == EMPTY {
                return None;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Calls `f(length, id, score)` for every piece that is a prefix of `text`, shortest first.
    #[inline]
    pub fn prefixes(&self, text: &[u8], mut f: impl FnMut(usize, u32, f64)) {
        let mut node = 0u32;
        for (i, &b) in text.iter().enumerate() {
            match self.child(node, b) {
                Some(c) => node = c,
                None => return,
            }
            match self.piece.get(node as usize) {
                Some(&(id, score)) if id != u32::MAX => f(i + 1, id, score),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_shortest_first() {
        let pieces = ["a", "ab", "abc", "b", ""];
        let t = Trie::new(pieces.iter().enumerate().map(|(i, p)| (p.as_bytes(), i as u32, -(i as f64))));
        let mut hits = Vec::new();
        t.prefixes(b"abd", |n, id, score| hits.push((n, id, score)));
        assert_eq!(hits, vec![(1, 0, 0.0), (2, 1, -1.0)]);
        hits.clear();
        t.prefixes(b"", |n, id, score| hits.push((n, id, score)));
        t.prefixes(b"xa", |n, id, score| hits.push((n, id, score)));
        assert!(hits.is_empty());
    }

    #[test]
    fn many_children_of_one_node() {
        let pieces: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![0xE2, b]).collect();
        let t = Trie::new(pieces.iter().enumerate().map(|(i, p)| (p.as_slice(), i as u32, 0.0)));
        for b in 0..=255u8 {
            let mut hits = Vec::new();
            t.prefixes(&[0xE2, b, 0], |n, id, _| hits.push((n, id)));
            assert_eq!(hits, vec![(2, b as u32)]);
        }
    }
}
