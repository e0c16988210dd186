//! HF tokenizers' `WordPieceTrainer` (0.23), which is its `BpeTrainer`
//! with `##`: special tokens, the alphabet (sorted by code point), the
//! continuing-subword characters, then merges by pair *frequency*.
//!
//! This is that algorithm step for step, including its bookkeeping quirks
//! (which change the result, so they are kept): a queue entry carries the
//! words it was pushed for and a merge rewrites only those; a stale entry is
//! re-queued with the pair's current count; a merge decrements only the
//! neighbouring pairs, not the merged pair itself.
//!
//! HF itself is not deterministic: it assigns the `##c` ids while iterating
//! a randomly seeded hash map, and those ids break ties between equal counts
//! (seven runs on one corpus gave seven different files). Here the `##c`
//! tokens come in code point order, the alphabet limit breaks count ties by
//! code point, and queue pushes go in pair order; given the `##c` order (and
//! alphabet) one HF run chose (`TrainOptions::initial_tokens`), the result is
//! that run's vocabulary.

use super::{alphabet, char_string, joined, Progress, TokenTable, TrainOptions, Trained};
use crate::fxhash::FxHashMap;
use crate::Result;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

type Pair = (u32, u32);

struct Merge {
    count: u64,
    pair: Pair,
    pos: Vec<u32>,
}

impl PartialEq for Merge {
    fn eq(&self, other: &Self) -> bool {
        self.count == other.count && self.pair == other.pair
    }
}
impl Eq for Merge {}
impl PartialOrd for Merge {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Merge {
    /// Highest count first; equal counts: the smaller pair of ids first.
    fn cmp(&self, other: &Self) -> Ordering {
        self.count.cmp(&other.count).then_with(|| other.pair.cmp(&self.pair))
    }
}

/// HF's `Word::merge`: left to right, and the pair-count changes it reports.
fn merge_word(sym: &mut Vec<u32>, c1: u32, c2: u32, rep: u32, changes: &mut Vec<(Pair, i64)>) {
    let mut i = 0;
    while i < sym.len() {
        if sym[i] == c1 && i + 1 < sym.len() && sym[i + 1] == c2 {
            if i > 0 {
                changes.push(((sym[i - 1], c1), -1));
                changes.push(((sym[i - 1], rep), 1));
            }
            sym[i] = rep;
            sym.remove(i + 1);
            if i + 1 < sym.len() {
                changes.push(((c2, sym[i + 1]), -1));
                changes.push(((rep, sym[i + 1]), 1));
            }
        }
        i += 1;
    }
}

/// Pushes the pairs of `pending` (in pair order) whose count is positive.
fn push_pending(queue: &mut BinaryHeap<Merge>, pending: &mut FxHashMap<Pair, Vec<u32>>, counts: &FxHashMap<Pair, i64>) {
    let mut drained: Vec<(Pair, Vec<u32>)> = pending.drain().collect();
    drained.sort_unstable_by_key(|d| d.0);
    for (pair, mut pos) in drained {
        let count = counts.get(&pair).copied().unwrap_or(0);
        if count > 0 {
            pos.sort_unstable();
            pos.dedup();
            queue.push(Merge { count: count as u64, pair, pos });
        }
    }
}

pub(super) fn train(counts: &[(Vec<u32>, u64)], opts: &TrainOptions, progress: Progress<'_>) -> Result<Trained> {
    let mut table = TokenTable::with_specials(opts);
    let alphabet_len;
    match &opts.initial_tokens {
        Some(initial) => {
            alphabet_len = initial.iter().filter(|t| !t.starts_with(&opts.prefix) || opts.prefix.is_empty()).count();
            for t in initial {
                table.add(t.clone());
            }
        }
        None => {
            let chars = alphabet(counts, opts);
            alphabet_len = chars.len();
            for &c in &chars {
                table.add(char_string(c));
            }
            let mut continuing: Vec<u32> =
                counts.iter().flat_map(|(w, _)| w[1..].iter().copied()).filter(|&c| table.get(&char_string(c)).is_some()).collect();
            continuing.sort_unstable();
            continuing.dedup();
            for c in continuing {
                table.add(format!("{}{}", opts.prefix, char_string(c)));
            }
        }
    }
    // HF's tokenize_words: characters outside the alphabet are left out.
    let mut words: Vec<Vec<u32>> = Vec::with_capacity(counts.len());
    for (w, _) in counts {
        let mut ids = Vec::with_capacity(w.len());
        for (i, &c) in w.iter().enumerate() {
            let s = char_string(c);
            if table.get(&s).is_some() {
                let s = if i == 0 { s } else { format!("{}{}", opts.prefix, s) };
                ids.push(table.add(s));
            }
        }
        words.push(ids);
    }
    let mut pair_counts: FxHashMap<Pair, i64> = FxHashMap::default();
    let mut pending: FxHashMap<Pair, Vec<u32>> = FxHashMap::default();
    for (i, w) in words.iter().enumerate() {
        for p in w.windows(2) {
            *pair_counts.entry((p[0], p[1])).or_insert(0) += counts[i].1 as i64;
            let pos = pending.entry((p[0], p[1])).or_default();
            if pos.last() != Some(&(i as u32)) {
                pos.push(i as u32);
            }
        }
    }
    let mut queue = BinaryHeap::with_capacity(pair_counts.len());
    push_pending(&mut queue, &mut pending, &pair_counts);

    let mut merges = 0;
    let mut changes = Vec::new();
    while table.len() < opts.vocab_size {
        let Some(mut top) = queue.pop() else { break };
        let current = pair_counts.get(&top.pair).copied().unwrap_or(0) as u64;
        if top.count != current {
            top.count = current;
            queue.push(top);
            continue;
        }
        if top.count < 1 || opts.min_frequency > top.count {
            break;
        }
        let (a, b) = top.pair;
        let new_id = table.add(joined(&table.tokens[a as usize], &table.tokens[b as usize], &opts.prefix));
        merges += 1;
        for &i in &top.pos {
            changes.clear();
            merge_word(&mut words[i as usize], a, b, new_id, &mut changes);
            let n = counts[i as usize].1 as i64;
            for &(pair, change) in &changes {
                *pair_counts.entry(pair).or_insert(0) += change * n;
                if change > 0 {
                    pending.entry(pair).or_default().push(i);
                }
            }
        }
        push_pending(&mut queue, &mut pending, &pair_counts);
        if merges % 64 == 0 && !progress(table.len(), opts.vocab_size) {
            break;
        }
    }
    progress(table.len(), opts.vocab_size);
    Ok(Trained { tokens: table.tokens, alphabet: alphabet_len, merges })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{options, words};
    use super::super::Algorithm;
    use super::*;

    #[test]
    fn hf_word_merge_reports_neighbours_only() {
        let mut w = vec![1, 2, 2, 2, 3];
        let mut ch = Vec::new();
        merge_word(&mut w, 2, 2, 9, &mut ch);
        assert_eq!(w, [1, 9, 2, 3]);
        assert_eq!(ch, [((1, 2), -1), ((1, 9), 1), ((2, 2), -1), ((9, 2), 1)]);
    }

    #[test]
    fn merges_by_frequency() {
        // HF's own unit test corpus (bpe/trainer.rs), with "##": 're' first.
        let w = words(&[("roses", 1), ("are", 2), ("red", 1), ("is", 2)]);
        let mut o = options(100, Algorithm::Hf);
        o.min_frequency = 2;
        o.special_tokens.clear();
        let got = train(&w, &o, &mut |_, _| true).unwrap().tokens;
        let alphabet = ["a", "d", "e", "i", "o", "r", "s"];
        let cont = ["##d", "##e", "##o", "##r", "##s"];
        assert_eq!(&got[..12], [&alphabet[..], &cont[..]].concat());
    }
}
