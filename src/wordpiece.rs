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
//!
//! The parts: the trie (`wordpiece_trie.rs`), the failure links
//! (`wordpiece_failure.rs`), the tables of word-initial and continuation
//! tokens (`wordpiece_whole_words.rs`) and the cold-word path that probes
//! them by prefixes (`wordpiece_prefixes.rs`).

use crate::prefetch::prefetch;
use crate::unicode::encode_into;
use failure::Failure;
use trie::{Trie, NO_TOKEN};
use whole_words::{Keys, WholeWords, SMALL_WHOLE_SLOTS};

#[path = "wordpiece_failure.rs"]
mod failure;
#[path = "wordpiece_prefixes.rs"]
mod prefixes;
#[path = "wordpiece_trie.rs"]
mod trie;
#[path = "wordpiece_whole_words.rs"]
mod whole_words;

/// Greedy longest-match-first WordPiece over a fixed token list.
#[derive(Clone, Debug)]
pub struct WordPiece {
    trie: Trie,
    whole: WholeWords,
    continuation: WholeWords,
    /// Words the memo missed go through [`prefixes`]: the vocabulary is
    /// small, both tables hold every token of their kind, every token is UTF-8.
    by_prefixes: bool,
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
            let whole = WholeWords::build(tokens, &ids, Keys::Initial);
            // The prefix probes are for small vocabularies only (`encode_unseen_word`):
            // a large one gets no continuation table (1.1 MiB less for multilingual-cased).
            let small = whole.slots.len() <= SMALL_WHOLE_SLOTS;
            let continuation = WholeWords::build(if small { tokens } else { &[] }, &ids, Keys::Continuation);
            let probes = small && tokens.iter().all(|t| std::str::from_utf8(t).is_ok());
            (whole, continuation, probes, chars)
        };
        let main = || {
            let trie = Trie::build(tokens);
            let root = trie.walk(0, b"##");
            let failure = root.map(|r| Failure::build(&trie, r));
            (trie, root, failure)
        };
        let ((trie, continuation_root, failure), (whole, continuation, probes, token_chars)) = std::thread::scope(|scope| {
            match std::thread::Builder::new().spawn_scoped(scope, side) {
                Ok(handle) => {
                    let built = main();
                    (built, handle.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                }
                Err(_) => (main(), side()),
            }
        });
        let identity = ids.iter().enumerate().all(|(i, &id)| id == i as u32);
        let by_prefixes = probes && whole.complete && continuation.complete;
        WordPiece { trie, whole, continuation, by_prefixes, continuation_root, failure, token_chars, ids, identity, max_input_chars_per_word }
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
    /// small vocabulary (its word-initial table at most SMALL_WHOLE_SLOTS)
    /// they go by prefix probes, the loads overlapping (`wordpiece_prefixes.rs`),
    /// where the vocabulary and word allow, else the whole word is probed and
    /// then LinMaxMatch walks the trie. A large vocabulary walks the trie
    /// only: on its words, which share the trie's hot upper nodes, the
    /// probes' cache misses cost more than the walk (measured:
    /// docs/benchmarks/wordpiece-miss-32.md), and its table (MBs) pushes
    /// the memo and the trie out of cache (docs/benchmarks/bert-bulk.md).
    #[inline]
    pub fn encode_unseen_word(&self, word: &[u8], chars: usize, emit: impl FnMut(u32)) -> bool {
        if self.takes_prefixes(word) {
            if chars as i64 > self.max_input_chars_per_word {
                return false;
            }
            return prefixes::pieces(&self.whole, &self.continuation, word, emit);
        }
        self.encode(word, chars, self.whole.slots.len() <= SMALL_WHOLE_SLOTS, emit)
    }

    /// Whether [`prefixes::pieces`] may split `word` (never with a large vocabulary).
    #[inline(always)]
    fn takes_prefixes(&self, word: &[u8]) -> bool {
        self.by_prefixes && (1..=prefixes::MAX_WORD).contains(&word.len()) && !word.starts_with(b"##")
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
#[path = "wordpiece_tests.rs"]
mod tests;
