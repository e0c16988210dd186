//! The pre-tokenizers that split on a char class or a fixed pattern, each as
//! HF tokenizers 0.23.3 defines it (tokenizers/src/pre_tokenizers/*.rs):
//! BertPreTokenizer, Whitespace, WhitespaceSplit, Punctuation, Digits,
//! CharDelimiterSplit and Split with a string pattern.

use super::split::{char_matches, regex_matches, split, Behavior};
use crate::normalized_string::NormalizedString;
use crate::Result;
use crate::pre_tokenizer::{is_hf_punctuation, is_hf_space};
use regex::Regex;
use std::sync::LazyLock;

/// HF's Whitespace pattern, run by the same engine HF runs it with (the
/// regex crate), so `\w` and `\s` are the regex crate's Unicode classes.
static WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\w+|[^\w\s]+").unwrap_or_else(|e| panic!("Whitespace pattern does not compile: {e}"))
});

fn hf_space(c: char) -> bool {
    is_hf_space(c as u32)
}

fn hf_punctuation(c: char) -> bool {
    is_hf_punctuation(c as u32)
}

/// BertPreTokenizer: whitespace removed, then each punctuation char isolated.
pub fn bert(s: NormalizedString, out: &mut Vec<NormalizedString>) -> Result<()> {
    let mut words = Vec::new();
    split(&s, char_matches(&s.chars, hf_space)?, Behavior::Removed, &mut words)?;
    for w in &words {
        split(w, char_matches(&w.chars, hf_punctuation)?, Behavior::Isolated, out)?;
    }
    Ok(())
}

/// Whitespace: runs of `\w` and runs of other non-space chars; spaces removed.
pub fn whitespace(s: NormalizedString, out: &mut Vec<NormalizedString>) -> Result<()> {
    split(&s, regex_matches(&s.chars, &WORDS, true)?, Behavior::Removed, out)
}

/// Whitespace's words on a str (byte ranges): the same matches, without the chars.
pub fn whitespace_words(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    WORDS.find_iter(text).map(|m| (m.start(), m.end()))
}

/// WhitespaceSplit: split on Rust's `char::is_whitespace`, which is removed.
pub fn whitespace_split(s: NormalizedString, out: &mut Vec<NormalizedString>) -> Result<()> {
    split(&s, char_matches(&s.chars, hf_space)?, Behavior::Removed, out)
}

/// Punctuation: each punctuation char (as BertPreTokenizer's) is a delimiter.
pub fn punctuation(behavior: Behavior, s: NormalizedString, out: &mut Vec<NormalizedString>) -> Result<()> {
    split(&s, char_matches(&s.chars, hf_punctuation)?, behavior, out)
}

/// Digits: Rust's `char::is_numeric` chars isolated one by one, or in runs.
pub fn digits(individual: bool, s: NormalizedString, out: &mut Vec<NormalizedString>) -> Result<()> {
    let behavior = if individual { Behavior::Isolated } else { Behavior::Contiguous };
    split(&s, char_matches(&s.chars, char::is_numeric)?, behavior, out)
}

/// CharDelimiterSplit: the delimiter char is removed.
pub fn char_delimiter(delimiter: char, s: NormalizedString, out: &mut Vec<NormalizedString>) -> Result<()> {
    split(&s, char_matches(&s.chars, |c| c == delimiter)?, Behavior::Removed, out)
}

/// Split with a string pattern: HF escapes it into a regex; the leftmost
/// non-overlapping occurrences of a literal are the same in every engine
/// (and an empty literal matches at every char boundary in both).
#[derive(Clone, Debug)]
pub struct LiteralSplit {
    pub pattern: String,
    regex: Regex,
    pub behavior: Behavior,
    pub invert: bool,
}

impl PartialEq for LiteralSplit {
    fn eq(&self, other: &Self) -> bool {
        (&self.pattern, self.behavior, self.invert) == (&other.pattern, other.behavior, other.invert)
    }
}

impl Eq for LiteralSplit {}

impl LiteralSplit {
    pub fn new(pattern: &str, behavior: Behavior, invert: bool) -> crate::Result<LiteralSplit> {
        // An escaped literal always compiles; only its size could fail.
        let regex = Regex::new(&regex::escape(pattern))
            .map_err(|e| crate::Error::Config(format!("pre_tokenizer.pattern: {e}")))?;
        Ok(LiteralSplit { pattern: pattern.to_string(), regex, behavior, invert })
    }

    pub fn pre_tokenize(&self, s: NormalizedString, out: &mut Vec<NormalizedString>) -> Result<()> {
        split(&s, regex_matches(&s.chars, &self.regex, self.invert)?, self.behavior, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(f: impl Fn(NormalizedString, &mut Vec<NormalizedString>) -> Result<()>, text: &str) -> Vec<(String, (usize, usize))> {
        let mut out = Vec::new();
        f(NormalizedString::new(text, 0).unwrap(), &mut out).unwrap();
        out.iter().map(|p| (p.text().unwrap(), p.original_span(0..p.len()).unwrap_or((0, 0)))).collect()
    }

    fn texts(f: impl Fn(NormalizedString, &mut Vec<NormalizedString>) -> Result<()>, text: &str) -> Vec<String> {
        words(f, text).into_iter().map(|(t, _)| t).collect()
    }

    // Expected values below were measured with tokenizers 0.23.3's
    // pre_tokenize_str on the same text.
    #[test]
    fn bert_and_whitespace() {
        assert_eq!(texts(bert, "Hey friend!  How's\u{3000}it?"), ["Hey", "friend", "!", "How", "'", "s", "it", "?"]);
        assert_eq!(texts(whitespace, "Hey friend!  How's it?"), ["Hey", "friend", "!", "How", "'", "s", "it", "?"]);
        assert_eq!(words(whitespace, "a_b ..,x")[1], ("..,".to_string(), (4, 7)));
        assert_eq!(texts(whitespace_split, "Hey friend!  How's\u{3000}it?"), ["Hey", "friend!", "How's", "it?"]);
    }

    #[test]
    fn digits_and_delimiters() {
        assert_eq!(texts(|s, o| digits(true, s, o), "Call 123 please"), ["Call ", "1", "2", "3", " please"]);
        assert_eq!(texts(|s, o| digits(false, s, o), "Call 123 please"), ["Call ", "123", " please"]);
        assert_eq!(texts(|s, o| char_delimiter('x', s, o), "axbxxc"), ["a", "b", "c"]);
        assert_eq!(texts(|s, o| punctuation(Behavior::Contiguous, s, o), "Hey!? you"), ["Hey", "!?", " you"]);
    }

    #[test]
    fn literal_split() {
        let sp = LiteralSplit::new("ab", Behavior::MergedWithNext, false).unwrap();
        assert_eq!(texts(|s, o| sp.pre_tokenize(s, o), "xabyabab"), ["x", "aby", "ab", "ab"]);
        let dot = LiteralSplit::new(".", Behavior::Removed, true).unwrap();
        assert_eq!(texts(|s, o| dot.pre_tokenize(s, o), "a.b..c"), [".", ".", "."]);
        let empty = LiteralSplit::new("", Behavior::Removed, false).unwrap();
        assert_eq!(texts(|s, o| empty.pre_tokenize(s, o), "abc"), ["a", "b", "c"]);
    }
}
