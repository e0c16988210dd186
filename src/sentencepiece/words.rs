//! Encoding word by word, with a per-thread cache of each word's pieces.
//!
//! A word is the text between two `▁`. Where no piece the encoder may use has
//! a `▁` except as its first char ([`WordCut::BeforeSpace`], checked per model
//! at load), no piece spans a word start, so every Viterbi path and every BPE
//! merge stays inside one word, and encoding the words one after the other is
//! the library's encoding of the whole text (the mirror case, `▁` only as the
//! last char, cuts after each `▁`).
//!
//! BPE compares scores and never adds them: a word's pieces are its own. The
//! Unigram Viterbi adds f32 scores onto the score P reached before the word,
//! and f32 rounding depends on P's magnitude, so a cached word is used only
//! when its decisions provably do not depend on P. With u = 2^-24, L the
//! word's byte length (at least the additions on any of its paths) and
//! γ = L·u / (1 - L·u), a path's f32 sum from P is within γ·(|P| + L·M) of its
//! exact sum (recursive summation, Higham's (4.4); M = the largest |score|).
//! At every node the winning offer of the run from 0 beats each other by at
//! least the margin m, so their exact sums differ by at least m - 2γ·L·M, and
//! from P the same offer still wins strictly while m > γ·(4·L·M + 2·|P|): all
//! decisions, hence the pieces, are those of the run from 0. The check uses
//! twice that bound (room for its own f64 arithmetic). The score after the word
//! is then the f32 sum of P and the word's piece scores, in order, exactly as
//! the Viterbi adds them.
//!
//! Each thread fills its own cache, and once one thread's compact entries
//! number [`SHARE_AT`] (after a batch, on the thread that called it) they move
//! into the model's shared table, set once and then only read: every thread
//! looks there first, so a second thread of a batch starts warm and the
//! threads' lookups touch one table instead of one each.

use super::small_words::{SmallEntry, SmallKey, SmallTable};
use super::unigram::{self, Node};
use super::{bpe, ModelType, Processor};
use crate::fxhash::FxHashMap;
use crate::room::{ensure_room, make_room};
use std::cell::RefCell;

const SPACE: &[u8] = "\u{2581}".as_bytes();
/// Longer words are encoded each time (they are rare; the key is inline).
const MAX_WORD: usize = 23;
/// Pieces kept in the entry itself (most words have fewer).
const INLINE_PIECES: usize = 4;
/// A thread's cache for one model takes no more words past this many (the
/// frequent words come early; emptying it instead made 8 MB of English, 77,766
/// distinct words, miss its frequent words again after each emptying). 7/8 of
/// 2^17. The compact table (most words) has 2^17 slots of 32 bytes (4 MB)
/// up to 98,304 words (3/4 full), 2^18 (8 MB) past that.
const MAX_WORDS: usize = 114_688;
/// Models whose caches a thread keeps at once (the oldest is dropped).
const MAX_MODELS: usize = 4;
/// Compact entries a thread's cache holds before they become the model's
/// shared table (the frequent words of a text come within its first few
/// thousand distinct ones; 8 MB of English has 77,766).
const SHARE_AT: usize = 16_384;
const U32_EPS: f64 = 1.0 / (1u64 << 24) as f64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WordCut {
    BeforeSpace,
    AfterSpace,
}

impl WordCut {
    /// The cut that every piece allows, if any.
    pub fn of<'a>(mut pieces: impl Iterator<Item = &'a str>) -> Option<WordCut> {
        let (mut before, mut after) = (true, true);
        pieces.all(|piece| {
            let body = piece.strip_prefix('\u{2581}').unwrap_or(piece);
            before &= !body.contains('\u{2581}');
            let body = piece.strip_suffix('\u{2581}').unwrap_or(piece);
            after &= !body.contains('\u{2581}');
            before || after
        });
        if before {
            Some(WordCut::BeforeSpace)
        } else if after {
            Some(WordCut::AfterSpace)
        } else {
            None
        }
    }
}

/// A word of at most MAX_WORD bytes, inline (no pointer to follow on lookup):
/// its bytes, zero-padded, and its length in the last byte.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct WordKey([u64; 3]);

impl WordKey {
    fn new(word: &[u8]) -> WordKey {
        let mut bytes = [0u8; 24];
        bytes[..word.len()].copy_from_slice(word);
        bytes[23] = word.len() as u8;
        let word = |k: usize| u64::from_le_bytes(std::array::from_fn(|i| bytes[8 * k + i]));
        WordKey([word(0), word(1), word(2)])
    }
}

struct Cached {
    /// Unigram: the run from 0 holds from a score P when `slack > 2·|P|`
    /// (the module's bound, rearranged; +inf for BPE).
    slack: f64,
    /// (byte length, id) of each piece: the first INLINE_PIECES here, the rest in `more`.
    count: usize,
    pieces: [(u32, u32); INLINE_PIECES],
    more: Option<Box<[(u32, u32)]>>,
}

impl Cached {
    fn new(slack: f64, spans: &[(usize, usize, u32)]) -> Cached {
        let piece = |&(s, e, id): &(usize, usize, u32)| ((e - s) as u32, id);
        let mut pieces = [(0, 0); INLINE_PIECES];
        for (slot, span) in pieces.iter_mut().zip(spans) {
            *slot = piece(span);
        }
        let more = (spans.len() > INLINE_PIECES).then(|| spans[INLINE_PIECES..].iter().map(piece).collect());
        Cached { slack, count: spans.len(), pieces, more }
    }

    fn pieces(&self) -> impl Iterator<Item = &(u32, u32)> {
        self.pieces[..self.count.min(INLINE_PIECES)].iter().chain(self.more.iter().flat_map(|m| m.iter()))
    }
}

/// One model's words: compact entries where they fit, general ones else.
#[derive(Default)]
struct Cache {
    small: SmallTable,
    general: FxHashMap<WordKey, Cached>,
}

#[derive(Default)]
struct Scratch {
    models: Vec<(u64, Cache)>,
    nodes: Vec<Node>,
    spans: Vec<(usize, usize, u32)>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// `slack` for a word of `len` bytes whose run from 0 has the margin `margin`.
fn slack(p: &Processor, len: usize, margin: f64) -> f64 {
    let l = len as f64;
    let gamma = l * U32_EPS / (1.0 - l * U32_EPS);
    let s = margin / (2.0 * gamma) - 4.0 * l * p.max_abs_score;
    if s.is_nan() {
        f64::NEG_INFINITY
    } else {
        s
    }
}

/// Appends the spans of `normalized` to `out`, word by word through the cache.
pub fn encode(p: &Processor, cut: WordCut, normalized: &str, out: &mut Vec<(usize, usize, u32)>) -> crate::Result<()> {
    let text = normalized.as_bytes();
    make_room(out, text.len() / 3 + 1, "sentencepiece pieces")?;
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        let Scratch { models, nodes, spans } = &mut *s;
        let k = match models.iter().position(|(id, _)| *id == p.cache_id) {
            Some(k) => k,
            None => {
                if models.len() >= MAX_MODELS {
                    models.remove(0);
                }
                models.push((p.cache_id, Cache::default()));
                models.len() - 1
            }
        };
        let cache = &mut models[k].1;
        let shared = p.shared_words.get();
        let mut score = 0.0f32;
        let mut cuts = memchr::memmem::find_iter(text, SPACE).map(|i| if cut == WordCut::BeforeSpace { i } else { i + SPACE.len() });
        // The words as (start, end), one ahead: the next word's slot is requested before this one is used.
        let mut words = std::iter::from_fn({
            let (mut word, mut done) = (0, false);
            move || {
                while !done {
                    let end = cuts.next().unwrap_or(text.len());
                    done = end == text.len();
                    let start = std::mem::replace(&mut word, end);
                    if end > start {
                        return Some((start, end));
                    }
                }
                None
            }
        })
        .map(|(start, end)| {
            let key = text.get(start..end).and_then(SmallKey::new).map(|k| (k, k.hash()));
            (start, end, key)
        });
        let mut next = words.next();
        while let Some((start, end, key)) = next {
            next = words.next();
            if let Some((_, hash)) = next.and_then(|n| n.2) {
                shared.unwrap_or(&cache.small).prefetch(hash);
            }
            let caches = Caches { shared, own: &mut *cache };
            // a piece per byte at most: the word's room made fallibly (no more growth below)
            ensure_room(out, end - start, "sentencepiece pieces")?;
            score = encode_word(p, caches, nodes, spans, &normalized[start..end], start, key, score, out)?;
        }
        Ok(())
    })
}

/// Moves the calling thread's compact entries for `p` into its shared table
/// if that is not set yet and they number at least [`SHARE_AT`].
pub fn share(p: &Processor) {
    if p.words.is_none() || p.shared_words.get().is_some() {
        return;
    }
    SCRATCH.with(|s| {
        let Ok(mut s) = s.try_borrow_mut() else { return };
        let Some((_, cache)) = s.models.iter_mut().find(|(id, _)| *id == p.cache_id) else { return };
        if cache.small.len() >= SHARE_AT {
            // Another thread may have shared its own meanwhile: then this one keeps its table.
            if let Err(mine) = p.shared_words.set(std::mem::take(&mut cache.small)) {
                cache.small = mine;
            }
        }
    });
}

/// The compact words of the shared table (0 before it is set): for tests.
pub fn shared_len(p: &Processor) -> usize {
    p.shared_words.get().map_or(0, SmallTable::len)
}

/// The model's shared table (if set) and the thread's own cache.
struct Caches<'a> {
    shared: Option<&'a SmallTable>,
    own: &'a mut Cache,
}

/// Pushes the spans of one word starting at byte `at`, entered with `score`; returns the score after it.
#[allow(clippy::too_many_arguments)]
fn encode_word(
    p: &Processor,
    caches: Caches<'_>,
    nodes: &mut Vec<Node>,
    spans: &mut Vec<(usize, usize, u32)>,
    word: &str,
    at: usize,
    small: Option<(SmallKey, u64)>,
    score: f32,
    out: &mut Vec<(usize, usize, u32)>,
) -> crate::Result<f32> {
    let bytes = word.as_bytes();
    let unigram = p.model_type == ModelType::Unigram;
    if bytes.len() > MAX_WORD {
        return match unigram {
            true => Ok(unigram::viterbi(p, bytes, score, at, out, nodes)?.0),
            false => {
                out.extend(bpe::encode(p, word)?.into_iter().map(|(s, e, id)| (s + at, e + at, id)));
                Ok(0.0)
            }
        };
    }
    let Caches { shared, own: cache } = caches;
    if let Some(c) = small.and_then(|(k, hash)| shared.and_then(|t| t.get(&k, hash)).or_else(|| cache.small.get(&k, hash))) {
        return use_or_rerun(p, c.slack(), c.pieces(), bytes, at, score, out, nodes);
    }
    let key = WordKey::new(bytes);
    if let Some(c) = cache.general.get(&key) {
        return use_or_rerun(p, c.slack, c.pieces().copied(), bytes, at, score, out, nodes);
    }
    spans.clear();
    let slack = match unigram {
        true => slack(p, bytes.len(), unigram::viterbi(p, bytes, 0.0, 0, spans, nodes)?.1),
        false => {
            spans.extend(bpe::encode(p, word)?);
            f64::INFINITY
        }
    };
    let pieces = spans.iter().map(|&(s, e, id)| ((e - s) as u32, id));
    let score = use_or_rerun(p, slack, pieces.clone(), bytes, at, score, out, nodes)?;
    if cache.small.len() + cache.general.len() < MAX_WORDS {
        match small.and_then(|(k, hash)| Some((k, hash, SmallEntry::new(slack, pieces)?))) {
            Some((k, hash, entry)) => cache.small.insert(k, hash, entry),
            None => _ = cache.general.insert(key, Cached::new(slack, spans)),
        }
    }
    Ok(score)
}

/// Pushes a cached word's spans (`pieces`: byte length and id) if its run
/// from 0 holds from `score` (always for BPE), else runs it from `score`;
/// returns the score after it.
#[allow(clippy::too_many_arguments)]
fn use_or_rerun(
    p: &Processor,
    slack: f64,
    pieces: impl Iterator<Item = (u32, u32)>,
    bytes: &[u8],
    at: usize,
    score: f32,
    out: &mut Vec<(usize, usize, u32)>,
    nodes: &mut Vec<Node>,
) -> crate::Result<f32> {
    let unigram = p.model_type == ModelType::Unigram;
    // Written so that a NaN score or slack re-runs the word.
    let holds = slack > 2.0 * (score as f64).abs();
    if unigram && !holds {
        return Ok(unigram::viterbi(p, bytes, score, at, out, nodes)?.0);
    }
    let (mut pos, mut score) = (at, score);
    for (len, id) in pieces {
        out.push((pos, pos + len as usize, id));
        pos += len as usize;
        if unigram {
            score += unigram::piece_score(p, id);
        }
    }
    Ok(score)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_cut_follows_where_pieces_hold_spaces() {
        let cut = |pieces: &[&str]| WordCut::of(pieces.iter().copied());
        assert_eq!(cut(&["▁a", "b", "▁"]), Some(WordCut::BeforeSpace));
        assert_eq!(cut(&["a▁", "b", "▁"]), Some(WordCut::AfterSpace));
        assert_eq!(cut(&["▁a", "a▁"]), None);
        assert_eq!(cut(&["a▁b"]), None);
        assert_eq!(cut(&["▁▁"]), None);
    }

    #[test]
    fn word_keys_differ_by_length_and_bytes() {
        assert!(WordKey::new(b"ab") != WordKey::new(b"ab\0"));
        assert!(WordKey::new(b"") != WordKey::new(b"\0"));
        assert!(WordKey::new(&[7; MAX_WORD]) == WordKey::new(&[7; MAX_WORD]));
    }
}
