//! The general path's fast path for files of plain words: no normalizer, a
//! `Whitespace` or `WhitespaceSplit` pre-tokenizer and a WordLevel or BPE model
//! (the shapes HF's WordLevel and BPE trainers' examples make). The general
//! path builds a `NormalizedString` (a char and a span per char) for the text
//! and for each word, a `String` per word and one per token, and merges every
//! BPE word again; here the words are found on the borrowed text, WordLevel
//! looks each up in an Fx-hashed copy of its vocabulary, and BPE keeps each
//! short word's tokens in a per-thread memo. Without a normalizer every char
//! is its own original span, so a token's offsets are its word's char position
//! plus its chars in the word. Same encodings as the general path: tests below
//! and tests/test_pipeline_words_fast.py (against tokenizers 0.23.3 too).

use crate::config::TokenizerConfig;
use crate::encoding::Encoding;
use crate::fxhash::FxHashMap;
use crate::models::{Model, ModelToken};
use crate::pre_tokenizers::char_class::whitespace_words;
use crate::pre_tokenizers::PreTokenizer;
use crate::pre_tokenizer::is_hf_space;
use crate::Result;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Longest word the BPE memo keeps (bytes).
const MEMO_MAX_BYTES: usize = 64;
/// Words, and their tokens, the memo holds before it starts over (~3 tokens a word in
/// English; the token cap bounds it at ~6 MB whatever the words).
const MEMO_WORDS: usize = 1 << 15;
const MEMO_TOKENS: usize = 1 << 18;

static NEXT_KEY: AtomicU64 = AtomicU64::new(1);

#[derive(Clone)]
pub(super) struct PlainWords {
    /// `Whitespace` (runs of `\w`, runs of other non-spaces), else `WhitespaceSplit`.
    whitespace: bool,
    /// WordLevel: its vocabulary with Fx hashing and short words packed in the key (its own map's
    /// SipHash and the key's pointer chase were a third of the call), and its unknown token's id.
    whole: Option<Arc<(Words<u32>, Option<u32>)>>,
    /// Tells this model's words in the per-thread memo from another's.
    key: u64,
}

/// A map keyed by words: words of up to 15 bytes packed into the key itself (no pointer to follow).
#[derive(Default)]
struct Words<V> {
    short: FxHashMap<u128, V>,
    long: FxHashMap<Box<str>, V>,
}

impl<V: Copy> Words<V> {
    fn get(&self, w: &str) -> Option<V> {
        match pack(w) {
            Some(k) => self.short.get(&k).copied(),
            None => self.long.get(w).copied(),
        }
    }

    fn insert(&mut self, w: &str, v: V) {
        match pack(w) {
            Some(k) => self.short.insert(k, v),
            None => self.long.insert(w.into(), v),
        };
    }

    fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }

    fn clear(&mut self) {
        self.short.clear();
        self.long.clear();
    }
}

/// A word of up to 15 bytes as a key: its bytes, then its length in the last byte.
#[inline]
fn pack(w: &str) -> Option<u128> {
    let b = w.as_bytes();
    if b.len() > 15 {
        return None;
    }
    let mut key = [0u8; 16];
    key[..b.len()].copy_from_slice(b);
    key[15] = b.len() as u8;
    Some(u128::from_le_bytes(key))
}

/// A thread's memo of BPE words (word -> its tokens in `tokens`) and scratch space.
#[derive(Default)]
struct Memo {
    owner: u64,
    words: Words<(u32, u32)>,
    tokens: Vec<ModelToken>,
    miss: Vec<ModelToken>,
    char_of: Vec<usize>,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// The fast path for `config`, when its shape is plain words.
pub(super) fn for_shape(config: &TokenizerConfig) -> Option<PlainWords> {
    if config.normalizer.is_some() {
        return None;
    }
    let whitespace = match config.pre_tokenizer {
        Some(PreTokenizer::Whitespace) => true,
        Some(PreTokenizer::WhitespaceSplit) => false,
        _ => return None,
    };
    let whole = match &config.model {
        Model::WordLevel(m) => {
            let mut words = Words::default();
            m.vocab.iter().for_each(|(t, &id)| words.insert(t, id));
            Some(Arc::new((words, m.vocab.get(&m.unk_token).copied())))
        }
        Model::Bpe(_) => None,
        _ => return None,
    };
    Some(PlainWords { whitespace, whole, key: NEXT_KEY.fetch_add(1, Ordering::Relaxed) })
}

impl PlainWords {
    /// The words of `text` (byte ranges), as the pre-tokenizer splits it.
    fn words<'a>(&self, text: &'a str, ascii: bool) -> impl Iterator<Item = (usize, usize)> + 'a {
        if self.whitespace && ascii {
            WordRanges::Ascii(ascii_whitespace_words(text.as_bytes()))
        } else if self.whitespace {
            WordRanges::Regex(whitespace_words(text))
        } else {
            WordRanges::Runs(non_space_runs(text))
        }
    }

    /// Appends the tokens of `text` (a piece between added tokens, starting at char
    /// `origin` of the original text); words numbered from `next_word` unless `word` is given.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn encode_piece(&self, model: &Model, text: &str, origin: usize, next_word: &mut u32, word: Option<u32>, type_id: u32, out: &mut Encoding) -> Result<()> {
        let ascii = text.is_ascii();
        MEMO.with(|memo| {
            let mut memo = memo.borrow_mut();
            let memo = &mut *memo;
            if memo.owner != self.key {
                memo.words.clear();
                memo.tokens.clear();
                memo.owner = self.key;
            }
            let mut char_of = std::mem::take(&mut memo.char_of);
            // chars of `text` before byte `last`
            let (mut last, mut chars_before) = (0usize, 0usize);
            for (s, e) in self.words(text, ascii) {
                let start = if ascii {
                    s
                } else {
                    chars_before += text.get(last..s).map_or(0, |t| t.chars().count());
                    last = s;
                    chars_before
                };
                let w = text.get(s..e).unwrap_or_default();
                let tokens = self.tokens(model, w, memo)?;
                let wid = Some(word.unwrap_or(*next_word));
                let at = origin + start;
                if ascii {
                    for &(id, bs, be) in tokens {
                        out.push(id, None, if bs < be { (at + bs, at + be) } else { (at, at) }, wid, type_id);
                    }
                } else {
                    // byte offset in the word -> char index, as the general path counts
                    char_of.clear();
                    for (ci, c) in w.chars().enumerate() {
                        char_of.extend(std::iter::repeat_n(ci, c.len_utf8()));
                    }
                    let n = w.chars().count();
                    for &(id, bs, be) in tokens {
                        let a = char_of.get(bs).copied().unwrap_or(n);
                        let b = char_of.get(be.wrapping_sub(1)).map_or(n, |c| c + 1);
                        out.push(id, None, if a < b { (at + a, at + b) } else { (at, at) }, wid, type_id);
                    }
                }
                *next_word += 1;
            }
            memo.char_of = char_of;
            Ok(())
        })
    }

    /// The model's tokens of the word `w` (non-empty): WordLevel's vocabulary, the memo, or the model.
    /// Every id is the model vocabulary's, so its token text is the vocabulary's (stored as None).
    fn tokens<'m>(&self, model: &Model, w: &str, memo: &'m mut Memo) -> Result<&'m [ModelToken]> {
        memo.miss.clear();
        if let Some(whole) = &self.whole {
            // WordLevel: the word's id, else the unknown token's (else the model's error)
            match whole.0.get(w).or(whole.1) {
                Some(id) => memo.miss.push((id, 0, w.len())),
                None => model.tokenize(w, &mut memo.miss)?,
            }
            return Ok(&memo.miss);
        }
        if w.len() > MEMO_MAX_BYTES {
            model.tokenize(w, &mut memo.miss)?;
            return Ok(&memo.miss);
        }
        if let Some((at, n)) = memo.words.get(w) {
            return Ok(memo.tokens.get(at as usize..(at + n) as usize).unwrap_or_default());
        }
        model.tokenize(w, &mut memo.miss)?;
        if memo.words.len() >= MEMO_WORDS || memo.tokens.len() + memo.miss.len() > MEMO_TOKENS {
            memo.words.clear();
            memo.tokens.clear();
        }
        let at = memo.tokens.len();
        memo.tokens.extend_from_slice(&memo.miss);
        memo.words.insert(w, (at as u32, memo.miss.len() as u32));
        Ok(&memo.miss)
    }
}

/// One of the word scans (an enum, not a boxed iterator: no allocation per piece).
enum WordRanges<A, B, C> {
    Ascii(A),
    Regex(B),
    Runs(C),
}

impl<A, B, C> Iterator for WordRanges<A, B, C>
where
    A: Iterator<Item = (usize, usize)>,
    B: Iterator<Item = (usize, usize)>,
    C: Iterator<Item = (usize, usize)>,
{
    type Item = (usize, usize);

    #[inline]
    fn next(&mut self) -> Option<(usize, usize)> {
        match self {
            WordRanges::Ascii(i) => i.next(),
            WordRanges::Regex(i) => i.next(),
            WordRanges::Runs(i) => i.next(),
        }
    }
}

/// Whitespace's words (`\w+|[^\w\s]+`) of an ASCII text: runs of `[0-9A-Za-z_]`, and runs of the
/// other bytes but `\s` (tab to carriage return, space); the regex's matches, without its search.
fn ascii_whitespace_words(text: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    // 0: space, 1: word, 2: other
    let class = |b: u8| match b {
        b'\t'..=b'\r' | b' ' => 0u8,
        b'0'..=b'9' | b'A'..=b'Z' | b'a'..=b'z' | b'_' => 1,
        _ => 2,
    };
    let mut i = 0;
    std::iter::from_fn(move || {
        while text.get(i).is_some_and(|&b| class(b) == 0) {
            i += 1;
        }
        let c = class(*text.get(i)?);
        let start = i;
        while text.get(i).is_some_and(|&b| class(b) == c) {
            i += 1;
        }
        Some((start, i))
    })
}

/// WhitespaceSplit's words: the runs of chars that are not HF's whitespace.
fn non_space_runs(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut start = None;
    let mut chars = text.char_indices();
    std::iter::from_fn(move || loop {
        match chars.next() {
            Some((i, c)) if is_hf_space(c as u32) => {
                if let Some(s) = start.take() {
                    return Some((s, i));
                }
            }
            Some((i, _)) => {
                start.get_or_insert(i);
            }
            None => return start.take().map(|s| (s, text.len())),
        }
    })
}

#[cfg(test)]
#[path = "pipeline_words_tests.rs"]
mod tests;
