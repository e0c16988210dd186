//! The fused Metaspace + Unigram path: for a file whose pre-tokenizer is
//! Metaspace and whose model is Unigram (sentencepiece-converted files: T5,
//! XLM-R, ALBERT... with or without their Precompiled normalizer), the words
//! of a normalized piece are cut and tokenized straight from its chars,
//! without building a `NormalizedString` per word, and each word's pieces come
//! from a per-thread word cache (text is Zipfian: a few thousand word forms
//! make up most of it). Exact: the same words, ids, tokens and offsets as the
//! general path (Metaspace's `pre_tokenize`, then `Unigram::tokenize`), which
//! tests/test_pipeline_unigram_fast*.py check against it and tokenizers 0.23.3.

use super::word_cache::{Key, WordCache};
use super::{Scratch, Unigram};
use crate::encoding::Encoding;
use crate::models::ModelToken;
use crate::normalized_string::{NormalizedString, Span};
use crate::models::Model;
use crate::pre_tokenizers::char_class::whitespace_split;
use crate::pre_tokenizers::metaspace::{Metaspace, PrependScheme};
use crate::pre_tokenizers::PreTokenizer;
use crate::Result;
use std::cell::RefCell;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// Tells one fused tokenizer's cache entries from another's in a thread.
static NEXT_OWNER: AtomicU64 = AtomicU64::new(1);

/// Words a thread's cache holds when it gives the tokenizer a shared table
/// (the first thread to get there): at the first count a copy (a text's
/// frequent words come early; 16,384 words take 1 MB of slots), at the last
/// the cache itself (the threads then read one 4 MB table, not one each, in
/// the L3 they share). 8 MB of English has ~78,000 distinct words.
const SHARE_AT: [usize; 2] = if cfg!(test) { [64, 256] } else { [16_384, 65_536] };

pub struct MetaspaceUnigram {
    pub(super) meta: Metaspace,
    /// `Sequence([WhitespaceSplit, Metaspace])` (newer XLM-R-style conversions).
    pub(super) whitespace_split: bool,
    owner: u64,
    /// The caches (or copies) of the first thread to hold [`SHARE_AT`] words,
    /// each set once, then only read (no lock): a thread whose own cache
    /// holds fewer words looks in the newest first, so a second thread of a
    /// batch, or one the first calls after another thread learned the text,
    /// starts warm.
    shared: [OnceLock<Arc<WordCache>>; 2],
}

impl std::fmt::Debug for MetaspaceUnigram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetaspaceUnigram").field("meta", &self.meta).field("whitespace_split", &self.whitespace_split).finish()
    }
}

impl Clone for MetaspaceUnigram {
    /// A new owner, with no shared table (it fills its own).
    fn clone(&self) -> Self {
        MetaspaceUnigram { owner: NEXT_OWNER.fetch_add(1, Ordering::Relaxed), shared: Default::default(), ..*self }
    }
}

/// A thread's reusable buffers and its word cache (word bytes -> pieces).
#[derive(Default)]
pub(super) struct ThreadState {
    owner: u64,
    /// The owner's newest shared table, once there is one.
    shared: Option<Arc<WordCache>>,
    /// `shared`, when it holds more words than `cache` (looked up before it).
    pub(super) use_shared: Option<Arc<WordCache>>,
    pub(super) cache: WordCache,
    /// The ids of `tokens` (a word the cache did not hold), contiguous as the cache's are.
    miss_ids: Vec<u32>,
    pub(super) word: String,
    pub(super) char_of: Vec<u32>,
    tokens: Vec<ModelToken>,
    scratch: Scratch,
}

thread_local! {
    pub(super) static STATE: RefCell<ThreadState> = RefCell::new(ThreadState::default());
}

/// Where a piece's words go: the encoding and the word index to give them.
pub struct Sink<'a> {
    pub out: &'a mut Encoding,
    pub type_id: u32,
    /// Fixed word index (pre-tokenized input), or None to number words from `next_word`.
    pub word: Option<u32>,
    pub next_word: &'a mut u32,
}

impl MetaspaceUnigram {
    /// The fused path for a file of this shape: a Unigram model behind
    /// Metaspace, alone, in a Sequence of one, or after WhitespaceSplit.
    pub fn for_shape(pre_tokenizer: Option<&PreTokenizer>, model: &Model) -> Option<MetaspaceUnigram> {
        let Model::Unigram(_) = model else { return None };
        let (meta, whitespace_split) = match pre_tokenizer? {
            PreTokenizer::Metaspace(m) => (*m, false),
            PreTokenizer::Sequence(items) => match items.as_slice() {
                [PreTokenizer::Metaspace(m)] => (*m, false),
                [PreTokenizer::WhitespaceSplit, PreTokenizer::Metaspace(m)] => (*m, true),
                _ => return None,
            },
            _ => return None,
        };
        Some(MetaspaceUnigram { meta, whitespace_split, owner: NEXT_OWNER.fetch_add(1, Ordering::Relaxed), shared: Default::default() })
    }

    /// The pre-tokenizer's words of `piece` (a normalized piece between added
    /// tokens), each tokenized by `model` and pushed to the sink.
    pub fn encode_piece(&self, model: &Unigram, piece: NormalizedString, sink: &mut Sink) -> Result<()> {
        self.encode_normalized(model, piece, &mut Emit::Encoding(sink))
    }

    /// [`MetaspaceUnigram::encode_piece`] to any output.
    pub(super) fn encode_normalized(&self, model: &Unigram, piece: NormalizedString, emit: &mut Emit) -> Result<()> {
        if !self.whitespace_split {
            return self.encode_metaspace(model, &piece, emit);
        }
        let mut parts = Vec::new();
        whitespace_split(piece, &mut parts)?;
        parts.iter().filter(|p| !p.is_empty()).try_for_each(|p| self.encode_metaspace(model, p, emit))
    }

    /// This thread's state, its cache emptied if another tokenizer filled it,
    /// with this tokenizer's newest shared table when it holds more words
    /// than the thread's own cache; the cache (or a copy) becomes a shared
    /// table when it is the first to hold the next [`SHARE_AT`] words.
    pub(super) fn with_state<T>(&self, f: impl FnOnce(&mut ThreadState) -> T) -> T {
        STATE.with(|state| {
            let mut st = state.borrow_mut();
            if st.owner != self.owner {
                st.cache.clear();
                (st.shared, st.use_shared) = (None, None);
                st.owner = self.owner;
            }
            // (an Arc taken once per table and thread, not per call: no shared counter written)
            let newest = self.shared.iter().rev().find_map(OnceLock::get);
            if let Some(n) = newest.filter(|n| !st.shared.as_ref().is_some_and(|s| Arc::ptr_eq(s, n))) {
                st.shared = Some(n.clone());
            }
            let bigger = st.shared.as_ref().filter(|s| s.len() > st.cache.len());
            if bigger.is_some() != st.use_shared.is_some() {
                st.use_shared = bigger.cloned();
            }
            let out = f(&mut st);
            for (g, (table, &at)) in self.shared.iter().zip(&SHARE_AT).enumerate() {
                if st.cache.len() >= at && table.get().is_none() {
                    if g + 1 < SHARE_AT.len() {
                        // a lost race leaves the other thread's copy; no memory for a copy, no sharing
                        if let Some(copy) = st.cache.try_clone() {
                            let _ = table.set(Arc::new(copy));
                        }
                        continue;
                    }
                    // the last one takes the cache itself: every thread then reads one table
                    let mine = Arc::new(std::mem::take(&mut st.cache));
                    match table.set(mine.clone()) {
                        Ok(()) => (st.shared, st.use_shared) = (Some(mine.clone()), Some(mine)),
                        Err(back) => {
                            drop(back); // (then `mine` is the one reference: the cache comes back whole)
                            st.cache = Arc::try_unwrap(mine).unwrap_or_default();
                        }
                    }
                }
            }
            out
        })
    }

    /// Metaspace's words of `piece`, each tokenized and pushed.
    fn encode_metaspace(&self, model: &Unigram, piece: &NormalizedString, emit: &mut Emit) -> Result<()> {
        let (chars, spans) = (&piece.chars, &piece.spans);
        let r = self.meta.replacement;
        let meta_char = |c: char| if c == ' ' { r } else { c };
        let Some(&first) = chars.first() else { return Ok(()) };
        let prepend = match self.meta.prepend_scheme {
            PrependScheme::Always => true,
            PrependScheme::First => piece.origin == 0,
            PrependScheme::Never => false,
        } && meta_char(first) != r;
        // Virtual char k: the prepended replacement (k = 0) or a char of the piece.
        let shift = usize::from(prepend);
        let total = chars.len() + shift;
        let span = |i: usize| spans.get(i).copied().unwrap_or((piece.origin, piece.origin));
        let at = |k: usize| match k.checked_sub(shift) {
            Some(i) => (chars.get(i).map_or(r, |&c| meta_char(c)), span(i)),
            None => (r, span(0)),
        };
        self.with_state(|st| {
            let mut start = 0;
            for k in 1..=total {
                if k < total && !(self.meta.split && at(k).0 == r) {
                    continue;
                }
                encode_word(model, st, r, start..k, &at, emit)?;
                start = k;
            }
            Ok(())
        })
    }
}

/// Where the tokens go: an encoding, or ids (and offsets, when asked) only.
pub(super) enum Emit<'s, 'a> {
    Encoding(&'s mut Sink<'a>),
    Ids(&'s mut Vec<u32>, Option<&'s mut Vec<[u32; 2]>>),
}

/// A word's pieces: their ids (contiguous) and byte spans in the word.
pub(super) struct Pieces<'p> {
    pub(super) ids: &'p [u32],
    spans: Spans<'p>,
}

enum Spans<'p> {
    Cached(&'p [[u8; 2]]),
    Tokenized(&'p [ModelToken]),
}

impl Pieces<'_> {
    /// (id, start byte, end byte) of each piece.
    pub(super) fn iter(&self) -> impl Iterator<Item = ModelToken> + '_ {
        let n = self.ids.len();
        (0..n).map(move |i| {
            let id = self.ids.get(i).copied().unwrap_or_default();
            match &self.spans {
                Spans::Cached(s) => s.get(i).map_or((id, 0, 0), |&[a, b]| (id, a as usize, b as usize)),
                Spans::Tokenized(t) => t.get(i).copied().unwrap_or((id, 0, 0)),
            }
        })
    }
}

/// The pieces of the word in `st.word`: from the cache, or tokenized (and
/// cached when short), then handed to `f` with the word and `st.char_of`.
/// `r`: the Metaspace replacement (a word starting with it is cached by the rest).
pub(super) fn with_pieces<T>(model: &Unigram, st: &mut ThreadState, r: char, f: impl FnOnce(&Pieces, &str, &[u32]) -> T) -> Result<T> {
    let ThreadState { cache, use_shared, word: text, char_of, tokens, scratch, miss_ids, .. } = st;
    let mut buf = [0u8; 4];
    let (prefixed, key) = match text.strip_prefix(&*r.encode_utf8(&mut buf)) {
        Some(rest) => (true, rest),
        None => (false, text.as_str()),
    };
    let hit = use_shared.as_deref().and_then(|s| s.get(prefixed, key.as_bytes()));
    let pieces = match hit.or_else(|| cache.get(prefixed, key.as_bytes())) {
        Some((ids, spans)) => Pieces { ids, spans: Spans::Cached(spans) },
        None => {
            tokens.clear();
            model.tokenize_into(text, tokens, scratch)?;
            cache.insert(prefixed, key.as_bytes(), tokens);
            miss_ids.clear();
            miss_ids.extend(tokens.iter().map(|t| t.0));
            Pieces { ids: miss_ids, spans: Spans::Tokenized(tokens) }
        }
    };
    Ok(f(&pieces, text, char_of))
}

/// The ids of the word `r` then `tail` appended to `ids`: a cached word is
/// looked up by `tail` itself (nothing copied; `tag` from `st.cache.prefetch`,
/// `key` its [`Key`]), another one tokenized.
#[inline]
pub(super) fn push_prefixed_ids(model: &Unigram, st: &mut ThreadState, r: char, tail: &str, tag: u32, key: &Key, ids: &mut Vec<u32>) -> Result<()> {
    let shared = st.use_shared.as_deref().and_then(|s| s.get_ids(tag, true, tail.as_bytes(), key));
    if let Some(cached) = shared.or_else(|| st.cache.get_ids(tag, true, tail.as_bytes(), key)) {
        // the room fallibly: no caller reserves the text's ids (a bulk call's buffer fills up)
        crate::room::ensure_room(ids, cached.len(), "Unigram ids")?;
        // (one or two ids: pushes, not a `memcpy` call)
        match *cached {
            [a] => ids.push(a),
            [a, b] => {
                ids.push(a);
                ids.push(b);
            }
            _ => ids.extend_from_slice(cached),
        }
        return Ok(());
    }
    st.word.clear();
    // made fallibly: a text with no space is one word of its size
    crate::room::ensure_text_room(&mut st.word, r.len_utf8() + tail.len(), "Unigram word")?;
    st.word.push(r);
    st.word.push_str(tail);
    with_pieces(model, st, r, |pieces, _, _| {
        crate::room::ensure_room(ids, pieces.ids.len(), "Unigram ids").map(|()| ids.extend_from_slice(pieces.ids))
    })?
}

/// An offset as the u32 of the ids-only output.
pub(super) fn offset_u32(v: usize) -> Result<u32> {
    u32::try_from(v).map_err(|_| crate::Error::Tokenize(format!("offset {v} does not fit in 32 bits")))
}

/// One word (virtual chars `range`): its pieces from the cache or the model,
/// pushed with their original spans.
fn encode_word(
    model: &Unigram,
    st: &mut ThreadState,
    r: char,
    range: Range<usize>,
    at: &impl Fn(usize) -> (char, Span),
    emit: &mut Emit,
) -> Result<()> {
    st.word.clear();
    st.char_of.clear();
    if range.len() > 1024 {
        // a long word's room made fallibly (4 bytes a char at most): a text with no space is one word
        let most = range.len().saturating_mul(4);
        crate::room::ensure_text_room(&mut st.word, most, "Unigram word")?;
        crate::room::make_room(&mut st.char_of, most, "Unigram word's char indices")?;
    }
    for (i, k) in range.clone().enumerate() {
        st.word.push(at(k).0);
        let len = st.word.len();
        st.char_of.resize(len, i as u32);
    }
    // Model tokens are never empty: `bs < be <= text.len()`.
    let span = |char_of: &[u32], bs: usize, be: usize| {
        let first = char_of.get(bs).map_or(0, |&c| c as usize);
        let last = char_of.get(be.wrapping_sub(1)).map_or(first, |&c| c as usize);
        (at(range.start + first).1 .0, at(range.start + last).1 .1)
    };
    with_pieces(model, st, r, |pieces, text, char_of| match emit {
        Emit::Encoding(sink) => {
            let w = Some(sink.word.unwrap_or(*sink.next_word));
            *sink.next_word += 1;
            sink.out.ensure(pieces.ids.len())?;
            for (id, bs, be) in pieces.iter() {
                let unknown = if Some(id) == model.unk_id { model.unknown_text(text, &(id, bs, be)) } else { None };
                // only an unknown piece keeps its text (never a vocabulary piece's: see `unknown_text`)
                sink.out.push(id, unknown.map(Into::into), span(char_of, bs, be), w, sink.type_id);
            }
            Ok(())
        }
        Emit::Ids(ids, offsets) => {
            crate::room::ensure_room(ids, pieces.ids.len(), "Unigram ids")?;
            ids.extend_from_slice(pieces.ids);
            if let Some(offsets) = offsets {
                crate::room::ensure_room(offsets, pieces.ids.len(), "Unigram offsets")?;
                for (_, bs, be) in pieces.iter() {
                    let (s, e) = span(char_of, bs, be);
                    offsets.push([offset_u32(s)?, offset_u32(e)?]);
                }
            }
            Ok(())
        }
    })?
}

#[cfg(test)]
#[path = "fused_tests.rs"]
mod tests;
