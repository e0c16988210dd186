//! Ids with offsets and word indices at close to the one-pass encoder's
//! speed: exactly what [`FullTokenizer::tokenize`] gives (ids as
//! `piece_id(..).unwrap_or(unk_id)`, spans in code points, word indices).
//!
//! The text is cut at ASCII whitespace into chunks, as `encoder.rs` cuts it.
//! No step of any reference looks across ASCII whitespace and whitespace is
//! never part of a word, so the whole text's words are the chunks' words in
//! order. Alignment is positional (`aligned.rs`): each output code point
//! keeps the span of the input code point it came from, so a chunk's spans
//! are its own shifted by its first code point, and its word indices its own
//! shifted by the words before it.
//! - A chunk of ASCII letters, digits and punctuation (the encoder's WORD and
//!   PUNCT bytes) is tokenized here: its words are the runs of WORD bytes and
//!   each PUNCT byte; lowercasing ASCII keeps every byte in place and nothing
//!   else changes it, so a word spans its own bytes. Its ids come from the
//!   encoder's word function (with the word memo), and its pieces' spans
//!   from their lengths: a word of one id (one piece, or the unknown token)
//!   spans the whole word; otherwise the first piece is its token's length
//!   and each later one its token's length less "##", as
//!   [`WordPiece::tokenize_word`](crate::wordpiece::WordPiece::tokenize_word) counts.
//! - Any other chunk (non-ASCII, control bytes) takes the code point lane:
//!   the one-pass encoder's shared table of what each BMP code point does on
//!   its own (`code_point_classes.rs`: dropped, a space, unchanged, replaced
//!   by other word characters, a word of its own). Every character a code
//!   point becomes spans that code point, as positional alignment gives it
//!   (a replacement is one character in its place then insertions, aligned
//!   with it), so the lane keeps each word character's source code point
//!   and a piece spans from its first character's to its last's. A chunk
//!   holding a code point the table leaves to the per-code-point path (one
//!   whose result may depend on its neighbours, or outside the BMP) goes
//!   through the general path on its own.

use crate::aligned::Span;
use crate::code_point_classes as cpc;
use crate::encoder::{Encoder, Scratch, DROP, PUNCT, SPACE, WORD};
use crate::tokenizer::{FullTokenizer, MEMO_MIN_TEXT};
use crate::room::{code_points, make_room, max_tokens, segments};
use crate::{unicode, Result};
pub use crate::piece_chars::PieceChars;

/// Where tokens go: ids, spans and (if asked) word indices, side by side.
struct Out<'a> {
    ids: &'a mut Vec<u32>,
    spans: &'a mut Vec<Span>,
    words: Option<&'a mut Vec<u32>>,
}

impl Out<'_> {
    #[inline(always)]
    fn push_words(&mut self, word: u32, n: usize) {
        if let Some(w) = self.words.as_deref_mut() {
            w.extend(std::iter::repeat_n(word, n));
        }
    }

    fn truncate(&mut self, mark: (usize, usize)) {
        self.ids.truncate(mark.0);
        self.spans.truncate(mark.0);
        if let Some(w) = self.words.as_deref_mut() {
            w.truncate(mark.1);
        }
    }

    fn mark(&self) -> (usize, usize) {
        (self.ids.len(), self.words.as_deref().map_or(0, Vec::len))
    }
}

impl FullTokenizer {
    /// Appends the ids of `text` (generalized UTF-8) to `ids`, their spans
    /// (code points of `text`) to `spans` and their word indices (from 0) to
    /// `words`: what [`tokenize`](Self::tokenize) gives, with the unknown id
    /// for a protected token missing from the vocabulary. `scratch` is
    /// reused between calls (see [`encode_into`](Self::encode_into)).
    pub fn encode_offsets_into(
        &self,
        text: &[u8],
        ids: &mut Vec<u32>,
        spans: &mut Vec<Span>,
        words: Option<&mut Vec<u32>>,
        scratch: &mut Scratch,
    ) -> Result<()> {
        let mut out = Out { ids, spans, words };
        let Scratch { cache, .. } = scratch;
        if text.len() >= MEMO_MIN_TEXT {
            cache.enable();
        }
        cache.belong_to(self.identity);
        // A segment at a time (see `room::segments`), each with room for
        // every token it can give and a [SEP] made fallibly first: a text
        // too large is a MemoryError, not an abort. A segment's spans and
        // word indices are its own, shifted by the segments before it.
        let (mut first_cp, mut first_word) = (0u32, 0u32);
        for text in segments(text) {
            let room = max_tokens(text) + 2;
            make_room(out.ids, room, "token ids")?;
            make_room(out.spans, room, "token offsets")?;
            if let Some(w) = out.words.as_deref_mut() {
                make_room(w, room, "word indices")?;
            }
            let (at, word_at) = out.mark();
            let cps = match (&self.encoder, &self.piece_chars) {
                (Some(enc), Some(chars)) if cache.is_enabled() => {
                    self.offsets_lane(enc, chars, text, &mut out, |w, n, ids| self.push_word_memo(w, n, ids, cache))?
                }
                (Some(enc), Some(chars)) => self.offsets_lane(enc, chars, text, &mut out, |w, n, ids| self.push_word(w, n, ids))?,
                _ => self.offsets_general(text, 0, 0, &mut out)?.0,
            };
            if first_cp > 0 {
                for s in &mut out.spans[at..] {
                    (s.0, s.1) = (s.0 + first_cp, s.1 + first_cp);
                }
            }
            if let Some(w) = out.words.as_deref_mut() {
                let mine = &mut w[word_at..];
                if let Some(&last) = mine.last() {
                    mine.iter_mut().for_each(|k| *k += first_word);
                    first_word += last + 1;
                }
            }
            first_cp += cps as u32;
        }
        Ok(())
    }

    /// The chunks of `text`, each through the ASCII lane, the code point
    /// lane or the general path; `push(word, chars, ids)` appends a
    /// normalized word's ids.
    #[inline(always)]
    fn offsets_lane(
        &self,
        enc: &Encoder,
        chars: &PieceChars,
        text: &[u8],
        out: &mut Out<'_>,
        mut push: impl FnMut(&[u8], usize, &mut Vec<u32>),
    ) -> Result<usize> {
        let n = text.len();
        let lower = enc.lowercases();
        // `skew`: bytes minus code points before `i` (from non-ASCII chunks).
        let (mut i, mut skew, mut word) = (0usize, 0usize, 0u32);
        // Where the current chunk starts, with the output and word count there.
        let (mut chunk, mut mark, mut chunk_word) = (0usize, out.mark(), 0u32);
        let mut lowered = Vec::new();
        let mut buf = Word::default();
        while i < n {
            let b = text[i];
            match enc.byte_class(b) {
                SPACE => {
                    i += 1;
                    (chunk, mark, chunk_word) = (i, out.mark(), word);
                    continue;
                }
                PUNCT => {
                    let at = (i - skew) as u32;
                    out.ids.push(self.ascii_ids[(b & 0x7F) as usize]);
                    out.spans.push((at, at + 1));
                    out.push_words(word, 1);
                    word += 1;
                    i += 1;
                    continue;
                }
                WORD => {
                    let (end, upper) = enc.word_run(text, i);
                    if end == n || matches!(enc.byte_class(text[end]), SPACE | PUNCT) {
                        let w = if upper && lower {
                            lowered.clear();
                            make_room(&mut lowered, end - i, "lowercased word")?;
                            lowered.extend(text[i..end].iter().map(u8::to_ascii_lowercase));
                            &lowered[..]
                        } else {
                            &text[i..end]
                        };
                        let first = out.ids.len();
                        push(w, end - i, out.ids);
                        piece_spans(chars, ((i - skew) as u32, (end - skew) as u32), &out.ids[first..], out.spans);
                        out.push_words(word, out.ids.len() - first);
                        word += 1;
                        i = end;
                        continue;
                    }
                }
                _ => {}
            }
            // Something else (non-ASCII, a control): take back what the chunk
            // emitted and hand the whole chunk to the code point lane or, if
            // it will not do, the general path.
            out.truncate(mark);
            let end = text[i..].iter().position(|&b| enc.byte_class(b) == SPACE).map_or(n, |k| i + k);
            let (part, first) = (&text[chunk..end], (chunk - skew) as u32);
            // A chunk's word is at most the chunk (until a replacement lengthens it).
            make_room(&mut buf.bytes, part.len(), "word")?;
            make_room(&mut buf.src, part.len(), "word")?;
            let done = classes_chunk(enc, chars, part, first, chunk_word, out, &mut buf, &mut push);
            let (cps, next) = match done {
                Some(done) => done,
                None => self.offsets_general(part, first, chunk_word, out)?,
            };
            skew += (end - chunk) - cps;
            word = next;
            i = end;
        }
        Ok(n - skew) // code points
    }

    /// The general path over `text` (a whole text, or a chunk starting at
    /// code point `first_cp` whose first word is `first_word`). Returns the
    /// chunk's length in code points and the number after its last word.
    fn offsets_general(&self, text: &[u8], first_cp: u32, first_word: u32, out: &mut Out<'_>) -> Result<(usize, u32)> {
        let cps = code_points(text)?;
        let mut raw = Vec::new();
        let next = self.tokenize_words(&cps, first_word, |t| {
            out.ids.push(self.piece_id(t.piece, &mut raw).unwrap_or(self.unk_id()));
            out.spans.push((t.span.0 + first_cp, t.span.1 + first_cp));
            out.push_words(t.word, 1);
        });
        Ok((cps.len(), next))
    }
}

/// A word being built by the code point lane: its normalized UTF-8 and the
/// source code point (in the text) of each of its characters.
#[derive(Default)]
struct Word {
    bytes: Vec<u8>,
    src: Vec<u32>,
}

/// Where a word's characters come from: a run of code points, one each, or each its own.
enum Source<'a> {
    Run(Span),
    Each(&'a [u32]),
}

/// One chunk through the code point classes (see the module docs); `first`
/// is its first code point in the text and `first_word` its first word.
/// Returns its length in code points and the number after its last word;
/// `None`, with nothing emitted, when a code point needs the general path.
#[allow(clippy::too_many_arguments)]
fn classes_chunk(
    enc: &Encoder,
    chars: &PieceChars,
    chunk: &[u8],
    first: u32,
    first_word: u32,
    out: &mut Out<'_>,
    w: &mut Word,
    push: &mut impl FnMut(&[u8], usize, &mut Vec<u32>),
) -> Option<(usize, u32)> {
    let (mark, classes, lower) = (out.mark(), enc.classes(), enc.lowercases());
    // One normalized word out.
    let mut emit = |bytes: &[u8], src: Source<'_>, word: &mut u32, out: &mut Out<'_>| {
        let at = out.ids.len();
        match src {
            Source::Run(run) => {
                push(bytes, (run.1 - run.0) as usize, out.ids);
                piece_spans(chars, run, &out.ids[at..], out.spans);
            }
            Source::Each(src) => {
                push(bytes, src.len(), out.ids);
                word_spans(chars, src, &out.ids[at..], out.spans);
            }
        }
        out.push_words(*word, out.ids.len() - at);
        *word += 1;
    };
    w.bytes.clear();
    w.src.clear();
    let (mut i, mut cp, mut word) = (0, first, first_word);
    // The word being built, if any, out.
    macro_rules! flush {
        () => {
            if !w.src.is_empty() {
                emit(&w.bytes, Source::Each(&w.src), &mut word, out);
                w.bytes.clear();
                w.src.clear();
            }
        };
    }
    while i < chunk.len() {
        let b = chunk[i];
        let len = match enc.byte_class(b) {
            WORD => {
                w.bytes.push(if lower { b.to_ascii_lowercase() } else { b });
                w.src.push(cp);
                1
            }
            PUNCT => {
                flush!();
                emit(&chunk[i..i + 1], Source::Run((cp, cp + 1)), &mut word, out);
                1
            }
            DROP => 1,
            _ => {
                // (SPACE never occurs inside a chunk.) A malformed byte is the general path's to report.
                let (c, len) = unicode::decode_one(&chunk[i..]).unwrap_or((0, 0));
                let (block, e) = if len == 0 { (None, cpc::Entry::SLOW) } else { enc.bmp_entry(classes, c) };
                match (e.class(), block) {
                    (cpc::WORD, _) => {
                        // The whole run of unchanged word code points; when it is
                        // the whole word (the common case), out straight from the text.
                        let (start, start_cp) = (i, cp);
                        (i, cp) = (i + len, cp + 1);
                        // Whether what follows ends the word: the chunk's end, punctuation, a space.
                        let mut ends = true;
                        while let Some(&b) = chunk.get(i) {
                            let next = match unicode::decode_one(&chunk[i..]) {
                                Some((c, l)) if b >= 0x80 => (enc.bmp_entry(classes, c).1.class(), l),
                                _ => (cpc::SLOW, 0),
                            };
                            if next.0 != cpc::WORD {
                                ends = matches!(next.0, cpc::OWN | cpc::SPACE) || enc.byte_class(b) == PUNCT;
                                break;
                            }
                            (i, cp) = (i + next.1, cp + 1);
                        }
                        if w.src.is_empty() && ends {
                            emit(&chunk[start..i], Source::Run((start_cp, cp)), &mut word, out);
                        } else {
                            w.bytes.extend_from_slice(&chunk[start..i]);
                            w.src.extend(start_cp..cp);
                        }
                        continue;
                    }
                    (cpc::MAPPED, Some(block)) => {
                        w.bytes.extend_from_slice(block.replacement(e));
                        w.src.extend(std::iter::repeat_n(cp, e.chars()));
                    }
                    (cpc::OWN, _) => {
                        flush!();
                        emit(&chunk[i..i + len], Source::Run((cp, cp + 1)), &mut word, out);
                    }
                    (cpc::SPACE, _) => flush!(),
                    (cpc::DROP, _) => {}
                    _ => {
                        out.truncate(mark);
                        return None;
                    }
                }
                len
            }
        };
        i += len;
        cp += 1;
    }
    flush!();
    Some(((cp - first) as usize, word))
}

/// The spans of the pieces `ids` of a word whose characters come from code
/// points `src`: one id spans the whole word; otherwise piece `k` covers
/// the characters after the pieces before it (its token's length, less the
/// "##" of a continuation piece) and spans their first source code point to
/// the last.
#[inline]
fn word_spans(chars: &PieceChars, src: &[u32], ids: &[u32], spans: &mut Vec<Span>) {
    let last = |k: usize| src.get(k).or(src.last()).map_or(0, |&c| c + 1);
    if ids.len() == 1 {
        spans.push((src.first().copied().unwrap_or(0), last(src.len() - 1)));
        return;
    }
    let mut a = 0;
    for (k, &id) in ids.iter().enumerate() {
        let len = (chars.of(id).saturating_sub(if k == 0 { 0 } else { 2 }) as usize).max(1);
        spans.push((src.get(a).copied().unwrap_or(0), last(a + len - 1)));
        a += len;
    }
}

/// The spans of the pieces `ids` of the ASCII word at code points
/// `start..end`: one id spans the whole word (a word that is one piece, or
/// the unknown token); otherwise each piece its token's length, less the
/// "##" of a continuation piece.
#[inline(always)]
fn piece_spans(chars: &PieceChars, (start, end): Span, ids: &[u32], spans: &mut Vec<Span>) {
    if ids.len() == 1 {
        spans.push((start, end));
        return;
    }
    let mut at = start;
    for (k, &id) in ids.iter().enumerate() {
        let len = chars.of(id).saturating_sub(if k == 0 { 0 } else { 2 });
        spans.push((at, at + len));
        at += len;
    }
}

#[cfg(test)]
#[path = "offsets_tests.rs"]
mod tests;
