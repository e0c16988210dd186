//! The encoder's two scans over a text: the ASCII lane (a word at a time)
//! and the per-byte path through the class tables, which takes every chunk
//! the lane cannot and hands back to it.

use super::code_point::flush;
use super::swar::ascii_upper;
use super::{Buffers, Encoder, Words, DROP, PUNCT, SPACE, WORD};
use crate::code_point_classes::{self as cpc, CodePointClasses};
use crate::unicode;
use crate::{Error, Result};

/// Plain ASCII chunks in a row after which the per-byte path hands back to
/// the ASCII lane. Handing back at once made text where most words hold an
/// accent bounce between the two, rescanning each chunk's ASCII prefix
/// (`ab_builds.py`: 3–7 % faster than handing back at once on the Latin-script
/// UD files and en-large).
const LANE_AFTER: usize = 2;

impl Encoder {
    /// Encodes `text`, calling `word(utf8, code points, out)` for each
    /// normalized word in order, and `general(chunk, out)` for each chunk
    /// that needs the general path (after taking back what the chunk had
    /// emitted).
    ///
    /// The common case first: while chunks are ASCII letter and digit runs
    /// between single punctuation bytes, they are taken a run at a time and
    /// their words go out straight from the text (or a small buffer when
    /// lowercased), 64 bytes at a time where the CPU has AVX2
    /// (`encoder_simd.rs`), else (and for what a window leaves) a word at a
    /// time. A chunk holding anything else (non-ASCII, controls) is taken back and handed
    /// whole to [`encode_chunks`](Self::encode_chunks), which handles everything.
    #[inline]
    pub(crate) fn encode(
        &self,
        text: &[u8],
        s: &mut Buffers,
        out: &mut Vec<u32>,
        mut word: impl Words,
        general: impl Fn(&[u8], &mut Vec<u32>) -> Result<()>,
    ) -> Result<()> {
        if !self.alnum_words {
            return self.encode_chunks(text, false, s, out, |w: &[u8], c, o: &mut Vec<u32>| word.word(w, c, o), general).map(|_| ());
        }
        let n = text.len();
        let (mut i, mut chunk_start, mut mark) = (0, 0, out.len());
        let mut lowered = [0u8; 32];
        // A window's bytes, lowercased where asked (what its words are read from).
        let mut window_bytes = [0u8; 72];
        while i < n {
            // 64 bytes at a time (and AVX2 is there), the last < 64 with
            // spaces after them; the word-at-a-time steps below take what a
            // window leaves.
            if let Some(wide) = &self.wide {
                let masks = match text.get(i..i + 64) {
                    Some(w) => wide.masks(w.try_into().unwrap_or(&[0; 64]), &mut window_bytes),
                    None => wide.masks_tail(&text[i..], &mut window_bytes), // spaces after the text
                };
                let mut chunk = (chunk_start, mark);
                let (next, narrow) = self.window(i, masks, &window_bytes, &mut chunk, out, &mut word);
                (chunk_start, mark) = chunk;
                i = next.min(n);
                if !narrow {
                    continue;
                }
            }
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
                let words = |w: &[u8], c, o: &mut Vec<u32>| word.word(w, c, o);
                i = chunk_start + self.encode_chunks(&text[chunk_start..], true, s, out, words, &general)?;
                (chunk_start, mark) = (i, out.len());
                continue;
            };
            // A word of up to eight bytes (most of them) as the eight bytes
            // from its start, masked to it and lowercased eight at a time.
            if end - i <= 8 {
                if let Some(bytes) = text.get(i..i + 8) {
                    let len = end - i;
                    let mut packed = u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8])) & (u64::MAX >> (8 * (8 - len)));
                    if lower {
                        packed |= ascii_upper(packed) >> 2; // 'A'..='Z' | 0x20
                    }
                    word.ascii8(packed, len, out);
                    i = end;
                    continue;
                }
            }
            let w = if lower {
                for (d, c) in lowered.iter_mut().zip(&text[i..end]) {
                    *d = c.to_ascii_lowercase();
                }
                &lowered[..end - i]
            } else {
                &text[i..end]
            };
            word.word(w, end - i, out);
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
}
