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

use crate::fxhash::hash_bytes as hash;
use crate::prefetch::prefetch;
use crate::unicode::encode_into;

const NO_TOKEN: u32 = u32::MAX;

/// A byte trie laid out for LinMaxMatch's hot loop. A node is 8 bytes
/// (its first child and `meta`), and a node's children are numbered
/// consecutively, so an edge needs no record of its own: `label[child]` is
/// the byte leading into `child`, and the labels of a node's children sit
/// side by side (a 300K-node trie has 300 KB of labels, which stay in cache
/// while the nodes do not). A step is:
/// - up to DENSE_MIN (8) children: the children's labels, searched in one
///   round of eight (single children included);
/// - more (the roots, early letters, a script's third bytes): a dense
///   256-entry row, one load.
///
/// Nodes are numbered depth-first, so single-child chains sit side by side.
#[derive(Clone, Debug)]
struct Trie {
    nodes: Vec<Node>,
    /// The byte on the edge into each node (plus eight bytes of padding, so
    /// the search may load eight labels from any child).
    label: Vec<u8>,
    dense: Vec<u32>,
    /// Token index ending at each node, or NO_TOKEN (off the hot path).
    token: Vec<u32>,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    /// The first child (children are `first .. first + count`).
    first: u32,
    /// Bits 0..9: number of children; bits 9..31: the dense row (if any); the DENSE flag.
    meta: u32,
}

/// Nodes with more children than this get a dense row: the label search is
/// then always one round. At 24, the third byte of a Thai or Devanagari
/// character (up to 64 siblings under one lead pair) took two or three
/// rounds; at 8, Thai rows run 6.5 % faster (`ab_builds.py`-style turns,
/// 111 -> 119 MB/s), the twelve UD files and en-large within ±2.6 %, and
/// the multilingual model's tables grow by 2 MiB.
const DENSE_MIN: usize = 8;
const DENSE: u32 = 1 << 31;
const COUNT: u32 = 0x1FF;
const ONES: u64 = 0x0101_0101_0101_0101;

impl Trie {
    /// `tokens[i]` gets index `i`; for a repeated token the first index is kept.
    /// Built depth-first from the sorted tokens: each node's tokens are a run
    /// of the sorted list, and its children are the sub-runs sharing the next
    /// byte; nothing is hashed or allocated per node.
    fn build(tokens: &[&[u8]]) -> Self {
        // Sort by (bytes, index): by (8-byte big-endian prefix, index) first,
        // a plain integer sort; then the rare runs that share a prefix (long
        // tokens, or a zero byte) by their whole bytes.
        let prefix = |t: &[u8]| t.iter().take(8).enumerate().fold(0u64, |k, (i, &b)| k | (b as u64) << (56 - 8 * i));
        let mut order: Vec<(u64, u32)> = tokens.iter().enumerate().map(|(i, t)| (prefix(t), i as u32)).collect();
        order.sort_unstable();
        let mut lo = 0;
        while lo < order.len() {
            let mut hi = lo + 1;
            while hi < order.len() && order[hi].0 == order[lo].0 {
                hi += 1;
            }
            if hi - lo > 1 {
                order[lo..hi].sort_unstable_by(|a, b| tokens[a.1 as usize].cmp(tokens[b.1 as usize]).then(a.1.cmp(&b.1)));
            }
            lo = hi;
        }
        // The sorted tokens side by side in one arena, so the scans below read memory in order.
        let mut arena = Vec::with_capacity(tokens.iter().map(|t| t.len()).sum());
        let mut spans = Vec::with_capacity(order.len());
        for &(_, i) in &order {
            let t = tokens[i as usize];
            spans.push((arena.len(), t.len()));
            arena.extend_from_slice(t);
        }
        let len = |k: usize| spans[k].1;
        let byte = |k: usize, depth: usize| arena[spans[k].0 + depth];
        let empty = Node { first: NO_NODE, meta: 0 };
        // At most one node per byte of the tokens, plus the root.
        let most = arena.len() + 1;
        let mut trie = Trie {
            nodes: Vec::with_capacity(most),
            label: Vec::with_capacity(most + 8),
            dense: Vec::new(),
            token: Vec::with_capacity(most),
        };
        trie.nodes.push(empty);
        trie.label.push(0);
        trie.token.push(NO_TOKEN);
        // (node, run of `order`, depth): the run's tokens all start with the node's `depth` bytes.
        let mut stack = vec![(0u32, 0usize, order.len(), 0usize)];
        let mut runs = Vec::new();
        while let Some((node, mut lo, hi, depth)) = stack.pop() {
            // Tokens ending here sort first; the first of them has the smallest index.
            if lo < hi && len(lo) == depth {
                trie.token[node as usize] = order[lo].1;
                while lo < hi && len(lo) == depth {
                    lo += 1;
                }
            }
            let first = trie.nodes.len() as u32;
            runs.clear();
            while lo < hi {
                let b = byte(lo, depth);
                let mut end = lo + 1;
                while end < hi && byte(end, depth) == b {
                    end += 1;
                }
                let child = trie.nodes.len() as u32;
                trie.nodes.push(empty);
                trie.label.push(b);
                trie.token.push(NO_TOKEN);
                runs.push((child, lo, end, depth + 1));
                lo = end;
            }
            // Last child first onto the stack: the first child is numbered next and visited next.
            stack.extend(runs.iter().rev().copied());
            let count = runs.len();
            let row = trie.dense.len() / 256;
            let meta = if count > DENSE_MIN && row < 1 << 22 {
                trie.dense.resize(256 * (row + 1), NO_NODE);
                for &(child, ..) in &runs {
                    trie.dense[256 * row + trie.label[child as usize] as usize] = child;
                }
                DENSE | (row as u32) << 9 | count as u32
            } else {
                count as u32
            };
            trie.nodes[node as usize] = Node { first: if count > 0 { first } else { 0 }, meta };
        }
        trie.label.extend_from_slice(&[0; 8]);
        trie
    }

    #[inline(always)]
    fn child(&self, node: u32, byte: u8) -> Option<u32> {
        let n = self.nodes[node as usize];
        if n.meta & DENSE != 0 {
            let row = (n.meta & !DENSE) >> 9;
            let next = self.dense[row as usize * 256 + byte as usize];
            return (next != NO_NODE).then_some(next);
        }
        // The children's labels, eight at a time: a zero byte of `x` is a
        // match (the lowest one is exact: borrows only run upwards). One
        // round for the most nodes (up to eight children, single ones
        // included), so the walk has no branch on the kind of node.
        let (first, count) = (n.first as usize, (n.meta & COUNT) as usize);
        // The children sit side by side: start loading them while their labels are searched.
        if let Some(c) = self.nodes.get(first) {
            prefetch(c);
        }
        let pattern = byte as u64 * ONES;
        let mut k = 0;
        loop {
            let at = first + k;
            let w = u64::from_le_bytes(self.label.get(at..at + 8)?.try_into().unwrap_or([0; 8]));
            let x = w ^ pattern;
            let left = count - k;
            let mask = if left >= 8 { !0 } else { (1u64 << (8 * left)) - 1 };
            let hits = x.wrapping_sub(ONES) & !x & (ONES << 7) & mask;
            if hits != 0 {
                return Some((at + (hits.trailing_zeros() / 8) as usize) as u32);
            }
            k += 8;
            if k >= count {
                return None;
            }
        }
    }

    #[inline]
    fn token(&self, node: u32) -> u32 {
        self.token[node as usize]
    }

    fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Sorted children.
    fn children(&self, node: u32) -> impl Iterator<Item = (u8, u32)> + '_ {
        let n = self.nodes[node as usize];
        (n.first..n.first + (n.meta & COUNT)).map(|c| (self.label[c as usize], c))
    }

    fn walk(&self, mut node: u32, bytes: &[u8]) -> Option<u32> {
        for &b in bytes {
            node = self.child(node, b)?;
        }
        Some(node)
    }
}

/// LinMaxMatch tables. Following a failure link is one load: per trie
/// node, one `u64` holds the link (low half) and what to emit on the way
/// (high half) — nothing (NO_POP), one token index (most nodes), or, with
/// the MANY bit, where a longer list starts in `lists` (its length, then its
/// token indexes).
#[derive(Clone, Debug)]
struct Failure {
    steps: Vec<u64>,
    lists: Vec<u32>,
}

const NO_NODE: u32 = u32::MAX;
const NO_POP: u32 = u32::MAX;
const MANY: u32 = 1 << 31;

impl Failure {
    /// Breadth-first over the trie (the paper's Algorithm 1): a token node
    /// fails to the continuation root after emitting itself; any other node
    /// fails where its parent's failure chain can take the same byte,
    /// emitting what that chain emitted on the way.
    fn build(trie: &Trie, continuation_root: u32) -> Self {
        let n = trie.len();
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
                let t = trie.token(v);
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
        let mut lists = Vec::new();
        let steps = link
            .iter()
            .zip(&pops)
            .map(|(&l, &(a, b))| {
                let popped = &pop_tokens[a as usize..b as usize];
                let pop = match *popped {
                    [] => NO_POP,
                    [t] if t & MANY == 0 => t,
                    _ => {
                        let at = lists.len() as u32;
                        lists.push(popped.len() as u32);
                        lists.extend_from_slice(popped);
                        MANY | at
                    }
                };
                (pop as u64) << 32 | l as u64
            })
            .collect();
        Failure { steps, lists }
    }

    /// Follows `node`'s failure link, emitting its pops; None when it has no link.
    #[inline(always)]
    fn follow(&self, node: u32, emit: &mut impl FnMut(u32)) -> Option<u32> {
        let step = self.steps[node as usize];
        let (link, pop) = (step as u32, (step >> 32) as u32);
        if link == NO_NODE {
            return None;
        }
        if pop & MANY == 0 {
            emit(pop);
        } else if pop != NO_POP {
            let at = (pop & !MANY) as usize;
            let len = self.lists.get(at).copied().unwrap_or(0) as usize;
            self.lists.get(at + 1..at + 1 + len).unwrap_or(&[]).iter().for_each(|&t| emit(t));
        }
        Some(link)
    }
}

/// Exact-match table of the vocabulary's word-initial tokens: most words
/// are one token, and one hash probe finds them faster than a walk down the
/// trie. Open addressing over a power-of-two table of `(hash tag, entry)`;
/// each entry is a `u32` (length << 24 | id) then the bytes, in one
/// arena, so a probe touches two compact arrays and allocates nothing.
#[derive(Clone, Debug)]
struct WholeWords {
    slots: Vec<(u32, u32)>, // (tag, arena offset); NO_TOKEN offset = empty
    arena: Vec<u8>,
}

/// The largest whole-word table probed for words the memo has not seen:
/// 512 KiB of slots. The 30K-token vocabularies need 256 KiB,
/// multilingual-cased 1 MiB.
const SMALL_WHOLE_SLOTS: usize = 1 << 16;

impl WholeWords {
    /// Tokens starting with "##" are left out: a word spelled like one goes
    /// through the greedy loop, which handles it.
    fn build(tokens: &[&[u8]], ids: &[u32]) -> Self {
        let n = tokens.iter().filter(|t| !t.starts_with(b"##")).count();
        let size = (n + n / 4).next_power_of_two().max(16);
        let mut w = WholeWords { slots: vec![(0, NO_TOKEN); size], arena: Vec::new() };
        for (i, t) in tokens.iter().enumerate() {
            // Long tokens and huge vocabularies do not fit the entry header; the trie has them.
            if t.starts_with(b"##") || t.is_empty() || t.len() > 255 || ids[i] >= 1 << 24 {
                continue;
            }
            let h = hash(t);
            let mut k = h as usize & (size - 1);
            while w.slots[k].1 != NO_TOKEN {
                if w.entry_at(w.slots[k], (h >> 32) as u32, t).is_some() {
                    break; // a repeated token keeps its first index
                }
                k = (k + 1) & (size - 1);
            }
            if w.slots[k].1 != NO_TOKEN {
                continue;
            }
            w.slots[k] = ((h >> 32) as u32, w.arena.len() as u32);
            w.arena.extend_from_slice(&((t.len() as u32) << 24 | ids[i]).to_le_bytes());
            w.arena.extend_from_slice(t);
        }
        w
    }

    #[inline]
    fn get(&self, word: &[u8]) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let h = hash(word);
        let tag = (h >> 32) as u32;
        let mut k = h as usize & mask;
        loop {
            let slot = self.slots[k];
            if slot.1 == NO_TOKEN {
                return None;
            }
            if let Some(id) = self.entry_at(slot, tag, word) {
                return Some(id);
            }
            k = (k + 1) & mask;
        }
    }

    /// The id in the occupied slot `(tag, offset)` if its entry is `word` (with hash tag `tag`).
    #[inline]
    fn entry_at(&self, (g, at): (u32, u32), tag: u32, word: &[u8]) -> Option<u32> {
        if g != tag {
            return None;
        }
        let at = at as usize;
        let head = self.arena.get(at..at + 4)?;
        let head = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let len = (head >> 24) as usize;
        (len == word.len() && self.arena.get(at + 4..at + 4 + len) == Some(word)).then_some(head & 0xFF_FFFF)
    }
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
    /// The id of each token (what `encode_word` emits).
    ids: Vec<u32>,
    /// Whether `ids[i] == i` for every token, so pieces need no id lookup.
    identity: bool,
    max_input_chars_per_word: i64,
}

impl WordPiece {
    /// A matcher whose ids are the tokens' indexes.
    pub fn new(tokens: &[&[u8]], max_input_chars_per_word: i64) -> Self {
        Self::with_ids(tokens, (0..tokens.len() as u32).collect(), max_input_chars_per_word)
    }

    /// A matcher emitting `ids[i]` for `tokens[i]`.
    pub fn with_ids(tokens: &[&[u8]], ids: Vec<u32>, max_input_chars_per_word: i64) -> Self {
        // The trie (then its failure links) and the whole-word table are
        // independent: build them on two threads (a scoped thread rather than
        // a pool, so nothing outlives the call to trouble a later fork; on one
        // thread if the OS will not start another).
        let side = || {
            let chars = tokens.iter().map(|t| t.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u32).collect::<Vec<_>>();
            (WholeWords::build(tokens, &ids), chars)
        };
        let main = || {
            let trie = Trie::build(tokens);
            let root = trie.walk(0, b"##");
            let failure = root.map(|r| Failure::build(&trie, r));
            (trie, root, failure)
        };
        let ((trie, continuation_root, failure), (whole, token_chars)) = std::thread::scope(|scope| {
            match std::thread::Builder::new().spawn_scoped(scope, side) {
                Ok(handle) => {
                    let built = main();
                    (built, handle.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                }
                Err(_) => (main(), side()),
            }
        });
        let identity = ids.iter().enumerate().all(|(i, &id)| id == i as u32);
        WordPiece { trie, whole, continuation_root, failure, token_chars, ids, identity, max_input_chars_per_word }
    }

    /// Splits `word` (code points), appending `(token index, end)` per piece
    /// to `out` (the piece is `word[previous end..end]`). Returns false, with
    /// `out` as it was, when the whole word is the unknown token: some
    /// remainder has no matching prefix, or the word is too long.
    pub fn tokenize_word(&self, word: &[u32], out: &mut Vec<(u32, u32)>) -> bool {
        if word.len() as i64 > self.max_input_chars_per_word {
            return false;
        }
        let mut bytes = Vec::with_capacity(word.len());
        encode_into(word, &mut bytes);
        let mark = out.len();
        let mut end = 0u32; // code points emitted so far
        let ok = self.pieces(&bytes, |t| {
            // The first piece is read whole; the later ones after their "##".
            end += self.token_chars[t as usize] - if out.len() > mark { 2 } else { 0 };
            out.push((t, end));
        });
        if !ok {
            out.truncate(mark);
        }
        ok
    }

    /// The ids of the pieces of `word` (UTF-8 of `chars` code points), passed
    /// to `emit`. False when the whole word is the unknown token; ids emitted
    /// before that are then the caller's to discard.
    #[inline]
    pub fn encode_word(&self, word: &[u8], chars: usize, emit: impl FnMut(u32)) -> bool {
        self.encode(word, chars, true, emit)
    }

    /// As [`encode_word`](Self::encode_word), for words a memo of recent
    /// words has just missed: the rarer words, less often tokens. With a
    /// large vocabulary the whole-word probe is skipped: it mostly misses,
    /// and its table (MBs) pushes the memo and the trie out of cache.
    /// Measured with the memo in front (docs/benchmarks.md): skipping it
    /// made the multilingual vocabulary faster on the UD files (ud-ko by a
    /// fifth), and bert-base-uncased slower on ud-en, so a small table keeps it.
    #[inline]
    pub fn encode_unseen_word(&self, word: &[u8], chars: usize, emit: impl FnMut(u32)) -> bool {
        self.encode(word, chars, self.whole.slots.len() <= SMALL_WHOLE_SLOTS, emit)
    }

    /// Both of the above; `probe_whole`: look the word up whole first.
    #[inline(always)]
    fn encode(&self, word: &[u8], chars: usize, probe_whole: bool, mut emit: impl FnMut(u32)) -> bool {
        if chars as i64 > self.max_input_chars_per_word {
            return false;
        }
        // A word that is a token is its own longest match (an empty word has no pieces).
        if let Some(id) = probe_whole.then(|| self.whole.get(word)).flatten().filter(|_| !word.is_empty()) {
            emit(id);
            return true;
        }
        if self.identity {
            self.pieces(word, emit)
        } else {
            self.pieces(word, |t| emit(self.ids[t as usize]))
        }
    }

    /// The token indexes of the pieces of `word`, by LinMaxMatch or, for a
    /// word starting with "##" (which could match through the continuation
    /// root itself, outside LinMaxMatch's automaton), the greedy loop.
    #[inline]
    fn pieces(&self, word: &[u8], emit: impl FnMut(u32)) -> bool {
        match (&self.failure, self.continuation_root) {
            (Some(f), Some(r)) if !word.starts_with(b"##") => self.linear(f, r, word, emit),
            _ => self.greedy(word, emit),
        }
    }

    /// LinMaxMatch (the paper's Algorithm 2): follow failure links, emitting
    /// their pops, until the next byte can be taken; at the end of the word,
    /// fail back to the continuation root.
    fn linear(&self, f: &Failure, continuation_root: u32, word: &[u8], mut emit: impl FnMut(u32)) -> bool {
        let mut node = 0u32;
        for &byte in word {
            loop {
                if let Some(next) = self.trie.child(node, byte) {
                    node = next;
                    // Its failure step is needed when the next byte is not a child.
                    if let Some(step) = f.steps.get(next as usize) {
                        prefetch(step);
                    }
                    break;
                }
                let Some(link) = f.follow(node, &mut emit) else { return false };
                node = link;
            }
        }
        while node != continuation_root && !(node == 0 && word.is_empty()) {
            let Some(link) = f.follow(node, &mut emit) else { return false };
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
                let t = self.trie.token(node);
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
        let mut c = Vec::new();
        assert_eq!(w.encode_unseen_word(&bytes, word.len(), |t| c.push(t)).then_some(c), greedy, "unseen, word {word:?}");
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
    fn a_large_vocabulary_skips_the_whole_word_probe_for_unseen_words_and_still_equals_greedy() {
        let alphabet = ['a', 'b', 'c', 'é', '中'];
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut tokens = std::collections::BTreeSet::new();
        while tokens.len() < 80_000 {
            let len = 1 + rng(&mut seed) % 8;
            let t: String = (0..len).map(|_| alphabet[(rng(&mut seed) % 5) as usize]).collect();
            tokens.insert(if tokens.len() % 4 == 0 { format!("##{t}") } else { t });
        }
        tokens.insert("##".into());
        let tokens: Vec<String> = tokens.into_iter().collect();
        let bytes: Vec<&[u8]> = tokens.iter().map(|t| t.as_bytes()).collect();
        let w = WordPiece::new(&bytes, 1000);
        assert!(w.whole.slots.len() > SMALL_WHOLE_SLOTS, "the probe is skipped for this vocabulary");
        // Random words (most of several pieces), and the tokens themselves (whole words).
        for k in 0..3000 {
            let word: Vec<u32> = if k % 3 == 0 {
                tokens[(rng(&mut seed) % tokens.len() as u64) as usize].chars().map(|c| c as u32).collect()
            } else {
                (0..rng(&mut seed) % 20).map(|_| alphabet[(rng(&mut seed) % 5) as usize] as u32).collect()
            };
            let (greedy, fast) = both(&w, &word);
            assert_eq!(greedy, fast, "word {word:?}");
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
    fn pieces_come_out_as_ids_when_ids_are_not_the_indexes() {
        // Ids as a vocabulary with repeated lines gives them (transformers keeps the last).
        let tokens = ["[UNK]", "un", "##aff", "##able", "una", "##ff", "a", "##a", "##"];
        let bytes: Vec<&[u8]> = tokens.iter().map(|t| t.as_bytes()).collect();
        let ids: Vec<u32> = (0..tokens.len() as u32).map(|i| 100 + 7 * i).collect();
        let w = WordPiece::with_ids(&bytes, ids.clone(), 200);
        assert!(!w.identity);
        for word in ["unaffable", "aaa", "una", "a", "unx"] {
            let mut want = Vec::new();
            let greedy = w.greedy(word.as_bytes(), |t| want.push(ids[t as usize]));
            let mut got = Vec::new();
            let fast = w.encode_word(word.as_bytes(), word.chars().count(), |id| got.push(id));
            assert_eq!(fast, greedy, "{word}");
            let mut walked = Vec::new();
            assert_eq!(w.encode_unseen_word(word.as_bytes(), word.chars().count(), |id| walked.push(id)), greedy, "{word}");
            if greedy {
                assert_eq!(got, want, "{word}");
                assert_eq!(walked, want, "{word}");
            }
        }
        let mut got = Vec::new();
        assert!(w.encode_word(b"unaffable", 9, |id| got.push(id)));
        assert_eq!(got, [ids[4], ids[5], ids[3]]);
    }

    #[test]
    fn bare_prefix_is_not_a_piece() {
        // "##" itself never matches an empty continuation.
        let w = wp(&["a", "##"], 200);
        assert_eq!(run(&w, "ab"), None);
    }
}
