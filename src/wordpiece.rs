//! WordPiece matcher: greedy longest-match-first, as Google's
//! `WordpieceTokenizer`, over a byte trie of the vocabulary so that a probe
//! never builds a string. Continuation pieces are matched from the trie node
//! reached by "##", so one trie serves both.

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

    fn walk(&self, mut node: u32, bytes: &[u8]) -> Option<u32> {
        for &b in bytes {
            node = self.child(node, b)?;
        }
        Some(node)
    }
}

/// Greedy longest-match-first WordPiece over a fixed token list.
#[derive(Clone, Debug)]
pub struct WordPiece {
    trie: Trie,
    continuation_root: Option<u32>,
    max_input_chars_per_word: i64,
}

impl WordPiece {
    pub fn new(tokens: &[&[u8]], max_input_chars_per_word: i64) -> Self {
        let trie = Trie::build(tokens);
        let continuation_root = trie.walk(0, b"##");
        WordPiece { trie, continuation_root, max_input_chars_per_word }
    }

    /// Splits `word` (code points), appending `(token index, end)` per piece
    /// to `out` (the piece is `word[previous end..end]`). Returns false, with
    /// `out` as it was, when the whole word is the unknown token: some
    /// remainder has no matching prefix, or the word is too long.
    pub fn tokenize_word(&self, word: &[u32], out: &mut Vec<(u32, u32)>) -> bool {
        if word.len() as i64 > self.max_input_chars_per_word {
            return false;
        }
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

    #[test]
    fn bare_prefix_is_not_a_piece() {
        // "##" itself never matches an empty continuation.
        let w = wp(&["a", "##"], 200);
        assert_eq!(run(&w, "ab"), None);
    }
}
