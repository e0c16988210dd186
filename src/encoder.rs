//! One-pass encoder: UTF-8 text straight to ids, with no allocation per word
//! or per token. It does what `FullTokenizer::tokenize` does (cleaning,
//! normalization, pre-tokenization, WordPiece) in a single left-to-right
//! pass over the bytes, for the ids only.
//!
//! The text is cut at ASCII whitespace into chunks. No step of any reference
//! looks across ASCII whitespace (it splits words, it is a starter for NFC
//! and NFD, and Final_Sigma is decided within a whitespace token), so each
//! chunk is encoded on its own:
//! - chunks of ASCII letters, digits and punctuation (most of running Latin
//!   text) take an ASCII lane: a word at a time, found eight bytes at a time;
//! - otherwise bytes go through a 256-entry class table (ASCII decided by the
//!   same predicates as the general path), and other code points through
//!   `code_point_classes` (one load) or, for the few it leaves open, are
//!   mapped one at a time with the generated tables, which is exact as long
//!   as nothing in the chunk depends on its neighbours. A chunk where
//!   something might (capital sigma when lowercasing, a kept combining mark
//!   after NFD, anything NFC could touch in transformers mode) is handed to
//!   the general path instead, so exactness never rests on the
//!   shortcuts of this file and its parts (`encoder_*.rs`).

use crate::code_point_classes::{Block, CodePointClasses, Effect, Entry};
use crate::normalizer::{is_control, Reference, WordCase};
use crate::unicode::{push_utf8, Tables, HF, PYTHON};
use crate::word_cache::WordCache;
use std::cell::RefCell;
use swar::{ascii_upper, not_alnum};

// The parts: the two scanning paths, one non-ASCII code point, the SWAR byte tests.
#[path = "encoder_chunks.rs"]
mod chunks;
#[path = "encoder_code_point.rs"]
mod code_point;
#[path = "encoder_simd.rs"]
mod simd;
#[path = "encoder_swar.rs"]
mod swar;

/// What a byte does (the `class` table): ASCII bytes are decided by the
/// same predicates as the general path; bytes >= 0x80 start a multi-byte
/// code point.
pub(crate) const DROP: u8 = 0; // removed by cleaning (controls, NUL)
pub(crate) const SPACE: u8 = 1; // whitespace: ends the chunk
pub(crate) const PUNCT: u8 = 2; // a word of its own
pub(crate) const WORD: u8 = 3; // part of a word (lowercased when asked)
pub(crate) const MULTI: u8 = 4; // a non-ASCII code point starts here

/// The per-tokenizer settings of the one-pass path.
#[derive(Clone, Debug)]
pub struct Encoder {
    class: [u8; 256],
    /// WORD bytes are exactly [0-9A-Za-z], so runs can be found eight bytes at a time.
    alnum_words: bool,
    /// The lane's 64-byte windows (None: no AVX2, or no lane; AVX-512 BW where detected).
    wide: Option<simd::Wide>,
    reference: Reference,
    case: WordCase,
    chinese: bool,
    split_punc: bool,
    /// Which shared table of BMP code point classes these options use.
    classes_key: usize,
}

/// Where the encoder's words go. Any `FnMut(word, code points, out)` is
/// one; a sink may also take a short ASCII word as one integer
/// ([`ascii8`](Words::ascii8)), which the word memo uses as its key as it is.
pub(crate) trait Words {
    /// A normalized word (UTF-8) of `chars` code points.
    fn word(&mut self, word: &[u8], chars: usize, out: &mut Vec<u32>);

    /// An ASCII word of `len` (1..=8) bytes, lowercased where asked: byte k
    /// in bits 8k..8k+8, zero above the word.
    #[inline(always)]
    fn ascii8(&mut self, packed: u64, len: usize, out: &mut Vec<u32>) {
        let bytes = packed.to_le_bytes();
        self.word(&bytes[..len], len, out);
    }
}

impl<F: FnMut(&[u8], usize, &mut Vec<u32>)> Words for F {
    #[inline(always)]
    fn word(&mut self, word: &[u8], chars: usize, out: &mut Vec<u32>) {
        self(word, chars, out)
    }
}

/// Reusable working space (one per thread), so encoding allocates nothing
/// per word: the encoder's buffers and the word memo.
#[derive(Default)]
pub struct Scratch {
    pub(crate) buffers: Buffers,
    pub(crate) cache: WordCache,
}

impl Scratch {
    /// Working space with the word memo on from the start (for many texts;
    /// otherwise it is turned on only for a long text).
    pub fn with_cache() -> Self {
        let mut s = Scratch::default();
        s.cache.enable();
        s
    }

    /// Turns the word memo on (it stays on).
    pub fn enable_cache(&mut self) {
        self.cache.enable();
    }
}

thread_local! {
    static THREAD_SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Runs `f` with this thread's scratch space, so the word memo stays warm
/// from one call (or batch block) to the next on the same thread.
pub fn with_thread_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    THREAD_SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => f(&mut s),
        Err(_) => f(&mut Scratch::default()), // re-entered: a fresh one
    })
}

/// The encoder's own buffers: the word being built and a code point's mapping.
#[derive(Default)]
pub(crate) struct Buffers {
    word: Vec<u8>,
    chars: usize,
    mapped: Vec<u32>,
    tmp: Vec<u32>,
}

impl Encoder {
    pub fn new(reference: Reference, case: WordCase, chinese: bool, split_punc: bool) -> Self {
        let mut class = [MULTI; 256];
        for b in 0..128u8 {
            let cp = b as u32;
            class[b as usize] = if cp == 0 || is_control(cp, reference) {
                DROP
            } else if Self::ends_word(reference, cp) {
                SPACE
            } else if split_punc && reference.is_punctuation(cp) {
                PUNCT
            } else {
                WORD
            };
        }
        let alnum_words = (0..128u8).all(|b| (class[b as usize] == WORD) == b.is_ascii_alphanumeric());
        let r = [Reference::Google, Reference::Transformers, Reference::Tokenizers].iter().position(|&x| x == reference);
        let flags = [case.lowercase, case.strip_accents, chinese, split_punc].iter().fold(0, |k, &f| 2 * k + f as usize);
        let classes_key = r.unwrap_or(0) * 16 + flags;
        let wide = if alnum_words { simd::Wide::new(&class, case.lowercase) } else { None };
        Encoder { class, alnum_words, wide, reference, case, chinese, split_punc, classes_key }
    }

    /// The table entry of `cp` (and its block): `SLOW` outside the BMP.
    #[inline(always)]
    pub(crate) fn bmp_entry(&self, classes: &'static CodePointClasses, cp: u32) -> (Option<&'static Block>, Entry) {
        if cp > 0xFFFF {
            return (None, Entry::SLOW);
        }
        let block = classes.block(cp, |c| self.classify(c));
        (Some(block), block.get(cp))
    }

    /// What [`code_point`](Self::code_point) does with `cp`, found by running
    /// it after a one-byte word (a sentinel, to see whether the word is
    /// flushed) and recording the words it emits and what it leaves behind.
    pub(crate) fn classify(&self, cp: u32) -> Effect {
        let mut s = Buffers::default();
        s.word.push(b'x');
        s.chars = 1;
        let mut emitted: Vec<(Vec<u8>, usize)> = Vec::new();
        if !self.code_point(cp, &mut s, &mut |w, n| emitted.push((w.to_vec(), n))) {
            return Effect::Slow;
        }
        let mut own = Vec::new();
        push_utf8(cp, &mut own);
        let sentinel = |e: &(Vec<u8>, usize)| e.0 == b"x" && e.1 == 1;
        match emitted.as_slice() {
            [] if s.word.first() == Some(&b'x') => {
                let (added, chars) = (&s.word[1..], s.chars - 1);
                match (added.is_empty(), chars) {
                    (true, 0) => Effect::Drop,
                    (false, 1) if added == own => Effect::Word,
                    (false, n) if n > 0 => Effect::Mapped(added.to_vec(), n),
                    _ => Effect::Slow,
                }
            }
            [x] if sentinel(x) && s.word.is_empty() => Effect::Space,
            [x, (w, 1)] if sentinel(x) && *w == own && s.word.is_empty() => Effect::Own,
            _ => Effect::Slow,
        }
    }

    #[inline]
    fn tables(&self) -> &'static Tables {
        if self.reference == Reference::Tokenizers {
            &HF
        } else {
            &PYTHON
        }
    }

    /// An input code point that ends a word: whitespace that cleaning turns
    /// into " ", or that the pre-tokenizer splits on (for Google this is
    /// wider: U+2028 survives cleaning but `str.split()` splits on it).
    #[inline]
    fn ends_word(reference: Reference, cp: u32) -> bool {
        reference.is_text_space(cp) || reference.is_split_space(cp)
    }

    /// The end of the run of WORD bytes from `i` (a WORD byte), and whether
    /// the run holds a capital letter: eight bytes at a time when WORD bytes
    /// are exactly the ASCII letters and digits (every reference that splits
    /// on punctuation), else byte by byte.
    #[inline]
    pub(crate) fn word_run(&self, text: &[u8], mut i: usize) -> (usize, bool) {
        let mut upper = 0u64;
        if self.alnum_words {
            while let Some(chunk) = text.get(i..i + 8) {
                let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
                let stop = not_alnum(w);
                if stop != 0 {
                    let k = stop.trailing_zeros() / 8;
                    let before = (1u64 << (8 * k)).wrapping_sub(1); // the bytes before the stop
                    return (i + k as usize, upper | ascii_upper(w) & before != 0);
                }
                upper |= ascii_upper(w);
                i += 8;
            }
        }
        let mut up = upper != 0;
        while i < text.len() && self.class[text[i] as usize] == WORD {
            up |= text[i].is_ascii_uppercase();
            i += 1;
        }
        (i, up)
    }

    /// What byte `b` does (DROP, SPACE, PUNCT, WORD or MULTI).
    #[inline(always)]
    pub(crate) fn byte_class(&self, b: u8) -> u8 {
        self.class[b as usize]
    }

    /// The shared table of BMP code point classes for these options.
    #[inline]
    pub(crate) fn classes(&self) -> &'static CodePointClasses {
        CodePointClasses::shared(self.classes_key)
    }

    /// This encoder without the lane's 64-byte windows (for the tests that compare both).
    #[cfg(test)]
    pub(crate) fn without_windows(&self) -> Self {
        Encoder { wide: None, ..self.clone() }
    }

    /// This encoder with the windows' AVX2 step only (no AVX-512).
    #[cfg(test)]
    pub(crate) fn with_avx2_windows(&self) -> Self {
        Encoder { wide: self.wide.as_ref().map(|w| w.avx2_only()), ..self.clone() }
    }

    /// Whether the lane takes 64-byte windows, and whether with AVX-512.
    #[cfg(test)]
    pub(crate) fn windows(&self) -> Option<bool> {
        self.wide.as_ref().map(|w| w.is_avx512())
    }

    /// Whether words are lowercased.
    #[inline]
    pub(crate) fn lowercases(&self) -> bool {
        self.case.lowercase
    }

    /// Whether `b` (ASCII) separates chunks.
    #[inline]
    fn is_chunk_separator(&self, b: u8) -> bool {
        self.class[b as usize] == SPACE
    }
}

#[cfg(test)]
#[path = "encoder_tests.rs"]
pub(crate) mod tests;
