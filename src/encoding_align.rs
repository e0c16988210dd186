//! An encoding's alignment queries (token ↔ word ↔ char, sequence of a token),
//! as HF tokenizers' `Encoding` answers them (tokenizers 0.23.3, its quirks
//! kept: `token_to_sequence` accepts `token == len` when no sequence is marked).

use crate::encoding::Encoding;
use std::ops::Range;

impl Encoding {
    /// How many input sequences this encoding holds (1 when none is marked).
    pub fn n_sequences(&self) -> usize {
        self.sequence_ranges.len().max(1)
    }

    fn sequence_range(&self, sequence_id: usize) -> Range<usize> {
        self.sequence_ranges.get(&sequence_id).cloned().unwrap_or(0..self.len())
    }

    pub fn token_to_sequence(&self, token: usize) -> Option<usize> {
        if token > self.len() {
            None
        } else if self.sequence_ranges.is_empty() {
            Some(0)
        } else {
            self.sequence_ranges.iter().find_map(|(&id, r)| r.contains(&token).then_some(id))
        }
    }

    pub fn token_to_chars(&self, token: usize) -> Option<(usize, usize)> {
        self.token_to_sequence(token)?;
        self.offsets.get(token).copied()
    }

    pub fn token_to_word(&self, token: usize) -> Option<u32> {
        self.token_to_sequence(token)?;
        self.words.get(token).copied().flatten()
    }

    /// The tokens `[start, end)` of `word` in sequence `sequence_id`; tokens are
    /// scanned while their word is at most `word` (None sorts first), as in HF.
    pub fn word_to_tokens(&self, word: u32, sequence_id: usize) -> Option<(usize, usize)> {
        let range = self.sequence_range(sequence_id);
        let words = self.words.get(range.clone())?;
        let (mut start, mut end) = (None, None);
        for (i, w) in words.iter().enumerate().take_while(|(_, w)| **w <= Some(word)) {
            if *w == Some(word) {
                start = start.or(Some(i));
                end = Some(i + 1);
            }
        }
        Some((range.start + start?, range.start + end?))
    }

    pub fn word_to_chars(&self, word: u32, sequence_id: usize) -> Option<(usize, usize)> {
        let (start, end) = self.word_to_tokens(word, sequence_id)?;
        if end == 0 {
            return None;
        }
        Some((self.offsets[start].0, self.offsets[end - 1].1))
    }

    pub fn char_to_token(&self, pos: usize, sequence_id: usize) -> Option<usize> {
        let range = self.sequence_range(sequence_id);
        let offsets = self.offsets.get(range.clone())?;
        offsets.iter().position(|&(s, e)| pos >= s && pos < e).map(|k| range.start + k)
    }

    pub fn char_to_word(&self, pos: usize, sequence_id: usize) -> Option<u32> {
        self.token_to_word(self.char_to_token(pos, sequence_id)?)
    }
}
