//! BPE merges on a word's raw bytes for byte-level vocabularies: each byte
//! starts as the id of its byte-level char, merges come from a rank table
//! over id pairs, and the result of each short word is kept in a per-thread
//! cache. Same tokens as `models::bpe::Bpe::tokenize` on the byte-level
//! string (see [`ByteBpe::tokenize`] for why the linear merge is HF's order).

use super::cache::Piece;
use super::cache::{RawTable, WordCache};
use crate::fxhash::FxHashMap;
use crate::models::bpe::{Bpe, Word};
use crate::pre_tokenizers::byte_level::{char_byte, BYTES_CHAR};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Words up to this many bytes merge by linear scans (and are cached);
/// longer ones through the heap of [`Word`].
const LINEAR_MAX: usize = 64;

pub struct ByteBpe {
    byte_ids: [u32; 256],
    /// (left << 32 | right) -> (rank, merged id).
    merges: FxHashMap<u64, (u32, u32)>,
    /// `ignore_merges`: whole words (as raw bytes) found in the vocabulary.
    whole: Option<FxHashMap<Box<[u8]>, u32>>,
    /// Tells this model's entries in the per-thread cache from another's.
    cache_key: u64,
}

#[path = "words.rs"]
mod words;
#[cfg(test)]
use words::PAIR_IDS;

thread_local! {
    static CACHE: RefCell<WordCache> = RefCell::new(WordCache::new());
}

static NEXT_KEY: AtomicU64 = AtomicU64::new(0);

#[inline]
fn pair(a: u32, b: u32) -> u64 {
    (u64::from(a) << 32) | u64::from(b)
}

/// The per-thread cache borrowed for one text (see [`ByteBpe::with_cache`]).
pub struct Words<'a> {
    bpe: &'a ByteBpe,
    cache: Option<&'a mut WordCache>,
    /// Pieces of a word missing from the cache (reused across words).
    scratch: Vec<Piece>,
    /// The first word whose tokens could not be made (no memory): it gave no
    /// tokens, and [`ByteBpe::with_cache`] returns this error instead of the result.
    failed: Option<crate::Error>,
}


impl ByteBpe {
    /// None unless every byte's char is in the vocabulary and the model has
    /// no prefix/suffix (then the byte-level string needs no unk or fallback).
    /// An empty one is none: transformers' converters write `""` for both
    /// (RoBERTa, GPT-2, BART...), and the general model's tokens are the same.
    pub fn new(bpe: &Bpe) -> Option<ByteBpe> {
        let set = |affix: &Option<String>| affix.as_deref().is_some_and(|a| !a.is_empty());
        if set(&bpe.continuing_subword_prefix) || set(&bpe.end_of_word_suffix) {
            return None;
        }
        let mut byte_ids = [0u32; 256];
        for (b, id) in byte_ids.iter_mut().enumerate() {
            *id = *bpe.vocab.get(BYTES_CHAR[b].encode_utf8(&mut [0; 4]) as &str)?;
        }
        let merges = bpe.merges.iter().map(|(&(a, b), &v)| (pair(a, b), v)).collect();
        let whole = bpe.ignore_merges.then(|| {
            let raw = |t: &str| t.chars().map(char_byte).collect::<Option<Vec<u8>>>();
            bpe.vocab.iter().filter_map(|(t, &id)| Some((raw(t)?.into_boxed_slice(), id))).collect()
        });
        Some(ByteBpe { byte_ids, merges, whole, cache_key: NEXT_KEY.fetch_add(1, Ordering::Relaxed) })
    }

    #[inline]
    fn rank(&self, a: u32, b: u32) -> Option<(u32, u32)> {
        self.merges.get(&pair(a, b)).copied()
    }

    /// Appends the tokens of one non-empty word (raw bytes) to `out`.
    pub fn tokenize(&self, word: &[u8], out: &mut Vec<Piece>) -> crate::Result<()> {
        self.with_cache(|words| words.tokenize(word, 0, word.len(), out))
    }

    /// The ids of `text` by the scalar split, each piece tokenized on its
    /// own: what every ids loop is tested against.
    #[cfg(test)]
    pub(super) fn scalar_text_ids(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::new();
        super::scan::split_gpt2(text, |a, b| {
            let mut out = Vec::new();
            self.tokenize(&text.as_bytes()[a..b], &mut out).unwrap();
            ids.extend(out.iter().map(|p| p.0));
        });
        ids
    }

    /// Runs `f` with this thread's word cache borrowed once, for many words
    /// (one thread-local access and one borrow per text, not per word).
    /// A word whose tokens could not be made (no memory) makes it an error.
    pub fn with_cache<R>(&self, f: impl FnOnce(&mut Words<'_>) -> R) -> crate::Result<R> {
        CACHE.with(|cell| {
            let run = |words: &mut Words<'_>| {
                let r = f(words);
                words.failed.take().map_or(Ok(r), Err)
            };
            match cell.try_borrow_mut() {
                Ok(mut cache) => {
                    if cache.owner != self.cache_key {
                        cache.clear();
                        cache.owner = self.cache_key;
                    }
                    run(&mut Words { bpe: self, cache: Some(&mut cache), scratch: Vec::new(), failed: None })
                }
                // only if `f` itself re-enters (it does not): no cache, same tokens
                Err(_) => run(&mut Words { bpe: self, cache: None, scratch: Vec::new(), failed: None }),
            }
        })
    }

    /// A word off the cache: whole-word match (`ignore_merges`), then the
    /// linear merge for short words, the heap for long ones.
    /// Fallible for a word of any size: its room (a piece a byte at most) made first.
    fn tokenize_uncached(&self, word: &[u8], out: &mut Vec<Piece>) -> crate::Result<()> {
        crate::room::ensure_room(out, word.len(), "byte-level BPE pieces")?;
        if let Some(&id) = self.whole.as_ref().and_then(|w| w.get(word)) {
            out.push((id, word.len() as u32));
        } else if word.len() > LINEAR_MAX {
            self.tokenize_long(word, out)?;
        } else {
            self.tokenize_short(word, out);
        }
        Ok(())
    }

    /// Repeatedly merges the adjacent pair of lowest rank, leftmost on ties.
    /// This is HF's heap order: a queued pair whose symbols changed always
    /// spans more bytes than when queued, so it names another token and HF
    /// skips it; the valid entries are exactly the current pairs.
    fn tokenize_short(&self, word: &[u8], out: &mut Vec<Piece>) {
        let from = out.len();
        out.extend(word.iter().map(|&b| (self.byte_ids[b as usize], 1)));
        let mut ranks = [(u32::MAX, 0u32); LINEAR_MAX];
        let syms = &mut out[from..];
        let mut n = syms.len();
        for k in 0..n.saturating_sub(1) {
            ranks[k] = self.rank(syms[k].0, syms[k + 1].0).unwrap_or((u32::MAX, 0));
        }
        while n > 1 {
            let mut best = 0;
            for k in 1..n - 1 {
                if ranks[k].0 < ranks[best].0 {
                    best = k;
                }
            }
            if ranks[best].0 == u32::MAX {
                break;
            }
            syms[best] = (ranks[best].1, syms[best].1 + syms[best + 1].1);
            syms.copy_within(best + 2..n, best + 1);
            ranks.copy_within(best + 1..n - 1, best);
            n -= 1;
            if best + 1 < n {
                ranks[best] = self.rank(syms[best].0, syms[best + 1].0).unwrap_or((u32::MAX, 0));
            }
            if best > 0 {
                ranks[best - 1] = self.rank(syms[best - 1].0, syms[best].0).unwrap_or((u32::MAX, 0));
            }
        }
        out.truncate(from + n);
    }

    fn tokenize_long(&self, word: &[u8], out: &mut Vec<Piece>) -> crate::Result<()> {
        let mut w = Word::with_capacity(word.len())?;
        for &b in word {
            w.add(self.byte_ids[b as usize], 1);
        }
        w.merge_all_by(|a, b| self.rank(a, b))?;
        out.extend(w.tokens().map(|(id, s, e)| (id, (e - s) as u32)));
        Ok(())
    }
}

#[cfg(test)]
#[path = "merge_tests.rs"]
mod tests;
