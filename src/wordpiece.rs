//! WordPiece matcher: greedy longest-match-first, as Google's
//! `WordpieceTokenizer`, over a byte trie of the vocabulary so that a probe
//! never builds a string. Continuation pieces are matched from the trie node
//! reached by "##", so one trie serves both.
//!
//! Words are matched in linear time by LinMaxMatch (Song et al., "Fast
//! WordPiece Tokenization", EMNLP 2021): every trie node gets a failure link
//! and the tokens to emit when following it ("failure pops"), computed once
//! by breadth-first search, so no byte of a word is read twice. The plain
//! greedy loop stays as the reference the fast path is tested against.

use crate::unicode::encode_into;

const NO_TOKEN: u32 = u32::MAX;

/// A byte trie in compressed-row form: node `n`'s children are
/// `edge_bytes/edge_next[first[n]..first[n + 1]]`, sorted by byte. Nodes
/// with many children (the roots, early letters) also get a dense 256-entry
/// row, so the hot lookups are one load; the rest scan a few bytes.
#[derive(Clone, Debug)]
struct Trie {
    first: Vec<u32>,
    edge_bytes: Vec<u8>,
    edge_next: Vec<u32>,
    /// Row in `dense` of each node, or NO_NODE.
    dense_of: Vec<u32>,
    dense: Vec<u32>,
    token: Vec<u32>, // token index ending at each node, or NO_TOKEN
}

/// Nodes with more children than this get a dense row.
const DENSE_MIN: usize = 8;

impl Trie {
    /// `tokens[i]` gets index `i`; for a repeated token the first index is kept.
    fn build(tokens: &[&[u8]]) -> Self {
        let mut order: Vec<usize> = (0..tokens.len()).collect();
        order.sort_by(|&a, &b| tokens[a].cmp(tokens[b]).then(a.cmp(&b)));
        // Inserting in sorted order appends each node's children in byte order.
        let mut children: Vec<Vec<(u8, u32)>> = vec![Vec::new()];
        let mut token = vec![NO_TOKEN];
        for &i in &order {
            let mut node = 0usize;
            for &b in tokens[i] {
                node = match children[node].last() {
                    Some(&(last, child)) if last == b => child as usize,
                    _ => {
                        let child = children.len();
                        children[node].push((b, child as u32));
                        children.push(Vec::new());
                        token.push(NO_TOKEN);
                        child
                    }
                };
            }
            if token[node] == NO_TOKEN {
                token[node] = i as u32;
            }
        }
        let mut trie = Trie {
            first: Vec::with_capacity(children.len() + 1),
            edge_bytes: Vec::new(),
            edge_next: Vec::new(),
            dense_of: vec![NO_NODE; children.len()],
            dense: Vec::new(),
            token,
        };
        for (n, c) in children.iter().enumerate() {
            trie.first.push(trie.edge_bytes.len() as u32);
            trie.edge_bytes.extend(c.iter().map(|e| e.0));
            trie.edge_next.extend(c.iter().map(|e| e.1));
            if c.len() > DENSE_MIN {
                trie.dense_of[n] = (trie.dense.len() / 256) as u32;
                let row = trie.dense.len();
                trie.dense.resize(row + 256, NO_NODE);
                for &(b, child) in c {
                    trie.dense[row + b as usize] = child;
                }
            }
        }
        trie.first.push(trie.edge_bytes.len() as u32);
        trie
    }

    #[inline(always)]
    fn child(&self, node: u32, byte: u8) -> Option<u32> {
        let d = self.dense_of[node as usize];
        if d != NO_NODE {
            let next = self.dense[d as usize * 256 + byte as usize];
            return (next != NO_NODE).then_some(next);
        }
        let (a, b) = (self.first[node as usize] as usize, self.first[node as usize + 1] as usize);
        let k = self.edge_bytes[a..b].iter().position(|&e| e == byte)?;
        Some(self.edge_next[a + k])
    }

    fn nodes(&self) -> usize {
        self.token.len()
    }

    fn children(&self, node: u32) -> impl Iterator<Item = (u8, u32)> + '_ {
        let (a, b) = (self.first[node as usize] as usize, self.first[node as usize + 1] as usize);
        self.edge_bytes[a..b].iter().copied().zip(self.edge_next[a..b].iter().copied())
    }

    fn walk(&self, mut node: u32, bytes: &[u8]) -> Option<u32> {
        for &b in bytes {
            node = self.child(node, b)?;
        }
        Some(node)
    }
}

/// LinMaxMatch tables: per trie node, the failure link and the range of
/// `pops` (token indexes) emitted when following it.
#[derive(Clone, Debug)]
struct Failure {
    link: Vec<u32>,
    pops: Vec<(u32, u32)>,
    pop_tokens: Vec<u32>,
}

const NO_NODE: u32 = u32::MAX;

impl Failure {
    /// Breadth-first over the trie (the paper's Algorithm 1): a token node
    /// fails to the continuation root after emitting itself; any other node
    /// fails where its parent's failure chain can take the same byte,
    /// emitting what that chain emitted on the way.
    fn build(trie: &Trie, continuation_root: u32) -> Self {
        let n = trie.nodes();
        let mut link = vec![NO_NODE; n];
        let mut pops = vec![(0u32, 0u32); n];
        let mut pop_tokens: Vec<u32> = Vec::new();
        let mut queue = std::collections::VecDeque::from([0u32]);
        let mut acc: Vec<u32> = Vec::new();
        while let Some(u) = queue.pop_front() {
            for (byte, v) in trie.children(u) {
                queue.push_back(v);
                if v == continuation_root {
                    continue; // the paper's r#: no failure link, nothing to pop
                }
                let t = trie.token[v as usize];
                let start = pop_tokens.len() as u32;
                if t != NO_TOKEN {
                    link[v as usize] = continuation_root;
                    pop_tokens.push(t);
                } else {
                    let (a, b) = pops[u as usize];
                    acc.clear();
                    acc.extend_from_slice(&pop_tokens[a as usize..b as usize]);
                    let mut z = link[u as usize];
                    while z != NO_NODE && trie.child(z, byte).is_none() {
                        let (a, b) = pops[z as usize];
                        acc.extend_from_slice(&pop_tokens[a as usize..b as usize]);
                        z = link[z as usize];
                    }
                    if z != NO_NODE {
                        link[v as usize] = trie.child(z, byte).unwrap_or(NO_NODE);
                        pop_tokens.extend_from_slice(&acc);
                    }
                }
                pops[v as usize] = (start, pop_tokens.len() as u32);
            }
        }
        Failure { link, pops, pop_tokens }
    }
}

/// Exact-match table of the vocabulary: most words are one token, and one
/// hash probe finds them faster than a walk down the trie. Open addressing
/// over a power-of-two table; keys live in one arena.
#[derive(Clone, Debug)]
struct WholeWords {
    /// `(hash tag, token index)`; empty slots hold NO_TOKEN. The tag skips
    /// most key comparisons without touching the arena.
    slots: Vec<(u32, u32)>,
    arena: Vec<u8>,
    spans: Vec<(u32, u32)>, // each token's bytes in `arena`
}

impl WholeWords {
    fn build(tokens: &[&[u8]]) -> Self {
        let size = (tokens.len() * 2).next_power_of_two().max(16);
        let mut w = WholeWords { slots: vec![(0, NO_TOKEN); size], arena: Vec::new(), spans: Vec::with_capacity(tokens.len()) };
        for t in tokens {
            w.spans.push((w.arena.len() as u32, (w.arena.len() + t.len()) as u32));
            w.arena.extend_from_slice(t);
        }
        for (i, t) in tokens.iter().enumerate() {
            let h = hash(t);
            let mut k = h as usize & (size - 1);
            loop {
                match w.slots[k] {
                    (_, NO_TOKEN) => {
                        w.slots[k] = ((h >> 32) as u32, i as u32);
                        break;
                    }
                    (_, j) if w.key(j) == *t => break, // a repeated token keeps its first index
                    _ => k = (k + 1) & (size - 1),
                }
            }
        }
        w
    }

    #[inline]
    fn key(&self, token: u32) -> &[u8] {
        let (a, b) = self.spans[token as usize];
        &self.arena[a as usize..b as usize]
    }

    #[inline]
    fn get(&self, word: &[u8]) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let h = hash(word);
        let tag = (h >> 32) as u32;
        let mut k = h as usize & mask;
        loop {
            match self.slots[k] {
                (_, NO_TOKEN) => return None,
                (g, t) if g == tag && self.key(t) == word => return Some(t),
                _ => k = (k + 1) & mask,
            }
        }
    }
}

/// FxHash-style multiplicative hash, eight bytes at a time.
#[inline]
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517C_C1B7_2722_0A95;
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    h ^ (h >> 29)
}

/// Greedy longest-match-first WordPiece over a fixed token list.
#[derive(Clone, Debug)]
pub struct WordPiece {
    trie: Trie,
    whole: WholeWords,
    continuation_root: Option<u32>,
    failure: Option<Failure>,
    /// Code points of each token's text (for the pieces' end positions).
    token_chars: Vec<u32>,
    max_input_chars_per_word: i64,
}

impl WordPiece {
    pub fn new(tokens: &[&[u8]], max_input_chars_per_word: i64) -> Self {
        let trie = Trie::build(tokens);
        let continuation_root = trie.walk(0, b"##");
        let failure = continuation_root.map(|r| Failure::build(&trie, r));
        let token_chars = tokens
            .iter()
            .map(|t| t.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u32)
            .collect();
        let whole = WholeWords::build(tokens);
        WordPiece { trie, whole, continuation_root, failure, token_chars, max_input_chars_per_word }
    }

    /// Splits `word` (code points), appending `(token index, end)` per piece
    /// to `out` (the piece is `word[previous end..end]`). Returns false, with
    /// `out` as it was, when the whole word is the unknown token: some
    /// remainder has no matching prefix, or the word is too long.
    pub fn tokenize_word(&self, word: &[u32], out: &mut Vec<(u32, u32)>) -> bool {
        let mut bytes = Vec::with_capacity(word.len());
        encode_into(word, &mut bytes);
        let mark = out.len();
        let mut end = 0u32; // code points emitted so far
        let ok = self.encode_word(&bytes, word.len(), |t| {
            // The first piece is read whole; the later ones after their "##".
            end += self.token_chars[t as usize] - if out.len() > mark { 2 } else { 0 };
            out.push((t, end));
        });
        if !ok {
            out.truncate(mark);
        }
        ok
    }

    /// Splits `word` (UTF-8 of `chars` code points), calling `emit` with each
    /// piece's token index. False when the whole word is the unknown token;
    /// pieces emitted before that are then the caller's to discard.
    #[inline]
    pub fn encode_word(&self, word: &[u8], chars: usize, mut emit: impl FnMut(u32)) -> bool {
        if chars as i64 > self.max_input_chars_per_word {
            return false;
        }
        // A word that is a token is its own longest match (an empty word has no pieces).
        if let Some(t) = self.whole.get(word).filter(|_| !word.is_empty()) {
            emit(t);
            return true;
        }
        match (&self.failure, self.continuation_root) {
            // A word starting with "##" could match through the continuation
            // root itself, which LinMaxMatch keeps out of its automaton.
            (Some(f), Some(r)) if !word.starts_with(b"##") => self.linear(f, r, word, emit),
            _ => self.greedy(word, emit),
        }
    }

    /// LinMaxMatch (the paper's Algorithm 2): follow failure links, emitting
    /// their pops, until the next byte can be taken; at the end of the word,
    /// fail back to the continuation root.
    fn linear(&self, f: &Failure, continuation_root: u32, word: &[u8], mut emit: impl FnMut(u32)) -> bool {
        let mut node = 0u32;
        let mut pop = |node: u32| {
            let (a, b) = f.pops[node as usize];
            f.pop_tokens[a as usize..b as usize].iter().for_each(|&t| emit(t));
        };
        for &byte in word {
            loop {
                if let Some(next) = self.trie.child(node, byte) {
                    node = next;
                    break;
                }
                let link = f.link[node as usize];
                if link == NO_NODE {
                    return false;
                }
                pop(node);
                node = link;
            }
        }
        while node != continuation_root && !(node == 0 && word.is_empty()) {
            let link = f.link[node as usize];
            if link == NO_NODE {
                return false;
            }
            pop(node);
            node = link;
        }
        true
    }

    /// Google's loop, over the trie: at each position take the longest
    /// vocabulary entry (with "##" after the first), or give up. Vocabulary
    /// entries are whole UTF-8 strings, so every match ends on a code point
    /// boundary of the word.
    fn greedy(&self, word: &[u8], mut emit: impl FnMut(u32)) -> bool {
        let mut start = 0;
        while start < word.len() {
            let root = if start == 0 { Some(0) } else { self.continuation_root };
            let Some(mut node) = root else { return false };
            let mut best: Option<(usize, u32)> = None;
            for (k, &byte) in word[start..].iter().enumerate() {
                let Some(next) = self.trie.child(node, byte) else { break };
                node = next;
                let t = self.trie.token[node as usize];
                if t != NO_TOKEN {
                    best = Some((start + k + 1, t));
                }
            }
            let Some((end, t)) = best else { return false };
            emit(t);
            start = end;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wp(tokens: &[&str], max: i64) -> (WordPiece, Vec<String>) {
        let bytes: Vec<&[u8]> = tokens.iter().map(|t| t.as_bytes()).collect();
        (WordPiece::new(&bytes, max), tokens.iter().map(|t| t.to_string()).collect())
    }

    fn run(w: &(WordPiece, Vec<String>), word: &str) -> Option<Vec<String>> {
        let cps: Vec<u32> = word.chars().map(|c| c as u32).collect();
        let mut out = Vec::new();
        w.0.tokenize_word(&cps, &mut out).then(|| out.iter().map(|&(i, _)| w.1[i as usize].clone()).collect())
    }

    #[test]
    fn greedy_longest_match_first() {
        let w = wp(&["un", "##aff", "##able", "una", "##ff", "a", "##a", ""], 200);
        assert_eq!(run(&w, "unaffable").unwrap(), ["una", "##ff", "##able"]);
        assert_eq!(run(&w, "aaa").unwrap(), ["a", "##a", "##a"]);
        assert_eq!(run(&w, "unx"), None);
        assert_eq!(run(&w, "").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn greedy_does_not_backtrack() {
        // Google's loop takes "ab" and then fails on "c"; it never retries "a" + "##bc".
        let w = wp(&["ab", "a", "##bc"], 200);
        assert_eq!(run(&w, "abc"), None);
    }

    #[test]
    fn length_limit_counts_code_points() {
        let w = wp(&["é", "##é"], 3);
        assert_eq!(run(&w, "ééé").unwrap(), ["é", "##é", "##é"]);
        assert_eq!(run(&w, "éééé"), None);
        assert_eq!(run(&wp(&["a"], -1), "a"), None);
    }

    /// xorshift: a tiny deterministic generator for the equivalence tests.
    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    type Pieces = Option<Vec<u32>>;

    fn both(w: &WordPiece, word: &[u32]) -> (Pieces, Pieces) {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let mut bytes = Vec::new();
        encode_into(word, &mut bytes);
        let greedy = w.greedy(&bytes, |t| a.push(t)).then_some(a);
        let fast = w.encode_word(&bytes, word.len(), |t| b.push(t)).then_some(b);
        // LinMaxMatch on its own too, without the whole-word shortcut.
        if let (Some(f), Some(r), false) = (&w.failure, w.continuation_root, bytes.starts_with(b"##")) {
            let mut c = Vec::new();
            assert_eq!(w.linear(f, r, &bytes, |t| c.push(t)).then_some(c), greedy, "linear, word {word:?}");
        }
        (greedy, fast)
    }

    #[test]
    fn linear_time_matching_equals_greedy_on_random_vocabularies() {
        let alphabet = ['a', 'b', 'é', '中', '#'];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..300 {
            let mut tokens: Vec<String> = Vec::new();
            for _ in 0..(rng(&mut seed) % 30) {
                let len = 1 + rng(&mut seed) % 4;
                let t: String = (0..len).map(|_| alphabet[(rng(&mut seed) % 5) as usize]).collect();
                tokens.push(if rng(&mut seed) % 2 == 0 { format!("##{t}") } else { t });
            }
            tokens.push("##".into()); // make sure the continuation root exists
            let bytes: Vec<&[u8]> = tokens.iter().map(|t| t.as_bytes()).collect();
            let w = WordPiece::new(&bytes, 1000);
            for _ in 0..50 {
                let len = rng(&mut seed) % 12;
                let word: Vec<u32> = (0..len).map(|_| alphabet[(rng(&mut seed) % 5) as usize] as u32).collect();
                let (greedy, fast) = both(&w, &word);
                assert_eq!(greedy, fast, "tokens {tokens:?} word {word:?}");
            }
        }
    }

    #[test]
    fn linear_time_matching_on_adversarial_words() {
        // Long runs of one letter against a vocabulary of its runs.
        let tokens: Vec<String> = (1..=20).map(|n| "a".repeat(n)).chain((1..=20).map(|n| format!("##{}", "a".repeat(n)))).chain(["##b".into(), "ab".into()]).collect();
        let bytes: Vec<&[u8]> = tokens.iter().map(|t| t.as_bytes()).collect();
        let w = WordPiece::new(&bytes, 20_000);
        for n in [1, 19, 20, 21, 199, 200, 201, 10_000] {
            for tail in ["", "b", "c", "ab"] {
                let word: Vec<u32> = "a".repeat(n).chars().chain(tail.chars()).map(|c| c as u32).collect();
                let (greedy, fast) = both(&w, &word);
                assert_eq!(greedy, fast, "a*{n}+{tail}");
            }
        }
    }

    #[test]
    fn bare_prefix_is_not_a_piece() {
        // "##" itself never matches an empty continuation.
        let w = wp(&["a", "##"], 200);
        assert_eq!(run(&w, "ab"), None);
    }
}
