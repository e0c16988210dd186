//! The seed pieces: every character, then the substrings seen at least twice
//! in the unique words (as HF's and spm's suffix array counts them: each
//! word once), ranked by occurrences x length. Scores are log shares of the
//! ranking values, summed in list order.

use crate::fxhash::FxHashMap;

pub(super) fn seed_pieces(words: &[(Vec<u32>, u64)], max_len: usize, seed_size: usize) -> Vec<(Vec<u32>, f64)> {
    let mut chars: FxHashMap<u32, u64> = FxHashMap::default();
    let mut occurrences: FxHashMap<&[u32], u64> = FxHashMap::default();
    for (word, n) in words {
        for &c in word {
            *chars.entry(c).or_insert(0) += n;
        }
        for i in 0..word.len() {
            for j in i + 2..=word.len().min(i + max_len) {
                *occurrences.entry(&word[i..j]).or_insert(0) += 1;
            }
        }
    }
    let mut ranked_chars: Vec<(u64, u32)> = chars.into_iter().map(|(c, n)| (n, c)).collect();
    ranked_chars.sort_unstable_by(|a, b| b.cmp(a));
    let mut subs: Vec<(u64, &[u32])> =
        occurrences.into_iter().filter(|&(_, k)| k >= 2).map(|(s, k)| (k * s.len() as u64, s)).collect();
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
}
