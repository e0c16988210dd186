//! Normalizers of the general pipeline (HF tokenizers' `normalizers`), each an
//! edit of a [`NormalizedString`] that keeps every char's original span,
//! aligned as HF's `NormalizedString` aligns it (see each module).

mod bert;
mod precompiled;
mod replace;
mod strip;
mod unicode;

use crate::normalized_string::NormalizedString;
use crate::room::{make_room, try_collect};
use crate::Result;
pub use bert::BertNormalizer;
pub use precompiled::Precompiled;
pub use replace::Replace;

#[derive(Clone, Debug)]
pub enum Normalizer {
    /// Unicode NFC/NFD/NFKC/NFKD, with HF's own crate and tables (Unicode 9.0.0) so results agree.
    Nfc,
    Nfd,
    Nfkc,
    Nfkd,
    /// sentencepiece's nmt cleaning: ASCII controls removed, odd spaces made " ".
    Nmt,
    /// Char-by-char full lowercase mapping, context-free (Σ -> σ always), as Rust's `char::to_lowercase`.
    Lowercase,
    Bert(BertNormalizer),
    /// Strips Rust-`char::is_whitespace` chars from the left and/or the right.
    Strip { left: bool, right: bool },
    /// Removes combining marks (Mn, Mc, Me in HF's Unicode 9 tables).
    StripAccents,
    Replace(Replace),
    /// Puts the string in front of a non-empty text, every char aligned with its first char.
    Prepend(String),
    /// Every UTF-8 byte as GPT-2's printable char, all aligned with their char.
    ByteLevel,
    /// sentencepiece's charsmap, looked up per grapheme as HF does (see precompiled.rs).
    Precompiled(Box<Precompiled>),
    Sequence(Vec<Normalizer>),
}

impl Normalizer {
    pub fn normalize(&self, s: &mut NormalizedString) -> Result<()> {
        match self {
            Normalizer::Nfc => unicode::nfc(s),
            Normalizer::Nfd => unicode::nfd(s),
            Normalizer::Nfkc => unicode::nfkc(s),
            Normalizer::Nfkd => unicode::nfkd(s),
            Normalizer::Nmt => {
                unicode::nmt(s);
                Ok(())
            }
            Normalizer::Lowercase => {
                let edits = s.chars.iter().flat_map(|c| c.to_lowercase().enumerate().map(|(i, l)| (l, isize::from(i > 0))));
                let edits = try_collect(edits, "normalized text")?;
                s.transform(edits)
            }
            Normalizer::Bert(b) => b.normalize(s),
            Normalizer::Strip { left, right } => {
                strip::strip(s, *left, *right);
                Ok(())
            }
            Normalizer::StripAccents => {
                strip::strip_accents(s);
                Ok(())
            }
            Normalizer::Replace(r) => r.normalize(s),
            Normalizer::Prepend(p) => match s.is_empty() {
                true => Ok(()),
                false => prepend_str(s, p),
            },
            Normalizer::ByteLevel => match s.is_empty() {
                true => Ok(()),
                false => crate::pre_tokenizers::byte_level::to_byte_chars(s),
            },
            Normalizer::Precompiled(p) => p.normalize(s),
            Normalizer::Sequence(steps) => steps.iter().try_for_each(|n| n.normalize(s)),
        }
    }
}

/// HF's `NormalizedString::prepend`: every char of `p` takes the first char's span.
fn prepend_str(s: &mut NormalizedString, p: &str) -> Result<()> {
    if let Some(&first) = s.spans.first() {
        let n = p.chars().count();
        make_room(&mut s.chars, n, "normalized text")?;
        make_room(&mut s.spans, n, "normalized text")?;
        s.chars.splice(0..0, p.chars());
        s.spans.splice(0..0, std::iter::repeat_n(first, n));
    }
    Ok(())
}

/// HF's `NormalizedString::filter`: a removed char takes its span with it, so
/// the kept chars keep theirs.
fn retain(s: &mut NormalizedString, keep: impl Fn(char) -> bool) {
    let mut j = 0;
    for i in 0..s.chars.len() {
        let c = s.chars[i];
        if keep(c) {
            s.chars[j] = c;
            s.spans[j] = s.spans[i];
            j += 1;
        }
    }
    s.chars.truncate(j);
    s.spans.truncate(j);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercase_expands_with_spans() {
        let mut s = NormalizedString::new("İa", 0).unwrap();
        Normalizer::Lowercase.normalize(&mut s).unwrap();
        assert_eq!(s.text().unwrap(), "i\u{307}a");
        assert_eq!(s.spans, vec![(0, 1), (0, 1), (1, 2)]);
    }

    #[test]
    fn prepend_aligns_with_the_first_char_and_skips_empty_text() {
        let mut s = NormalizedString::new("ab", 4).unwrap();
        Normalizer::Prepend("▁x".into()).normalize(&mut s).unwrap();
        assert_eq!((s.text().unwrap(), s.spans.clone()), ("▁xab".to_string(), vec![(4, 5), (4, 5), (4, 5), (5, 6)]));
        let mut e = NormalizedString::new("", 0).unwrap();
        Normalizer::Prepend("▁".into()).normalize(&mut e).unwrap();
        assert!(e.is_empty());
    }

    #[test]
    fn byte_level_maps_bytes_with_the_char_span() {
        let mut s = NormalizedString::new(" é", 0).unwrap();
        Normalizer::ByteLevel.normalize(&mut s).unwrap();
        assert_eq!((s.text().unwrap(), s.spans.clone()), ("ĠÃ©".to_string(), vec![(0, 1), (1, 2), (1, 2)]));
    }

    #[test]
    fn sequence_runs_in_order() {
        let mut s = NormalizedString::new("  Ab ", 0).unwrap();
        Normalizer::Sequence(vec![Normalizer::Strip { left: true, right: true }, Normalizer::Lowercase]).normalize(&mut s).unwrap();
        assert_eq!((s.text().unwrap(), s.spans.clone()), ("ab".to_string(), vec![(2, 3), (3, 4)]));
    }
}
