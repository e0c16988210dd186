//! Pre-token counting for `Tokenizer.train`: each text goes through a
//! tokenizer.json's own normalizer and pre-tokenizer (the general pipeline's
//! components, run as the pipeline runs them on a text without added tokens)
//! and every non-empty pre-token is counted, as HF's trainers count them.
//! Three shapes the `bertpiece.trainers` functions already count with their
//! own one-pass counters are counted by those (5-8x faster: no per-char
//! offsets kept): BertNormalizer (clean_text) + BertPreTokenizer, ByteLevel
//! (use_regex) alone, Metaspace() alone; the same counts (tested against HF's
//! components). Texts are counted in parallel on the thread pool, a batch at a
//! time; only the counts are kept, so memory is bounded by the unique pre-tokens.

use super::byte_level::ByteLevelCounter;
use super::count::{CountOptions, WordCounter};
use super::feed::{bump, feed_counts};
use super::unigram::MetaspaceCounter;
use crate::config;
use crate::fxhash::FxHashMap;
use crate::normalized_string::NormalizedString;
use crate::normalizer::Reference;
use crate::normalizers::Normalizer;
use crate::pre_tokenizers::metaspace::PrependScheme;
use crate::pre_tokenizers::PreTokenizer;
use crate::{Error, Result};

/// Streaming counter of a tokenizer's pre-tokens: `feed` batches, then `into_counts`.
pub enum PreTokenCounter {
    General(GeneralCounter),
    Bert(Box<WordCounter>),
    ByteLevel(ByteLevelCounter),
    Metaspace(MetaspaceCounter),
}

impl PreTokenCounter {
    /// The normalizer and pre-tokenizer of a tokenizer.json (its other parts are
    /// ignored; a component the pipeline refuses is its error).
    pub fn from_json(text: &str) -> Result<Self> {
        let c = config::parse(text)?;
        Ok(match (&c.normalizer, &c.pre_tokenizer) {
            (Some(Normalizer::Bert(b)), Some(PreTokenizer::Bert)) if b.clean_text => {
                PreTokenCounter::Bert(Box::new(WordCounter::new(CountOptions {
                    reference: Reference::Tokenizers,
                    do_lower_case: b.lowercase,
                    strip_accents: b.strip_accents,
                    tokenize_chinese_chars: b.handle_chinese_chars,
                    max_chars: None,
                })?))
            }
            (None, Some(PreTokenizer::ByteLevel(b))) if b.use_regex => PreTokenCounter::ByteLevel(ByteLevelCounter::new(b.add_prefix_space)?),
            (None, Some(PreTokenizer::Metaspace(m))) if m.replacement == '\u{2581}' && m.split && matches!(m.prepend_scheme, PrependScheme::Always) => {
                PreTokenCounter::Metaspace(MetaspaceCounter::default())
            }
            _ => PreTokenCounter::General(GeneralCounter::new(c.normalizer, c.pre_tokenizer)),
        })
    }

    /// Counts the pre-tokens of `texts` (UTF-8) on `num_threads` threads.
    pub fn feed(&mut self, texts: &[&[u8]], num_threads: Option<usize>) -> Result<()> {
        match self {
            PreTokenCounter::General(c) => c.feed(texts, num_threads),
            PreTokenCounter::Bert(c) => c.feed(texts, num_threads),
            PreTokenCounter::ByteLevel(c) => c.feed(texts, num_threads),
            PreTokenCounter::Metaspace(c) => c.feed(texts, num_threads),
        }
    }

    /// Pre-tokens seen (non-empty ones).
    pub fn words(&self) -> u64 {
        match self {
            PreTokenCounter::General(c) => c.words,
            PreTokenCounter::Bert(c) => c.words,
            PreTokenCounter::ByteLevel(c) => c.words,
            PreTokenCounter::Metaspace(c) => c.words,
        }
    }

    pub fn unique_words(&self) -> usize {
        match self {
            PreTokenCounter::General(c) => c.counts.len(),
            PreTokenCounter::Bert(c) => c.unique_words(),
            PreTokenCounter::ByteLevel(c) => c.unique_words(),
            PreTokenCounter::Metaspace(c) => c.unique_words(),
        }
    }

    /// The pre-tokens as code points with their counts, sorted by code points.
    pub fn into_counts(self) -> Vec<(Vec<u32>, u64)> {
        match self {
            PreTokenCounter::General(c) => c.into_counts(),
            PreTokenCounter::Bert(c) => c.into_counts(),
            PreTokenCounter::ByteLevel(c) => c.into_counts(),
            PreTokenCounter::Metaspace(c) => c.into_counts(),
        }
    }

    /// Which counter runs: "general", "bert", "byte_level" or "metaspace" (for tests).
    pub fn kind(&self) -> &'static str {
        match self {
            PreTokenCounter::General(_) => "general",
            PreTokenCounter::Bert(_) => "bert",
            PreTokenCounter::ByteLevel(_) => "byte_level",
            PreTokenCounter::Metaspace(_) => "metaspace",
        }
    }
}

/// Pre-tokens and their counts.
type Counts = FxHashMap<Box<str>, u64>;

/// The general counter: any normalizer and pre-tokenizer the pipeline runs.
pub struct GeneralCounter {
    normalizer: Option<Normalizer>,
    pre_tokenizer: Option<PreTokenizer>,
    counts: Counts,
    /// Pre-tokens seen (non-empty ones).
    pub words: u64,
}

impl GeneralCounter {
    fn new(normalizer: Option<Normalizer>, pre_tokenizer: Option<PreTokenizer>) -> Self {
        GeneralCounter { normalizer, pre_tokenizer, counts: Counts::default(), words: 0 }
    }

    /// Counts the pre-tokens of `texts` (UTF-8) on `num_threads` threads.
    pub fn feed(&mut self, texts: &[&[u8]], num_threads: Option<usize>) -> Result<()> {
        let (normalizer, pre_tokenizer) = (&self.normalizer, &self.pre_tokenizer);
        feed_counts(&mut self.counts, &mut self.words, texts, num_threads, |chunk| count_chunk(normalizer, pre_tokenizer, chunk))
    }

    /// The pre-tokens as code points with their counts, sorted by code points.
    fn into_counts(self) -> Vec<(Vec<u32>, u64)> {
        let mut all: Vec<(Box<str>, u64)> = self.counts.into_iter().collect();
        // UTF-8 byte order is code point order.
        all.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        all.into_iter().map(|(w, n)| (w.chars().map(u32::from).collect(), n)).collect()
    }
}

/// One chunk's pre-tokens through `normalizer` and `pre_tokenizer`, and the pre-tokens seen.
fn count_chunk(normalizer: &Option<Normalizer>, pre_tokenizer: &Option<PreTokenizer>, texts: &[&[u8]]) -> Result<(Counts, u64)> {
    let mut local = Counts::default();
    let mut seen = 0u64;
    let mut words = Vec::new();
    let mut word = String::new();
    for bytes in texts {
        let text = std::str::from_utf8(bytes).map_err(|_| Error::InvalidText)?;
        let mut whole = NormalizedString::new(text, 0)?;
        if let Some(n) = normalizer {
            n.normalize(&mut whole)?;
        }
        words.clear();
        match pre_tokenizer {
            Some(pt) => pt.pre_tokenize(whole, &mut words)?,
            None => words.push(whole),
        }
        for w in &words {
            if w.is_empty() {
                continue; // HF drops empty pre-tokens
            }
            seen += 1;
            word.clear();
            word.extend(w.chars.iter());
            bump(&mut local, word.as_str());
        }
    }
    Ok((local, seen))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(json: &str, texts: &[&str], threads: usize) -> Vec<(String, u64)> {
        let mut c = PreTokenCounter::from_json(json).unwrap();
        let bytes: Vec<&[u8]> = texts.iter().map(|t| t.as_bytes()).collect();
        c.feed(&bytes, Some(threads)).unwrap();
        c.into_counts().into_iter().map(|(w, n)| (w.iter().filter_map(|&c| char::from_u32(c)).collect(), n)).collect()
    }

    fn stage(normalizer: &str, pre_tokenizer: &str) -> String {
        format!(
            r#"{{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":{normalizer},
            "pre_tokenizer":{pre_tokenizer},"post_processor":null,"decoder":null,
            "model":{{"type":"WordLevel","vocab":{{"<unk>":0}},"unk_token":"<unk>"}}}}"#
        )
    }

    #[test]
    fn counts_normalized_pre_tokens_without_empty_ones() {
        let json = stage(r#"{"type":"Lowercase"}"#, r#"{"type":"Whitespace"}"#);
        let got = counts(&json, &["Hello, hello  World!", "", "   "], 1);
        let want = [("!", 1), (",", 1), ("hello", 2), ("world", 1)];
        assert_eq!(got, want.map(|(w, n)| (w.to_string(), n)));
    }

    #[test]
    fn no_pre_tokenizer_counts_whole_texts_and_threads_do_not_matter() {
        let texts: Vec<String> = (0..3000).map(|i| format!("w{} x", i % 41)).collect();
        let refs: Vec<&str> = texts.iter().map(|s| s.as_str()).collect();
        let json = stage("null", "null");
        let one = counts(&json, &refs, 1);
        assert_eq!(one.len(), 41);
        assert_eq!(one, counts(&json, &refs, 2));
    }
}
