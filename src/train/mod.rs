//! WordPiece vocabulary training.
//!
//! [`count`] counts words with the encoder's own normalization; then one of
//! two merge algorithms builds the vocabulary from the counts:
//! [`likelihood`] (the WordPiece score `count(ab) / (count(a) * count(b))`,
//! exact and deterministic) and [`hf`] (HF tokenizers' `WordPieceTrainer`,
//! which merges by pair frequency). Both return the tokens in id order.
//! [`bpe`] trains BPE (HF's `BpeTrainer`) on the same counts, or on the
//! byte-level words of [`byte_level`], or on the pre-tokens of any
//! tokenizer.json's normalizer and pre-tokenizer ([`pre_tokens`]).

pub mod bpe;
pub mod byte_level;
pub mod count;
mod feed;
pub mod hf;
pub mod pre_tokens;
pub mod unigram;
mod likelihood;

use crate::{Error, Result};

pub use count::{CountOptions, WordCounter};

/// Which merge rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    Likelihood,
    Hf,
}

impl Algorithm {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "likelihood" => Ok(Algorithm::Likelihood),
            "hf" => Ok(Algorithm::Hf),
            other => Err(Error::TrainOption(format!("unknown algorithm {other:?}: expected \"likelihood\" or \"hf\""))),
        }
    }
}

/// Training settings beyond the counting.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    pub vocab_size: usize,
    pub algorithm: Algorithm,
    /// First in the vocabulary, in this order (duplicates once).
    pub special_tokens: Vec<String>,
    /// `[unused0]` .. `[unusedN-1]` after the special tokens.
    pub unused_tokens: usize,
    /// A pair seen fewer times is never merged.
    pub min_frequency: u64,
    /// Keep at most this many characters (the most frequent).
    pub limit_alphabet: Option<usize>,
    /// Characters always in the alphabet (they count against `limit_alphabet`).
    pub initial_alphabet: Vec<char>,
    pub prefix: String,
    /// hf only: the tokens after the special ones before any merge, in id
    /// order (tests pass the order one HF run chose; see `hf.rs`).
    pub initial_tokens: Option<Vec<String>>,
}

/// What training made.
#[derive(Clone, Debug, Default)]
pub struct Trained {
    pub tokens: Vec<String>,
    /// Characters in the alphabet and merges done.
    pub alphabet: usize,
    pub merges: usize,
}

/// Progress of the merges: `(vocabulary size now, target)`; returning
/// false stops training (the result is then incomplete: callers drop it).
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize) -> bool;

/// Trains on `counts` (words as code points with their counts, sorted).
pub fn train(counts: &[(Vec<u32>, u64)], opts: &TrainOptions, progress: Progress<'_>) -> Result<Trained> {
    if opts.special_tokens.iter().any(|t| t.is_empty()) {
        return Err(Error::TrainOption("special tokens must not be empty".into()));
    }
    // Checked before the [unusedN] tokens are made (a huge count is refused, not allocated).
    let reserved = opts.special_tokens.len().saturating_add(opts.unused_tokens);
    if opts.unused_tokens > 0 && reserved > opts.vocab_size {
        return Err(Error::TrainVocabTooSmall { vocab_size: opts.vocab_size, needed: reserved });
    }
    match opts.algorithm {
        Algorithm::Likelihood => likelihood::train(counts, opts, progress),
        Algorithm::Hf => hf::train(counts, opts, progress),
    }
}

/// Tokens by string, each once, in the order added.
#[derive(Default)]
pub(crate) struct TokenTable {
    pub tokens: Vec<String>,
    ids: crate::fxhash::FxHashMap<String, u32>,
}

impl TokenTable {
    /// The id of `token`, added at the end if new.
    pub fn add(&mut self, token: String) -> u32 {
        if let Some(&id) = self.ids.get(&token) {
            return id;
        }
        let id = self.tokens.len() as u32;
        self.ids.insert(token.clone(), id);
        self.tokens.push(token);
        id
    }

    pub fn get(&self, token: &str) -> Option<u32> {
        self.ids.get(token).copied()
    }

    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// The special tokens, then `[unusedN]`.
    pub fn with_specials(opts: &TrainOptions) -> Self {
        let mut t = TokenTable::default();
        for s in &opts.special_tokens {
            t.add(s.clone());
        }
        for i in 0..opts.unused_tokens {
            t.add(format!("[unused{i}]"));
        }
        t
    }
}

/// The alphabet: every character of the words weighted by count, plus the
/// initial alphabet (ranked above all); with a limit, the most frequent
/// kept, ties to the smaller code point. Sorted by code point.
pub(crate) fn alphabet(counts: &[(Vec<u32>, u64)], opts: &TrainOptions) -> Vec<u32> {
    alphabet_of(counts, opts.limit_alphabet, &opts.initial_alphabet)
}

/// [`alphabet`] from its two options.
pub(crate) fn alphabet_of(counts: &[(Vec<u32>, u64)], limit: Option<usize>, initial: &[char]) -> Vec<u32> {
    let mut freq: crate::fxhash::FxHashMap<u32, u64> = Default::default();
    for (w, n) in counts {
        for &c in w {
            let f = freq.entry(c).or_insert(0);
            *f = f.saturating_add(*n);
        }
    }
    for &c in initial {
        freq.insert(c as u32, u64::MAX);
    }
    let mut kept: Vec<(u32, u64)> = freq.into_iter().collect();
    if let Some(limit) = limit {
        kept.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        kept.truncate(limit);
    }
    let mut chars: Vec<u32> = kept.into_iter().map(|k| k.0).collect();
    chars.sort_unstable();
    chars
}

pub(crate) fn char_string(c: u32) -> String {
    char::from_u32(c).map_or_else(|| "\u{FFFD}".into(), String::from)
}

/// `a` followed by `b` without its continuing-subword prefix.
pub(crate) fn joined(a: &str, b: &str, prefix: &str) -> String {
    let tail = b.strip_prefix(prefix).unwrap_or(b);
    let mut s = String::with_capacity(a.len() + tail.len());
    s.push_str(a);
    s.push_str(tail);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn words(v: &[(&str, u64)]) -> Vec<(Vec<u32>, u64)> {
        v.iter().map(|&(w, n)| (w.chars().map(|c| c as u32).collect(), n)).collect()
    }

    pub(crate) fn options(vocab_size: usize, algorithm: Algorithm) -> TrainOptions {
        TrainOptions {
            vocab_size,
            algorithm,
            special_tokens: ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].map(String::from).to_vec(),
            unused_tokens: 0,
            min_frequency: 0,
            limit_alphabet: None,
            initial_alphabet: Vec::new(),
            prefix: "##".into(),
            initial_tokens: None,
        }
    }

    #[test]
    fn alphabet_limit_keeps_frequent_then_smaller() {
        let mut o = options(100, Algorithm::Likelihood);
        o.limit_alphabet = Some(3);
        o.initial_alphabet = vec!['z'];
        let w = words(&[("ab", 2), ("cd", 1)]);
        // z forced; a, b have 2; c, d tie at 1 and lose.
        assert_eq!(alphabet(&w, &o), vec!['a' as u32, 'b' as u32, 'z' as u32]);
        o.limit_alphabet = Some(4);
        assert_eq!(alphabet(&w, &o), vec!['a' as u32, 'b' as u32, 'c' as u32, 'z' as u32]);
    }

    #[test]
    fn table_dedupes_and_joins() {
        let mut o = options(10, Algorithm::Likelihood);
        o.special_tokens.push("[PAD]".into());
        o.unused_tokens = 2;
        let t = TokenTable::with_specials(&o);
        assert_eq!(t.tokens, ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[unused0]", "[unused1]"]);
        assert_eq!(joined("##ab", "##c", "##"), "##abc");
        assert_eq!(joined("a", "b", ""), "ab");
    }

    #[test]
    fn bad_options() {
        assert!(Algorithm::parse("bpe").is_err());
        let mut o = options(10, Algorithm::Hf);
        o.special_tokens.push(String::new());
        assert!(matches!(train(&[], &o, &mut |_, _| true), Err(Error::TrainOption(_))));
        let mut o = options(10, Algorithm::Hf);
        o.unused_tokens = usize::MAX;
        assert!(matches!(train(&[], &o, &mut |_, _| true), Err(Error::TrainVocabTooSmall { .. })));
    }
}
