//! Pre-tokenizers of the general pipeline (HF tokenizers' `pre_tokenizers`).
//! A missing pre-tokenizer keeps each piece whole.

pub mod byte_level;
pub mod char_class;
pub mod metaspace;
pub mod onig_subset;
pub mod regex_split;
pub mod split;
pub mod unicode_scripts;
#[rustfmt::skip]
mod unicode_scripts_table;

use crate::normalized_string::NormalizedString;
use crate::Result;
pub use byte_level::ByteLevel;
pub use char_class::LiteralSplit;
pub use metaspace::Metaspace;
pub use regex_split::RegexSplit;
pub use split::Behavior;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreTokenizer {
    ByteLevel(ByteLevel),
    Bert,
    Whitespace,
    WhitespaceSplit,
    Punctuation(Behavior),
    Digits { individual_digits: bool },
    CharDelimiterSplit(char),
    /// `Split` with a `{"String": ...}` pattern.
    LiteralSplit(LiteralSplit),
    /// `Split` with a `{"Regex": ...}` pattern (a subset of Oniguruma's syntax).
    RegexSplit(RegexSplit),
    /// Each pre-tokenizer in turn on every piece the previous one left.
    Sequence(Vec<PreTokenizer>),
    Metaspace(Metaspace),
    UnicodeScripts,
}

impl PreTokenizer {
    /// Splits `s` into words appended to `out` (empty words are dropped, as
    /// HF drops them after every pre-tokenizer).
    pub fn pre_tokenize(&self, s: NormalizedString, out: &mut Vec<NormalizedString>) -> Result<()> {
        match self {
            PreTokenizer::ByteLevel(b) => b.pre_tokenize(s, out),
            PreTokenizer::Bert => char_class::bert(s, out),
            PreTokenizer::Whitespace => char_class::whitespace(s, out),
            PreTokenizer::WhitespaceSplit => char_class::whitespace_split(s, out),
            PreTokenizer::Punctuation(b) => char_class::punctuation(*b, s, out),
            PreTokenizer::Digits { individual_digits } => char_class::digits(*individual_digits, s, out),
            PreTokenizer::CharDelimiterSplit(c) => char_class::char_delimiter(*c, s, out),
            PreTokenizer::LiteralSplit(l) => l.pre_tokenize(s, out),
            PreTokenizer::RegexSplit(r) => r.pre_tokenize(s, out),
            PreTokenizer::Sequence(items) => {
                let mut pieces = vec![s];
                let mut next = Vec::new();
                for item in items {
                    for piece in pieces.drain(..) {
                        item.pre_tokenize(piece, &mut next)?;
                    }
                    next.retain(|p| !p.is_empty());
                    std::mem::swap(&mut pieces, &mut next);
                }
                crate::room::make_room(out, pieces.len(), "pre-tokenized text")?;
                out.append(&mut pieces);
                Ok(())
            }
            PreTokenizer::Metaspace(m) => m.pre_tokenize(s, out),
            PreTokenizer::UnicodeScripts => unicode_scripts::pre_tokenize(s, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_applies_each_in_turn() {
        // Measured: pre_tokenizers.Sequence([WhitespaceSplit(), Digits(True)])
        // .pre_tokenize_str("ab12 c3") on tokenizers 0.23.3.
        let seq = PreTokenizer::Sequence(vec![PreTokenizer::WhitespaceSplit, PreTokenizer::Digits { individual_digits: true }]);
        let mut out = Vec::new();
        seq.pre_tokenize(NormalizedString::new("ab12 c3", 0).unwrap(), &mut out).unwrap();
        let got: Vec<(String, (usize, usize))> =
            out.iter().map(|p| (p.text().unwrap(), p.original_span(0..p.len()).unwrap_or((0, 0)))).collect();
        let want = [("ab", (0, 2)), ("1", (2, 3)), ("2", (3, 4)), ("c", (5, 6)), ("3", (6, 7))];
        assert_eq!(got, want.map(|(t, o)| (t.to_string(), o)));
    }
}
