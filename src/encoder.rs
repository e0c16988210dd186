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
//!   the general path instead, so exactness never rests on this file's
//!   shortcuts.

use crate::code_point_classes::{self as cpc, Block, CodePointClasses, Effect, Entry};
use crate::normalizer::{is_control, Reference, WordCase};
use crate::unicode::{self, push_utf8, Tables, CAPITAL_SIGMA, HF, PYTHON};
use crate::unicode_tables as t;
use crate::word_cache::WordCache;
use crate::{Error, Result};
use std::cell::RefCell;

/// What a byte does (the `class` table): ASCII bytes are decided by the
/// same predicates as the general path; bytes >= 0x80 start a multi-byte
/// code point.
pub(crate) const DROP: u8 = 0; // removed by cleaning (controls, NUL)
pub(crate) const SPACE: u8 = 1; // whitespace: ends the chunk
pub(crate) const PUNCT: u8 = 2; // a word of its own
pub(crate) const WORD: u8 = 3; // part of a word (lowercased when asked)
pub(crate) const MULTI: u8 = 4; // a non-ASCII code point starts here

/// Plain ASCII chunks in a row after which the per-byte path hands back to
/// the ASCII lane. Handing back at once made text where most words hold an
/// accent bounce between the two, rescanning each chunk's ASCII prefix
/// (`ab_builds.py`: 3–7 % faster than handing back at once on the Latin-script
/// UD files and en-large).
const LANE_AFTER: usize = 2;

/// The per-tokenizer settings of the one-pass path.
#[derive(Clone, Debug)]
pub struct Encoder {
    class: [u8; 256],
    /// WORD bytes are exactly [0-9A-Za-z], so runs can be found eight bytes at a time.
    alnum_words: bool,
    reference: Reference,
    case: WordCase,
    chinese: bool,
    split_punc: bool,
    /// Which shared table of BMP code point classes these options use.
    classes_key: usize,
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
        Encoder { class, alnum_words, reference, case, chinese, split_punc, classes_key }
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

    /// Encodes `text`, calling `word(utf8, code points, out)` for each
    /// normalized word in order, and `general(chunk, out)` for each chunk
    /// that needs the general path (after taking back what the chunk had
    /// emitted).
    ///
    /// The common case first: while chunks are ASCII letter and digit runs
    /// between single punctuation bytes, they are taken a run at a time and
    /// their words go out straight from the text (or a small buffer when
    /// lowercased), with one call site for `word` so it is inlined. A chunk
    /// holding anything else (non-ASCII, controls) is taken back and handed
    /// whole to [`encode_chunks`](Self::encode_chunks), which handles everything.
    #[inline]
    pub(crate) fn encode(
        &self,
        text: &[u8],
        s: &mut Buffers,
        out: &mut Vec<u32>,
        mut word: impl FnMut(&[u8], usize, &mut Vec<u32>),
        general: impl Fn(&[u8], &mut Vec<u32>) -> Result<()>,
    ) -> Result<()> {
        if !self.alnum_words {
            return self.encode_chunks(text, false, s, out, word, general).map(|_| ());
        }
        let n = text.len();
        let (mut i, mut chunk_start, mut mark) = (0, 0, out.len());
        let mut lowered = [0u8; 32];
        while i < n {
            // The end of the word starting at `i` and whether it has capitals
            // to lowercase; None when the chunk needs the other path.
            let simple = match self.class[text[i] as usize] {
                WORD => {
                    let (end, upper) = self.word_run(text, i);
                    let next = text.get(end).map_or(SPACE, |&c| self.class[c as usize]);
                    let lower = upper && self.case.lowercase;
                    ((next == SPACE || next == PUNCT) && !(lower && end - i > lowered.len())).then_some((end, lower))
                }
                PUNCT => Some((i + 1, false)),
                SPACE => {
                    i += 1;
                    (chunk_start, mark) = (i, out.len());
                    continue;
                }
                _ => None,
            };
            let Some((end, lower)) = simple else {
                // Take back the chunk's words and encode it the other way,
                // with the chunks after it until one starts like ASCII text
                // again (a Cyrillic or Hangul line stays there).
                out.truncate(mark);
                i = chunk_start + self.encode_chunks(&text[chunk_start..], true, s, out, &mut word, &general)?;
                (chunk_start, mark) = (i, out.len());
                continue;
            };
            let w = if lower {
                for (d, c) in lowered.iter_mut().zip(&text[i..end]) {
                    *d = c.to_ascii_lowercase();
                }
                &lowered[..end - i]
            } else {
                &text[i..end]
            };
            word(w, end - i, out);
            i = end;
        }
        Ok(())
    }

    /// [`encode`](Self::encode) without the ASCII lane: every byte through
    /// the class tables. ASCII bytes take one table lookup each. With
    /// `back_to_lane`, stops at the first chunk that starts with an ASCII
    /// letter, digit or punctuation byte (the lane's) once LANE_AFTER plain
    /// ASCII chunks have gone by, and returns where it starts; else returns
    /// `text.len()`.
    fn encode_chunks(
        &self,
        text: &[u8],
        back_to_lane: bool,
        s: &mut Buffers,
        out: &mut Vec<u32>,
        mut word: impl FnMut(&[u8], usize, &mut Vec<u32>),
        general: impl Fn(&[u8], &mut Vec<u32>) -> Result<()>,
    ) -> Result<usize> {
        s.word.clear();
        s.chars = 0;
        let classes = CodePointClasses::shared(self.classes_key);
        let (mut chunk_start, mut mark) = (0, out.len());
        let (mut i, n) = (0, text.len());
        // Chunks in a row without a non-ASCII code point (or a control).
        let mut ascii_chunks = 0;
        let mut plain = true;
        while i < n {
            let b = text[i];
            match self.class[b as usize] {
                WORD => {
                    // A whole ASCII run of word bytes at once; when it is the
                    // whole word (the common case) and has nothing to
                    // lowercase, it goes out without a copy.
                    let start = i;
                    let (end, upper) = self.word_run(text, i);
                    i = end;
                    let run = &text[start..i];
                    let lower = self.case.lowercase && upper;
                    let ends = i == n || matches!(self.class[text[i] as usize], SPACE | PUNCT);
                    if s.word.is_empty() && ends && !lower {
                        word(run, run.len(), out);
                        continue;
                    }
                    if lower {
                        s.word.extend(run.iter().map(u8::to_ascii_lowercase));
                    } else {
                        s.word.extend_from_slice(run);
                    }
                    s.chars += run.len();
                    if ends {
                        flush(s, &mut |w, n| word(w, n, out));
                    }
                    continue;
                }
                SPACE => {
                    i += 1;
                    flush(s, &mut |w, n| word(w, n, out));
                    (chunk_start, mark) = (i, out.len());
                    ascii_chunks = if plain { ascii_chunks + 1 } else { 0 };
                    plain = true;
                    if back_to_lane && ascii_chunks >= LANE_AFTER && i < n && matches!(self.class[text[i] as usize], WORD | PUNCT) {
                        return Ok(i);
                    }
                    continue;
                }
                PUNCT => {
                    i += 1;
                    flush(s, &mut |w, n| word(w, n, out));
                    word(&text[i - 1..i], 1, out);
                    continue;
                }
                DROP => {
                    i += 1;
                    plain = false;
                    continue;
                }
                _ => {}
            }
            plain = false;
            // (`let else`, not `ok_or`: that would build and drop an Error per code point.)
            let Some((cp, len)) = unicode::decode_one(&text[i..]) else {
                return Err(Error::InvalidText);
            };
            // Most non-ASCII code points: one load says what to do.
            let (table, e) = self.bmp_entry(classes, cp);
            match (e.class(), table) {
                (cpc::WORD, _) => {
                    // The whole run of unchanged word code points, then one copy
                    // (none when the run is the whole word).
                    let start = i;
                    i += len;
                    s.chars += 1;
                    while i < n && text[i] >= 0x80 {
                        match unicode::decode_one(&text[i..]) {
                            Some((c, l)) if self.bmp_entry(classes, c).1.class() == cpc::WORD => {
                                i += l;
                                s.chars += 1;
                            }
                            _ => break,
                        }
                    }
                    if s.word.is_empty() && (i == n || matches!(self.class[text[i] as usize], SPACE | PUNCT)) {
                        word(&text[start..i], s.chars, out);
                        s.chars = 0;
                    } else {
                        s.word.extend_from_slice(&text[start..i]);
                    }
                    continue;
                }
                (cpc::MAPPED, Some(table)) => {
                    s.word.extend_from_slice(table.replacement(e));
                    s.chars += e.chars();
                }
                (cpc::OWN, _) => {
                    flush(s, &mut |w, n| word(w, n, out));
                    word(&text[i..i + len], 1, out);
                }
                (cpc::SPACE, _) => flush(s, &mut |w, n| word(w, n, out)),
                (cpc::DROP, _) => {}
                _ => {
                    if !self.code_point(cp, s, &mut |w, n| word(w, n, out)) {
                        // This chunk needs the general path: take back what it emitted.
                        out.truncate(mark);
                        s.word.clear();
                        s.chars = 0;
                        let end = text[i..].iter().position(|&b| self.is_chunk_separator(b)).map_or(text.len(), |k| i + k);
                        general(&text[chunk_start..end], out)?;
                        i = end;
                        continue;
                    }
                }
            }
            i += len;
        }
        flush(s, &mut |w, n| word(w, n, out));
        Ok(n)
    }

    /// One non-ASCII code point of a chunk; false when the chunk needs the general path.
    #[inline]
    fn code_point(&self, cp: u32, s: &mut Buffers, word: &mut impl FnMut(&[u8], usize)) -> bool {
        let r = self.reference;
        if cp == 0xFFFD || is_control(cp, r) {
            return true;
        }
        if Self::ends_word(r, cp) {
            flush(s, word);
            return true;
        }
        if r == Reference::Transformers && !unicode::is_nfc_inert(cp) {
            return false;
        }
        let cjk = self.chinese && r.is_cjk(cp);
        if cjk {
            flush(s, word);
        }
        if !self.map(cp, s) {
            return false;
        }
        for k in 0..s.mapped.len() {
            let c = s.mapped[k];
            if r.is_split_space(c) {
                flush(s, word);
            } else if self.split_punc && r.is_punctuation(c) {
                flush(s, word);
                let mark = s.word.len();
                push_utf8(c, &mut s.word);
                word(&s.word[mark..], 1);
                s.word.truncate(mark);
            } else {
                push_utf8(c, &mut s.word);
                s.chars += 1;
            }
        }
        if cjk {
            flush(s, word);
        }
        true
    }

    /// `cp` lowercased and/or stripped of accents, into `s.mapped`, in the
    /// reference's order (Python: lower, then NFD; HF: NFD, then lower).
    /// False if the result could depend on the neighbours: capital sigma
    /// (Final_Sigma), or a combining mark NFD would keep, whose order among
    /// its neighbours' marks canonical reordering decides.
    #[inline]
    fn map(&self, cp: u32, s: &mut Buffers) -> bool {
        s.mapped.clear();
        let tables = self.tables();
        let hf = self.reference == Reference::Tokenizers;
        if self.case.lowercase && !hf {
            if cp == CAPITAL_SIGMA {
                return false;
            }
            tables.lower_char_into(cp, &mut s.mapped);
        } else {
            s.mapped.push(cp);
        }
        if self.case.strip_accents {
            s.tmp.clear();
            tables.nfd_into(&s.mapped, &mut s.tmp);
            s.mapped.clear();
            for &c in &s.tmp {
                let p = tables.props(c);
                if p.has(t::MN) {
                    continue;
                }
                if p.ccc != 0 {
                    return false;
                }
                s.mapped.push(c);
            }
        }
        if self.case.lowercase && hf {
            std::mem::swap(&mut s.mapped, &mut s.tmp);
            s.mapped.clear();
            for k in 0..s.tmp.len() {
                tables.lower_char_into(s.tmp[k], &mut s.mapped);
            }
        }
        true
    }
}

/// The high bit of each byte of `w` that is not an ASCII letter or digit
/// (SWAR: per-byte range tests whose sums never carry into the next byte).
#[inline]
fn not_alnum(w: u64) -> u64 {
    let x = w & !HIGH;
    let digit = within(x, b'0', b'9');
    let letter = within(x | (0x20 * ONES), b'a', b'z');
    (!(digit | letter) & HIGH) | (w & HIGH)
}

/// The high bit of each byte of `w` that is an ASCII capital letter.
#[inline]
fn ascii_upper(w: u64) -> u64 {
    within(w & !HIGH, b'A', b'Z') & !w
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` (all bytes < 0x80) in `lo..=hi`.
#[inline]
fn within(x: u64, lo: u8, hi: u8) -> u64 {
    (x + (0x80 - lo as u64) * ONES) & !(x + (0x7F - hi as u64) * ONES) & HIGH
}

#[inline]
fn flush(s: &mut Buffers, word: &mut impl FnMut(&[u8], usize)) {
    if !s.word.is_empty() {
        word(&s.word, s.chars);
        s.word.clear();
        s.chars = 0;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::encoder::Scratch;
    use crate::normalizer::Reference;
    use crate::tokenizer::{BasicOptions, FullOptions, FullTokenizer};
    use crate::unicode::encode_into;
    use crate::vocab::Vocab;

    /// Code points that exercise every shortcut and every reason to fall back.
    const TRICKY: &[u32] = &[
        0x61, 0x42, 0x20, 0x09, 0x0B, 0x1C, 0x00, 0x21, 0x23, 0x7F, 0x85, 0x3A3, 0x3C2, 0x130, 0xE9, 0x65, 0x301,
        0x323, 0x345, 0x3000, 0x2028, 0x200B, 0xFFFD, 0x4E2D, 0xF900, 0x2B820, 0xFF0C, 0x958, 0x1100, 0x1161,
        0x11A8, 0xAC00, 0x212B, 0x1E9E, 0x1C5, 0xFB00, 0xF73, 0x1D165, 0x1D16D, 0xCD5, 0x2160, 0xD800, 0xE000, 0x10FFFF,
    ];

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    fn vocab(seed: &mut u64) -> Vocab {
        let mut lines = vec!["[UNK]".to_string()];
        let letters = ["a", "b", "e", "é", "i", "σ", "ς", "中", "豈", "가", "ß", "!", "，", "#", "ab", "ae", "ss", "\u{1D165}", "\u{1D16D}"];
        for l in letters {
            lines.push(l.into());
            if rng(seed) % 3 != 0 {
                lines.push(format!("##{l}"));
            }
        }
        Vocab::parse(&(lines.join("\n") + "\n"), Reference::Google)
    }

    /// Every combination of the basic options (the tests of the other lanes use it too).
    pub(crate) fn options() -> Vec<BasicOptions> {
        let mut all = Vec::new();
        for reference in [Reference::Google, Reference::Transformers, Reference::Tokenizers] {
            for do_lower_case in [true, false] {
                for strip_accents in [None, Some(true), Some(false)] {
                    for tokenize_chinese_chars in [true, false] {
                        for do_split_on_punc in [true, false] {
                            if reference == Reference::Tokenizers && !do_split_on_punc {
                                continue;
                            }
                            all.push(BasicOptions { do_lower_case, strip_accents, tokenize_chinese_chars, do_split_on_punc, reference, never_split: vec![] });
                        }
                    }
                }
            }
        }
        all
    }

    #[test]
    fn one_pass_equals_the_general_path() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for basic in options() {
            let tok = FullTokenizer::new(vocab(&mut seed), FullOptions { basic: basic.clone(), max_input_chars_per_word: Some(6), ..Default::default() }).unwrap();
            assert!(tok.is_one_pass());
            // Without and with the word memo (one scratch space for all texts, so the memo hits).
            let (mut scratch, mut memo) = (Scratch::default(), Scratch::with_cache());
            for _ in 0..3000 {
                let len = rng(&mut seed) % 10;
                let text: Vec<u32> = (0..len).map(|_| TRICKY[(rng(&mut seed) % TRICKY.len() as u64) as usize]).collect();
                let mut bytes = Vec::new();
                encode_into(&text, &mut bytes);
                let mut want = Vec::new();
                let mut raw = Vec::new();
                tok.tokenize(&text, |t| want.push(tok.piece_id(t.piece, &mut raw).unwrap()));
                let mut got = Vec::new();
                tok.encode_into(&bytes, &mut got, &mut scratch).unwrap();
                assert_eq!(got, want, "{basic:?} text {text:X?}");
                got.clear();
                tok.encode_into(&bytes, &mut got, &mut memo).unwrap();
                assert_eq!(got, want, "memo, {basic:?} text {text:X?}");
            }
        }
    }

    /// Long ASCII-heavy texts, so that the eight-bytes-at-a-time scans run
    /// (runs longer than eight bytes, every ASCII byte, lead bytes) and
    /// chunks pass between the ASCII lane and the per-byte path, with and
    /// without lowercasing and punctuation splitting.
    #[test]
    fn word_runs_eight_bytes_at_a_time_equal_the_general_path() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut lines = vec!["[UNK]".to_string()];
        for w in ["ab", "abc", "abcdefgh", "abcdefghij", "a1", "z9z", "the", "a-b", "x", "y"] {
            lines.push(w.into());
            lines.push(format!("##{w}"));
        }
        let vocab = Vocab::parse(&(lines.join("\n") + "\n"), Reference::Google);
        let alphabet: Vec<u32> = (0..128).chain([0xE9, 0xC9, 0x3A3, 0x4E2D, 0x2028]).collect();
        for (do_lower_case, do_split_on_punc) in [(true, true), (false, true), (true, false)] {
            let basic = BasicOptions { do_lower_case, do_split_on_punc, ..Default::default() };
            let tok = FullTokenizer::new(vocab.clone(), FullOptions { basic, ..Default::default() }).unwrap();
            let mut memo = Scratch::with_cache();
            for _ in 0..2000 {
                let len = rng(&mut seed) % 60;
                let text: Vec<u32> = (0..len)
                    .map(|_| match rng(&mut seed) % 6 {
                        0 => alphabet[(rng(&mut seed) % alphabet.len() as u64) as usize],
                        1 => b"ABCDEFGHIJabcdefghij"[(rng(&mut seed) % 20) as usize] as u32,
                        // Spaces and non-ASCII often enough that chunks go from the lane to the per-byte path and back.
                        2 if rng(&mut seed) % 2 == 0 => [0x20, 0xE9, 0x4E2D][(rng(&mut seed) % 3) as usize],
                        _ => b"abcdefghij0123456789XYZ"[(rng(&mut seed) % 23) as usize] as u32,
                    })
                    .collect();
                let mut bytes = Vec::new();
                encode_into(&text, &mut bytes);
                let (mut want, mut raw) = (Vec::new(), Vec::new());
                tok.tokenize(&text, |t| want.push(tok.piece_id(t.piece, &mut raw).unwrap()));
                let mut got = Vec::new();
                tok.encode_into(&bytes, &mut got, &mut memo).unwrap();
                assert_eq!(got, want, "lower {do_lower_case} punc {do_split_on_punc} text {text:X?}");
            }
        }
    }

    #[test]
    fn swar_tests_match_the_byte_predicates() {
        use super::{ascii_upper, not_alnum, HIGH};
        let mut seed = 7u64;
        for _ in 0..20_000 {
            let w = rng(&mut seed) & if rng(&mut seed) % 2 == 0 { !HIGH } else { !0 };
            let bytes = w.to_le_bytes();
            for (k, &b) in bytes.iter().enumerate() {
                assert_eq!(not_alnum(w) >> (8 * k) & 0x80 != 0, !b.is_ascii_alphanumeric(), "{b:#x}");
                assert_eq!(ascii_upper(w) >> (8 * k) & 0x80 != 0, b.is_ascii_uppercase(), "{b:#x}");
            }
        }
    }

    #[test]
    fn one_scratch_space_serves_several_tokenizers() {
        // The word memo belongs to one tokenizer: another one's ids are never served from it.
        let a = FullTokenizer::new(Vocab::parse("[UNK]\nword\nother\n", Reference::Google), FullOptions::default()).unwrap();
        let b = FullTokenizer::new(Vocab::parse("[UNK]\nother\nword\n", Reference::Google), FullOptions::default()).unwrap();
        let mut memo = Scratch::with_cache();
        for _ in 0..3 {
            for (tok, want) in [(&a, [1, 2]), (&b, [2, 1])] {
                let mut got = Vec::new();
                tok.encode_into(b"word other", &mut got, &mut memo).unwrap();
                assert_eq!(got, want);
            }
        }
    }

    #[test]
    fn code_point_classes_record_what_the_per_code_point_path_does() {
        use crate::code_point_classes::Effect::{self, *};
        use crate::normalizer::WordCase;
        let check = |r, lower, cases: &[(u32, Effect)]| {
            let enc = super::Encoder::new(r, WordCase::new(lower, None), true, true);
            for (cp, want) in cases {
                assert_eq!(&enc.classify(*cp), want, "U+{cp:04X} {r:?} lower {lower}");
            }
        };
        let mapped = |s: &str| Mapped(s.as_bytes().to_vec(), s.chars().count());
        check(Reference::Google, true, &[
            (0xE9, mapped("e")),      // é: lowercase, NFD, drop the accent
            (0x416, mapped("ж")),     // Ж
            (0x130, mapped("i")),     // İ: str.lower() gives i + U+0307, which is stripped
            (0x3A3, Slow),            // Σ: final sigma depends on the next letters
            (0x4E2D, Own),            // 中: spaced as a CJK ideograph
            (0xFF0C, Own),            // fullwidth comma: punctuation
            (0x3000, Space),          // ideographic space (Zs)
            (0x200B, Drop),           // zero width space (Cf)
            (0x301, Drop),            // a combining accent on its own is stripped
        ]);
        check(Reference::Google, false, &[(0x416, Word), (0xE9, Word), (0x301, Word), (0x3A3, Word)]);
    }

    #[test]
    fn malformed_utf8_is_an_error() {
        let tok = FullTokenizer::new(Vocab::parse("[UNK]\n", Reference::Google), FullOptions::default()).unwrap();
        let mut out = Vec::new();
        assert!(tok.encode_into(b"ok \xFF", &mut out, &mut Scratch::default()).is_err());
    }
}
