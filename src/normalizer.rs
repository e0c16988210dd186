//! Normalizer: text-level cleaning (control characters, whitespace, CJK
//! spacing, NFC) and the word-level transforms (lowercase, accent stripping).
//! Which characters count as control is the one place the references differ
//! here; everything else follows Google's `BasicTokenizer`.

use crate::unicode::{self, has, HF};
use crate::unicode_tables as t;

/// Whose BasicTokenizer to reproduce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Reference {
    /// Google's `tokenization.py` (2019+, as in `bert-tensorflow` 1.0.4).
    #[default]
    Google,
    /// transformers' pure-Python `BertTokenizer` (v5 `BertTokenizerLegacy`).
    Transformers,
    /// Hugging Face `tokenizers` (BertNormalizer, BertPreTokenizer, WordPiece):
    /// what transformers 5's `BertTokenizer` runs.
    Tokenizers,
}

impl Reference {
    pub fn parse(name: &str) -> crate::Result<Self> {
        match name {
            "google" => Ok(Self::Google),
            "transformers" => Ok(Self::Transformers),
            "tokenizers" => Ok(Self::Tokenizers),
            other => Err(crate::Error::UnknownReference(other.to_owned())),
        }
    }

    /// Default `max_input_chars_per_word` of the reference's WordpieceTokenizer.
    pub fn max_input_chars_per_word(self) -> usize {
        match self {
            Self::Google => 200,
            Self::Transformers | Self::Tokenizers => 100,
        }
    }
}

/// `_is_control`: Google counts Cc/Cf, transformers every C* category
/// (which also removes surrogates, private use and unassigned code points).
#[inline]
fn is_control(cp: u32, reference: Reference) -> bool {
    if cp == b'\t' as u32 || cp == b'\n' as u32 || cp == b'\r' as u32 {
        return false;
    }
    match reference {
        Reference::Google => has(cp, t::CONTROL),
        Reference::Transformers => has(cp, t::OTHER),
        // unicode_categories' is_other: Cc, Cf, Co (its 2016 tables).
        Reference::Tokenizers => HF.has(cp, t::OTHER),
    }
}

/// `_is_whitespace`: the four ASCII blanks and Zs (not the wider str.isspace()).
#[inline]
fn is_bert_whitespace(cp: u32) -> bool {
    matches!(cp, 0x20 | 0x09 | 0x0A | 0x0D) || has(cp, t::ZS)
}

/// `_is_chinese_char`: the eight CJK ranges Google chose (Ext. E from U+2B820).
#[inline]
pub fn is_cjk(cp: u32) -> bool {
    matches!(cp,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

/// HF tokenizers' copy of the ranges: Ext. E starts at U+2B920, so U+2B820..U+2B91F are not spaced.
#[inline]
fn is_cjk_hf(cp: u32) -> bool {
    is_cjk(cp) && !(0x2B820..0x2B920).contains(&cp)
}

/// HF's whitespace: `\t\n\r` or Rust's `char::is_whitespace`.
#[inline]
fn is_hf_whitespace(cp: u32) -> bool {
    HF.has(cp, t::SPACE)
}

/// `_clean_text` then (optionally) `_tokenize_chinese_chars`, then NFC for
/// transformers, over the whole text.
pub fn normalize_text(text: &[u32], reference: Reference, tokenize_chinese_chars: bool) -> Vec<u32> {
    type Class = fn(u32) -> bool;
    let (is_space, is_cjk): (Class, Class) = match reference {
        Reference::Tokenizers => (is_hf_whitespace, is_cjk_hf),
        _ => (is_bert_whitespace, is_cjk),
    };
    let mut out = Vec::with_capacity(text.len() + 8);
    for &cp in text {
        if cp == 0 || cp == 0xFFFD || is_control(cp, reference) {
            continue;
        }
        if is_space(cp) {
            out.push(0x20);
        } else if tokenize_chinese_chars && is_cjk(cp) {
            out.extend_from_slice(&[0x20, cp, 0x20]);
        } else {
            out.push(cp);
        }
    }
    match reference {
        Reference::Google | Reference::Tokenizers => out,
        // "prevents treating the same character with different unicode codepoints as different characters"
        Reference::Transformers => unicode::nfc(&out),
    }
}

/// HF BertNormalizer's last two steps, over the whole text and in this order:
/// strip accents (NFD with its Unicode 9 tables, drop Mn), then lowercase
/// each code point on its own (Rust's `char::to_lowercase`: no final sigma).
pub fn hf_case(text: Vec<u32>, case: WordCase) -> Vec<u32> {
    let text = if case.strip_accents {
        let mut d = Vec::with_capacity(text.len());
        HF.nfd_into(&text, &mut d);
        d.retain(|&c| !HF.has(c, t::MN));
        d
    } else {
        text
    };
    if !case.lowercase {
        return text;
    }
    let mut out = Vec::with_capacity(text.len());
    for cp in text {
        HF.lower_char_into(cp, &mut out);
    }
    out
}

/// What happens to a (non-protected) whitespace token before punctuation splitting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WordCase {
    pub lowercase: bool,
    pub strip_accents: bool,
}

impl WordCase {
    /// transformers' rule: lowercase implies stripping unless strip_accents is
    /// False; without lowercase, strip only when strip_accents is True.
    /// (Google's module is the special case strip_accents=None.)
    pub fn new(do_lower_case: bool, strip_accents: Option<bool>) -> Self {
        let strip = if do_lower_case { strip_accents != Some(false) } else { strip_accents == Some(true) };
        Self { lowercase: do_lower_case, strip_accents: strip }
    }

    /// Applies the transforms to `word`, writing the result to `out` (cleared
    /// first). `scratch` is reused working space.
    pub fn apply(self, word: &[u32], out: &mut Vec<u32>, scratch: &mut Vec<u32>) {
        out.clear();
        match (self.lowercase, self.strip_accents) {
            (false, false) => out.extend_from_slice(word),
            (true, false) => unicode::lower_into(word, out),
            (false, true) => strip_accents_into(word, out),
            (true, true) => {
                scratch.clear();
                unicode::lower_into(word, scratch);
                strip_accents_into(scratch, out);
            }
        }
    }
}

/// `_run_strip_accents`: NFD, then drop nonspacing marks (Mn).
fn strip_accents_into(word: &[u32], out: &mut Vec<u32>) {
    let from = out.len();
    unicode::nfd_into(word, out);
    let mut w = from;
    for r in from..out.len() {
        let cp = out[r];
        if !has(cp, t::MN) {
            out[w] = cp;
            w += 1;
        }
    }
    out.truncate(w);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cps(s: &str) -> Vec<u32> {
        s.chars().map(|c| c as u32).collect()
    }

    #[test]
    fn cleaning_differs_only_in_what_counts_as_control() {
        let text = cps("a\u{0}b\u{FFFD}c\u{200B}d\u{E000}e\tf\u{3000}g\u{2028}h");
        assert_eq!(normalize_text(&text, Reference::Google, true), cps("abcd\u{E000}e f g\u{2028}h"));
        assert_eq!(normalize_text(&text, Reference::Transformers, true), cps("abcde f g\u{2028}h"));
    }

    #[test]
    fn cjk_spacing_uses_googles_ranges() {
        assert_eq!(normalize_text(&cps("a中b"), Reference::Google, true), cps("a 中 b"));
        assert_eq!(normalize_text(&cps("a中b"), Reference::Google, false), cps("a中b"));
        assert!(is_cjk(0x2B820) && !is_cjk(0x2CEB0) && !is_cjk(0x3042));
    }

    #[test]
    fn tokenizers_mode_uses_hf_definitions() {
        // Co removed, Cn kept; U+2028 is whitespace; CJK Ext. E from U+2B920.
        let text = cps("a\u{E000}b\u{FDD0}c\u{2028}d\u{2B820}e\u{2B920}");
        assert_eq!(normalize_text(&text, Reference::Tokenizers, true), cps("ab\u{FDD0}c d\u{2B820}e \u{2B920} "));
        // Strip accents first, then lowercase per code point: no final sigma.
        assert_eq!(hf_case(cps("ΟΔΟΣ Ça İ"), WordCase::new(true, None)), cps("οδοσ ca i"));
        assert_eq!(hf_case(cps("ΟΔΟΣ Ça"), WordCase::new(false, None)), cps("ΟΔΟΣ Ça"));
    }

    #[test]
    fn transformers_applies_nfc() {
        assert_eq!(normalize_text(&cps("e\u{301}"), Reference::Transformers, true), cps("é"));
        assert_eq!(normalize_text(&cps("e\u{301}"), Reference::Google, true), cps("e\u{301}"));
    }

    #[test]
    fn word_case_follows_strip_accents_rule() {
        let (mut out, mut scratch) = (Vec::new(), Vec::new());
        WordCase::new(true, None).apply(&cps("Ça"), &mut out, &mut scratch);
        assert_eq!(out, cps("ca"));
        WordCase::new(true, Some(false)).apply(&cps("Ça"), &mut out, &mut scratch);
        assert_eq!(out, cps("ça"));
        WordCase::new(false, Some(true)).apply(&cps("Ça"), &mut out, &mut scratch);
        assert_eq!(out, cps("Ca"));
        WordCase::new(false, None).apply(&cps("Ça"), &mut out, &mut scratch);
        assert_eq!(out, cps("Ça"));
    }
}
