//! The byte-level BPE fast path: for tokenizer.json files shaped as GPT-2's
//! (no normalizer, the `ByteLevel` pre-tokenizer with its regex, a BPE model
//! whose vocabulary holds all 256 byte chars, no prefix/suffix), the text
//! between added tokens goes straight from `&str` to tokens: a hand-written
//! GPT-2 splitter ([`scan`], 64 bytes at a time where it can: [`blocks`]) gives byte ranges, merges run on byte ids
//! ([`merge`]), and offsets come from counting chars once, with no
//! `NormalizedString` and no byte-level string. It yields the same
//! [`Encoding`] as the general path, so added tokens, post-processors,
//! truncation and padding stay the general path's. The ids-only entry of
//! the bulk call finds out in the same scan whether a text may hold an
//! added token ([`FastByteLevel::encode_text_ids`]); a run of texts borrows
//! the thread's word cache once ([`FastByteLevel::with_words`]).

pub(crate) mod blocks;
mod cache;
#[cfg(target_arch = "x86_64")]
mod gather;
mod ids;
pub mod merge;
pub mod scan;

use crate::room::make_room;
use crate::Result;
use crate::added_tokens::FirstBytes;
use crate::config::TokenizerConfig;
use crate::encoding::Encoding;
use crate::models::Model;
use crate::pre_tokenizers::{Behavior, PreTokenizer};
use merge::ByteBpe;
use std::borrow::Cow;
use std::sync::Arc;

/// Cloned with the tokenizer when tokens are added: the tables are shared.
#[derive(Clone)]
pub struct FastByteLevel {
    bpe: Arc<ByteBpe>,
    add_prefix_space: bool,
    /// id -> the token's leading and trailing spaces (`processors::space_counts`), for trimming offsets on ids.
    spaces: Arc<Vec<(u32, u32)>>,
    /// The scanner's ASCII classes with the added tokens' first bytes as
    /// stops, when all of them are ASCII punctuation or controls (see
    /// [`FastByteLevel::encode_text_ids`]); None: look for them first.
    stops: Option<Arc<scan::AsciiClasses>>,
}

impl FastByteLevel {
    /// The fast path for `config`, or None when its shape needs the general path.
    pub fn new(config: &TokenizerConfig) -> Option<FastByteLevel> {
        if config.normalizer.is_some() {
            return None;
        }
        let add_prefix_space = gpt2_split_shape(config.pre_tokenizer.as_ref()?)?;
        let Model::Bpe(model) = &config.model else { return None };
        let bpe = ByteBpe::new(model)?;
        let size = model.vocab_r.keys().max().map_or(0, |&m| m as usize + 1);
        let mut tokens = vec![String::new(); size];
        for (&id, t) in &model.vocab_r {
            tokens[id as usize] = t.clone();
        }
        let spaces = tokens.iter().map(|t| {
            let (a, b) = crate::processors::space_counts(t);
            (a as u32, b as u32)
        });
        let spaces = Arc::new(spaces.collect());
        let stops = scan::AsciiClasses::with_stops(std::iter::empty()).map(Arc::new);
        Some(FastByteLevel { bpe: Arc::new(bpe), add_prefix_space, spaces, stops })
    }

    /// Takes the added tokens' first bytes (whenever the added tokens change).
    pub fn set_added_first_bytes(&mut self, first: &FirstBytes) {
        self.stops = scan::AsciiClasses::with_stops(first.bytes()).map(Arc::new);
    }

    /// Runs `f` with this thread's word cache borrowed once: for a run of
    /// texts, one borrow instead of one per text (the `_in` methods take it).
    /// A word whose tokens could not be made (no memory) makes it an error.
    pub fn with_words<R>(&self, f: impl FnOnce(&mut merge::Words<'_>) -> Result<R>) -> Result<R> {
        self.bpe.with_cache(f)?
    }

    /// [`FastByteLevel::encode_text_ids_in`] with the cache borrowed for this text alone.
    pub fn encode_text_ids(&self, text: &str, first: &FirstBytes, ids: &mut Vec<u32>, offsets: Option<&mut Vec<[u32; 2]>>) -> Result<bool> {
        self.with_words(|words| self.encode_text_ids_in(words, text, first, ids, offsets))
    }

    /// [`FastByteLevel::encode_piece_ids_in`] on a whole text (origin 0) that
    /// holds no added token: false, with nothing appended, when it may hold
    /// one (a byte of `first`), for the caller to split them out first.
    /// Where the first bytes are ASCII punctuation, the scan itself stops at
    /// them (no pass of its own over the text); otherwise `first` is looked for first.
    pub fn encode_text_ids_in(&self, words: &mut merge::Words<'_>, text: &str, first: &FirstBytes, ids: &mut Vec<u32>, mut offsets: Option<&mut Vec<[u32; 2]>>) -> Result<bool> {
        let Some(stops) = &self.stops else {
            if first.may_occur_in(text) {
                return Ok(false);
            }
            self.encode_piece_ids_in(words, text, 0, ids, offsets)?;
            return Ok(true);
        };
        let (ids_from, offsets_from) = (ids.len(), offsets.as_ref().map_or(0, |o| o.len()));
        if self.encode_ids_until(words, text, 0, stops, ids, offsets.as_deref_mut())? {
            return Ok(true);
        }
        ids.truncate(ids_from);
        if let Some(o) = offsets {
            o.truncate(offsets_from);
        }
        Ok(false)
    }

    /// `text` with the pre-tokenizer's `add_prefix_space` applied, and how many
    /// chars it prepended (0 or 1). HF's prepend: the added space carries the
    /// first char's span. The copy made fallibly (the text can be a whole input).
    fn prefixed<'t>(&self, text: &'t str) -> Result<(Cow<'t, str>, usize)> {
        if self.add_prefix_space && !text.starts_with(' ') {
            let mut spaced = String::new();
            crate::room::ensure_text_room(&mut spaced, text.len() + 1, "prefixed text")?;
            spaced.push(' ');
            spaced.push_str(text);
            Ok((Cow::Owned(spaced), 1))
        } else {
            Ok((Cow::Borrowed(text), 0))
        }
    }

    /// Encodes one stretch of text between added tokens, `text` starting at
    /// char `origin` of the input: what the general path does with
    /// pre-tokenizer and model. `word` is the next word index (advanced per
    /// word) unless `fixed_word` overrides it (pre-tokenized input).
    pub fn encode_piece(&self, text: &str, origin: usize, word: &mut u32, fixed_word: Option<u32>, type_id: u32, out: &mut Encoding) -> Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        let (text, prefix) = self.prefixed(text)?;
        let text = &*text;
        let bytes = text.as_bytes();
        // ASCII text: chars are bytes (the common case, no counting)
        let ascii = text.is_ascii();
        // chars of `text` before the current word
        let mut chars_before = 0usize;
        // the pieces 64 bytes at a time (no Stop bytes: the added tokens are split out already)
        let mut room = Ok(());
        self.bpe.with_cache(|words| ids::split_blocks(text, scan::AsciiClasses::plain(), |start, end| {
            // a token a byte at most: the word's room made fallibly (the pushes below never grow)
            if room.is_err() || { room = out.ensure(end - start); room.is_err() } {
                return;
            }
            let w = fixed_word.unwrap_or(*word);
            *word += 1;
            let mut at = start; // byte where the next token starts
            let mut char_at = chars_before; // chars before `at`
            words.tokenize_each(bytes, start, end, |id, len| {
                let end_byte = at + len as usize;
                let span;
                (span, char_at) = token_span(bytes, ascii, at, end_byte, char_at, origin, prefix);
                // the token's text is the vocabulary's (stored as its id, no string)
                out.push(id, None, span, Some(w), type_id);
                at = end_byte;
            });
            chars_before = char_at;
        }))?;
        room
    }

    /// Every model token's leading and trailing spaces (index: id; ids the model lacks: (0, 0)).
    pub fn spaces_table(&self) -> &[(u32, u32)] {
        &self.spaces
    }

    /// The leading and trailing spaces of model token `id` (0, 0 if unknown).
    #[inline]
    pub fn spaces(&self, id: u32) -> (u32, u32) {
        self.spaces.get(id as usize).copied().unwrap_or((0, 0))
    }

    /// [`FastByteLevel::encode_piece_ids_in`] with the cache borrowed for this piece alone.
    pub fn encode_piece_ids(&self, text: &str, origin: usize, ids: &mut Vec<u32>, offsets: Option<&mut Vec<[u32; 2]>>) -> Result<()> {
        self.with_words(|words| self.encode_piece_ids_in(words, text, origin, ids, offsets))
    }

    /// [`FastByteLevel::encode_piece`] for ids only: the ids appended to
    /// `ids` and, when asked, each token's (start, end) in chars of the
    /// original text to `offsets`. No token string, word index or type id.
    /// The caller keeps texts under 2^31 bytes, so every offset fits a u32.
    pub fn encode_piece_ids_in(&self, words: &mut merge::Words<'_>, text: &str, origin: usize, ids: &mut Vec<u32>, offsets: Option<&mut Vec<[u32; 2]>>) -> Result<()> {
        self.encode_ids_until(words, text, origin, scan::AsciiClasses::plain(), ids, offsets).map(|_| ())
    }

    /// [`FastByteLevel::encode_piece_ids_in`] with the scanner's classes
    /// `classes`, up to its first Stop byte: false if there is one (what was
    /// appended before it is the caller's to drop).
    fn encode_ids_until(
        &self,
        words: &mut merge::Words<'_>,
        text: &str,
        origin: usize,
        classes: &scan::AsciiClasses,
        ids: &mut Vec<u32>,
        offsets: Option<&mut Vec<[u32; 2]>>,
    ) -> Result<bool> {
        if text.is_empty() {
            return Ok(true);
        }
        let (text, prefix) = self.prefixed(text)?;
        let text = &*text;
        let bytes = text.as_bytes();
        // an id a byte at most (and 8 ids of slack for the gathered stores): made fallibly
        // here, so that no push below grows the buffer
        make_room(ids, text.len() + 8, "byte-level BPE ids")?;
        let Some(offsets) = offsets else {
            return Ok(words.text_ids(text, classes, ids));
        };
        make_room(offsets, text.len() + 8, "byte-level BPE offsets")?;
        // ASCII text: chars are bytes (the common case, no counting)
        let ascii = text.is_ascii();
        let sink = OffsetsSink { words, bytes, ascii, origin, prefix, chars_before: 0, ids, offsets };
        Ok(ids::split_blocks(text, classes, sink))
    }
}

/// Whether `pre` splits as GPT-2's `ByteLevel` (its regex, then bytes as
/// chars), and then its `add_prefix_space`; None: another split. Two shapes do:
/// `ByteLevel` with `use_regex`, and what transformers' TikTokenConverter
/// writes for GPT-2's pattern: `Sequence[Split(that regex, Isolated, not
/// inverted), ByteLevel(no regex, no prefix space)]` (the same pieces, each a
/// word; a prefix space there would go before every piece, so it is refused).
fn gpt2_split_shape(pre: &PreTokenizer) -> Option<bool> {
    match pre {
        PreTokenizer::ByteLevel(b) if b.use_regex => Some(b.add_prefix_space),
        PreTokenizer::Sequence(seq) => match seq.as_slice() {
            [PreTokenizer::RegexSplit(split), PreTokenizer::ByteLevel(b)]
                if split.pattern == GPT2_PATTERN && split.behavior == Behavior::Isolated && !split.invert
                    && !b.use_regex && !b.add_prefix_space => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// HF's GPT-2 split regex, as `ByteLevel` holds it and a `Split` spells it.
const GPT2_PATTERN: &str = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";

/// The bulk ids+offsets loop's pieces: each piece's tokens' ids, and their
/// (start, end) in chars of the original text. A struct rather than a
/// closure so that it is inlined into the split's loop (LLVM kept the
/// closure, called from two places there, out of line: a call per piece).
struct OffsetsSink<'w, 'a, 't> {
    words: &'w mut merge::Words<'a>,
    bytes: &'t [u8],
    /// ASCII text: chars are bytes (no counting).
    ascii: bool,
    /// The text's first char in the original, and the chars prepended to it (0 or 1).
    origin: usize,
    prefix: usize,
    /// Chars before the current piece.
    chars_before: usize,
    ids: &'t mut Vec<u32>,
    offsets: &'t mut Vec<[u32; 2]>,
}

impl ids::PieceSink for OffsetsSink<'_, '_, '_> {
    #[inline(always)]
    fn piece(&mut self, start: usize, end: usize) {
        let (bytes, ascii, origin, prefix) = (self.bytes, self.ascii, self.origin, self.prefix);
        let (ids, offsets) = (&mut *self.ids, &mut *self.offsets);
        let (mut at, mut char_at) = (start, self.chars_before);
        self.words.tokenize_each(bytes, start, end, |id, len| {
            let end_byte = at + len as usize;
            let span;
            (span, char_at) = token_span(bytes, ascii, at, end_byte, char_at, origin, prefix);
            ids.push(id);
            offsets.push([span.0 as u32, span.1 as u32]);
            at = end_byte;
        });
        self.chars_before = char_at;
    }
}

/// The (start, end) in chars of the original text of a token of
/// `bytes[at..end]` (`char_at`: chars before `at`), and the chars before
/// `end`: a token starting inside a char takes that whole char (as in HF);
/// in prefixed text (`prefix` chars prepended), char k is original char
/// k - prefix, the prepended space char 0's; `origin`: the text's first char.
#[inline(always)]
fn token_span(bytes: &[u8], ascii: bool, at: usize, end: usize, char_at: usize, origin: usize, prefix: usize) -> ((usize, usize), usize) {
    let (first, chars_in) = if ascii {
        (char_at, end - at)
    } else {
        let first = if is_char_start(bytes, at) { char_at } else { char_at.saturating_sub(1) };
        (first, bytes.get(at..end).unwrap_or_default().iter().filter(|&&b| is_char_start_byte(b)).count())
    };
    let after = char_at + chars_in;
    let last = after.saturating_sub(1); // char holding the token's last byte
    ((origin + first.saturating_sub(prefix), origin + last.saturating_sub(prefix) + 1), after)
}

#[inline]
fn is_char_start_byte(b: u8) -> bool {
    (b as i8) >= -0x40
}

#[inline]
fn is_char_start(bytes: &[u8], i: usize) -> bool {
    bytes.get(i).is_some_and(|&b| is_char_start_byte(b))
}

#[cfg(test)]
pub(crate) mod tests;
