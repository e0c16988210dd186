//! The Unigram encoder's piece trie, laid out for the Viterbi walk: nodes in
//! breadth-first order (the short prefixes every walk starts with sit
//! together), a node's children as a short sorted label list scanned in
//! place, and a 256-slot table for nodes with many children (the root, `▁`).
//! Measured against the hash-probed trie of src/models/unigram/trie.rs, whose
//! probe per byte was most of sentencepiece encoding's time.

use std::collections::VecDeque;
use crate::models::unigram::trie::label_runs;

const NONE: u32 = u32::MAX;
/// Nodes with more children than this get a direct table.
const DENSE_FROM: usize = 8;

#[derive(Clone, Copy, Debug)]
struct Node {
    first: u32,
    count: u32,
    dense: u32,
    id: u32,
}

#[derive(Clone, Debug)]
pub struct PieceTrie {
    nodes: Vec<Node>,
    labels: Vec<u8>,
    targets: Vec<u32>,
    tables: Vec<u32>,
}

impl PieceTrie {
    /// The trie of `pieces` (distinct byte strings; an empty one is never matched).
    pub fn new<'a>(pieces: impl IntoIterator<Item = (&'a [u8], u32)>) -> PieceTrie {
        let mut pieces: Vec<(&[u8], u32)> = pieces.into_iter().filter(|(p, _)| !p.is_empty()).collect();
        pieces.sort_unstable();
        let empty = Node { first: 0, count: 0, dense: NONE, id: NONE };
        let mut t = PieceTrie { nodes: vec![empty], labels: Vec::new(), targets: Vec::new(), tables: Vec::new() };
        let mut queue = VecDeque::from([(0usize, 0usize, pieces.len(), 0usize)]);
        while let Some((node, mut lo, hi, depth)) = queue.pop_front() {
            // Sorted: the piece equal to this node's prefix (if any) comes first among those sharing it.
            if lo < hi && pieces[lo].0.len() == depth {
                t.nodes[node].id = pieces[lo].1;
                lo += 1;
            }
            let first = t.labels.len();
            for (b, i, j) in label_runs(lo, hi, |k| pieces[k].0[depth]) {
                t.labels.push(b);
                t.targets.push(t.nodes.len() as u32);
                queue.push_back((t.nodes.len(), i, j, depth + 1));
                t.nodes.push(empty);
            }
            let count = t.labels.len() - first;
            t.nodes[node].first = first as u32;
            t.nodes[node].count = count as u32;
            if count > DENSE_FROM {
                let base = t.tables.len();
                t.tables.resize(base + 256, NONE);
                for k in first..first + count {
                    t.tables[base + t.labels[k] as usize] = t.targets[k];
                }
                t.nodes[node].dense = (base / 256) as u32;
            }
        }
        t
    }

    #[inline]
    fn child(&self, node: Node, b: u8) -> Option<u32> {
        if node.dense != NONE {
            let c = *self.tables.get(node.dense as usize * 256 + b as usize)?;
            return (c != NONE).then_some(c);
        }
        let (s, e) = (node.first as usize, node.first as usize + node.count as usize);
        let k = self.labels.get(s..e)?.iter().position(|&l| l == b)?;
        self.targets.get(s + k).copied()
    }

    /// Calls `f(length, id)` for every piece that is a prefix of `text`, shortest first.
    #[inline]
    pub fn prefixes(&self, text: &[u8], mut f: impl FnMut(usize, u32)) {
        let Some(&root) = self.nodes.first() else { return };
        let mut node = root;
        for (i, &b) in text.iter().enumerate() {
            match self.child(node, b).and_then(|c| self.nodes.get(c as usize)) {
                Some(&n) => node = n,
                None => return,
            }
            if node.id != NONE {
                f(i + 1, node.id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_shortest_first_with_dense_and_sparse_nodes() {
        let mut pieces: Vec<Vec<u8>> = vec![b"a".to_vec(), b"ab".to_vec(), b"abc".to_vec(), b"b".to_vec(), vec![]];
        pieces.extend((0..=255u8).map(|b| vec![0xE2, b]));
        let t = PieceTrie::new(pieces.iter().enumerate().map(|(i, p)| (p.as_slice(), i as u32)));
        let hits = |text: &[u8]| {
            let mut h = Vec::new();
            t.prefixes(text, |n, id| h.push((n, id)));
            h
        };
        assert_eq!(hits(b"abd"), vec![(1, 0), (2, 1)]);
        assert_eq!(hits(b"abcz"), vec![(1, 0), (2, 1), (3, 2)]);
        assert!(hits(b"").is_empty() && hits(b"xa").is_empty());
        for b in 0..=255u8 {
            assert_eq!(hits(&[0xE2, b, 0]), vec![(2, 5 + b as u32)]);
        }
    }
}
