//! The likelihood trainer: repeatedly merge the adjacent pair with the
//! highest score `count(ab) / (count(a) * count(b))`, where counts are the
//! current occurrences (weighted by word count) in the segmented words.
//!
//! Ties: the higher score (an exact rational comparison), then the higher
//! pair count, then the smaller `(a, b)` by their UTF-8 bytes (code point
//! order, as Python compares strings). `bertpiece.oracle_train` is the
//! readable reference; this file gives the identical vocabulary.
//!
//! Incremental: a pair knows the words it may occur in, and a token its
//! pairs. Merging `(a, b)` into `t` rewrites only the words holding the pair
//! and re-scores only the pairs of `a`, `b` and `t` (every score that can
//! change: their pair counts or token counts changed). The heap is lazy: a
//! pair's entries carry its version and only the newest one is valid.

use super::{alphabet, char_string, joined, Progress, TokenTable, TrainOptions, Trained};
use crate::fxhash::FxHashMap;
use crate::{Error, Result};
use std::collections::HashSet;

struct Pair {
    a: u32,
    b: u32,
    count: u64,
    version: u32,
    /// Words that may hold the pair (stale entries and repeats allowed).
    words: Vec<u32>,
    /// Whether the pair is in `adj[a]` / `adj[b]` (one list when `a == b`).
    in_a: bool,
    in_b: bool,
}

#[derive(Clone, Copy)]
struct Entry {
    pair: u32,
    version: u32,
    count: u64,
    ca: u64,
    cb: u64,
    /// `count / (ca * cb)` rounded: decides unless two scores are within rounding.
    approx: f64,
}

impl Entry {
    fn new(pair: u32, version: u32, count: u64, ca: u64, cb: u64) -> Self {
        Entry { pair, version, count, ca, cb, approx: count as f64 / (ca as f64 * cb as f64) }
    }
}

/// Two scores whose rounded values differ by more than this (relative) are
/// ordered by them; closer ones by the exact comparison.
const CLOSE: f64 = 1e-9;

struct State {
    table: TokenTable,
    tok_count: Vec<u64>,
    words: Vec<Vec<u32>>,
    wcount: Vec<u64>,
    pairs: Vec<Pair>,
    pair_ids: FxHashMap<(u32, u32), u32>,
    /// Each token's pairs (dead ones dropped when visited).
    adj: Vec<Vec<u32>>,
    heap: Vec<Entry>,
    /// The heap is compacted (stale entries dropped) when it grows past this.
    heap_limit: usize,
    min_count: u64,
}

/// `x * y` as three 64-bit limbs, most significant first.
fn wide(x: u128, y: u64) -> (u64, u64, u64) {
    let low = (x as u64 as u128) * y as u128;
    let mid = ((x >> 64) * y as u128) + (low >> 64);
    ((mid >> 64) as u64, mid as u64, low as u64)
}

impl State {
    /// Whether entry `e` ranks before `f`.
    fn before(&self, e: &Entry, f: &Entry) -> bool {
        if e.approx > f.approx * (1.0 + CLOSE) {
            return true;
        }
        if f.approx > e.approx * (1.0 + CLOSE) {
            return false;
        }
        let lhs = wide(f.ca as u128 * f.cb as u128, e.count);
        let rhs = wide(e.ca as u128 * e.cb as u128, f.count);
        if lhs != rhs {
            return lhs > rhs;
        }
        if e.count != f.count {
            return e.count > f.count;
        }
        let (p, q) = (&self.pairs[e.pair as usize], &self.pairs[f.pair as usize]);
        let t = &self.table.tokens;
        (&t[p.a as usize], &t[p.b as usize]) < (&t[q.a as usize], &t[q.b as usize])
    }

    fn push(&mut self, e: Entry) {
        if self.heap.len() >= self.heap_limit {
            self.compact();
        }
        self.heap.push(e);
        self.sift_up(self.heap.len() - 1);
    }

    /// Drops the entries of older versions and restores the heap order:
    /// memory stays proportional to the live pairs.
    fn compact(&mut self) {
        let mut heap = std::mem::take(&mut self.heap);
        heap.retain(|e| self.pairs[e.pair as usize].version == e.version);
        self.heap = heap;
        for i in (0..self.heap.len() / 2).rev() {
            self.sift_down(i);
        }
        self.heap_limit = (2 * self.heap.len()).max(1 << 16);
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if !self.before(&self.heap[i], &self.heap[parent]) {
                break;
            }
            self.heap.swap(i, parent);
            i = parent;
        }
    }

    fn pop(&mut self) -> Option<Entry> {
        let top = self.heap.first().copied()?;
        let last = self.heap.pop()?;
        if self.heap.is_empty() {
            return Some(top);
        }
        self.heap[0] = last;
        self.sift_down(0);
        Some(top)
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut best = i;
            if l < n && self.before(&self.heap[l], &self.heap[best]) {
                best = l;
            }
            if r < n && self.before(&self.heap[r], &self.heap[best]) {
                best = r;
            }
            if best == i {
                return;
            }
            self.heap.swap(i, best);
            i = best;
        }
    }

    /// Adds `delta` occurrences (in word `w`) to pair `(a, b)`.
    fn add_pair(&mut self, a: u32, b: u32, w: u32, delta: i64, note_word: bool) {
        let id = match self.pair_ids.get(&(a, b)) {
            Some(&id) => id,
            None => {
                let id = self.pairs.len() as u32;
                self.pairs.push(Pair { a, b, count: 0, version: 0, words: Vec::new(), in_a: false, in_b: false });
                self.pair_ids.insert((a, b), id);
                id
            }
        };
        let p = &mut self.pairs[id as usize];
        p.count = p.count.wrapping_add_signed(delta);
        if note_word && p.words.last() != Some(&w) {
            p.words.push(w);
        }
        if p.count > 0 {
            if !p.in_a {
                p.in_a = true;
                self.adj[a as usize].push(id);
            }
            if a != b && !p.in_b {
                p.in_b = true;
                self.adj[b as usize].push(id);
            }
        }
    }

    /// Gives every live pair of `token` a new version and a heap entry
    /// (when frequent enough); unlists dead pairs.
    fn refresh(&mut self, token: u32) {
        let mut list = std::mem::take(&mut self.adj[token as usize]);
        list.retain(|&id| {
            let p = &mut self.pairs[id as usize];
            p.version = p.version.wrapping_add(1);
            if p.count == 0 {
                // Unlisted here; listed again if it revives.
                if p.a == token {
                    p.in_a = false;
                } else {
                    p.in_b = false;
                }
                return false;
            }
            true
        });
        for &id in &list {
            let p = &self.pairs[id as usize];
            if p.count >= self.min_count {
                let (ca, cb) = (self.tok_count[p.a as usize], self.tok_count[p.b as usize]);
                self.push(Entry::new(id, p.version, p.count, ca, cb));
            }
        }
        self.adj[token as usize] = list;
    }

    /// Merges pair `id` into token `t` in every word holding it.
    fn merge(&mut self, id: u32, t: u32) {
        let (a, b) = (self.pairs[id as usize].a, self.pairs[id as usize].b);
        let mut ws = std::mem::take(&mut self.pairs[id as usize].words);
        ws.sort_unstable();
        ws.dedup();
        let mut merged = Vec::new();
        for w in ws {
            let word = std::mem::take(&mut self.words[w as usize]);
            if !word.windows(2).any(|p| p[0] == a && p[1] == b) {
                self.words[w as usize] = word;
                continue;
            }
            let n = self.wcount[w as usize];
            for p in word.windows(2) {
                self.add_pair(p[0], p[1], w, -(n as i64), false);
            }
            merged.clear();
            let mut i = 0;
            while i < word.len() {
                if i + 1 < word.len() && word[i] == a && word[i + 1] == b {
                    merged.push(t);
                    i += 2;
                } else {
                    merged.push(word[i]);
                    i += 1;
                }
            }
            let m = (word.len() - merged.len()) as u64 * n;
            self.tok_count[a as usize] -= m;
            self.tok_count[b as usize] -= m;
            self.tok_count[t as usize] += m;
            for p in merged.windows(2) {
                self.add_pair(p[0], p[1], w, n as i64, p[0] == t || p[1] == t);
            }
            self.words[w as usize] = merged.clone();
        }
        self.refresh(a);
        if b != a {
            self.refresh(b);
        }
        self.refresh(t);
    }
}

pub(super) fn train(counts: &[(Vec<u32>, u64)], opts: &TrainOptions, progress: Progress<'_>) -> Result<Trained> {
    let chars = alphabet(counts, opts);
    let in_alphabet: HashSet<u32> = chars.iter().copied().collect();
    // A word with a character outside the alphabet encodes as the unknown token: not counted.
    let kept: Vec<&(Vec<u32>, u64)> = counts.iter().filter(|(w, _)| w.iter().all(|c| in_alphabet.contains(c))).collect();
    let mut continuing: Vec<u32> = kept.iter().flat_map(|(w, _)| w[1..].iter().copied()).collect();
    continuing.extend(opts.initial_alphabet.iter().map(|&c| c as u32).filter(|c| in_alphabet.contains(c)));
    continuing.sort_unstable();
    continuing.dedup();

    let mut table = TokenTable::with_specials(opts);
    let plain: FxHashMap<u32, u32> = chars.iter().map(|&c| (c, table.add(char_string(c)))).collect();
    let cont: FxHashMap<u32, u32> = continuing.iter().map(|&c| (c, table.add(format!("{}{}", opts.prefix, char_string(c))))).collect();
    if table.len() > opts.vocab_size {
        return Err(Error::TrainVocabTooSmall { vocab_size: opts.vocab_size, needed: table.len() });
    }
    let n_tokens = table.len();
    let mut s = State {
        table,
        tok_count: vec![0; n_tokens],
        words: Vec::with_capacity(kept.len()),
        wcount: Vec::with_capacity(kept.len()),
        pairs: Vec::new(),
        pair_ids: FxHashMap::default(),
        adj: vec![Vec::new(); n_tokens],
        heap: Vec::new(),
        heap_limit: 1 << 16,
        min_count: opts.min_frequency.max(1),
    };
    for (w, n) in kept {
        let ids: Vec<u32> = w.iter().enumerate().map(|(i, c)| if i == 0 { plain[c] } else { cont[c] }).collect();
        let wi = s.words.len() as u32;
        for &id in &ids {
            s.tok_count[id as usize] += n;
        }
        for p in ids.windows(2) {
            s.add_pair(p[0], p[1], wi, *n as i64, true);
        }
        s.words.push(ids);
        s.wcount.push(*n);
    }
    for token in 0..n_tokens as u32 {
        // Each pair is pushed once: from its first token's list.
        let list = s.adj[token as usize].clone();
        for id in list {
            let p = &s.pairs[id as usize];
            if p.a == token && p.count >= s.min_count {
                let e = Entry::new(id, p.version, p.count, s.tok_count[p.a as usize], s.tok_count[p.b as usize]);
                s.push(e);
            }
        }
    }
    let mut merges = 0;
    while s.table.len() < opts.vocab_size {
        let Some(e) = s.pop() else { break };
        let p = &s.pairs[e.pair as usize];
        if p.version != e.version {
            continue;
        }
        let token = joined(&s.table.tokens[p.a as usize], &s.table.tokens[p.b as usize], &opts.prefix);
        let t = s.table.add(token);
        if t as usize == s.tok_count.len() {
            s.tok_count.push(0);
            s.adj.push(Vec::new());
        }
        s.merge(e.pair, t);
        merges += 1;
        if merges % 64 == 0 && !progress(s.table.len(), opts.vocab_size) {
            break;
        }
    }
    progress(s.table.len(), opts.vocab_size);
    Ok(Trained { tokens: s.table.tokens, alphabet: chars.len(), merges })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{options, words};
    use super::super::Algorithm;
    use super::*;

    fn run(w: &[(&str, u64)], size: usize) -> Vec<String> {
        let o = options(size, Algorithm::Likelihood);
        train(&words(w), &o, &mut |_, _| true).unwrap().tokens[5..].to_vec()
    }

    #[test]
    fn merges_by_score_then_count_then_order() {
        // Alphabet a b c d, then ##b ##d. Pairs: (a,##b) 5/(5*5)=1/5, (c,##d) 2/(2*2)=1/2.
        let got = run(&[("ab", 5), ("cd", 2)], 11);
        assert_eq!(got, ["a", "b", "c", "d", "##b", "##d"]);
        let got = run(&[("ab", 5), ("cd", 2)], 13);
        assert_eq!(got, ["a", "b", "c", "d", "##b", "##d", "cd", "ab"]);
        // Equal scores and counts: the smaller pair first.
        let got = run(&[("xy", 3), ("uv", 3)], 14);
        assert_eq!(got[got.len() - 2..], ["uv", "xy"]);
    }

    #[test]
    fn repeated_pairs_merge_left_to_right() {
        // "aaa": (a,##a) 1/(1*2)... (##a,##a) 1/(2*2); the first wins, leaving "aa ##a".
        let got = run(&[("aaa", 1)], 9);
        assert_eq!(got, ["a", "##a", "aa", "aaa"]);
    }

    #[test]
    fn too_small_is_an_error() {
        let o = options(6, Algorithm::Likelihood);
        let err = train(&words(&[("ab", 1)]), &o, &mut |_, _| true).unwrap_err();
        assert!(matches!(err, Error::TrainVocabTooSmall { vocab_size: 6, needed: 8 }));
    }

    #[test]
    fn wide_products_compare_exactly() {
        assert!(wide(u128::MAX, u64::MAX) > wide(u128::MAX, u64::MAX - 1));
        assert_eq!(wide(1 << 64, 3), (0, 3, 0));
    }
}
