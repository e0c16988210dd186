//! One word's lattice under a piece table: forward-backward (the E-step's
//! expected counts) and Viterbi. Sums run in the oracle's order
//! (`bertpiece.oracle_train_unigram`): by end then start forward, by start
//! then end backward, spans by start then end, so results are bit-equal.

use crate::fxhash::FxHashMap;

/// Pieces (code points) to ids, with their scores.
pub(super) struct Table {
    pub ids: FxHashMap<Vec<u32>, u32>,
    pub scores: Vec<f64>,
    pub max_len: usize,
}

impl Table {
    pub fn new(pieces: &[(Vec<u32>, f64)], max_len: usize) -> Self {
        let ids = pieces.iter().enumerate().map(|(k, (p, _))| (p.clone(), k as u32)).collect();
        Table { ids, scores: pieces.iter().map(|(_, s)| *s).collect(), max_len }
    }

    fn id(&self, s: &[u32]) -> Option<u32> {
        self.ids.get(s).copied()
    }
}

/// log(exp(x) + exp(y)) as HF's lattice computes it.
pub(super) fn log_add(x: f64, y: f64) -> f64 {
    let (vmin, vmax) = if x < y { (x, y) } else { (y, x) };
    if vmax > vmin + 50.0 {
        vmax
    } else {
        vmax + ((vmin - vmax).exp() + 1.0).ln()
    }
}

fn add_to(slot: &mut Option<f64>, v: f64) {
    *slot = Some(match *slot {
        None => v,
        Some(old) => log_add(old, v),
    });
}

/// Appends `(piece id, count x posterior)` for every span of `word`, by start
/// then end.
pub(super) fn expected(word: &[u32], count: u64, t: &Table, out: &mut Vec<(u32, f64)>) {
    let n = word.len();
    // spans[i]: (end, id) of the pieces starting at i, by end
    let spans: Vec<Vec<(usize, u32)>> = (0..n)
        .map(|i| (i + 1..=n.min(i + t.max_len)).filter_map(|j| t.id(&word[i..j]).map(|k| (j, k))).collect())
        .collect();
    let mut alpha: Vec<Option<f64>> = vec![None; n + 1];
    let mut beta: Vec<Option<f64>> = vec![None; n + 1];
    alpha[0] = Some(0.0);
    beta[n] = Some(0.0);
    for j in 1..=n {
        for i in j.saturating_sub(t.max_len)..j {
            if let (Some(&(_, k)), Some(a)) = (spans[i].iter().find(|(e, _)| *e == j), alpha[i]) {
                add_to(&mut alpha[j], a + t.scores[k as usize]);
            }
        }
    }
    for i in (0..n).rev() {
        for &(j, k) in &spans[i] {
            if let Some(b) = beta[j] {
                add_to(&mut beta[i], t.scores[k as usize] + b);
            }
        }
    }
    let Some(z) = alpha[n] else { return };
    let c = count as f64;
    for (i, starting) in spans.iter().enumerate() {
        for &(j, k) in starting {
            if let (Some(a), Some(b)) = (alpha[i], beta[j]) {
                out.push((k, c * (a + t.scores[k as usize] + b - z).exp()));
            }
        }
    }
}

/// The best segmentation's piece ids (ties: the piece that starts first),
/// never using piece `skip`.
pub(super) fn viterbi(word: &[u32], t: &Table, skip: Option<u32>) -> Vec<u32> {
    let n = word.len();
    let mut best: Vec<Option<f64>> = vec![None; n + 1];
    let mut back = vec![(0usize, 0u32); n + 1];
    best[0] = Some(0.0);
    for j in 1..=n {
        for i in j.saturating_sub(t.max_len)..j {
            let (Some(k), Some(b)) = (t.id(&word[i..j]), best[i]) else { continue };
            if Some(k) == skip {
                continue;
            }
            let v = b + t.scores[k as usize];
            if best[j].is_none_or(|old| v > old) {
                best[j] = Some(v);
                back[j] = (i, k);
            }
        }
    }
    let mut path = Vec::new();
    let mut j = n;
    if best[n].is_none() {
        return path;
    }
    while j > 0 {
        let (i, k) = back[j];
        path.push(k);
        j = i;
    }
    path.reverse();
    path
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
        let mut out = Vec::new();
        expected(&cps("ab"), 3, &t, &mut out);
        // two paths: a+b (-3.0) and ab (-1.5); P(ab) = 1 / (1 + e^-1.5)
        let p_ab = 1.0 / (1.0 + (-1.5f64).exp());
        let got: f64 = out.iter().filter(|(k, _)| *k == 2).map(|(_, v)| v).sum();
        assert!((got - 3.0 * p_ab).abs() < 1e-12);
        assert_eq!(viterbi(&cps("ab"), &t, None), vec![2]);
        assert_eq!(viterbi(&cps("ab"), &t, Some(2)), vec![0, 1]);
    }

    #[test]
    fn log_add_matches_the_closed_form() {
        assert!((log_add(0.0, 0.0) - 2f64.ln()).abs() < 1e-15);
        assert_eq!(log_add(0.0, -100.0), 0.0);
    }
}
