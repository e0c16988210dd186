//! Text under normalization that remembers, for every char, the span of the
//! original text it came from (in chars of the original), so token offsets
//! can be reported in original-text coordinates as HF tokenizers reports them.
//!
//! Edits follow HF's `NormalizedString::transform`: a stream of `(char, change)`
//! where 0 replaces the next char, 1 inserts a char (aligned with the previous
//! char, or with the empty span at the start of this piece), and -n replaces
//! the next char and removes the n after it.

use crate::room::{chars_text, ensure_room, make_room};
use crate::Result;
use std::ops::Range;

/// What a failed allocation names.
const WHAT: &str = "normalized text";

/// `[start, end)` in the original text, in chars.
pub type Span = (usize, usize);

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NormalizedString {
    pub chars: Vec<char>,
    pub spans: Vec<Span>,
    /// Where this piece starts in the original text (HF's `original_shift`).
    pub origin: usize,
}

impl NormalizedString {
    /// `text` unchanged, its chars numbered from `origin`.
    pub fn new(text: &str, origin: usize) -> Result<Self> {
        let n = text.chars().count();
        let mut s = NormalizedString { origin, ..NormalizedString::default() };
        s.make_room(n)?;
        s.chars.extend(text.chars());
        s.spans.extend((0..n).map(|i| (origin + i, origin + i + 1)));
        Ok(s)
    }

    pub fn len(&self) -> usize {
        self.chars.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    /// The chars as a string (made fallibly: a piece can be the whole text).
    pub fn text(&self) -> Result<String> {
        chars_text(&self.chars, WHAT)
    }

    /// Room for `n` more chars and spans: 20 bytes a char, so a long text's
    /// pieces are made fallibly (a `MemoryError`, never an abort).
    fn make_room(&mut self, n: usize) -> Result<()> {
        make_room(&mut self.chars, n, WHAT)?;
        make_room(&mut self.spans, n, WHAT)
    }

    /// Applies HF-style edits to the whole string.
    pub fn transform(&mut self, edits: impl IntoIterator<Item = (char, isize)>) -> Result<()> {
        let edits = edits.into_iter();
        let mut out = NormalizedString { origin: self.origin, ..NormalizedString::default() };
        out.make_room(self.chars.len().max(edits.size_hint().0))?;
        let mut pos = 0usize; // chars of `self` consumed
        for (c, change) in edits {
            let span = if change > 0 {
                if pos == 0 { (self.origin, self.origin) } else { self.spans[pos - 1] }
            } else {
                // HF indexes its alignments here; past the end can only come from a
                // malformed edit stream, which our own stages never produce.
                let s = self.spans.get(pos).or(self.spans.last()).copied().unwrap_or((self.origin, self.origin));
                pos += 1 + change.unsigned_abs();
                s
            };
            // more chars than it had (insertions): grown as `push` grows, fallibly
            ensure_room(&mut out.chars, 1, WHAT)?;
            ensure_room(&mut out.spans, 1, WHAT)?;
            out.chars.push(c);
            out.spans.push(span);
        }
        self.chars = out.chars;
        self.spans = out.spans;
        Ok(())
    }

    /// Puts `c` in front, aligned as HF's `prepend` aligns it: with the first char.
    pub fn prepend(&mut self, c: char) -> Result<()> {
        if let Some(&first) = self.spans.first() {
            self.make_room(1)?;
            self.chars.insert(0, c);
            self.spans.insert(0, first);
        }
        Ok(())
    }

    /// The original span of the normalized chars `r` (first start, last end, as HF).
    pub fn original_span(&self, r: Range<usize>) -> Option<Span> {
        if r.start >= r.end || r.end > self.len() {
            return None;
        }
        Some((self.spans[r.start].0, self.spans[r.end - 1].1))
    }

    /// The normalized chars `r` as a piece of their own.
    pub fn slice(&self, r: Range<usize>) -> Result<NormalizedString> {
        let origin = self.original_span(r.clone()).map_or(self.origin, |s| s.0);
        let mut piece = NormalizedString { origin, ..NormalizedString::default() };
        piece.make_room(r.len())?;
        piece.chars.extend_from_slice(&self.chars[r.clone()]);
        piece.spans.extend_from_slice(&self.spans[r]);
        Ok(piece)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserted_chars_take_the_previous_span() {
        let mut s = NormalizedString::new("aé", 3).unwrap();
        s.transform([('a', 0), ('e', 0), ('\u{301}', 1)]).unwrap();
        assert_eq!(s.spans, vec![(3, 4), (4, 5), (4, 5)]);
        assert_eq!(s.original_span(1..3), Some((4, 5)));
    }

    #[test]
    fn removal_skips_chars() {
        let mut s = NormalizedString::new("abc", 0).unwrap();
        s.transform([('x', -2)]).unwrap();
        assert_eq!((s.text().unwrap(), s.spans.clone()), ("x".to_string(), vec![(0, 1)]));
    }

    #[test]
    fn prepend_takes_the_first_span() {
        let mut s = NormalizedString::new("ab", 0).unwrap().slice(1..2).unwrap();
        s.prepend(' ').unwrap();
        assert_eq!(s.spans, vec![(1, 2), (1, 2)]);
        assert_eq!(s.origin, 1);
    }
}
