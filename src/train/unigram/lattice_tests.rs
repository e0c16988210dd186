//! The trainer's lattice: Viterbi and the expectations (lattice.rs).

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
    let (mut buf, mut path) = (SpanBuf::default(), Vec::new());
    viterbi(&cps("ab"), &t, None, &mut buf, &mut l, &mut path);
    viterbi(&cps("ab"), &t, Some(2), &mut buf, &mut l, &mut path);
    assert_eq!(path, [2, 0, 1]);
}

#[test]
fn renumbered_cache_gives_the_spans_a_fresh_fill_gives() {
    let words: Vec<(Vec<u32>, u64)> = ["▁abcab", "▁ab", "ca", "▁bcabc"].iter().map(|w| (cps(w), 1)).collect();
    let all: Vec<(Vec<u32>, f64)> =
        ["▁", "a", "b", "c", "ab", "bc", "ca", "▁a", "abc", "cab", "▁ab"].iter().map(|p| (cps(p), -1.0)).collect();
    let mut cache = SpanCache::new(words.iter().map(|(w, _)| w.as_slice()), &Table::new(&all, 16));
    let dropped = ["bc", "▁a", "cab"];
    let mut new_id = vec![NONE; all.len()];
    let mut kept = Vec::new();
    for (k, p) in all.iter().enumerate() {
        if !dropped.iter().any(|d| cps(d) == p.0) {
            new_id[k] = kept.len() as u32;
            kept.push(p.clone());
        }
    }
    let mut own = SpanCache::new(all.iter().map(|(p, _)| p.as_slice()), &Table::new(&all, 16));
    cache.renumber(&new_id, false);
    own.renumber(&new_id, true);
    let fresh = Table::new(&kept, 16);
    for (k, (piece, _)) in kept.iter().enumerate() {
        let (a, b) = (own.word(k), fresh.fill(piece, &mut SpanBuf::default()).spans.to_vec());
        assert_eq!(a.spans, b.as_slice());
    }
    let mut buf = SpanBuf::default();
    for (w, (word, _)) in words.iter().enumerate() {
        let (a, b) = (cache.word(w), fresh.fill(word, &mut buf));
        assert_eq!((a.spans, a.starts), (b.spans, b.starts));
    }
}

#[test]
fn log_add_matches_the_closed_form() {
    assert!((log_add(0.0, 0.0) - 2f64.ln()).abs() < 1e-15);
    assert_eq!(log_add(0.0, -100.0), 0.0);
}
