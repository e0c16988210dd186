//! One word's lattice under a piece table: forward-backward (the E-step's
//! expected counts) and Viterbi. Sums run in the oracle's order
//! (`bertpiece.oracle_train_unigram`): by end then start forward, by start
//! then end backward, spans by start then end, so results are bit-equal.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Hashes a trie edge key, `node << 32 | char`, by one folded multiply: the
/// general hasher's rounds were most of the cost of a probe, and a probe per
/// character is what finding the spans costs.
#[derive(Default, Clone, Copy)]
struct EdgeHasher(u64);

impl Hasher for EdgeHasher {
    #[inline]
    fn write_u64(&mut self, key: u64) {
        let m = (key ^ self.0) as u128 * 0x9E37_79B9_7F4A_7C15u128;
        self.0 = (m as u64) ^ ((m >> 64) as u64);
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            self.write_u64(chunk.iter().rev().fold(0, |w, &b| (w << 8) | b as u64));
        }
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Trie edges: `node << 32 | char` -> child node.
type Edges = HashMap<u64, u32, BuildHasherDefault<EdgeHasher>>;

#[inline]
fn edge(node: u32, c: u32) -> u64 {
    (node as u64) << 32 | c as u64
}

/// The pieces in a trie (one hash map from (node, char) to the child node),
/// with their scores: a lattice walks it once per start position and stops
/// where no piece continues.
pub(super) struct Table {
    children: Edges,
    /// piece id of each trie node (`u32::MAX`: none); node 0 is the root
    piece: Vec<u32>,
    pub scores: Vec<f64>,
    pub max_len: usize,
}

pub(super) const NONE: u32 = u32::MAX;

/// One word's spans: `spans` holds (end, piece id) by start then end, and
/// `spans[starts[i]..starts[i + 1]]` are those starting at `i` (a word of n
/// chars has n + 1 entries in `starts`).
#[derive(Clone, Copy)]
pub(super) struct Spans<'a> {
    spans: &'a [(u32, u32)],
    starts: &'a [u32],
}

impl<'a> Spans<'a> {
    fn len(&self) -> usize {
        self.starts.len() - 1
    }

    #[inline]
    fn from(&self, i: usize) -> &'a [(u32, u32)] {
        &self.spans[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}

/// A word's spans as `Table::fill` finds them, the buffers reused.
#[derive(Default)]
pub(super) struct SpanBuf {
    spans: Vec<(u32, u32)>,
    starts: Vec<u32>,
}

impl Table {
    pub fn new(pieces: &[(Vec<u32>, f64)], max_len: usize) -> Self {
        let mut t = Table { children: Edges::default(), piece: vec![NONE], scores: Vec::with_capacity(pieces.len()), max_len };
        for (k, (p, s)) in pieces.iter().enumerate() {
            let mut node = 0u32;
            for &c in p {
                let next = t.piece.len() as u32;
                node = *t.children.entry(edge(node, c)).or_insert(next);
                if node == next {
                    t.piece.push(NONE);
                }
            }
            t.piece[node as usize] = k as u32;
            t.scores.push(*s);
        }
        t
    }

    /// The pieces of `word`, into `buf`.
    fn fill<'b>(&self, word: &[u32], buf: &'b mut SpanBuf) -> Spans<'b> {
        buf.spans.clear();
        buf.starts.clear();
        for i in 0..word.len() {
            buf.starts.push(buf.spans.len() as u32);
            let mut node = 0u32;
            for (j, &c) in word.iter().enumerate().skip(i).take(self.max_len) {
                match self.children.get(&edge(node, c)) {
                    Some(&next) => node = next,
                    None => break,
                }
                if self.piece[node as usize] != NONE {
                    buf.spans.push((j as u32 + 1, self.piece[node as usize]));
                }
            }
        }
        buf.starts.push(buf.spans.len() as u32);
        Spans { spans: &buf.spans, starts: &buf.starts }
    }
}

/// Every word's spans under the current pieces, kept between EM steps: the
/// pieces only ever shrink (the M-step and pruning drop some, keeping the
/// order of the rest), so after the first `fill` each word's spans are the
/// cached ones with the dropped pieces left out and the ids renumbered — the
/// very spans, in the very order, that `fill` would find again, without the
/// trie walk (a hash probe per character, most of an E-step's time).
pub(super) struct SpanCache {
    /// (end, piece id) by start then end, all words one after another
    spans: Vec<(u32, u32)>,
    /// per word and start, where its spans begin within the word's (a word of n chars has n + 1 entries)
    starts: Vec<u32>,
    /// per word, where its entries begin in `spans` and `starts`
    words: Vec<(usize, usize)>,
}

impl SpanCache {
    pub fn new<'w>(words: impl ExactSizeIterator<Item = &'w [u32]>, table: &Table) -> Self {
        let mut c = SpanCache { spans: Vec::new(), starts: Vec::new(), words: Vec::with_capacity(words.len() + 1) };
        let mut buf = SpanBuf::default();
        for w in words {
            c.words.push((c.spans.len(), c.starts.len()));
            let found = table.fill(w, &mut buf);
            c.spans.extend_from_slice(found.spans);
            c.starts.extend_from_slice(found.starts);
        }
        c.words.push((c.spans.len(), c.starts.len()));
        c
    }

    /// Word `w`'s spans, as `Table::fill` would find them.
    #[inline]
    pub fn word(&self, w: usize) -> Spans<'_> {
        let ((s0, t0), (s1, t1)) = (self.words[w], self.words[w + 1]);
        Spans { spans: &self.spans[s0..s1], starts: &self.starts[t0..t1] }
    }

    /// Renumbers the pieces (`new_id[old]`, `NONE`: dropped), leaving the
    /// dropped out; with `entries_are_pieces` (a cache of the pieces' own
    /// spans, entry k = piece k) the dropped pieces' entries go too.
    pub fn renumber(&mut self, new_id: &[u32], entries_are_pieces: bool) {
        let (mut out_span, mut out_start, mut out_word) = (0usize, 0usize, 0usize);
        for w in 0..self.words.len() - 1 {
            let ((s0, t0), (_, t1)) = (self.words[w], self.words[w + 1]);
            if entries_are_pieces && new_id[w] == NONE {
                continue;
            }
            self.words[out_word] = (out_span, out_start);
            out_word += 1;
            let base = out_span; // starts are offsets within the word's spans
            for t in t0..t1 - 1 {
                let (a, b) = (self.starts[t] as usize, self.starts[t + 1] as usize);
                self.starts[out_start] = (out_span - base) as u32;
                out_start += 1;
                for s in a..b {
                    let (j, k) = self.spans[s0 + s];
                    let k = new_id[k as usize];
                    if k != NONE {
                        self.spans[out_span] = (j, k);
                        out_span += 1;
                    }
                }
            }
            // the word's last entry: the end of its spans
            self.starts[out_start] = (out_span - base) as u32;
            out_start += 1;
        }
        self.words[out_word] = (out_span, out_start);
        self.words.truncate(out_word + 1);
        self.spans.truncate(out_span);
        self.starts.truncate(out_start);
        // give the memory back (the first M-step drops most seeds): peak memory is a target of issue 27
        self.spans.shrink_to_fit();
        self.starts.shrink_to_fit();
        self.words.shrink_to_fit();
    }
}

/// One word's lattice arrays, reused from word to word. A position not
/// reached yet holds `UNSET` (scores are finite, so no real value is -inf).
#[derive(Default)]
pub(super) struct Lattice {
    alpha: Vec<f64>,
    beta: Vec<f64>,
    back: Vec<(u32, u32)>,
    path: Vec<u32>,
}

const UNSET: f64 = f64::NEG_INFINITY;

/// log(exp(x) + exp(y)) as HF's lattice computes it.
#[inline]
pub(super) fn log_add(x: f64, y: f64) -> f64 {
    let (vmin, vmax) = if x < y { (x, y) } else { (y, x) };
    if vmax > vmin + 50.0 {
        vmax
    } else {
        vmax + ((vmin - vmax).exp() + 1.0).ln()
    }
}

#[inline]
fn add_to(slot: &mut f64, v: f64) {
    *slot = if *slot == UNSET { v } else { log_add(*slot, v) };
}

/// Calls `out(piece id, count x posterior)` for every span of word `w` of
/// `cache`, by start then end (`scores`: the current pieces').
#[inline]
pub(super) fn expected_cached(cache: &SpanCache, w: usize, count: u64, scores: &[f64], l: &mut Lattice, out: impl FnMut(u32, f64)) {
    expected_of(cache.word(w), count, scores, l, out);
}

#[cfg(test)]
/// `expected_cached` on a word's spans under `t`.
pub(super) fn expected(word: &[u32], count: u64, t: &Table, l: &mut Lattice, out: &mut Vec<(u32, f64)>) {
    let mut buf = SpanBuf::default();
    expected_of(t.fill(word, &mut buf), count, &t.scores, l, |k, v| out.push((k, v)));
}

fn expected_of(sp: Spans<'_>, count: u64, scores: &[f64], l: &mut Lattice, mut out: impl FnMut(u32, f64)) {
    let n = sp.len();
    let Lattice { alpha, beta, .. } = l;
    alpha.clear();
    alpha.resize(n + 1, UNSET);
    beta.clear();
    beta.resize(n + 1, UNSET);
    alpha[0] = 0.0;
    beta[n] = 0.0;
    // Pushed forward by start: each alpha[j] gets its terms by start, as the oracle sums them.
    for i in 0..n {
        let a = alpha[i];
        if a == UNSET {
            continue;
        }
        for &(j, k) in sp.from(i) {
            add_to(&mut alpha[j as usize], a + scores[k as usize]);
        }
    }
    for i in (0..n).rev() {
        let mut b_i = beta[i];
        for &(j, k) in sp.from(i) {
            let b = beta[j as usize];
            if b != UNSET {
                add_to(&mut b_i, scores[k as usize] + b);
            }
        }
        beta[i] = b_i;
    }
    let z = alpha[n];
    if z == UNSET {
        return;
    }
    let c = count as f64;
    for (i, &a) in alpha[..n].iter().enumerate() {
        if a == UNSET {
            continue;
        }
        for &(j, k) in sp.from(i) {
            let b = beta[j as usize];
            if b != UNSET {
                out(k, c * (a + scores[k as usize] + b - z).exp());
            }
        }
    }
}

#[cfg(test)]
/// Appends the best segmentation's piece ids to `path` (ties: the piece that
/// starts first), never using piece `skip`.
pub(super) fn viterbi(word: &[u32], t: &Table, skip: Option<u32>, buf: &mut SpanBuf, l: &mut Lattice, path: &mut Vec<u32>) {
    let spans = t.fill(word, buf);
    viterbi_of(spans, &t.scores, skip, l, path);
}

/// `viterbi` on entry `w` of `cache`, never using piece `skip`.
pub(super) fn viterbi_skipping(cache: &SpanCache, w: usize, scores: &[f64], skip: u32, l: &mut Lattice, path: &mut Vec<u32>) {
    viterbi_of(cache.word(w), scores, Some(skip), l, path);
}

/// `viterbi` on word `w` of `cache` (`scores`: the current pieces'), each piece id to `out`.
pub(super) fn viterbi_cached(cache: &SpanCache, w: usize, scores: &[f64], l: &mut Lattice, out: impl FnMut(u32)) {
    let mut path = std::mem::take(&mut l.path);
    path.clear();
    viterbi_of(cache.word(w), scores, None, l, &mut path);
    path.iter().copied().for_each(out);
    l.path = path;
}

fn viterbi_of(sp: Spans<'_>, scores: &[f64], skip: Option<u32>, l: &mut Lattice, path: &mut Vec<u32>) {
    let n = sp.len();
    let Lattice { alpha: best, back, .. } = l;
    best.clear();
    best.resize(n + 1, UNSET);
    back.clear();
    back.resize(n + 1, (0, 0));
    best[0] = 0.0;
    // Pushed forward by start: the first start reaching a best score keeps it.
    for i in 0..n {
        let b = best[i];
        if b == UNSET {
            continue;
        }
        for &(j, k) in sp.from(i) {
            if Some(k) == skip {
                continue;
            }
            let (j, v) = (j as usize, b + scores[k as usize]);
            if best[j] == UNSET || v > best[j] {
                best[j] = v;
                back[j] = (i as u32, k);
            }
        }
    }
    if best[n] == UNSET {
        return;
    }
    let from = path.len();
    let mut j = n;
    while j > 0 {
        let (i, k) = back[j];
        path.push(k);
        j = i as usize;
    }
    path[from..].reverse();
}

#[cfg(test)]
#[path = "lattice_tests.rs"]
mod tests;
