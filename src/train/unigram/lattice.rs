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

const NONE: u32 = u32::MAX;

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

/// Appends `(piece id, count x posterior)` for every span of `word`, by start
/// then end.
pub(super) fn expected(word: &[u32], count: u64, t: &Table, l: &mut Lattice, out: &mut Vec<(u32, f64)>) {
    let n = word.len();
    t.fill(word, l);
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
            add_to(&mut alpha[j], a + t.scores[k as usize]);
        }
    }
    for i in (0..n).rev() {
        for &(j, k) in &spans[starts[i]..starts[i + 1]] {
            let b = beta[j];
            if b != UNSET {
                add_to(&mut beta[i], t.scores[k as usize] + b);
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
                out.push((k, c * (alpha[i] + t.scores[k as usize] + beta[j] - z).exp()));
            }
        }
    }
}

/// Appends the best segmentation's piece ids to `path` (ties: the piece that
/// starts first), never using piece `skip`.
pub(super) fn viterbi(word: &[u32], t: &Table, skip: Option<u32>, l: &mut Lattice, path: &mut Vec<u32>) {
    let n = word.len();
    t.fill(word, l);
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
            let v = b + t.scores[k as usize];
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
    fn log_add_matches_the_closed_form() {
        assert!((log_add(0.0, 0.0) - 2f64.ln()).abs() < 1e-15);
        assert_eq!(log_add(0.0, -100.0), 0.0);
    }
}
