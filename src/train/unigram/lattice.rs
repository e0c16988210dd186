//! One word's lattice under a piece table: forward-backward (the E-step's
//! expected counts) and Viterbi. Sums run in the oracle's order
//! (`bertpiece.oracle_train_unigram`): by end then start forward, by start
//! then end backward, spans by start then end, so results are bit-equal.

use crate::fxhash::FxHashMap;

/// The pieces in a trie (one hash map from (node, char) to the child node),
/// with their scores: a lattice walks it once per start position and stops
/// where no piece continues.
pub(super) struct Table {
    children: FxHashMap<(u32, u32), u32>,
    /// piece id of each trie node (`u32::MAX`: none); node 0 is the root
    piece: Vec<u32>,
    pub scores: Vec<f64>,
    pub max_len: usize,
}

pub(super) const NONE: u32 = u32::MAX;

impl Table {
    pub fn new(pieces: &[(Vec<u32>, f64)], max_len: usize) -> Self {
        let mut t = Table { children: FxHashMap::default(), piece: vec![NONE], scores: Vec::with_capacity(pieces.len()), max_len };
        for (k, (p, s)) in pieces.iter().enumerate() {
            let mut node = 0u32;
            for &c in p {
                let next = t.piece.len() as u32;
                node = *t.children.entry((node, c)).or_insert(next);
                if node == next {
                    t.piece.push(NONE);
                }
            }
            t.piece[node as usize] = k as u32;
            t.scores.push(*s);
        }
        t
    }

    /// Fills `l.spans` with (end, id) of the pieces of `word` by start then
    /// end, and `l.starts[i]..l.starts[i + 1]` with those starting at `i`.
    fn fill(&self, word: &[u32], l: &mut Lattice) {
        l.spans.clear();
        l.starts.clear();
        for i in 0..word.len() {
            l.starts.push(l.spans.len());
            let mut node = 0u32;
            for (j, &c) in word.iter().enumerate().skip(i).take(self.max_len) {
                match self.children.get(&(node, c)) {
                    Some(&next) => node = next,
                    None => break,
                }
                if self.piece[node as usize] != NONE {
                    l.spans.push((j + 1, self.piece[node as usize]));
                }
            }
        }
        l.starts.push(l.spans.len());
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
    /// per word and start, where its spans begin (a word of n chars has n + 1 entries)
    starts: Vec<u32>,
    /// per word, where its entries begin in `spans` and `starts`
    words: Vec<(usize, usize)>,
}

impl SpanCache {
    pub fn new(words: &[(Vec<u32>, u64)], table: &Table) -> Self {
        let mut c = SpanCache { spans: Vec::new(), starts: Vec::new(), words: Vec::with_capacity(words.len() + 1) };
        let mut l = Lattice::default();
        for (w, _) in words {
            c.words.push((c.spans.len(), c.starts.len()));
            table.fill(w, &mut l);
            c.spans.extend(l.spans.iter().map(|&(j, k)| (j as u32, k)));
            c.starts.extend(l.starts.iter().map(|&s| s as u32));
        }
        c.words.push((c.spans.len(), c.starts.len()));
        c
    }

    /// Word `w`'s spans into `l`, as `Table::fill` would put them.
    fn fill(&self, w: usize, l: &mut Lattice) {
        let ((s0, t0), (s1, t1)) = (self.words[w], self.words[w + 1]);
        l.spans.clear();
        l.spans.extend(self.spans[s0..s1].iter().map(|&(j, k)| (j as usize, k)));
        l.starts.clear();
        l.starts.extend(self.starts[t0..t1].iter().map(|&s| s as usize));
    }

    /// Renumbers the pieces (`new_id[old]`, `NONE`: dropped), leaving the dropped out.
    pub fn renumber(&mut self, new_id: &[u32]) {
        let (mut out_span, mut out_start) = (0usize, 0usize);
        for w in 0..self.words.len() - 1 {
            let ((s0, t0), (_, t1)) = (self.words[w], self.words[w + 1]);
            self.words[w] = (out_span, out_start);
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
        let last = self.words.len() - 1;
        self.words[last] = (out_span, out_start);
        self.spans.truncate(out_span);
        self.starts.truncate(out_start);
        // give the memory back (the first M-step drops most seeds): peak memory is a target of issue 27
        self.spans.shrink_to_fit();
        self.starts.shrink_to_fit();
    }
}

/// One word's lattice, its buffers reused from word to word. A position not
/// reached yet holds `UNSET` (scores are finite, so no real value is -inf).
#[derive(Default)]
pub(super) struct Lattice {
    spans: Vec<(usize, u32)>,
    starts: Vec<usize>,
    alpha: Vec<f64>,
    beta: Vec<f64>,
    back: Vec<(usize, u32)>,
}

const UNSET: f64 = f64::NEG_INFINITY;

/// log(exp(x) + exp(y)) as HF's lattice computes it.
pub(super) fn log_add(x: f64, y: f64) -> f64 {
    let (vmin, vmax) = if x < y { (x, y) } else { (y, x) };
    if vmax > vmin + 50.0 {
        vmax
    } else {
        vmax + ((vmin - vmax).exp() + 1.0).ln()
    }
}

fn add_to(slot: &mut f64, v: f64) {
    *slot = if *slot == UNSET { v } else { log_add(*slot, v) };
}

#[cfg(test)]
/// Appends `(piece id, count x posterior)` for every span of `word`, by start
/// then end.
pub(super) fn expected(word: &[u32], count: u64, t: &Table, l: &mut Lattice, out: &mut Vec<(u32, f64)>) {
    t.fill(word, l);
    expected_filled(word.len(), count, &t.scores, l, out);
}

/// `expected` on word `w` of `cache` (`scores`: the current pieces').
pub(super) fn expected_cached(cache: &SpanCache, w: usize, n: usize, count: u64, scores: &[f64], l: &mut Lattice, out: &mut Vec<(u32, f64)>) {
    cache.fill(w, l);
    expected_filled(n, count, scores, l, out);
}

fn expected_filled(n: usize, count: u64, scores: &[f64], l: &mut Lattice, out: &mut Vec<(u32, f64)>) {
    let Lattice { spans, starts, alpha, beta, .. } = l;
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
        for &(j, k) in &spans[starts[i]..starts[i + 1]] {
            add_to(&mut alpha[j], a + scores[k as usize]);
        }
    }
    for i in (0..n).rev() {
        for &(j, k) in &spans[starts[i]..starts[i + 1]] {
            let b = beta[j];
            if b != UNSET {
                add_to(&mut beta[i], scores[k as usize] + b);
            }
        }
    }
    let z = alpha[n];
    if z == UNSET {
        return;
    }
    let c = count as f64;
    for i in 0..n {
        for &(j, k) in &spans[starts[i]..starts[i + 1]] {
            if alpha[i] != UNSET && beta[j] != UNSET {
                out.push((k, c * (alpha[i] + scores[k as usize] + beta[j] - z).exp()));
            }
        }
    }
}

/// Appends the best segmentation's piece ids to `path` (ties: the piece that
/// starts first), never using piece `skip`.
pub(super) fn viterbi(word: &[u32], t: &Table, skip: Option<u32>, l: &mut Lattice, path: &mut Vec<u32>) {
    t.fill(word, l);
    viterbi_filled(word.len(), &t.scores, skip, l, path);
}

/// `viterbi` on word `w` of `cache` (`scores`: the current pieces').
pub(super) fn viterbi_cached(cache: &SpanCache, w: usize, n: usize, scores: &[f64], l: &mut Lattice, path: &mut Vec<u32>) {
    cache.fill(w, l);
    viterbi_filled(n, scores, None, l, path);
}

fn viterbi_filled(n: usize, scores: &[f64], skip: Option<u32>, l: &mut Lattice, path: &mut Vec<u32>) {
    let Lattice { spans, starts, alpha: best, back, .. } = l;
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
        for &(j, k) in &spans[starts[i]..starts[i + 1]] {
            if Some(k) == skip {
                continue;
            }
            let v = b + scores[k as usize];
            if best[j] == UNSET || v > best[j] {
                best[j] = v;
                back[j] = (i, k);
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
        j = i;
    }
    path[from..].reverse();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cps(s: &str) -> Vec<u32> {
        s.chars().map(|c| c as u32).collect()
    }

    #[test]
    fn posteriors_of_one_word_sum_to_its_length_in_chars_covered() {
        let pieces = vec![(cps("a"), -1.0), (cps("b"), -2.0), (cps("ab"), -1.5)];
        let t = Table::new(&pieces, 16);
        let (mut l, mut out) = (Lattice::default(), Vec::new());
        expected(&cps("ab"), 3, &t, &mut l, &mut out);
        // two paths: a+b (-3.0) and ab (-1.5); P(ab) = 1 / (1 + e^-1.5)
        let p_ab = 1.0 / (1.0 + (-1.5f64).exp());
        let got: f64 = out.iter().filter(|(k, _)| *k == 2).map(|(_, v)| v).sum();
        assert!((got - 3.0 * p_ab).abs() < 1e-12);
        let mut path = Vec::new();
        viterbi(&cps("ab"), &t, None, &mut l, &mut path);
        viterbi(&cps("ab"), &t, Some(2), &mut l, &mut path);
        assert_eq!(path, [2, 0, 1]);
    }

    #[test]
    fn renumbered_cache_gives_the_spans_a_fresh_fill_gives() {
        let words: Vec<(Vec<u32>, u64)> = ["▁abcab", "▁ab", "ca", "▁bcabc"].iter().map(|w| (cps(w), 1)).collect();
        let all: Vec<(Vec<u32>, f64)> =
            ["▁", "a", "b", "c", "ab", "bc", "ca", "▁a", "abc", "cab", "▁ab"].iter().map(|p| (cps(p), -1.0)).collect();
        let mut cache = SpanCache::new(&words, &Table::new(&all, 16));
        let dropped = ["bc", "▁a", "cab"];
        let mut new_id = vec![NONE; all.len()];
        let mut kept = Vec::new();
        for (k, p) in all.iter().enumerate() {
            if !dropped.iter().any(|d| cps(d) == p.0) {
                new_id[k] = kept.len() as u32;
                kept.push(p.clone());
            }
        }
        cache.renumber(&new_id);
        let fresh = Table::new(&kept, 16);
        let (mut a, mut b) = (Lattice::default(), Lattice::default());
        for (w, (word, _)) in words.iter().enumerate() {
            cache.fill(w, &mut a);
            fresh.fill(word, &mut b);
            assert_eq!((&a.spans, &a.starts), (&b.spans, &b.starts));
        }
    }

    #[test]
    fn log_add_matches_the_closed_form() {
        assert!((log_add(0.0, 0.0) - 2f64.ln()).abs() < 1e-15);
        assert_eq!(log_add(0.0, -100.0), 0.0);
    }
}
