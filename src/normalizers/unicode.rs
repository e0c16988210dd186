//! The Unicode normal forms, with the crate and tables HF uses
//! (unicode-normalization-alignments, Unicode 9.0.0), whose `(char, change)`
//! stream is applied as HF applies it; and sentencepiece's nmt cleaning.

use super::retain;
use crate::normalized_string::NormalizedString;
use crate::Result;
use unicode_normalization_alignments::UnicodeNormalization;

pub fn nfc(s: &mut NormalizedString) -> Result<()> {
    if is_ascii(s) {
        return Ok(());
    }
    let text = s.text()?;
    s.transform(text.nfc())
}

pub fn nfd(s: &mut NormalizedString) -> Result<()> {
    if is_ascii(s) {
        return Ok(());
    }
    let text = s.text()?;
    s.transform(text.nfd())
}

pub fn nfkc(s: &mut NormalizedString) -> Result<()> {
    if is_ascii(s) {
        return Ok(());
    }
    let text = s.text()?;
    s.transform(text.nfkc())
}

pub fn nfkd(s: &mut NormalizedString) -> Result<()> {
    if is_ascii(s) {
        return Ok(());
    }
    let text = s.text()?;
    s.transform(text.nfkd())
}

/// ASCII text is in all four normal forms (no ASCII char decomposes or composes
/// with another): the forms leave it and its spans as they are, so it skips them.
fn is_ascii(s: &NormalizedString) -> bool {
    s.chars.iter().all(char::is_ascii)
}

/// HF's `Nmt`: ASCII/C1 controls removed, then the other "spaces" mapped to " ".
pub fn nmt(s: &mut NormalizedString) {
    retain(s, |c| !matches!(c as u32, 0x01..=0x08 | 0x0B | 0x0E..=0x1F | 0x7F | 0x8F | 0x9F));
    for c in &mut s.chars {
        if matches!(*c as u32, 0x09 | 0x0A | 0x0C | 0x0D | 0x1680 | 0x200B..=0x200F | 0x2028 | 0x2029 | 0x2581 | 0xFEFF | 0xFFFD) {
            *c = ' ';
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_skips_the_forms_unchanged() {
        let text: String = (0u8..128).map(char::from).chain("ab Cd\t\n~".chars()).collect();
        type Edits = fn(&str) -> Vec<(char, isize)>;
        type Form = fn(&mut NormalizedString) -> crate::Result<()>;
        let forms: [(Form, Edits); 4] = [
            (nfc, |t| t.nfc().collect()),
            (nfd, |t| t.nfd().collect()),
            (nfkc, |t| t.nfkc().collect()),
            (nfkd, |t| t.nfkd().collect()),
        ];
        for (f, edits) in forms {
            let mut fast = NormalizedString::new(&text, 3).unwrap();
            f(&mut fast).unwrap();
            let mut general = NormalizedString::new(&text, 3).unwrap();
            general.transform(edits(&text)).unwrap();
            assert_eq!((fast.chars, fast.spans), (general.chars, general.spans));
        }
    }

    #[test]
    fn nfc_composes_to_the_first_span() {
        let mut s = NormalizedString::new("e\u{301}x", 0).unwrap();
        nfc(&mut s).unwrap();
        assert_eq!(s.text().unwrap(), "éx");
        assert_eq!(s.original_span(0..1), Some((0, 1)));
        assert_eq!(s.original_span(1..2), Some((2, 3)));
    }

    #[test]
    fn decompositions_share_the_source_span() {
        let mut s = NormalizedString::new("aé", 0).unwrap();
        nfd(&mut s).unwrap();
        assert_eq!((s.text().unwrap(), s.spans.clone()), ("ae\u{301}".to_string(), vec![(0, 1), (1, 2), (1, 2)]));
        let mut k = NormalizedString::new("ﬁ²", 0).unwrap();
        nfkd(&mut k).unwrap();
        assert_eq!((k.text().unwrap(), k.spans.clone()), ("fi2".to_string(), vec![(0, 1), (0, 1), (1, 2)]));
        let mut kc = NormalizedString::new("ﬁ", 0).unwrap();
        nfkc(&mut kc).unwrap();
        assert_eq!(kc.text().unwrap(), "fi");
    }

    #[test]
    fn nmt_removes_controls_and_maps_spaces() {
        let mut s = NormalizedString::new("\u{1}a\tb\u{200B}", 0).unwrap();
        nmt(&mut s);
        assert_eq!((s.text().unwrap(), s.spans.clone()), ("a b ".to_string(), vec![(1, 2), (2, 3), (3, 4), (4, 5)]));
    }
}
