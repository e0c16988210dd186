//! Normalizers of the general pipeline (HF tokenizers' `normalizers`), each an
//! edit of a [`NormalizedString`] that keeps every char's original span.
//! This slice has what byte-level BPE files use: NFC, Lowercase, Sequence.

use crate::normalized_string::NormalizedString;
use unicode_normalization_alignments::UnicodeNormalization;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Normalizer {
    /// Unicode NFC, with HF's own crate and tables (Unicode 9.0.0) so results agree.
    Nfc,
    /// Char-by-char full lowercase mapping, context-free (Σ -> σ always), as Rust's `char::to_lowercase`.
    Lowercase,
    Sequence(Vec<Normalizer>),
}

impl Normalizer {
    pub fn normalize(&self, s: &mut NormalizedString) {
        match self {
            Normalizer::Nfc => {
                let text = s.text();
                let edits: Vec<(char, isize)> = text.nfc().collect();
                s.transform(edits);
            }
            Normalizer::Lowercase => {
                let edits: Vec<(char, isize)> = s
                    .chars
                    .iter()
                    .flat_map(|c| c.to_lowercase().enumerate().map(|(i, l)| (l, isize::from(i > 0))))
                    .collect();
                s.transform(edits);
            }
            Normalizer::Sequence(steps) => steps.iter().for_each(|n| n.normalize(s)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercase_expands_with_spans() {
        let mut s = NormalizedString::new("İa", 0);
        Normalizer::Lowercase.normalize(&mut s);
        assert_eq!(s.text(), "i\u{307}a");
        assert_eq!(s.spans, vec![(0, 1), (0, 1), (1, 2)]);
    }

    #[test]
    fn nfc_composes_to_the_first_span() {
        let mut s = NormalizedString::new("e\u{301}x", 0);
        Normalizer::Nfc.normalize(&mut s);
        assert_eq!(s.text(), "éx");
        assert_eq!(s.original_span(0..1), Some((0, 1)));
        assert_eq!(s.original_span(1..2), Some((2, 3)));
    }
}
