//! The vocabulary's byte trie, laid out for LinMaxMatch's hot loop.

use crate::prefetch::prefetch;

/// No token ends at this node.
pub(super) const NO_TOKEN: u32 = u32::MAX;
/// No such node (an absent child or failure link).
pub(super) const NO_NODE: u32 = u32::MAX;

/// A byte trie laid out for LinMaxMatch's hot loop. A node is 8 bytes
/// (its first child and `meta`), and a node's children are numbered
/// consecutively, so an edge needs no record of its own: `label[child]` is
/// the byte leading into `child`, and the labels of a node's children sit
/// side by side (a 300K-node trie has 300 KB of labels, which stay in cache
/// while the nodes do not). A step is:
/// - up to DENSE_MIN (8) children: the children's labels, searched in one
///   round of eight (single children included);
/// - more (the roots, early letters, a script's third bytes): a dense
///   row of 256 entries (64 when every child is a UTF-8 continuation
///   byte), one load.
///
/// Nodes are numbered depth-first, so single-child chains sit side by side.
#[derive(Clone, Debug)]
pub(super) struct Trie {
    nodes: Vec<Node>,
    /// The byte on the edge into each node (plus eight bytes of padding, so
    /// the search may load eight labels from any child).
    label: Vec<u8>,
    dense: Vec<u32>,
    /// Token index ending at each node, or NO_TOKEN (off the hot path).
    token: Vec<u32>,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    /// The first child (children are `first .. first + count`).
    first: u32,
    /// Bits 0..9: number of children; bits 9..30: where the dense row (if
    /// any) starts, in units of 64 entries; the SHORT and DENSE flags.
    meta: u32,
}

/// Nodes with more children than this get a dense row: the label search is
/// then always one round. At 24, the third byte of a Thai or Devanagari
/// character (up to 64 siblings under one lead pair) took two or three
/// rounds; at 8, Thai rows run 6.5 % faster (`ab_builds.py`-style turns,
/// 111 -> 119 MB/s), the twelve UD files and en-large within ±2.6 %, and
/// the multilingual model's tables grow by 2 MiB.
const DENSE_MIN: usize = 8;
const DENSE: u32 = 1 << 31;
/// The dense row of a node whose children all follow a UTF-8 lead byte
/// (labels 0x80..=0xBF: half the dense nodes of multilingual-cased) has 64
/// entries, not 256: a quarter of the memory (the multilingual trie's rows
/// 2.4 → 1.4 MiB).
const SHORT: u32 = 1 << 30;
/// Units of 64 entries `meta` can address.
const UNITS: usize = 1 << 21;
const COUNT: u32 = 0x1FF;
const ONES: u64 = 0x0101_0101_0101_0101;

impl Trie {
    /// `tokens[i]` gets index `i`; for a repeated token the first index is kept.
    /// Built depth-first from the sorted tokens: each node's tokens are a run
    /// of the sorted list, and its children are the sub-runs sharing the next
    /// byte; nothing is hashed or allocated per node.
    pub(super) fn build(tokens: &[&[u8]]) -> Self {
        // Sort by (bytes, index): by (8-byte big-endian prefix, index) first,
        // a plain integer sort; then the rare runs that share a prefix (long
        // tokens, or a zero byte) by their whole bytes.
        let prefix = |t: &[u8]| t.iter().take(8).enumerate().fold(0u64, |k, (i, &b)| k | (b as u64) << (56 - 8 * i));
        let mut order: Vec<(u64, u32)> = tokens.iter().enumerate().map(|(i, t)| (prefix(t), i as u32)).collect();
        order.sort_unstable();
        let mut lo = 0;
        while lo < order.len() {
            let mut hi = lo + 1;
            while hi < order.len() && order[hi].0 == order[lo].0 {
                hi += 1;
            }
            if hi - lo > 1 {
                order[lo..hi].sort_unstable_by(|a, b| tokens[a.1 as usize].cmp(tokens[b.1 as usize]).then(a.1.cmp(&b.1)));
            }
            lo = hi;
        }
        // The sorted tokens side by side in one arena, so the scans below read memory in order.
        let mut arena = Vec::with_capacity(tokens.iter().map(|t| t.len()).sum());
        let mut spans = Vec::with_capacity(order.len());
        for &(_, i) in &order {
            let t = tokens[i as usize];
            spans.push((arena.len(), t.len()));
            arena.extend_from_slice(t);
        }
        let len = |k: usize| spans[k].1;
        let byte = |k: usize, depth: usize| arena[spans[k].0 + depth];
        let empty = Node { first: NO_NODE, meta: 0 };
        // At most one node per byte of the tokens, plus the root.
        let most = arena.len() + 1;
        let mut trie = Trie {
            nodes: Vec::with_capacity(most),
            label: Vec::with_capacity(most + 8),
            dense: Vec::new(),
            token: Vec::with_capacity(most),
        };
        trie.nodes.push(empty);
        trie.label.push(0);
        trie.token.push(NO_TOKEN);
        // (node, run of `order`, depth): the run's tokens all start with the node's `depth` bytes.
        let mut stack = vec![(0u32, 0usize, order.len(), 0usize)];
        let mut runs = Vec::new();
        while let Some((node, mut lo, hi, depth)) = stack.pop() {
            // Tokens ending here sort first; the first of them has the smallest index.
            if lo < hi && len(lo) == depth {
                trie.token[node as usize] = order[lo].1;
                while lo < hi && len(lo) == depth {
                    lo += 1;
                }
            }
            let first = trie.nodes.len() as u32;
            runs.clear();
            while lo < hi {
                let b = byte(lo, depth);
                let mut end = lo + 1;
                while end < hi && byte(end, depth) == b {
                    end += 1;
                }
                let child = trie.nodes.len() as u32;
                trie.nodes.push(empty);
                trie.label.push(b);
                trie.token.push(NO_TOKEN);
                runs.push((child, lo, end, depth + 1));
                lo = end;
            }
            // Last child first onto the stack: the first child is numbered next and visited next.
            stack.extend(runs.iter().rev().copied());
            let count = runs.len();
            let unit = trie.dense.len() / 64;
            let short = runs.iter().all(|&(child, ..)| trie.label[child as usize] & 0xC0 == 0x80);
            let (span, flag) = if short { (64, SHORT) } else { (256, 0) };
            let meta = if count > DENSE_MIN && unit + span / 64 <= UNITS {
                trie.dense.resize(64 * unit + span, NO_NODE);
                for &(child, ..) in &runs {
                    trie.dense[64 * unit + (trie.label[child as usize] as usize & (span - 1))] = child;
                }
                DENSE | flag | (unit as u32) << 9 | count as u32
            } else {
                count as u32
            };
            trie.nodes[node as usize] = Node { first: if count > 0 { first } else { 0 }, meta };
        }
        trie.label.extend_from_slice(&[0; 8]);
        trie
    }

    #[inline(always)]
    pub(super) fn child(&self, node: u32, byte: u8) -> Option<u32> {
        let n = self.nodes[node as usize];
        if n.meta & DENSE != 0 {
            let start = 64 * ((n.meta >> 9) as usize & (UNITS - 1));
            // A short row's bytes are 0x80..=0xBF; any other byte has no child there.
            let (at, span) = if n.meta & SHORT != 0 { (byte.wrapping_sub(0x80) as usize, 64) } else { (byte as usize, 256) };
            let next = if at < span { self.dense.get(start + at).copied().unwrap_or(NO_NODE) } else { NO_NODE };
            return (next != NO_NODE).then_some(next);
        }
        // The children's labels, eight at a time: a zero byte of `x` is a
        // match (the lowest one is exact: borrows only run upwards). One
        // round for the most nodes (up to eight children, single ones
        // included), so the walk has no branch on the kind of node.
        let (first, count) = (n.first as usize, (n.meta & COUNT) as usize);
        // The children sit side by side: start loading them while their labels are searched.
        if let Some(c) = self.nodes.get(first) {
            prefetch(c);
        }
        let pattern = byte as u64 * ONES;
        let mut k = 0;
        loop {
            let at = first + k;
            let w = u64::from_le_bytes(self.label.get(at..at + 8)?.try_into().unwrap_or([0; 8]));
            let x = w ^ pattern;
            let left = count - k;
            let mask = if left >= 8 { !0 } else { (1u64 << (8 * left)) - 1 };
            let hits = x.wrapping_sub(ONES) & !x & (ONES << 7) & mask;
            if hits != 0 {
                return Some((at + (hits.trailing_zeros() / 8) as usize) as u32);
            }
            k += 8;
            if k >= count {
                return None;
            }
        }
    }

    #[inline]
    pub(super) fn token(&self, node: u32) -> u32 {
        self.token[node as usize]
    }

    pub(super) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Sorted children.
    pub(super) fn children(&self, node: u32) -> impl Iterator<Item = (u8, u32)> + '_ {
        let n = self.nodes[node as usize];
        (n.first..n.first + (n.meta & COUNT)).map(|c| (self.label[c as usize], c))
    }

    pub(super) fn walk(&self, mut node: u32, bytes: &[u8]) -> Option<u32> {
        for &b in bytes {
            node = self.child(node, b)?;
        }
        Some(node)
    }
}

#[cfg(test)]
#[path = "wordpiece_trie_tests.rs"]
mod tests;
