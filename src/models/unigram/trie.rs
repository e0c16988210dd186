//! A byte trie for common-prefix search: every piece that starts a text,
//! shortest first (HF's `Trie::common_prefix_search`). sentencepiece's
//! normalizer and user-defined symbols use it; the Unigram Viterbi now walks
//! sentencepiece's breadth-first `PieceTrie` (src/sentencepiece/trie.rs),
//! whose nodes stay in the CPU's caches where this table's edges missed them.
//!
//! Edges live in one open-addressing table keyed by (node, byte): a step is
//! one hash probe, where a sorted child list per node cost a binary search of
//! up to 8 mispredicted steps per byte (the `▁` node has hundreds of
//! children); that search was 40% of a Unigram encode's profile. Each edge
//! also holds where the piece ending at its child is in a dense table of
//! (id, score) (a few hundred KB, which stays in the CPU's caches): a step
//! is one cache miss on a 16-byte edge, where a table of pieces by node cost
//! a second miss (perf put a quarter of the Viterbi on that load) and the
//! score in the edge made edges 24 bytes.

/// The runs of the sorted keys `lo..hi` that share their label (`label(k)`,
/// key k's unit at the depth being built): `(label, start, end)` in order, a
/// trie node's children when keys are placed breadth first (the char trie's
/// and sentencepiece's piece trie's).
pub(crate) fn label_runs<L: Copy + PartialEq>(lo: usize, hi: usize, label: impl Fn(usize) -> L) -> impl Iterator<Item = (L, usize, usize)> {
    let mut i = lo;
    std::iter::from_fn(move || {
        if i >= hi {
            return None;
        }
        let (l, start) = (label(i), i);
        i += 1;
        while i < hi && label(i) == l {
            i += 1;
        }
        Some((l, start, i))
    })
}

/// An empty slot of the edge table.
const EMPTY: u64 = u64::MAX;

#[derive(Clone, Copy, Debug)]
struct Edge {
    /// node << 8 | byte; `EMPTY` for a free slot.
    key: u64,
    child: u32,
    /// The piece ending at `child`: its place in `pieces` (`u32::MAX`: none).
    piece: u32,
}

#[derive(Clone, Debug)]
pub struct Trie {
    /// Linear probing, a power-of-two length; 16-byte edges (the score in
    /// the edge made them 24: a third more table for the Viterbi's misses).
    edges: Vec<Edge>,
    mask: usize,
    /// (id, score) of each piece, dense: small enough to stay in the CPU's caches.
    pieces: Vec<(u32, f64)>,
}

#[inline]
fn slot(key: u64, mask: usize) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask
}

impl Trie {
    /// The trie of `pieces` (an empty piece is never matched, as in HF).
    pub fn new<'a>(pieces: impl IntoIterator<Item = (&'a [u8], u32, f64)>) -> Trie {
        let mut piece = vec![(u32::MAX, 0.0)];
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
            if let (false, Some(p)) = (bytes.is_empty(), piece.get_mut(node as usize)) {
                *p = (id, score);
            }
        }
        let size = (children.len() * 2).next_power_of_two().max(2);
        let mut edges = vec![Edge { key: EMPTY, child: 0, piece: u32::MAX }; size];
        let mut pieces = Vec::new();
        let mask = size - 1;
        for (key, child) in children {
            let mut i = slot(key, mask);
            while edges.get(i).is_some_and(|e| e.key != EMPTY) {
                i = (i + 1) & mask;
            }
            let (id, score) = piece.get(child as usize).copied().unwrap_or((u32::MAX, 0.0));
            let at = match id {
                u32::MAX => u32::MAX,
                _ => {
                    pieces.push((id, score));
                    (pieces.len() - 1) as u32
                }
            };
            if let Some(e) = edges.get_mut(i) {
                *e = Edge { key, child, piece: at };
            }
        }
        Trie { edges, mask, pieces }
    }

    #[inline]
    fn edge(&self, node: u32, b: u8) -> Option<&Edge> {
        let key = (node as u64) << 8 | b as u64;
        let mut i = slot(key, self.mask);
        loop {
            let e = self.edges.get(i)?;
            if e.key == key {
                return Some(e);
            }
            if e.key == EMPTY {
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
            let Some(e) = self.edge(node, b) else { return };
            node = e.child;
            if let Some(&(id, score)) = self.pieces.get(e.piece as usize) {
                f(i + 1, id, score);
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
