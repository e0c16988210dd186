//! A word's tokens through the per-thread cache ([`Words`], borrowed for a
//! run of texts by [`super::ByteBpe::with_cache`]): the lookups each loop inlines,
//! the moves home, and the cache misses, which merge the word
//! (`ByteBpe::tokenize_uncached`) and cache it.

use super::{Piece, RawTable, Words, LINEAR_MAX};

/// A word of two tokens whose ids are both below this is cached with the
/// ids in its slot, not in `pieces`: `value` the first id | the second's << 16,
/// the count of pieces 2 | the first's length << 8 (a real count is below
/// 256, a token at least a byte). The AVX-512 loop answers these words with
/// the one-token ones, without a branch or a load from `pieces` (5.8 % of the
/// pieces of English with GPT-2's ranks, in ~29 % of groups of eight).
pub(in crate::fast_bytelevel) const PAIR_IDS: u32 = 1 << 16;

/// The two tokens of a word cached as a pair (see [`PAIR_IDS`]), from what
/// its slot holds and its length in bytes; None for any other word.
#[inline(always)]
pub(in crate::fast_bytelevel) fn cached_pair(value: u32, n: u32, len: u32) -> Option<[Piece; 2]> {
    let first = n >> 8;
    (first != 0).then_some([(value & 0xFFFF, first), (value >> 16, len.wrapping_sub(first))])
}

/// A word's tokens as the cache has them.
enum Hit<'a> {
    /// One token: the whole word (kept in the cache's slot itself, no second memory access).
    One(u32),
    /// Two tokens kept in the slot itself ([`PAIR_IDS`]).
    Two([Piece; 2]),
    Many(&'a [Piece]),
    /// Not cached (a long word, or no cache): tokenize it.
    Miss,
}

impl Words<'_> {
    /// What the AVX-512 loop ([`super::gather`]) gathers from: the cache's
    /// short and mid tables (None: no cache, or a table without slots),
    /// valid until the cache next changes.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(in crate::fast_bytelevel) fn raw_tables(&self) -> (Option<RawTable>, Option<RawTable>) {
        self.cache.as_deref().map_or((None, None), |c| c.raw_tables())
    }

    /// How many times the cache started over ([`super::cache::WordCache::clears`]).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(in crate::fast_bytelevel) fn clears(&self) -> u32 {
        self.cache.as_deref().map_or(0, |c| c.clears)
    }

    /// Puts the one-byte word `text[at]` in its home slot of the short table,
    /// as its byte's token: the AVX-512 loop looks one-byte words up there
    /// with the others (the other lookups take the byte's id and never look).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(in crate::fast_bytelevel) fn learn_byte(&mut self, text: &[u8], at: usize) {
        let (Some(&b), Some(c)) = (text.get(at), self.cache.as_deref_mut()) else { return };
        if c.get(text, at, at + 1).is_some() {
            c.move_home(text, at, at + 1);
        } else if !c.is_full() {
            c.insert(text, at, at + 1, self.bpe.byte_ids[b as usize], 1);
        }
    }

    /// The cached tokens of the word `text[start..end]` (non-empty; computed and cached when missing).
    /// Always inlined, with [`WordCache::get_inline`]: LLVM left either out of
    /// the offsets loop once the home bucket had two slots (a call per word).
    #[inline(always)]
    fn cached(&mut self, text: &[u8], start: usize, end: usize) -> Hit<'_> {
        let len = end - start;
        if len == 1 {
            // one byte: its byte's token, whatever the merges (no cache read)
            return text.get(start).map_or(Hit::Miss, |&b| Hit::One(self.bpe.byte_ids[b as usize]));
        }
        if len > LINEAR_MAX {
            return Hit::Miss;
        }
        let Some(found) = self.cache.as_deref().map(|c| c.get_inline(text, start, end)) else { return Hit::Miss };
        match found {
            // a one-token word keeps its id where others keep their start in `pieces`
            Some((id, 1)) => Hit::One(id),
            Some((at, n)) => match cached_pair(at, n, len as u32) {
                Some(two) => Hit::Two(two),
                None => {
                    let pieces = self.cache.as_deref().and_then(|c| c.pieces.get(at as usize..(at + n) as usize));
                    pieces.map_or(Hit::Miss, Hit::Many)
                }
            },
            None => self.cache_miss(text, start, end),
        }
    }

    /// Tokenizes a word missing from the cache and caches it (out of line:
    /// the hit path above stays small enough to inline).
    #[cold]
    #[inline(never)]
    fn cache_miss(&mut self, text: &[u8], start: usize, end: usize) -> Hit<'_> {
        let Some(cache) = self.cache.as_deref_mut() else { return Hit::Miss };
        if cache.is_full() {
            cache.clear();
        }
        let Some(word) = text.get(start..end) else { return Hit::Miss };
        self.scratch.clear();
        // (a whole-word match of `ignore_merges` is cached as well)
        if let Err(e) = self.bpe.tokenize_uncached(word, &mut self.scratch) {
            self.failed.get_or_insert(e);
            return Hit::Many(&[]);
        }
        match self.scratch[..] {
            [(id, _)] => {
                cache.insert(text, start, end, id, 1);
                return Hit::One(id);
            }
            [(a, la), (b, lb)] if a < PAIR_IDS && b < PAIR_IDS => {
                cache.insert(text, start, end, a | b << 16, 2 | la << 8);
                return Hit::Two([(a, la), (b, lb)]);
            }
            _ => {}
        }
        if cache.pieces.try_reserve(self.scratch.len()).is_err() {
            // without the memory the word is not cached, never an abort
            return Hit::Many(&self.scratch);
        }
        let at = cache.pieces.len();
        cache.pieces.extend_from_slice(&self.scratch);
        cache.insert(text, start, end, at as u32, self.scratch.len() as u32);
        cache.pieces.get(at..).map_or(Hit::Miss, Hit::Many)
    }

    /// Appends the tokens of the word `text[start..end]` (non-empty, raw bytes) to `out`.
    pub fn tokenize(&mut self, text: &[u8], start: usize, end: usize, out: &mut Vec<Piece>) {
        match self.cached(text, start, end) {
            Hit::One(id) => out.push((id, (end - start) as u32)),
            Hit::Two(two) => out.extend_from_slice(&two),
            Hit::Many(pieces) => out.extend_from_slice(pieces),
            Hit::Miss => {
                if let Err(e) = self.bpe.tokenize_uncached(text.get(start..end).unwrap_or_default(), out) {
                    self.failed.get_or_insert(e);
                }
            }
        }
    }

    /// [`Words::tokenize`] to a callback: `f(id, len in bytes)` for each token of the word
    /// `text[start..end]` (non-empty, raw bytes), with no list in between.
    #[inline(always)]
    pub fn tokenize_each(&mut self, text: &[u8], start: usize, end: usize, mut f: impl FnMut(u32, u32)) {
        match self.cached(text, start, end) {
            Hit::One(id) => f(id, (end - start) as u32),
            Hit::Two([(a, la), (b, lb)]) => {
                f(a, la);
                f(b, lb);
            }
            Hit::Many(pieces) => pieces.iter().for_each(|&(id, len)| f(id, len)),
            Hit::Miss => {
                let mut pieces = std::mem::take(&mut self.scratch);
                pieces.clear();
                match self.bpe.tokenize_uncached(text.get(start..end).unwrap_or_default(), &mut pieces) {
                    Ok(()) => pieces.iter().for_each(|&(id, len)| f(id, len)),
                    Err(e) => _ = self.failed.get_or_insert(e),
                }
                self.scratch = pieces;
            }
        }
    }

    /// Appends only the ids of the word `text[start..end]`'s tokens to `ids`:
    /// one-byte words and short words in their home slot inline (one token
    /// from the slot itself, several from `pieces`: GPT-2's real ranks split
    /// 6.5% of English pieces, curly quotes and names, against 0.5% for a
    /// vocabulary trained on the text), the rest out of line.
    #[inline(always)]
    pub fn tokenize_ids(&mut self, text: &[u8], start: usize, end: usize, ids: &mut Vec<u32>) {
        let len = end - start;
        let quick = if len == 1 {
            // one byte: its byte's token, whatever the merges (no cache read)
            text.get(start).map(|&b| (self.bpe.byte_ids[b as usize], 1))
        } else {
            self.cache.as_deref().and_then(|c| c.get_home(text, start, len))
        };
        match quick {
            Some((id, 1)) => ids.push(id),
            Some((at, n)) => self.push_pieces(at, n, text, start, end, ids),
            None => self.tokenize_ids_cold(text, start, end, ids),
        }
    }

    /// The ids of the `n` cached pieces from `at` (a word found in its home slot; or its pair).
    #[inline(always)]
    pub(in crate::fast_bytelevel) fn push_pieces(&mut self, at: u32, n: u32, text: &[u8], start: usize, end: usize, ids: &mut Vec<u32>) {
        if let Some([(a, _), (b, _)]) = cached_pair(at, n, (end - start) as u32) {
            ids.push(a);
            ids.push(b);
            return;
        }
        match self.cache.as_deref().and_then(|c| c.pieces.get(at as usize..(at + n) as usize)) {
            Some(pieces) => pieces.iter().for_each(|p| ids.push(p.0)),
            None => self.tokenize_ids_cold(text, start, end, ids),
        }
    }

    /// [`Words::tokenize_ids`] of a word not found in its home slot: a
    /// cached word of 2 to 16 bytes is moved into it first, for the inline
    /// lookup next time (only here: the other entries do not look there).
    #[inline(never)]
    fn tokenize_ids_cold(&mut self, text: &[u8], start: usize, end: usize, ids: &mut Vec<u32>) {
        if end - start > 1 {
            if let Some(c) = self.cache.as_deref_mut() {
                c.move_home(text, start, end);
            }
        }
        // (the ids' room is made for the whole text: `encode_ids_until`)
        self.tokenize_each(text, start, end, |id, _| ids.push(id));
    }
}
