//! The seed pieces: every character, then the substrings seen at least twice
//! in the unique words (as HF's and spm's suffix array counts them: each
//! word once), ranked by occurrences x length. Scores are log shares of the
//! ranking values, summed in list order.
//!
//! The substrings are counted from the words' suffixes (cut at `max_len`)
//! in sorted order, as a suffix array does: the occurrences of a substring
//! of length L are a run of consecutive suffixes that start with it, so one
//! pass with the common prefix of neighbours counts them all, without a
//! hash map holding every substring seen once.

use crate::fxhash::FxHashMap;

/// Each substring of 2..=`max_len` chars seen at least twice in `words`
/// (every position of every word once), with its occurrences.
fn repeated_substrings(words: &[(Vec<u32>, u64)], max_len: usize) -> Vec<(u64, &[u32])> {
    let mut suffixes: Vec<&[u32]> = Vec::with_capacity(words.iter().map(|(w, _)| w.len()).sum());
    for (word, _) in words {
        for i in 0..word.len() {
            suffixes.push(&word[i..word.len().min(i + max_len)]);
        }
    }
    suffixes.sort_unstable();
    let mut out = Vec::new();
    // run_start[l]: where the run of suffixes sharing the current l-char prefix began
    let mut run_start = vec![0usize; max_len + 1];
    for t in 0..suffixes.len() {
        let s = suffixes[t];
        let common = if t == 0 { 0 } else { suffixes[t - 1].iter().zip(s).take_while(|(a, b)| a == b).count() };
        let first_new = (common + 1).max(2);
        if t > 0 {
            // the previous suffix's runs longer than the common prefix end here
            let prev = suffixes[t - 1];
            for (l, &from) in run_start.iter().enumerate().take(prev.len() + 1).skip(first_new) {
                close(&mut out, &suffixes, l, from, t);
            }
        }
        for from in run_start.iter_mut().take(s.len() + 1).skip(first_new) {
            *from = t;
        }
    }
    if let Some(last) = suffixes.last() {
        for (l, &from) in run_start.iter().enumerate().take(last.len() + 1).skip(2) {
            close(&mut out, &suffixes, l, from, suffixes.len());
        }
    }
    out
}

/// The run `suffixes[from..to]` of suffixes sharing an `l`-char prefix: that prefix, if it occurs twice.
fn close<'a>(out: &mut Vec<(u64, &'a [u32])>, suffixes: &[&'a [u32]], l: usize, from: usize, to: usize) {
    if to - from >= 2 {
        out.push(((to - from) as u64, &suffixes[from][..l]));
    }
}

pub(super) fn seed_pieces(words: &[(Vec<u32>, u64)], max_len: usize, seed_size: usize) -> Vec<(Vec<u32>, f64)> {
    let mut chars: FxHashMap<u32, u64> = FxHashMap::default();
    for (word, n) in words {
        for &c in word {
            *chars.entry(c).or_insert(0) += n;
        }
    }
    let mut ranked_chars: Vec<(u64, u32)> = chars.into_iter().map(|(c, n)| (n, c)).collect();
    ranked_chars.sort_unstable_by(|a, b| b.cmp(a));
    let mut subs: Vec<(u64, &[u32])> =
        repeated_substrings(words, max_len).into_iter().map(|(k, s)| (k * s.len() as u64, s)).collect();
    // Only the best `room` are used: select them, then sort those (the order is total: the strings differ).
    let room = seed_size.saturating_sub(ranked_chars.len());
    if room == 0 {
        subs.clear();
    } else if subs.len() > room {
        subs.select_nth_unstable_by(room - 1, |a, b| b.cmp(a));
        subs.truncate(room);
    }
    subs.sort_unstable_by(|a, b| b.cmp(a));
    let mut seeds: Vec<(Vec<u32>, f64)> = ranked_chars.into_iter().map(|(n, c)| (vec![c], n as f64)).collect();
    for (value, s) in subs {
        if seeds.len() >= seed_size {
            break;
        }
        seeds.push((s.to_vec(), value as f64));
    }
    let mut total = 0.0;
    for (_, v) in &seeds {
        total += v;
    }
    let log_total = total.ln();
    for (_, v) in seeds.iter_mut() {
        *v = v.ln() - log_total;
    }
    seeds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_first_then_repeated_substrings() {
        let w = |s: &str, n| (s.chars().map(|c| c as u32).collect::<Vec<_>>(), n);
        let seeds = seed_pieces(&[w("abab", 1), w("ab", 5)], 16, 100);
        let names: Vec<String> = seeds.iter().map(|(p, _)| p.iter().map(|&c| char::from_u32(c).unwrap()).collect()).collect();
        // a, b: 7 each (b first: ties by code point, descending); "ab" 3 times over the unique words
        assert_eq!(names, ["b", "a", "ab"]);
        let total: f64 = seeds.iter().map(|(_, s)| s.exp()).sum();
        assert!((total - 1.0).abs() < 1e-12);
    }

    #[test]
    fn suffix_runs_count_what_a_map_of_every_substring_counts() {
        let words: Vec<(Vec<u32>, u64)> = ["▁abab", "abc", "▁ab", "bab", "babab", "c", "▁abcab"]
            .iter()
            .map(|s| (s.chars().map(|c| c as u32).collect(), 1))
            .collect();
        for max_len in [2, 3, 4, 16] {
            let mut want: FxHashMap<&[u32], u64> = FxHashMap::default();
            for (w, _) in &words {
                for i in 0..w.len() {
                    for j in i + 2..=w.len().min(i + max_len) {
                        *want.entry(&w[i..j]).or_insert(0) += 1;
                    }
                }
            }
            let mut want: Vec<(u64, &[u32])> = want.into_iter().filter(|&(_, k)| k >= 2).map(|(s, k)| (k, s)).collect();
            let mut got = repeated_substrings(&words, max_len);
            want.sort_unstable();
            got.sort_unstable();
            assert_eq!(got, want, "max_len {max_len}");
        }
    }
}
