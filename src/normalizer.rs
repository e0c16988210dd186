//! Normalizer: text-level cleaning (control characters, whitespace, CJK
//! spacing, NFC) and the word-level transforms (lowercase, accent stripping).
//! Which characters count as control is the one place the references differ
//! here; everything else follows Google's `BasicTokenizer`.

use crate::aligned::{Aligned, Span};
use crate::unicode::{self, has, is_hf_space, HF};
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
pub(crate) fn is_control(cp: u32, reference: Reference) -> bool {
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

impl Reference {
    /// Whitespace as cleaning sees it (it becomes " "): BERT's `_is_whitespace`,
    /// or HF's (`\t\n\r` or Rust's `char::is_whitespace`).
    #[inline]
    pub(crate) fn is_text_space(self, cp: u32) -> bool {
        match self {
            Reference::Tokenizers => is_hf_space(cp),
            _ => is_bert_whitespace(cp),
        }
    }

    /// The code points `_tokenize_chinese_chars` surrounds with spaces.
    #[inline]
    pub(crate) fn is_cjk(self, cp: u32) -> bool {
        match self {
            Reference::Tokenizers => is_cjk_hf(cp),
            _ => is_cjk(cp),
        }
    }
}

/// `_clean_text` then (optionally) `_tokenize_chinese_chars`, then NFC for
/// transformers, over the whole text. Each output code point keeps its
/// original span; an inserted CJK space takes the span of the code point
/// kept before it (as HF aligns insertions).
pub fn normalize_text(text: &[u32], reference: Reference, tokenize_chinese_chars: bool) -> Aligned {
    let mut out = Aligned::with_capacity(text.len() + 8);
    let mut last: Span = (0, 0);
    for (i, &cp) in text.iter().enumerate() {
        if cp == 0 || cp == 0xFFFD || is_control(cp, reference) {
            continue;
        }
        let span = (i as u32, i as u32 + 1);
        if reference.is_text_space(cp) {
            out.push(0x20, span);
        } else if tokenize_chinese_chars && reference.is_cjk(cp) {
            out.push(0x20, last);
            out.push(cp, span);
            out.push(0x20, span);
        } else {
            out.push(cp, span);
        }
        last = span;
    }
    match reference {
        Reference::Google | Reference::Tokenizers => out,
        // "prevents treating the same character with different unicode codepoints as different characters"
        Reference::Transformers => unicode::nfc_aligned(&out),
    }
}

/// HF BertNormalizer's last two steps, over the whole text and in this order:
/// strip accents (NFD with its Unicode 9 tables, drop Mn), then lowercase
/// each code point on its own (Rust's `char::to_lowercase`: no final sigma).
pub fn hf_case(text: Aligned, case: WordCase) -> Aligned {
    let mut edits = Vec::with_capacity(text.len());
    let text = if case.strip_accents {
        HF.nfd_edits(&text.chars, &mut edits);
        let mut d = Aligned::transform((&text.chars, &text.spans), &edits);
        d.retain(|c| !HF.has(c, t::MN));
        d
    } else {
        text
    };
    if !case.lowercase {
        return text;
    }
    edits.clear();
    HF.lower_edits(&text.chars, &mut edits);
    Aligned::transform((&text.chars, &text.spans), &edits)
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

    /// Python `str.lower()` (if lowercasing), then NFD and drop Mn (if
    /// stripping), of one whitespace token with its spans.
    pub fn apply(self, word: (&[u32], &[Span])) -> Aligned {
        let mut edits = Vec::with_capacity(word.0.len());
        let lowered;
        let word = if self.lowercase {
            unicode::lower_edits(word.0, &mut edits);
            lowered = Aligned::transform(word, &edits);
            (&lowered.chars[..], &lowered.spans[..])
        } else {
            word
        };
        if !self.strip_accents {
            return Aligned { chars: word.0.to_vec(), spans: word.1.to_vec() };
        }
        // `_run_strip_accents`: NFD, then drop nonspacing marks (Mn).
        edits.clear();
        unicode::PYTHON.nfd_edits(word.0, &mut edits);
        let mut out = Aligned::transform(word, &edits);
        out.retain(|c| !has(c, t::MN));
        out
    }
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
        assert_eq!(normalize_text(&text, Reference::Google, true).chars, cps("abcd\u{E000}e f g\u{2028}h"));
        assert_eq!(normalize_text(&text, Reference::Transformers, true).chars, cps("abcde f g\u{2028}h"));
    }

    #[test]
    fn cjk_spacing_uses_googles_ranges() {
        let out = normalize_text(&cps("a中b"), Reference::Google, true);
        assert_eq!(out.chars, cps("a 中 b"));
        assert_eq!(out.spans, [(0, 1), (0, 1), (1, 2), (1, 2), (2, 3)]);
        assert_eq!(normalize_text(&cps("a中b"), Reference::Google, false).chars, cps("a中b"));
        assert!(is_cjk(0x2B820) && !is_cjk(0x2CEB0) && !is_cjk(0x3042));
    }

    #[test]
    fn tokenizers_mode_uses_hf_definitions() {
        // Co removed, Cn kept; U+2028 is whitespace; CJK Ext. E from U+2B920.
        let text = cps("a\u{E000}b\u{FDD0}c\u{2028}d\u{2B820}e\u{2B920}");
        assert_eq!(normalize_text(&text, Reference::Tokenizers, true).chars, cps("ab\u{FDD0}c d\u{2B820}e \u{2B920} "));
        // Strip accents first, then lowercase per code point: no final sigma.
        let case = |s: &str, c| hf_case(Aligned::original(&cps(s)), c);
        assert_eq!(case("ΟΔΟΣ Ça İ", WordCase::new(true, None)).chars, cps("οδοσ ca i"));
        assert_eq!(case("ΟΔΟΣ Ça", WordCase::new(false, None)).chars, cps("ΟΔΟΣ Ça"));
        // Without stripping, İ lowercases to two code points, both spanning it.
        let out = case("xİ", WordCase::new(true, Some(false)));
        assert_eq!(out.chars, cps("xi\u{307}"));
        assert_eq!(out.spans, [(0, 1), (1, 2), (1, 2)]);
    }

    #[test]
    fn transformers_applies_nfc() {
        let out = normalize_text(&cps("xe\u{301}"), Reference::Transformers, true);
        assert_eq!((out.chars, out.spans), (cps("xé"), vec![(0, 1), (1, 3)]));
        assert_eq!(normalize_text(&cps("e\u{301}"), Reference::Google, true).chars, cps("e\u{301}"));
    }

    #[test]
    fn word_case_follows_strip_accents_rule() {
        let apply = |case: WordCase, s: &str| {
            let w = Aligned::original(&cps(s));
            case.apply((&w.chars, &w.spans))
        };
        assert_eq!(apply(WordCase::new(true, None), "Ça").chars, cps("ca"));
        assert_eq!(apply(WordCase::new(true, Some(false)), "Ça").chars, cps("ça"));
        assert_eq!(apply(WordCase::new(false, Some(true)), "Ça").chars, cps("Ca"));
        assert_eq!(apply(WordCase::new(false, None), "Ça").chars, cps("Ça"));
        let out = apply(WordCase::new(true, None), "ÉtÉ");
        assert_eq!((out.chars, out.spans), (cps("ete"), vec![(0, 1), (1, 2), (2, 3)]));
    }
}
