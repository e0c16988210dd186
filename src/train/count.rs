//! Word counting for training: texts go through the encoder's one-pass
//! normalization and pre-tokenization (the same code `encode` runs, with the
//! general path for the chunks it hands back), and each word is counted.
//! Memory is bounded by the unique words, not the corpus: texts are fed a
//! batch at a time and only the counts are kept.

use crate::encoder::{Buffers, Encoder};
use crate::fxhash::{hash_bytes, FxHashMap};
use crate::normalizer::{Reference, WordCase};
use crate::threads::{for_each_slice, run_jobs, thread_count};
use crate::tokenizer::{BasicOptions, BasicTokenizer};
use crate::unicode;
use crate::{Error, Result};
use std::cell::RefCell;

/// Counts are kept in this many shards (by word hash), merged in parallel.
const SHARDS: usize = 64;
/// Texts per parallel task at least: enough that a task's local map pays off.
const MIN_TEXTS_PER_TASK: usize = 256;
/// The id pushed for a word that is not counted (longer than the limit).
const SKIPPED: u32 = u32::MAX;

/// Counted words whose hash falls in one shard.
type Shard = FxHashMap<Box<[u8]>, u64>;

/// One task's counted words, by shard.
type ShardedWords = Vec<Vec<(Box<[u8]>, u64)>>;

/// How texts are normalized and split, as in the tokenizer that will use the vocabulary.
#[derive(Clone, Debug)]
pub struct CountOptions {
    pub reference: Reference,
    pub do_lower_case: bool,
    pub strip_accents: Option<bool>,
    pub tokenize_chinese_chars: bool,
    /// Words with more characters are not counted (they encode as the unknown token).
    pub max_chars: Option<usize>,
}

/// Streaming word counter: `feed` batches, then `into_counts`.
pub struct WordCounter {
    opts: CountOptions,
    encoder: Encoder,
    basic: BasicTokenizer,
    shards: Vec<Shard>,
    /// Words seen (counted or not) and words skipped for their length.
    pub words: u64,
    pub skipped: u64,
}

/// One task's words: interned so that the encoder's roll-backs (a chunk it
/// hands to the general path) never count a word twice.
#[derive(Default)]
struct Local {
    index: FxHashMap<Box<[u8]>, u32>,
    counts: Vec<u64>,
}

impl Local {
    #[inline]
    fn intern(&mut self, word: &[u8]) -> u32 {
        if let Some(&id) = self.index.get(word) {
            return id;
        }
        let id = self.counts.len() as u32;
        self.counts.push(0);
        self.index.insert(word.into(), id);
        id
    }
}

impl WordCounter {
    pub fn new(opts: CountOptions) -> Result<Self> {
        let basic_opts = BasicOptions {
            do_lower_case: opts.do_lower_case,
            strip_accents: opts.strip_accents,
            tokenize_chinese_chars: opts.tokenize_chinese_chars,
            reference: opts.reference,
            ..Default::default()
        };
        let basic = BasicTokenizer::new(basic_opts)?;
        let case = WordCase::new(opts.do_lower_case, opts.strip_accents);
        let encoder = Encoder::new(opts.reference, case, opts.tokenize_chinese_chars, true);
        let shards = (0..SHARDS).map(|_| FxHashMap::default()).collect();
        Ok(WordCounter { opts, encoder, basic, shards, words: 0, skipped: 0 })
    }

    /// Counts the words of `texts` (generalized UTF-8), on `num_threads` threads.
    pub fn feed(&mut self, texts: &[&[u8]], num_threads: Option<usize>) -> Result<()> {
        let threads = thread_count(num_threads)?;
        // Two tasks per thread: few local maps (each interns the common words again).
        let per_task = texts.len().div_ceil(2 * threads).max(MIN_TEXTS_PER_TASK);
        let this = &*self;
        let chunks: Vec<&[&[u8]]> = texts.chunks(per_task).collect();
        let locals = run_jobs(threads, chunks.len(), |k| this.count_chunk(chunks[k]))?;
        let mut sharded = Vec::with_capacity(locals.len());
        for local in locals {
            let (words, seen, skipped) = local?;
            self.words += seen;
            self.skipped += skipped;
            sharded.push(words);
        }
        let shards: Vec<&mut [Shard]> = self.shards.iter_mut().map(std::slice::from_mut).collect();
        for_each_slice(threads, shards, |s, shard| {
            for local in &sharded {
                for (w, n) in &local[s] {
                    match shard[0].get_mut(&**w) {
                        Some(c) => *c += n,
                        None => {
                            shard[0].insert(w.clone(), *n);
                        }
                    }
                }
            }
        })?;
        Ok(())
    }

    /// One task: its words by shard, words seen, words skipped.
    fn count_chunk(&self, texts: &[&[u8]]) -> Result<(ShardedWords, u64, u64)> {
        let local = RefCell::new(Local::default());
        let max = self.opts.max_chars.unwrap_or(usize::MAX);
        let mut buffers = Buffers::default();
        let mut ids = Vec::new();
        let (mut seen, mut skipped) = (0u64, 0u64);
        for text in texts {
            ids.clear();
            let word = |w: &[u8], n: usize, out: &mut Vec<u32>| {
                out.push(if n > max { SKIPPED } else { local.borrow_mut().intern(w) });
            };
            let general = |t: &[u8], out: &mut Vec<u32>| -> Result<()> {
                let cps = unicode::decode(t).ok_or(Error::InvalidText)?;
                let mut bytes = Vec::new();
                self.basic.tokenize(&cps, None, |chars, _, _| {
                    if chars.len() > max {
                        out.push(SKIPPED);
                        return;
                    }
                    bytes.clear();
                    unicode::encode_into(chars, &mut bytes);
                    out.push(local.borrow_mut().intern(&bytes));
                });
                Ok(())
            };
            self.encoder.encode(text, &mut buffers, &mut ids, word, general)?;
            let mut l = local.borrow_mut();
            for &id in &ids {
                seen += 1;
                match l.counts.get_mut(id as usize) {
                    Some(c) => *c += 1,
                    None => skipped += 1,
                }
            }
        }
        let l = local.into_inner();
        let mut shards: ShardedWords = (0..SHARDS).map(|_| Vec::new()).collect();
        for (w, id) in l.index {
            let n = l.counts[id as usize];
            if n > 0 {
                shards[hash_bytes(&w) as usize % SHARDS].push((w, n));
            }
        }
        Ok((shards, seen, skipped))
    }

    /// The counted words and their counts, sorted by their UTF-8 bytes. A
    /// word with lone surrogates is left out.
    pub fn into_counts(self) -> Vec<(Vec<u32>, u64)> {
        let mut all: Vec<(Box<[u8]>, u64)> = self.shards.into_iter().flatten().collect();
        all.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        // A word with a lone surrogate (from a Python str) cannot be written to vocab.txt: left out.
        let valid = |w: &Vec<u32>| w.iter().all(|&c| char::from_u32(c).is_some());
        all.into_iter().filter_map(|(w, n)| Some((unicode::decode(&w).filter(valid)?, n))).collect()
    }

    pub fn unique_words(&self) -> usize {
        self.shards.iter().map(|s| s.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(reference: Reference, lower: bool, texts: &[&str], max: Option<usize>) -> Vec<(String, u64)> {
        let opts = CountOptions { reference, do_lower_case: lower, strip_accents: None, tokenize_chinese_chars: true, max_chars: max };
        let mut c = WordCounter::new(opts).unwrap();
        let bytes: Vec<&[u8]> = texts.iter().map(|t| t.as_bytes()).collect();
        c.feed(&bytes, Some(2)).unwrap();
        c.into_counts().into_iter().map(|(w, n)| (w.iter().map(|&c| char::from_u32(c).unwrap()).collect(), n)).collect()
    }

    fn pairs(v: &[(&str, u64)]) -> Vec<(String, u64)> {
        v.iter().map(|&(w, n)| (w.to_string(), n)).collect()
    }

    #[test]
    fn counts_normalized_words() {
        let got = counts(Reference::Google, true, &["Hello, hello world!", "Ça  中文 WORLD"], None);
        assert_eq!(got, pairs(&[("!", 1), (",", 1), ("ca", 1), ("hello", 2), ("world", 2), ("中", 1), ("文", 1)]));
    }

    #[test]
    fn cased_and_long_words() {
        let got = counts(Reference::Tokenizers, false, &["Aa aa abcdef"], Some(5));
        assert_eq!(got, pairs(&[("Aa", 1), ("aa", 1)]));
    }

    #[test]
    fn the_same_with_any_batching() {
        let texts: Vec<String> = (0..2000).map(|i| format!("w{} Ünï {}", i % 37, i % 3)).collect();
        let refs: Vec<&str> = texts.iter().map(|s| s.as_str()).collect();
        let all = counts(Reference::Transformers, true, &refs, None);
        let opts = CountOptions { reference: Reference::Transformers, do_lower_case: true, strip_accents: None, tokenize_chinese_chars: true, max_chars: None };
        let mut c = WordCounter::new(opts).unwrap();
        for part in refs.chunks(300) {
            let bytes: Vec<&[u8]> = part.iter().map(|t| t.as_bytes()).collect();
            c.feed(&bytes, Some(1)).unwrap();
        }
        assert_eq!(c.words, 6000);
        let got: Vec<(String, u64)> = c.into_counts().into_iter().map(|(w, n)| (w.iter().map(|&c| char::from_u32(c).unwrap()).collect(), n)).collect();
        assert_eq!(got, all);
    }
}
