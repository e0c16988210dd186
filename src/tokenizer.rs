//! The pipeline: `BasicTokenizer` (normalizer + pre-tokenizer) and
//! `FullTokenizer` (basic + WordPiece), as in Google's `tokenization.py`.
//! The basic tokenizer is in `tokenizer_basic.rs`.

use crate::aligned::{Aligned, Span};
use crate::encoder::{Encoder, Scratch, Words};
use crate::piece_chars::PieceChars;
use crate::word_cache::WordCache;
use crate::normalizer::Reference;
use crate::room::{make_room, max_tokens, segments};
use crate::unicode;
use crate::vocab::Vocab;
use crate::wordpiece::WordPiece;
use crate::{Error, Result};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

pub use basic::{BasicOptions, BasicTokenizer, TokenSet};

#[path = "tokenizer_basic.rs"]
mod basic;

/// One output token of [`FullTokenizer::tokenize`]: what it is, where it
/// comes from in the original text (code points), and which pre-tokenizer
/// word it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    pub piece: Piece<'a>,
    pub span: Span,
    pub word: u32,
}

/// What a [`Token`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// A vocabulary entry, by its index in [`Vocab::entries`].
    Vocab(u32),
    /// The unknown token.
    Unk,
    /// A protected token passed through as is (it may not be in the vocabulary).
    Raw(&'a [u32]),
}

/// Google's `FullTokenizer`: basic tokenization, then WordPiece per token.
#[derive(Clone, Debug)]
pub struct FullTokenizer {
    vocab: Vocab,
    basic: BasicTokenizer,
    wordpiece: WordPiece,
    unk_token: Vec<u8>,
    unk_id: u32,
    /// The one-pass path; `None` when protected tokens need whole-token lookups.
    pub(crate) encoder: Option<Encoder>,
    /// The id of each one-byte ASCII word (punctuation, mostly), found once.
    pub(crate) ascii_ids: [u32; 128],
    /// Which tokenizer a `Scratch`'s word memo belongs to (clones share it:
    /// they give the same ids).
    pub(crate) identity: u64,
    /// Piece lengths by id, for the offsets path (`None`: it takes the general path).
    pub(crate) piece_chars: Option<PieceChars>,
}

/// The one-pass path's words, through the memo: a short ASCII word is
/// looked up by its packed bytes as they come from the encoder.
struct MemoWords<'a> {
    tok: &'a FullTokenizer,
    cache: &'a mut WordCache,
}

impl Words for MemoWords<'_> {
    #[inline(always)]
    fn word(&mut self, word: &[u8], chars: usize, out: &mut Vec<u32>) {
        self.tok.push_word_memo(word, chars, out, self.cache);
    }

    #[inline(always)]
    fn ascii8(&mut self, packed: u64, len: usize, out: &mut Vec<u32>) {
        if len == 1 {
            out.push(self.tok.ascii_ids[(packed & 0x7F) as usize]);
            return;
        }
        let tok = self.tok;
        self.cache.ids_packed8(packed, len, out, |word, out| tok.push_unseen_word(word, len, out));
    }
}

/// Hands out tokenizer identities.
static IDENTITIES: AtomicU64 = AtomicU64::new(1);

/// A single text at least this long turns the word memo on.
pub(crate) const MEMO_MIN_TEXT: usize = 1 << 16;

/// Half-bytes of text per id still wanted in a part of
/// [`FullTokenizer::encode_prefix_into`] (English runs near 4.5 bytes an id).
const PREFIX_HALF_BYTES_PER_ID: usize = 9;

/// `FullTokenizer` settings beyond the basic options.
#[derive(Clone, Debug)]
pub struct FullOptions {
    pub basic: BasicOptions,
    pub unk_token: String,
    /// `None`: the reference's default (200 Google, 100 transformers).
    pub max_input_chars_per_word: Option<i64>,
    pub preserve_unused_tokens: bool,
}

impl Default for FullOptions {
    fn default() -> Self {
        FullOptions {
            basic: BasicOptions::default(),
            unk_token: "[UNK]".into(),
            max_input_chars_per_word: None,
            preserve_unused_tokens: false,
        }
    }
}

impl FullTokenizer {
    pub fn from_file(path: &Path, opts: FullOptions) -> Result<Self> {
        let vocab = Vocab::from_file(path, opts.basic.reference)?;
        Self::new(vocab, opts)
    }

    pub fn new(vocab: Vocab, opts: FullOptions) -> Result<Self> {
        let Some(unk_id) = vocab.id(opts.unk_token.as_bytes()) else {
            return Err(Error::MissingUnkToken { token: opts.unk_token });
        };
        let max = opts
            .max_input_chars_per_word
            .unwrap_or(opts.basic.reference.max_input_chars_per_word() as i64);
        let tokens: Vec<&[u8]> = vocab.entries().iter().map(|e| &*e.0).collect();
        let ids: Vec<u32> = vocab.entries().iter().map(|e| e.1).collect();
        let wordpiece = WordPiece::with_ids(&tokens, ids, max);
        let mut basic = BasicTokenizer::new(opts.basic)?;
        if opts.preserve_unused_tokens {
            if basic.options().reference == Reference::Tokenizers {
                return Err(Error::UnsupportedOption("preserve_unused_tokens"));
            }
            basic = basic.preserve_unused_tokens(&vocab);
        }
        let o = basic.options();
        let encoder = (basic.never_split.is_empty() && basic.preserved.is_empty())
            .then(|| Encoder::new(o.reference, basic.case, o.tokenize_chinese_chars, o.do_split_on_punc));
        let identity = IDENTITIES.fetch_add(1, Ordering::Relaxed);
        let piece_chars = PieceChars::new(&vocab);
        let mut tok =
            FullTokenizer { vocab, basic, wordpiece, unk_token: opts.unk_token.into_bytes(), unk_id, encoder, ascii_ids: [0; 128], identity, piece_chars };
        for b in 0..128u8 {
            // A one-byte word is one piece or the unknown token: one id.
            let mut ids = Vec::with_capacity(1);
            tok.push_word(&[b], 1, &mut ids);
            tok.ascii_ids[b as usize] = ids.first().copied().unwrap_or(tok.unk_id);
        }
        Ok(tok)
    }

    pub fn vocab(&self) -> &Vocab {
        &self.vocab
    }

    pub fn basic(&self) -> &BasicTokenizer {
        &self.basic
    }

    pub fn unk_token(&self) -> &[u8] {
        &self.unk_token
    }

    /// Tokenizes `text`, calling `emit` per output token. A word that
    /// becomes the unknown token spans the whole word.
    pub fn tokenize(&self, text: &[u32], emit: impl FnMut(Token<'_>)) {
        self.tokenize_words(text, 0, emit);
    }

    /// [`tokenize`](Self::tokenize) with words numbered from `first`;
    /// returns the number after the last word's.
    pub(crate) fn tokenize_words(&self, text: &[u32], first: u32, mut emit: impl FnMut(Token<'_>)) -> u32 {
        let mut pieces = Vec::new();
        let mut word = first;
        self.basic.tokenize(text, None, |chars, spans, protected| {
            let whole = Aligned::span_of(spans, 0..chars.len());
            if protected {
                emit(Token { piece: Piece::Raw(chars), span: whole, word });
            } else if self.wordpiece.tokenize_word(chars, &mut pieces) {
                let mut start = 0;
                for (i, end) in pieces.drain(..) {
                    let span = Aligned::span_of(spans, start..end as usize);
                    emit(Token { piece: Piece::Vocab(i), span, word });
                    start = end as usize;
                }
            } else {
                emit(Token { piece: Piece::Unk, span: whole, word });
            }
            word += 1;
        });
        word
    }

    /// Whether [`encode_into`](Self::encode_into) takes the one-pass path
    /// (it does unless there are `never_split` or preserved tokens).
    pub fn is_one_pass(&self) -> bool {
        self.encoder.is_some()
    }

    /// Appends the ids of `text` (generalized UTF-8) to `out`: the ids of
    /// [`tokenize`](Self::tokenize)'s tokens, with the unknown id for a
    /// protected token missing from the vocabulary. One pass over the bytes
    /// (see `encoder.rs`); `scratch` is reused between calls.
    pub fn encode_into(&self, text: &[u8], out: &mut Vec<u32>, scratch: &mut Scratch) -> Result<()> {
        let Scratch { buffers, cache } = scratch;
        if text.len() >= MEMO_MIN_TEXT {
            cache.enable();
        }
        cache.belong_to(self.identity);
        // A segment at a time, each with room for every id it can give and
        // two more (the caller's [SEP] and next [CLS]) made fallibly first:
        // a text too large is a MemoryError, not an abort.
        for text in segments(text) {
            make_room(out, max_tokens(text) + 2, "token ids")?;
            match &self.encoder {
                None => self.encode_general(text, out)?,
                Some(enc) if !cache.is_enabled() => {
                    enc.encode(text, buffers, out, |w: &[u8], n, out: &mut Vec<u32>| self.push_word(w, n, out), |t, out| self.encode_general(t, out))?
                }
                Some(enc) => enc.encode(text, buffers, out, MemoWords { tok: self, cache }, |t, out| self.encode_general(t, out))?,
            }
        }
        Ok(())
    }

    /// [`encode_into`](Self::encode_into) for a caller that keeps only the
    /// first `limit` ids of `text` (right truncation): see
    /// [`encode_str_prefix_into`](Self::encode_str_prefix_into); the rest of a
    /// text cut short is still checked, so malformed text is the same error as
    /// with `encode_into`.
    pub fn encode_prefix_into(&self, text: &[u8], limit: usize, out: &mut Vec<u32>, scratch: &mut Scratch) -> Result<()> {
        let at = self.encode_prefix_parts(text, limit, out, scratch)?;
        let rest = text.get(at..).unwrap_or_default();
        // (most rows end whole: no call for an empty rest)
        if !rest.is_empty() && std::str::from_utf8(rest).is_err() && !crate::unicode::is_generalized_utf8(rest) {
            return Err(Error::InvalidText);
        }
        Ok(())
    }

    /// The first ids of `text` (at least `limit` of them, or all): the text a
    /// part at a time, each part cut before an ASCII space or newline (no
    /// reference looks across one: see `room::segments`), until `limit` ids
    /// were appended or the text ends. The ids appended are the first ids of
    /// the whole text. A `str` needs no check of the rest it leaves.
    pub fn encode_str_prefix_into(&self, text: &str, limit: usize, out: &mut Vec<u32>, scratch: &mut Scratch) -> Result<()> {
        self.encode_prefix_parts(text.as_bytes(), limit, out, scratch).map(drop)
    }

    /// [`encode_str_prefix_into`](Self::encode_str_prefix_into) for generalized UTF-8 known to be
    /// well formed (a batch's `BatchOptions::valid_text`): the rest is not read.
    pub(crate) fn encode_valid_prefix_into(&self, text: &[u8], limit: usize, out: &mut Vec<u32>, scratch: &mut Scratch) -> Result<()> {
        self.encode_prefix_parts(text, limit, out, scratch).map(drop)
    }

    /// The parts' loop of the three above; returns where it stopped.
    fn encode_prefix_parts(&self, text: &[u8], limit: usize, out: &mut Vec<u32>, scratch: &mut Scratch) -> Result<usize> {
        if max_tokens(text) <= limit {
            return self.encode_into(text, out, scratch).map(|()| text.len()); // (most serving rows)
        }
        let (from, mut at) = (out.len(), 0);
        while at < text.len() && out.len() - from < limit {
            let want = ((limit - (out.len() - from)).saturating_mul(PREFIX_HALF_BYTES_PER_ID) / 2).max(64);
            let end = at.saturating_add(want).min(text.len());
            let end = text.get(end..).and_then(|t| memchr::memchr2(b' ', b'\n', t)).map_or(text.len(), |k| end + k);
            self.encode_into(text.get(at..end).unwrap_or_default(), out, scratch)?;
            at = end;
        }
        Ok(at)
    }

    /// The ids of a word the memo has not seen (its whole-word probe skipped:
    /// see [`WordPiece::encode_unseen_word`]), or the unknown id.
    #[inline]
    fn push_unseen_word(&self, word: &[u8], chars: usize, out: &mut Vec<u32>) {
        let mark = out.len();
        let known = self.wordpiece.encode_unseen_word(word, chars, |id| out.push(id));
        self.unknown_unless(known, out, mark);
    }

    /// [`push_word`](Self::push_word) through the memo of recent words (a
    /// word it has not seen skips the whole-word probe: see
    /// [`WordPiece::encode_unseen_word`]).
    #[inline(always)]
    pub(crate) fn push_word_memo(&self, word: &[u8], chars: usize, out: &mut Vec<u32>, cache: &mut WordCache) {
        if let [b @ 0..0x80] = *word {
            out.push(self.ascii_ids[b as usize]);
            return;
        }
        cache.ids(word, out, |out| self.push_unseen_word(word, chars, out));
    }

    /// WordPiece ids of one normalized word, or the unknown id.
    #[inline]
    pub(crate) fn push_word(&self, word: &[u8], chars: usize, out: &mut Vec<u32>) {
        let mark = out.len();
        let known = self.wordpiece.encode_word(word, chars, |id| out.push(id));
        self.unknown_unless(known, out, mark);
    }

    /// Replaces the ids pushed since `mark` by the unknown id, unless the word was `known`.
    #[inline(always)]
    fn unknown_unless(&self, known: bool, out: &mut Vec<u32>, mark: usize) {
        if !known {
            out.truncate(mark);
            out.push(self.unk_id);
        }
    }

    fn encode_general(&self, text: &[u8], out: &mut Vec<u32>) -> Result<()> {
        let cps = crate::room::code_points(text)?;
        let mut raw = Vec::new();
        self.tokenize(&cps, |t| out.push(self.piece_id(t.piece, &mut raw).unwrap_or(self.unk_id)));
        Ok(())
    }

    /// The id of the unknown token (it is in the vocabulary: checked at construction).
    pub fn unk_id(&self) -> u32 {
        self.unk_id
    }

    /// The id of a piece; `None` for a protected token that is not in the
    /// vocabulary (callers choose: KeyError like Google, or the unknown id
    /// like transformers). `scratch` is reused working space.
    pub fn piece_id(&self, piece: Piece<'_>, scratch: &mut Vec<u8>) -> Option<u32> {
        match piece {
            Piece::Vocab(i) => Some(self.vocab.entries()[i as usize].1),
            Piece::Unk => Some(self.unk_id),
            Piece::Raw(cps) => {
                scratch.clear();
                unicode::encode_into(cps, scratch);
                self.vocab.id(scratch)
            }
        }
    }

    /// The bytes of a piece.
    pub fn piece_bytes(&self, piece: Piece<'_>, out: &mut Vec<u8>) {
        match piece {
            Piece::Vocab(i) => out.extend_from_slice(&self.vocab.entries()[i as usize].0),
            Piece::Unk => out.extend_from_slice(&self.unk_token),
            Piece::Raw(cps) => unicode::encode_into(cps, out),
        }
    }
}

#[cfg(test)]
#[path = "tokenizer_tests.rs"]
mod tests;
