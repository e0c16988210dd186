//! HF tokenizers' WordPiece model: greedy longest-match-first from the left,
//! pieces after the first looked up with `continuing_subword_prefix`; a word
//! longer than `max_input_chars_per_word` chars, or with a part no piece
//! matches, is one unk token over the whole word.
//!
//! The fused BERT path's matcher (`crate::wordpiece`) hard-wires "##" and
//! BERT's reference quirks, so the general model keeps HF's plain loop.

use super::{missing_unk, reverse_vocab, ModelToken};
use crate::Result;
use std::collections::HashMap;

#[derive(Clone, Debug)]
pub struct WordPiece {
    pub vocab: HashMap<String, u32>,
    pub vocab_r: HashMap<u32, String>,
    pub unk_token: String,
    pub continuing_subword_prefix: String,
    pub max_input_chars_per_word: usize,
    /// Bytes of the longest vocabulary entry: no longer probe can match, so
    /// a long word costs O(length × longest), not O(length²).
    longest: usize,
}

impl WordPiece {
    pub fn new(vocab: HashMap<String, u32>, unk_token: String, prefix: String, max_chars: usize) -> Result<Self> {
        let vocab_r = reverse_vocab(&vocab)?;
        let longest = vocab.keys().map(String::len).max().unwrap_or(0);
        Ok(WordPiece { vocab, vocab_r, unk_token, continuing_subword_prefix: prefix, max_input_chars_per_word: max_chars, longest })
    }

    fn unk(&self, word: &str, out: &mut Vec<ModelToken>) -> Result<()> {
        let id = *self.vocab.get(&self.unk_token).ok_or_else(|| missing_unk(&self.unk_token))?;
        out.push((id, 0, word.len()));
        Ok(())
    }

    pub fn tokenize(&self, word: &str, out: &mut Vec<ModelToken>) -> Result<()> {
        if word.chars().count() > self.max_input_chars_per_word {
            return self.unk(word, out);
        }
        let from = out.len();
        let mut probe = String::with_capacity(self.continuing_subword_prefix.len() + word.len());
        let mut start = 0;
        while start < word.len() {
            // Shrink [start, end) one char at a time until it is a piece.
            let mut found = None;
            // HF starts at the word's end; probes longer than any entry are skipped (same result).
            let affix = if start > 0 { self.continuing_subword_prefix.len() } else { 0 };
            let mut end = word.len().min(start + self.longest.saturating_sub(affix));
            while !word.is_char_boundary(end) {
                end -= 1;
            }
            while end > start {
                let part = word.get(start..end).unwrap_or_default();
                probe.clear();
                if start > 0 {
                    probe.push_str(&self.continuing_subword_prefix);
                }
                probe.push_str(part);
                if let Some(&id) = self.vocab.get(&probe) {
                    found = Some((id, end));
                    break;
                }
                end -= part.chars().next_back().map_or(1, char::len_utf8);
            }
            let Some((id, end)) = found else {
                out.truncate(from);
                return self.unk(word, out);
            };
            out.push((id, start, end));
            start = end;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(max: usize) -> WordPiece {
        let vocab = ["[UNK]", "un", "##aff", "##able", "a", "##é"].iter().enumerate().map(|(i, t)| (t.to_string(), i as u32));
        WordPiece::new(vocab.collect(), "[UNK]".into(), "##".into(), max).unwrap()
    }

    #[test]
    fn longest_match_first_and_unk_for_the_whole_word() {
        let mut out = Vec::new();
        model(100).tokenize("unaffable", &mut out).unwrap();
        assert_eq!(out, vec![(1, 0, 2), (2, 2, 5), (3, 5, 9)]);
        out.clear();
        model(100).tokenize("aé", &mut out).unwrap();
        assert_eq!(out, vec![(4, 0, 1), (5, 1, 3)]);
        out.clear();
        model(100).tokenize("unaffablex", &mut out).unwrap();
        assert_eq!(out, vec![(0, 0, 10)]);
        out.clear();
        model(3).tokenize("unaf", &mut out).unwrap();
        assert_eq!(out, vec![(0, 0, 4)]);
    }

    #[test]
    fn long_words_stay_linear() {
        let mut out = Vec::new();
        let word = "a".repeat(200_000);
        model(usize::MAX).tokenize(&word, &mut out).unwrap();
        assert_eq!(out, vec![(0, 0, word.len())]); // "##a" is not a piece
        out.clear();
        model(usize::MAX).tokenize(&"é".repeat(3), &mut out).unwrap();
        assert_eq!(out, vec![(0, 0, 6)]);
    }
}
