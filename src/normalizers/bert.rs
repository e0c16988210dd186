//! HF's BertNormalizer on a [`NormalizedString`], with the HF character tables
//! the fused BERT path uses (src/hf_tables.rs via `crate::normalizer`), in
//! HF's order: clean text, space CJK, strip accents, lowercase.

use super::{retain, unicode::nfd};
use crate::normalized_string::NormalizedString;
use crate::room::{ensure_room, make_room};
use crate::Result;
use crate::normalizer::{is_control, Reference};
use crate::unicode::HF;
use crate::unicode_tables as t;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BertNormalizer {
    pub clean_text: bool,
    pub handle_chinese_chars: bool,
    /// null in the file: follow `lowercase`.
    pub strip_accents: Option<bool>,
    pub lowercase: bool,
}

impl BertNormalizer {
    pub fn normalize(&self, s: &mut NormalizedString) -> Result<()> {
        let hf = Reference::Tokenizers;
        if self.clean_text {
            retain(s, |c| !(c == '\0' || c == '\u{FFFD}' || is_control(c as u32, hf)));
            for c in &mut s.chars {
                if hf.is_text_space(*c as u32) {
                    *c = ' ';
                }
            }
        }
        if self.handle_chinese_chars && s.chars.iter().any(|&c| hf.is_cjk(c as u32)) {
            // HF's edits: the space replaces the char, the char and a space are inserted: all share its span.
            let mut edits = Vec::new();
            make_room(&mut edits, s.len() + 8, "normalized text")?;
            for &c in &s.chars {
                if hf.is_cjk(c as u32) {
                    ensure_room(&mut edits, 3, "normalized text")?;
                    edits.extend([(' ', 0), (c, 1), (' ', 1)]);
                } else {
                    ensure_room(&mut edits, 1, "normalized text")?;
                    edits.push((c, 0));
                }
            }
            s.transform(edits)?;
        }
        if self.strip_accents.unwrap_or(self.lowercase) {
            nfd(s)?;
            retain(s, |c| !HF.has(c as u32, t::MN));
        }
        if self.lowercase {
            let mut edits = Vec::new();
            make_room(&mut edits, s.len(), "normalized text")?;
            let mut buf = Vec::with_capacity(3);
            for &c in &s.chars {
                buf.clear();
                HF.lower_char_into(c as u32, &mut buf);
                // The table holds Rust's `char::to_lowercase`, so every entry is a char.
                let lowered = buf.iter().filter_map(|&cp| char::from_u32(cp));
                ensure_room(&mut edits, buf.len(), "normalized text")?;
                edits.extend(lowered.enumerate().map(|(i, l)| (l, isize::from(i > 0))));
            }
            s.transform(edits)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULT: BertNormalizer =
        BertNormalizer { clean_text: true, handle_chinese_chars: true, strip_accents: None, lowercase: true };

    #[test]
    fn cjk_spaces_share_the_char_span() {
        let mut s = NormalizedString::new("a中", 0).unwrap();
        DEFAULT.normalize(&mut s).unwrap();
        assert_eq!((s.text().unwrap(), s.spans.clone()), ("a 中 ".to_string(), vec![(0, 1), (1, 2), (1, 2), (1, 2)]));
    }

    #[test]
    fn cleans_then_strips_then_lowercases() {
        let mut s = NormalizedString::new("\u{0}É\u{200B}\tΣ", 0).unwrap();
        DEFAULT.normalize(&mut s).unwrap();
        assert_eq!((s.text().unwrap(), s.spans.clone()), ("e σ".to_string(), vec![(1, 2), (3, 4), (4, 5)]));
        let keep = BertNormalizer { strip_accents: Some(false), ..DEFAULT };
        let mut s = NormalizedString::new("É", 0).unwrap();
        keep.normalize(&mut s).unwrap();
        assert_eq!(s.text().unwrap(), "é");
        let strip_only = BertNormalizer { strip_accents: Some(true), lowercase: false, ..DEFAULT };
        let mut s = NormalizedString::new("É", 0).unwrap();
        strip_only.normalize(&mut s).unwrap();
        assert_eq!(s.text().unwrap(), "E");
    }
}
