//! BPE training as HF tokenizers' `BpeTrainer` (0.23) does it: special
//! tokens, the alphabet (by code point), the prefixed/suffixed character
//! tokens, then repeatedly the most frequent adjacent pair is merged.
//!
//! The bookkeeping is HF's, since it changes the result when a merge makes a
//! token that already exists (two pairs spelling one string): a queue entry
//! carries the words it was pushed for and a merge rewrites only those; a
//! stale entry is re-queued with the pair's current count; a merge changes
//! only the counts of the neighbouring pairs, never the merged pair's own;
//! a pair whose merged token would reach `max_token_length` characters is
//! never counted. `bertpiece.oracle_train_bpe` specifies the same in Python.
//!
//! Where HF leaves the order to a randomly seeded hash map, here it is fixed:
//! prefixed/suffixed character tokens are numbered in order of first sight
//! with the words sorted by code points; entries pushed in one step go in
//! pair order, and between entries of one pair with one count the earlier
//! pushed pops first; the alphabet limit breaks count ties by code point.

use super::{alphabet_of, char_string, Progress, TokenTable};
use crate::fxhash::FxHashMap;
use crate::{Error, Result};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

type Pair = (u32, u32);

/// BPE training settings (HF `BpeTrainer`'s, by the same names).
#[derive(Clone, Debug, Default)]
pub struct BpeOptions {
    pub vocab_size: usize,
    pub min_frequency: u64,
    pub special_tokens: Vec<String>,
    pub limit_alphabet: Option<usize>,
    pub initial_alphabet: Vec<char>,
    pub continuing_subword_prefix: Option<String>,
    pub end_of_word_suffix: Option<String>,
    pub max_token_length: Option<usize>,
    /// The tokens after the special ones before any merge, in id order
    /// (tests replay the order one HF run chose); `None`: ours.
    pub initial_tokens: Option<Vec<String>>,
}

/// What BPE training made.
#[derive(Clone, Debug, Default)]
pub struct BpeTrained {
    /// In id order.
    pub tokens: Vec<String>,
    /// By rank, as HF's model keeps them: a pair merged twice is ranked at its last merge.
    pub merges: Vec<(String, String)>,
    pub alphabet: usize,
}

struct Entry {
    count: u64,
    pair: Pair,
    seq: u64,
    words: Vec<u32>,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Highest count first; then the smaller pair of ids (HF's rule); then the earlier push.
    fn cmp(&self, other: &Self) -> Ordering {
        self.count.cmp(&other.count).then_with(|| other.pair.cmp(&self.pair)).then_with(|| other.seq.cmp(&self.seq))
    }
}

/// A symbol of a word: token id and the characters it covers.
#[derive(Clone, Copy)]
struct Symbol {
    id: u32,
    chars: usize,
}

/// HF's `Word::merge`: every `a b` left to right becomes `rep`; reports the
/// pair-count changes (a new neighbour pair only below `max_chars`).
fn merge_word(word: &mut Vec<Symbol>, (a, b): Pair, rep: u32, max_chars: usize, changes: &mut Vec<(Pair, i64)>) {
    let mut i = 0;
    while i + 1 < word.len() {
        if word[i].id == a && word[i + 1].id == b {
            let merged = Symbol { id: rep, chars: word[i].chars + word[i + 1].chars };
            if i > 0 {
                let before = word[i - 1];
                changes.push(((before.id, a), -1));
                if before.chars.saturating_add(merged.chars) < max_chars {
                    changes.push(((before.id, rep), 1));
                }
            }
            word[i] = merged;
            word.remove(i + 1);
            if let Some(&after) = word.get(i + 1) {
                changes.push(((b, after.id), -1));
                if after.chars.saturating_add(merged.chars) < max_chars {
                    changes.push(((rep, after.id), 1));
                }
            }
        }
        i += 1;
    }
}

struct Queue {
    heap: BinaryHeap<Entry>,
    seq: u64,
}

impl Queue {
    /// Pushes the pairs of `pending` (in pair order) whose count is positive.
    fn push_pending(&mut self, pending: &mut FxHashMap<Pair, Vec<u32>>, counts: &FxHashMap<Pair, i64>) {
        let mut drained: Vec<(Pair, Vec<u32>)> = pending.drain().collect();
        drained.sort_unstable_by_key(|d| d.0);
        for (pair, mut words) in drained {
            let count = counts.get(&pair).copied().unwrap_or(0);
            if count > 0 {
                words.sort_unstable();
                words.dedup();
                self.seq += 1;
                self.heap.push(Entry { count: count as u64, pair, seq: self.seq, words });
            }
        }
    }
}

/// The token of character `c` at `index` of a word of `len` characters.
fn decorated(c: u32, index: usize, len: usize, opts: &BpeOptions) -> String {
    let mut s = String::new();
    if index > 0 {
        if let Some(p) = &opts.continuing_subword_prefix {
            s.push_str(p);
        }
    }
    s.push_str(&char_string(c));
    if index + 1 == len {
        if let Some(x) = &opts.end_of_word_suffix {
            s.push_str(x);
        }
    }
    s
}

/// Trains on `counts` (words as code points with their counts, sorted).
pub fn train_bpe(counts: &[(Vec<u32>, u64)], opts: &BpeOptions, progress: Progress<'_>) -> Result<BpeTrained> {
    if opts.special_tokens.iter().any(|t| t.is_empty()) {
        return Err(Error::TrainOption("special tokens must not be empty".into()));
    }
    if opts.max_token_length == Some(0) {
        return Err(Error::TrainOption("max_token_length must be positive".into()));
    }
    let mut table = TokenTable::default();
    for s in &opts.special_tokens {
        table.add(s.clone());
    }
    let alphabet_len = match &opts.initial_tokens {
        Some(initial) => {
            let before = table.len();
            for t in initial {
                table.add(t.clone());
            }
            let is_char = |t: &String| t.chars().count() == 1;
            initial.iter().filter(|t| is_char(t)).count().min(table.len() - before)
        }
        None => {
            let chars = alphabet_of(counts, opts.limit_alphabet, &opts.initial_alphabet);
            for &c in &chars {
                table.add(char_string(c));
            }
            chars.len()
        }
    };
    // HF's tokenize_words: a character not in the alphabet is left out (but
    // keeps its place for "first" and "last").
    let mut words: Vec<Vec<Symbol>> = Vec::with_capacity(counts.len());
    for (w, _) in counts {
        let mut symbols = Vec::with_capacity(w.len());
        for (i, &c) in w.iter().enumerate() {
            if table.get(&char_string(c)).is_some() {
                symbols.push(Symbol { id: table.add(decorated(c, i, w.len(), opts)), chars: 1 });
            }
        }
        words.push(symbols);
    }
    let mut pair_counts: FxHashMap<Pair, i64> = FxHashMap::default();
    let mut pending: FxHashMap<Pair, Vec<u32>> = FxHashMap::default();
    for (i, w) in words.iter().enumerate() {
        for p in w.windows(2) {
            let pair = (p[0].id, p[1].id);
            *pair_counts.entry(pair).or_insert(0) += counts[i].1 as i64;
            let at = pending.entry(pair).or_default();
            if at.last() != Some(&(i as u32)) {
                at.push(i as u32);
            }
        }
    }
    let mut queue = Queue { heap: BinaryHeap::with_capacity(pair_counts.len()), seq: 0 };
    queue.push_pending(&mut pending, &pair_counts);

    let max_chars = opts.max_token_length.unwrap_or(usize::MAX);
    let mut merges: Vec<(Pair, u32)> = Vec::new();
    let mut changes = Vec::new();
    while table.len() < opts.vocab_size {
        let Some(mut top) = queue.heap.pop() else { break };
        // HF compares the count as u64 (a negative count wraps).
        let current = pair_counts.get(&top.pair).copied().unwrap_or(0) as u64;
        if top.count != current {
            top.count = current;
            queue.seq += 1;
            top.seq = queue.seq;
            queue.heap.push(top);
            continue;
        }
        if top.count < 1 || opts.min_frequency > top.count {
            break;
        }
        let (a, b) = top.pair;
        let left = &table.tokens[a as usize];
        let right = &table.tokens[b as usize];
        let tail = match &opts.continuing_subword_prefix {
            Some(p) => right.strip_prefix(p.as_str()).unwrap_or(right),
            None => right,
        };
        let new_id = table.add(format!("{left}{tail}"));
        merges.push((top.pair, new_id));
        for &i in &top.words {
            changes.clear();
            merge_word(&mut words[i as usize], top.pair, new_id, max_chars, &mut changes);
            let n = counts[i as usize].1 as i64;
            for &(pair, change) in &changes {
                *pair_counts.entry(pair).or_insert(0) += change * n;
                if change > 0 {
                    pending.entry(pair).or_default().push(i);
                }
            }
        }
        queue.push_pending(&mut pending, &pair_counts);
        if merges.len().is_multiple_of(64) && !progress(table.len(), opts.vocab_size) {
            break;
        }
    }
    progress(table.len(), opts.vocab_size);
    Ok(BpeTrained { merges: ranked_merges(&merges, &table.tokens), tokens: table.tokens, alphabet: alphabet_len })
}

/// The merges as HF's model keeps them: one rank per pair, its last.
fn ranked_merges(merges: &[(Pair, u32)], tokens: &[String]) -> Vec<(String, String)> {
    let mut last: FxHashMap<Pair, usize> = FxHashMap::default();
    for (rank, (pair, _)) in merges.iter().enumerate() {
        last.insert(*pair, rank);
    }
    merges
        .iter()
        .enumerate()
        .filter(|(rank, (pair, _))| last.get(pair) == Some(rank))
        .map(|(_, ((a, b), _))| (tokens[*a as usize].clone(), tokens[*b as usize].clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::tests::words;
    use super::*;

    fn opts(vocab_size: usize) -> BpeOptions {
        BpeOptions { vocab_size, ..Default::default() }
    }

    #[test]
    fn word_merge_reports_neighbours_within_the_length_limit() {
        let s = |ids: &[u32]| ids.iter().map(|&id| Symbol { id, chars: 1 }).collect::<Vec<_>>();
        let mut w = s(&[0, 1, 2, 2, 3]);
        let mut ch = Vec::new();
        merge_word(&mut w, (2, 2), 4, usize::MAX, &mut ch);
        assert_eq!(w.iter().map(|s| s.id).collect::<Vec<_>>(), [0, 1, 4, 3]);
        assert_eq!(ch, [((1, 2), -1), ((1, 4), 1), ((2, 3), -1), ((4, 3), 1)]);
        // HF's word.rs test: with a limit of 2 the new pairs are not counted.
        let mut w = s(&[0, 1, 2, 2, 3]);
        ch.clear();
        merge_word(&mut w, (2, 2), 4, 2, &mut ch);
        assert_eq!(ch, [((1, 2), -1), ((2, 3), -1)]);
    }

    #[test]
    fn hf_unit_test_corpus() {
        // HF's own trainer test: min_frequency 2 gives 're', 'are', 'is'.
        let w = words(&[
            ("roses", 1), ("are", 2), ("red", 1), ("voilets", 1), ("blue", 1), ("BERT", 1),
            ("is", 2), ("big", 1), ("and", 1), ("so", 1), ("GPT-2", 1),
        ]);
        let mut o = opts(30000);
        o.min_frequency = 2;
        let got = train_bpe(&w, &o, &mut |_, _| true).unwrap();
        assert_eq!(got.tokens.len(), 25);
        assert_eq!(&got.tokens[22..], ["re", "are", "is"]);
        let m: Vec<(&str, &str)> = got.merges.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        assert_eq!(m, [("r", "e"), ("a", "re"), ("i", "s")]);
    }

    #[test]
    fn prefix_and_suffix_tokens_in_order_of_first_sight() {
        let w = words(&[("ab", 1), ("ba", 1)]);
        let mut o = opts(0);
        o.continuing_subword_prefix = Some("##".into());
        o.end_of_word_suffix = Some("</w>".into());
        o.special_tokens = vec!["<unk>".into()];
        let got = train_bpe(&w, &o, &mut |_, _| true).unwrap();
        assert_eq!(got.tokens, ["<unk>", "a", "b", "##b</w>", "##a</w>"]);
        o.max_token_length = Some(0);
        assert!(train_bpe(&w, &o, &mut |_, _| true).is_err());
    }
}
