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

use crate::unicode::push_utf8;

const NO_TOKEN: u32 = u32::MAX;

/// A byte trie in compressed-row form: node `n`'s children are
/// `edges[first[n]..first[n + 1]]`, sorted by byte.
#[derive(Clone, Debug)]
struct Trie {
    first: Vec<u32>,
    edges: Vec<(u8, u32)>,
    token: Vec<u32>, // token index ending at each node, or NO_TOKEN
}

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
        let mut first = Vec::with_capacity(children.len() + 1);
        let mut edges = Vec::new();
        for c in &children {
            first.push(edges.len() as u32);
            edges.extend_from_slice(c);
        }
        first.push(edges.len() as u32);
        Trie { first, edges, token }
    }

    #[inline]
    fn child(&self, node: u32, byte: u8) -> Option<u32> {
        let (a, b) = (self.first[node as usize] as usize, self.first[node as usize + 1] as usize);
        let edges = &self.edges[a..b];
        edges.binary_search_by_key(&byte, |e| e.0).ok().map(|k| edges[k].1)
    }

    fn nodes(&self) -> usize {
        self.token.len()
    }

    fn children(&self, node: u32) -> &[(u8, u32)] {
        &self.edges[self.first[node as usize] as usize..self.first[node as usize + 1] as usize]
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
    /// Code points of each token's text (for the pieces' end positions).
    token_chars: Vec<u32>,
}

const NO_NODE: u32 = u32::MAX;

impl Failure {
    /// Breadth-first over the trie (the paper's Algorithm 1): a token node
    /// fails to the continuation root after emitting itself; any other node
    /// fails where its parent's failure chain can take the same byte,
    /// emitting what that chain emitted on the way.
    fn build(trie: &Trie, continuation_root: u32, tokens: &[&[u8]]) -> Self {
        let n = trie.nodes();
        let mut link = vec![NO_NODE; n];
        let mut pops = vec![(0u32, 0u32); n];
        let mut pop_tokens: Vec<u32> = Vec::new();
        let mut queue = std::collections::VecDeque::from([0u32]);
        let mut acc: Vec<u32> = Vec::new();
        while let Some(u) = queue.pop_front() {
            for &(byte, v) in trie.children(u) {
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
        let token_chars = tokens
            .iter()
            .map(|t| t.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u32)
            .collect();
        Failure { link, pops, pop_tokens, token_chars }
    }
}

/// Greedy longest-match-first WordPiece over a fixed token list.
#[derive(Clone, Debug)]
pub struct WordPiece {
    trie: Trie,
    continuation_root: Option<u32>,
    failure: Option<Failure>,
    max_input_chars_per_word: i64,
}

impl WordPiece {
    pub fn new(tokens: &[&[u8]], max_input_chars_per_word: i64) -> Self {
        let trie = Trie::build(tokens);
        let continuation_root = trie.walk(0, b"##");
        let failure = continuation_root.map(|r| Failure::build(&trie, r, tokens));
        WordPiece { trie, continuation_root, failure, max_input_chars_per_word }
    }

    /// Splits `word` (code points), appending `(token index, end)` per piece
    /// to `out` (the piece is `word[previous end..end]`). Returns false, with
    /// `out` as it was, when the whole word is the unknown token: some
    /// remainder has no matching prefix, or the word is too long.
    pub fn tokenize_word(&self, word: &[u32], out: &mut Vec<(u32, u32)>) -> bool {
        if word.len() as i64 > self.max_input_chars_per_word {
            return false;
        }
        match (&self.failure, self.continuation_root) {
            // A word starting with "##" could match through the continuation
            // root itself, which LinMaxMatch keeps out of its automaton.
            (Some(f), Some(r)) if word.get(..2) != Some(&[b'#' as u32, b'#' as u32]) => self.linear(f, r, word, out),
            _ => self.greedy(word, out),
        }
    }

    /// LinMaxMatch (the paper's Algorithm 2): follow failure links, emitting
    /// their pops, until the next byte can be taken; at the end of the word,
    /// fail back to the continuation root.
    fn linear(&self, f: &Failure, continuation_root: u32, word: &[u32], out: &mut Vec<(u32, u32)>) -> bool {
        let mark = out.len();
        let mut node = 0u32;
        let mut end = 0u32; // code points emitted so far
        let mut emit = |node: u32, out: &mut Vec<(u32, u32)>| {
            let (a, b) = f.pops[node as usize];
            for &t in &f.pop_tokens[a as usize..b as usize] {
                // The first piece is read whole; the later ones after their "##".
                end += f.token_chars[t as usize] - if out.len() > mark { 2 } else { 0 };
                out.push((t, end));
            }
        };
        let mut buf = Vec::with_capacity(4);
        for &cp in word {
            buf.clear();
            push_utf8(cp, &mut buf);
            for &byte in &buf {
                loop {
                    if let Some(next) = self.trie.child(node, byte) {
                        node = next;
                        break;
                    }
                    let link = f.link[node as usize];
                    if link == NO_NODE {
                        out.truncate(mark);
                        return false;
                    }
                    emit(node, out);
                    node = link;
                }
            }
        }
        while node != continuation_root && !(node == 0 && word.is_empty()) {
            let link = f.link[node as usize];
            if link == NO_NODE {
                out.truncate(mark);
                return false;
            }
            emit(node, out);
            node = link;
        }
        true
    }

    /// Google's loop, over the trie: at each position take the longest
    /// vocabulary entry (with "##" after the first), or give up.
    fn greedy(&self, word: &[u32], out: &mut Vec<(u32, u32)>) -> bool {
        let mark = out.len();
        let mut start = 0;
        let mut buf = Vec::with_capacity(4);
        while start < word.len() {
            let root = if start == 0 { Some(0) } else { self.continuation_root };
            let mut best: Option<(usize, u32)> = None;
            let mut node = root;
            for (end, &cp) in word.iter().enumerate().skip(start) {
                buf.clear();
                push_utf8(cp, &mut buf);
                node = node.and_then(|n| self.trie.walk(n, &buf));
                let Some(n) = node else { break };
                let t = self.trie.token[n as usize];
                if t != NO_TOKEN {
                    best = Some((end + 1, t));
                }
            }
            match best {
                Some((end, t)) => {
                    out.push((t, end as u32));
                    start = end;
                }
                None => {
                    out.truncate(mark);
                    return false;
                }
            }
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

    type Pieces = Option<Vec<(u32, u32)>>;

    fn both(w: &WordPiece, word: &[u32]) -> (Pieces, Pieces) {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let greedy = w.greedy(word, &mut a).then_some(a);
        let fast = w.tokenize_word(word, &mut b).then_some(b);
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
