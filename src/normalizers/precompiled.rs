//! sentencepiece's `precompiled_charsmap` as tokenizers 0.23.3 applies it
//! (spm_precompiled 0.1.4 + HF's `normalizers/precompiled.rs`).
//!
//! The charsmap is `[u32 trie size in bytes][trie units (u32 LE)][normalized blob]`:
//! a darts double-array trie over UTF-8 bytes whose leaves hold byte offsets into
//! the blob, each replacement running to the next NUL. HF looks up each extended
//! grapheme cluster shorter than 6 bytes whole, else (or if it has no entry) each
//! of its chars; a lookup takes the SHORTEST matching prefix of the chunk and
//! replaces the WHOLE chunk with it (so a grapheme whose first char has an entry
//! loses its other chars — HF's rule, kept). Every trie index a lookup can reach
//! is checked when the charsmap is loaded, so lookups cannot read out of bounds.

use crate::normalized_string::NormalizedString;
use crate::room::make_room;
use crate::unicode::decode_valid_at;
use unicode_segmentation::UnicodeSegmentation;

#[derive(Clone, Debug)]
pub struct Precompiled {
    trie: Vec<usize>,
    normalized: String,
    /// ASCII bytes the charsmap leaves as they are (found at load).
    ascii_kept: [bool; 128],
    /// By byte: an ASCII char the charsmap keeps that is a grapheme of its own
    /// next to ASCII (not CR or LF); false for every non-ASCII byte.
    ascii_alone: [bool; 256],
    /// Of the [`OTHER_CHARS`], the ones the charsmap leaves as they are (found at load).
    other_kept: Vec<bool>,
    /// By code point below U+10000, a bit each: ASCII `ascii_alone`, the others
    /// among [`OTHER_CHARS`] and kept. [`Precompiled::keeps`] tests a char with
    /// one load, where finding its place among the ranges cost a search per char.
    kept_bmp: Vec<u64>,
    /// By code point below U+10000, a bit each: ASCII and [`OTHER_CHARS`] (kept or not), the chars
    /// next to which a kept char of `OTHER_CHARS` is a grapheme of its own.
    alone_bmp: Vec<u64>,
    /// Every printable ASCII byte (0x20..=0x7E) is `ascii_alone`: [`Precompiled::keeps`] then
    /// skips 16 such bytes at a time with a range test instead of a table read per byte.
    printable_alone: bool,
}

/// Non-ASCII chars that are a grapheme of their own next to ASCII or one
/// another (Grapheme_Cluster_Break Other, not Extended_Pictographic; checked
/// by a test against the segmentation): Latin-1's letters and signs and
/// General Punctuation (curly quotes, dashes: a third of English text's
/// lines hold one), CJK punctuation and brackets, hiragana (not the combining
/// sound marks U+3099/U+309A), katakana and the CJK Unified Ideographs
/// (Japanese and Chinese lines: no grapheme walk where the charsmap keeps
/// them all). A text of such chars and ASCII needs no segmentation.
const OTHER_CHARS: [std::ops::RangeInclusive<u32>; 6] =
    [0xA0..=0xFF, 0x2010..=0x205E, 0x3001..=0x3011, 0x3041..=0x3096, 0x309D..=0x30FF, 0x4E00..=0x9FFF];
const OTHER_LEN: usize = 96 + 79 + 17 + 86 + 99 + 20_992;

/// The index of `c` among [`OTHER_CHARS`], if it is one (© ® ‼ ⁉ are emoji, left out).
#[inline]
fn other_index(c: char) -> Option<usize> {
    let c = c as u32;
    if matches!(c, 0xA9 | 0xAE | 0x203C | 0x2049) {
        return None;
    }
    let mut before = 0;
    for r in OTHER_CHARS.iter() {
        if r.contains(&c) {
            return Some(before + (c - r.start()) as usize);
        }
        before += (r.end() - r.start() + 1) as usize;
    }
    None
}

/// Bit `cp` of a bitmap by code point (false past its end).
#[inline]
fn bit(bits: &[u64], cp: u32) -> bool {
    bits.get(cp as usize / 64).is_some_and(|w| w >> (cp % 64) & 1 == 1)
}

fn has_leaf(u: usize) -> bool {
    (u >> 8) & 1 == 1
}
fn value(u: usize) -> usize {
    u & ((1 << 31) - 1)
}
fn label(u: usize) -> usize {
    u & ((1 << 31) | 0xFF)
}
fn offset(u: usize) -> usize {
    (u >> 10) << ((u & (1 << 9)) >> 6)
}

impl Precompiled {
    /// Parses and checks decoded charsmap bytes; the error says what is wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<Precompiled, String> {
        let size = bytes.get(..4).ok_or("shorter than its 4-byte trie size")?;
        let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]) as usize / 4;
        let units = bytes.get(4..).and_then(|b| b.get(..size.checked_mul(4)?)).ok_or("shorter than its trie size says")?;
        let trie: Vec<usize> = units.chunks_exact(4).map(|u| u32::from_le_bytes([u[0], u[1], u[2], u[3]]) as usize).collect();
        let blob = &bytes[4 + 4 * size..];
        let normalized = String::from_utf8(blob.to_vec()).map_err(|_| "its normalized strings are not valid UTF-8")?;
        let mut p = Precompiled {
            trie,
            normalized,
            ascii_kept: [false; 128],
            ascii_alone: [false; 256],
            other_kept: vec![false; OTHER_LEN],
            kept_bmp: vec![0; 0x1_0000 / 64],
            alone_bmp: vec![0; 0x1_0000 / 64],
            printable_alone: false,
        };
        p.check()?;
        for b in 0..128u8 {
            let one = [b];
            p.ascii_kept[b as usize] = std::str::from_utf8(&one).is_ok_and(|c| p.transform(c).is_none());
            p.ascii_alone[b as usize] = p.ascii_kept[b as usize] && b != b'\r' && b != b'\n';
        }
        p.printable_alone = p.ascii_alone.get(0x20..0x7F).is_some_and(|r| r.iter().all(|&a| a));
        for c in OTHER_CHARS.iter().cloned().flatten().filter_map(char::from_u32) {
            let mut buf = [0u8; 4];
            let kept = p.transform(c.encode_utf8(&mut buf)).is_none();
            if let Some(slot) = other_index(c).and_then(|i| p.other_kept.get_mut(i)) {
                *slot = kept;
            }
        }
        for cp in 0..0x1_0000u32 {
            let kept = match char::from_u32(cp) {
                Some(c) if c.is_ascii() => p.ascii_alone[cp as usize],
                Some(c) => other_index(c).and_then(|i| p.other_kept.get(i)) == Some(&true),
                None => false,
            };
            if let (true, Some(w)) = (kept, p.kept_bmp.get_mut(cp as usize / 64)) {
                *w |= 1 << (cp % 64);
            }
            let alone = cp < 0x80 || char::from_u32(cp).and_then(other_index).is_some();
            if let (true, Some(w)) = (alone, p.alone_bmp.get_mut(cp as usize / 64)) {
                *w |= 1 << (cp % 64);
            }
        }
        Ok(p)
    }

    /// Walks every node a byte string can reach (each position once) and checks
    /// each index a lookup would read, and that each leaf starts a blob string.
    fn check(&self) -> Result<(), String> {
        let root = *self.trie.first().ok_or("its trie is empty")?;
        let mut seen = vec![false; self.trie.len()];
        let mut stack = vec![offset(root)];
        while let Some(base) = stack.pop() {
            for c in 1..=255usize {
                let pos = base ^ c;
                let unit = *self.trie.get(pos).ok_or_else(|| format!("trie index {pos} out of bounds"))?;
                if label(unit) != c || std::mem::replace(&mut seen[pos], true) {
                    continue;
                }
                let next = pos ^ offset(unit);
                if has_leaf(unit) {
                    let leaf = *self.trie.get(next).ok_or_else(|| format!("trie index {next} out of bounds"))?;
                    if !self.normalized.is_char_boundary(value(leaf)) {
                        return Err(format!("replacement offset {} outside its normalized strings", value(leaf)));
                    }
                }
                stack.push(next);
            }
        }
        Ok(())
    }

    /// The replacement of the shortest prefix of `chunk` with an entry (spm_precompiled's `transform`).
    fn transform(&self, chunk: &str) -> Option<&str> {
        let mut pos = offset(*self.trie.first()?);
        for &b in chunk.as_bytes() {
            if b == 0 {
                return None;
            }
            pos ^= b as usize;
            let unit = *self.trie.get(pos)?;
            if label(unit) != b as usize {
                return None;
            }
            pos ^= offset(unit);
            if has_leaf(unit) {
                let start = value(*self.trie.get(pos)?);
                let rest = self.normalized.get(start..)?;
                return Some(rest.find('\0').map_or(rest, |end| &rest[..end]));
            }
        }
        None
    }

    /// Byte `i` of `bytes` is an ASCII char the charsmap keeps that is a
    /// grapheme of its own whatever comes around it: neither CR nor LF (which
    /// pair) and between ASCII bytes (a non-ASCII neighbour could be a
    /// combining mark or a prepended char joining it). Such a byte needs no
    /// grapheme segmentation and no lookup: it stays.
    #[inline]
    fn stays(&self, bytes: &[u8], i: usize) -> bool {
        let ascii = |j: Option<usize>| j.and_then(|j| bytes.get(j)).is_none_or(|b| b.is_ascii());
        let kept = bytes.get(i).is_some_and(|&b| b != b'\r' && b != b'\n' && self.ascii_kept.get(b as usize) == Some(&true));
        kept && ascii(i.checked_sub(1)) && ascii(Some(i + 1))
    }

    /// The length of the char at byte `i` of `bytes` if it is non-ASCII, one
    /// of [`OTHER_CHARS`] the charsmap keeps, and both its neighbours (if any)
    /// are ASCII or [`OTHER_CHARS`]: no Prepend before it, no Extend, ZWJ or
    /// SpacingMark after it, so it is a grapheme of its own (the test of
    /// `kept_chars_are_graphemes_of_their_own`), looked up alone: it stays,
    /// without the grapheme walk (a Japanese line with one full-width
    /// parenthesis took that walk over every char). None at a continuation byte.
    #[inline]
    fn other_stays(&self, bytes: &[u8], i: usize) -> Option<usize> {
        let (_, len) = decode_valid_at(bytes, i).filter(|&(cp, _)| cp >= 0x80 && bit(&self.kept_bmp, cp))?;
        let mut prev = i.checked_sub(1);
        while let Some(p) = prev.filter(|&p| p > 0 && bytes.get(p).is_some_and(|&b| b & 0xC0 == 0x80)) {
            prev = Some(p - 1);
        }
        let alone = |at: Option<usize>| match at.filter(|&j| j < bytes.len()) {
            None => true,
            Some(j) => decode_valid_at(bytes, j).is_some_and(|(c, _)| bit(&self.alone_bmp, c)),
        };
        (alone(prev) && alone(Some(i + len))).then_some(len)
    }

    /// Whether `normalize` is sure to leave `text` as it is: every char is
    /// one the charsmap keeps, ASCII (but CR and LF, which pair) or one of
    /// [`OTHER_CHARS`]. Next to one another each such char is a grapheme of
    /// its own (no rule joins them), looked up alone: it stays.
    pub fn keeps(&self, text: &str) -> bool {
        // one pass over an ASCII text the charsmap keeps (most lines)
        let bytes = text.as_bytes();
        let mut from = 0;
        if self.printable_alone {
            // a branch-free range test over 16 bytes, which the compiler vectorizes
            for chunk in bytes.chunks_exact(16) {
                if !chunk.iter().fold(true, |all, &b| all & (b.wrapping_sub(0x20) < 0x5F)) {
                    break;
                }
                from += 16;
            }
        }
        let rest = bytes.get(from..).unwrap_or_default();
        let Some(at) = rest.iter().position(|&b| !self.ascii_alone[b as usize]).map(|i| from + i) else { return true };
        // (all before `at` is ASCII: a char boundary; an ASCII char there fails at once).
        // A char of 4 bytes is above U+FFFF: never one of the kept chars.
        let mut i = at;
        while let Some(&b0) = bytes.get(i) {
            // ASCII first (an English line with one curly quote comes here for the rest of it),
            // then a 3-byte char (CJK, kana: a Japanese line is made of them) from its bytes at
            // once, not through the decoder's range tests and tail bounds checks
            let three = |i: usize| match bytes.get(i..i + 3) {
                Some(&[b0, b1, b2]) => Some((u32::from(b0 & 0x0F) << 12 | u32::from(b1 & 0x3F) << 6 | u32::from(b2 & 0x3F), 3)),
                _ => None,
            };
            let decoded = match b0 {
                0..=0x7F => Some((u32::from(b0), 1)),
                0xE0..=0xEF => three(i),
                _ => decode_valid_at(bytes, i),
            };
            let Some((cp, len)) = decoded else { return false };
            if !bit(&self.kept_bmp, cp) {
                return false;
            }
            i += len;
        }
        true
    }

    pub fn normalize(&self, s: &mut NormalizedString) -> crate::Result<()> {
        const WHAT: &str = "normalized text";
        let text = s.text()?;
        if self.keeps(&text) {
            return Ok(());
        }
        let mut edits = Vec::new();
        make_room(&mut edits, s.len(), WHAT)?;
        let (mut modified, mut room) = (false, Ok(()));
        self.each_chunk(&text, |old, new| {
            // a chunk gives at most as many edits as the chars of its replacement or itself
            let n = new.unwrap_or(old).chars().count().max(old.chars().count());
            if room.is_err() || { room = make_room(&mut edits, n, WHAT); room.is_err() } {
                return;
            }
            match new {
                Some(norm) => {
                    modified = true;
                    replace(&mut edits, old, norm);
                }
                None => edits.extend(old.chars().map(|c| (c, 0))),
            }
        });
        room?;
        if modified {
            s.transform(edits)?;
        }
        Ok(())
    }

    /// The text `normalize` makes of `text`, without spans (for ids-only
    /// paths): the same chunks and replacements, concatenated.
    pub fn normalize_text<'t>(&self, text: &'t str) -> crate::Result<std::borrow::Cow<'t, str>> {
        if self.keeps(text) {
            return Ok(std::borrow::Cow::Borrowed(text));
        }
        let mut out = String::new();
        let mut room = crate::room::ensure_text_room(&mut out, text.len() + 8, "normalized text");
        self.each_chunk(text, |old, new| {
            let piece = new.unwrap_or(old);
            if room.is_ok() {
                room = crate::room::ensure_text_room(&mut out, piece.len(), "normalized text");
            }
            if room.is_ok() {
                out.push_str(piece);
            }
        });
        room.map(|_| std::borrow::Cow::Owned(out))
    }

    /// HF's walk over `text`: each chunk it looks up (a grapheme or a char of
    /// one) with its replacement, None where it stays (also for runs of
    /// staying ASCII bytes, each its own grapheme with no entry).
    fn each_chunk<'t>(&self, text: &'t str, mut f: impl FnMut(&'t str, Option<&str>)) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if self.stays(bytes, i) {
                // a run of staying bytes (ASCII) as one chunk
                let start = i;
                while i < bytes.len() && self.stays(bytes, i) {
                    i += 1;
                }
                f(text.get(start..i).unwrap_or_default(), None);
                continue;
            }
            if let Some(len) = self.other_stays(bytes, i) {
                // a run of staying non-ASCII chars as one chunk
                let start = i;
                i += len;
                while let Some(len) = self.other_stays(bytes, i) {
                    i += len;
                }
                f(text.get(start..i).unwrap_or_default(), None);
                continue;
            }
            // A run of other bytes, cut where staying chars (grapheme boundaries) begin.
            let start = i;
            while i < bytes.len() && !self.stays(bytes, i) && self.other_stays(bytes, i).is_none() {
                i += 1;
            }
            self.each_grapheme_chunk(text.get(start..i).unwrap_or_default(), &mut f);
        }
    }

    /// HF's per-grapheme lookup over `text`: a grapheme under 6 bytes whole
    /// if it has an entry, else each of its chars.
    fn each_grapheme_chunk<'t>(&self, text: &'t str, f: &mut impl FnMut(&'t str, Option<&str>)) {
        for grapheme in text.graphemes(true) {
            if grapheme.len() < 6 {
                if let Some(norm) = self.transform(grapheme) {
                    f(grapheme, Some(norm));
                    continue;
                }
            }
            for (i, c) in grapheme.char_indices() {
                let part = grapheme.get(i..i + c.len_utf8()).unwrap_or_default();
                f(part, self.transform(part));
            }
        }
    }
}

/// HF's edit stream for `old` -> `new`: extra chars are insertions; a shorter
/// replacement puts the removal on the LAST edit so far — the previous chunk's
/// when `new` is empty, and nothing at all at the very start (HF's accounting).
fn replace(edits: &mut Vec<(char, isize)>, old: &str, new: &str) {
    let diff = new.chars().count() as isize - old.chars().count() as isize;
    edits.extend(new.chars().map(|c| (c, 0)));
    if diff > 0 {
        edits.iter_mut().rev().take(diff.unsigned_abs()).for_each(|e| e.1 = 1);
    } else if diff < 0 {
        if let Some(last) = edits.last_mut() {
            last.1 += diff;
        }
    }
}

#[cfg(test)]
#[path = "precompiled_tests.rs"]
mod tests;
