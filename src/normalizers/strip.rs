//! Strip (leading/trailing whitespace) and StripAccents (combining marks):
//! both only remove chars, so the kept chars keep their spans (HF's `filter`).

use super::retain;
use crate::normalized_string::NormalizedString;
use crate::pre_tokenizer::is_hf_space;
use unicode_normalization_alignments::char::is_combining_mark;

/// HF's `lrstrip`: whitespace is Rust's `char::is_whitespace` (HF's table).
pub fn strip(s: &mut NormalizedString, left: bool, right: bool) {
    let space = |c: &&char| is_hf_space(**c as u32);
    let lead = if left { s.chars.iter().take_while(space).count() } else { 0 };
    let trail = if right { s.chars[lead..].iter().rev().take_while(space).count() } else { 0 };
    let end = s.len() - trail;
    s.chars.truncate(end);
    s.spans.truncate(end);
    s.chars.drain(..lead);
    s.spans.drain(..lead);
}

/// HF's StripAccents: drops `is_combining_mark` chars (unicode-normalization-alignments' table).
pub fn strip_accents(s: &mut NormalizedString) {
    retain(s, |c| !is_combining_mark(c));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_each_side_and_all_space_text() {
        let mut s = NormalizedString::new("\u{3000} a b\t", 0).unwrap();
        strip(&mut s, true, false);
        assert_eq!((s.text().unwrap(), s.spans[0]), ("a b\t".to_string(), (2, 3)));
        strip(&mut s, false, true);
        assert_eq!(s.text().unwrap(), "a b");
        let mut blank = NormalizedString::new("  \n", 0).unwrap();
        strip(&mut blank, true, true);
        assert!(blank.is_empty() && blank.spans.is_empty());
    }

    #[test]
    fn strip_accents_keeps_spans_of_the_rest() {
        let mut s = NormalizedString::new("e\u{301}\u{93F}x", 0).unwrap();
        strip_accents(&mut s);
        assert_eq!((s.text().unwrap(), s.spans.clone()), ("ex".to_string(), vec![(0, 1), (3, 4)]));
    }
}
