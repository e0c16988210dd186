//! Normalized text that remembers where each code point came from, so that
//! token offsets point into the original string (in code points).
//!
//! Transforms are described as HF tokenizers' `NormalizedString` describes
//! them: a sequence of `(char, change)` where change 0 replaces the next
//! input code point, 1 inserts a new one (aligned with the last input code
//! point consumed), and -n replaces the next one and removes the n after it.
//! Alignment is positional, exactly as in HF, so offsets agree with HF's even
//! where canonical reordering moves combining marks around.

use std::ops::Range;

/// `[start, end)` in the original text, in code points.
pub type Span = (u32, u32);

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Aligned {
    pub chars: Vec<u32>,
    pub spans: Vec<Span>,
}

impl Aligned {
    /// The original text: code point `i` spans `(i, i + 1)`.
    pub fn original(text: &[u32]) -> Self {
        Aligned { chars: text.to_vec(), spans: (0..text.len() as u32).map(|i| (i, i + 1)).collect() }
    }

    pub fn with_capacity(n: usize) -> Self {
        Aligned { chars: Vec::with_capacity(n), spans: Vec::with_capacity(n) }
    }

    #[inline]
    pub fn push(&mut self, cp: u32, span: Span) {
        self.chars.push(cp);
        self.spans.push(span);
    }

    pub fn len(&self) -> usize {
        self.chars.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    /// Applies `edits` (see the module docs) to `self[range]`.
    pub fn transform(chars_spans: (&[u32], &[Span]), edits: &[(u32, i32)]) -> Aligned {
        let (_, spans) = chars_spans;
        let mut out = Aligned::with_capacity(edits.len());
        let mut pos = 0usize; // input code points consumed
        for &(cp, change) in edits {
            let span = if change > 0 {
                if pos == 0 { spans.first().map_or((0, 0), |s| (s.0, s.0)) } else { spans[pos - 1] }
            } else {
                let s = spans.get(pos).copied().unwrap_or_else(|| spans.last().copied().unwrap_or((0, 0)));
                pos += 1 + change.unsigned_abs() as usize;
                s
            };
            out.push(cp, span);
        }
        out
    }

    /// Keeps the code points `keep` accepts (each keeps its own span).
    pub fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        let mut w = 0;
        for r in 0..self.chars.len() {
            if keep(self.chars[r]) {
                self.chars[w] = self.chars[r];
                self.spans[w] = self.spans[r];
                w += 1;
            }
        }
        self.chars.truncate(w);
        self.spans.truncate(w);
    }

    /// The original span of `self[range]` (HF: first start, last end).
    pub fn span_of(spans: &[Span], range: Range<usize>) -> Span {
        match (spans.get(range.start), range.end.checked_sub(1).and_then(|e| spans.get(e))) {
            (Some(a), Some(b)) if range.start < range.end => (a.0, b.1),
            _ => (0, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transform_is_positional_like_hf() {
        let text = Aligned::original(&[10, 11, 12, 13]);
        // 10 becomes two chars, 11 is replaced and 12 removed, 13 replaced
        let out = Aligned::transform((&text.chars, &text.spans), &[(1, 0), (2, 1), (3, -1), (4, 0)]);
        assert_eq!(out.chars, [1, 2, 3, 4]);
        assert_eq!(out.spans, [(0, 1), (0, 1), (1, 2), (3, 4)]);
    }

    #[test]
    fn span_of_takes_first_start_and_last_end() {
        let spans = [(0, 1), (3, 5), (5, 6)];
        assert_eq!(Aligned::span_of(&spans, 0..3), (0, 6));
        assert_eq!(Aligned::span_of(&spans, 1..2), (3, 5));
        assert_eq!(Aligned::span_of(&spans, 2..2), (0, 0));
    }
}
