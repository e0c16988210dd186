//! Pre-tokenizer: Python `str.split()` on whitespace, then BERT's punctuation
//! split. Both work on ranges of the caller's buffer, so nothing is copied.

use crate::normalizer::Reference;
// HF's classes live with the other character classes (the normalizer needs them too).
pub use crate::unicode::{is_hf_punctuation, is_hf_space};
use crate::unicode::{has, is_python_space};
use crate::unicode_tables as t;
use std::ops::Range;

/// `str.split()` with no argument: maximal runs of non-`isspace()` code points.
/// (Wider than BERT's own whitespace: U+2028/U+2029 survive cleaning but split here.)
pub fn split_whitespace(text: &[u32]) -> impl Iterator<Item = Range<usize>> + '_ {
    split_on(text, is_python_space)
}

/// Maximal runs of code points that are not `is_space`.
pub fn split_on(text: &[u32], is_space: fn(u32) -> bool) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < text.len() && is_space(text[i]) {
            i += 1;
        }
        if i == text.len() {
            return None;
        }
        let start = i;
        while i < text.len() && !is_space(text[i]) {
            i += 1;
        }
        Some(start..i)
    })
}

/// `_is_punctuation`: ASCII 33–47, 58–64, 91–96, 123–126 and every P* category.
#[inline]
pub fn is_punctuation(cp: u32) -> bool {
    has(cp, t::PUNCT)
}

impl Reference {
    /// What words are split on: `str.split()`'s whitespace (Google and
    /// transformers, also after their transforms), HF's whitespace.
    #[inline]
    pub(crate) fn is_split_space(self, cp: u32) -> bool {
        match self {
            Reference::Tokenizers => is_hf_space(cp),
            _ => is_python_space(cp),
        }
    }

    /// What `_run_split_on_punc` / BertPreTokenizer isolate.
    #[inline]
    pub(crate) fn is_punctuation(self, cp: u32) -> bool {
        match self {
            Reference::Tokenizers => is_hf_punctuation(cp),
            _ => is_punctuation(cp),
        }
    }
}

/// `_run_split_on_punc`: each punctuation code point becomes its own piece;
/// the runs between them are pieces too. Empty pieces are never produced.
pub fn split_punctuation(word: &[u32]) -> impl Iterator<Item = Range<usize>> + '_ {
    split_punctuation_by(word, is_punctuation)
}

/// [`split_punctuation`] with another punctuation predicate.
pub fn split_punctuation_by(word: &[u32], is_punctuation: fn(u32) -> bool) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        if i == word.len() {
            return None;
        }
        let start = i;
        if is_punctuation(word[i]) {
            i += 1;
        } else {
            while i < word.len() && !is_punctuation(word[i]) {
                i += 1;
            }
        }
        Some(start..i)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cps(s: &str) -> Vec<u32> {
        s.chars().map(|c| c as u32).collect()
    }

    fn pieces(text: &str, f: fn(&[u32]) -> Vec<Range<usize>>) -> Vec<String> {
        let v = cps(text);
        f(&v).into_iter().map(|r| v[r].iter().map(|&c| char::from_u32(c).unwrap()).collect()).collect()
    }

    #[test]
    fn whitespace_split_matches_python_str_split() {
        let ws = |t: &[u32]| split_whitespace(t).collect();
        assert_eq!(pieces("  a b\u{2028}c\u{85}d\u{1F}e  ", ws), ["a", "b", "c", "d", "e"]);
        assert!(pieces(" \u{3000} ", ws).is_empty());
        assert!(pieces("", ws).is_empty());
    }

    #[test]
    fn punctuation_is_isolated() {
        let punc = |t: &[u32]| split_punctuation(t).collect();
        assert_eq!(pieces("don't!!x", punc), ["don", "'", "t", "!", "!", "x"]);
        assert_eq!(pieces("“a”", punc), ["“", "a", "”"]);
        assert_eq!(pieces("$5^", punc), ["$", "5", "^"]);
    }
}
