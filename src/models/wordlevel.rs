//! HF tokenizers' WordLevel model: the whole word is a token, or the unk token.

use super::{missing_unk, reverse_vocab, ModelToken};
use crate::Result;
use std::collections::HashMap;

#[derive(Clone, Debug)]
pub struct WordLevel {
    pub vocab: HashMap<String, u32>,
    pub vocab_r: HashMap<u32, String>,
    pub unk_token: String,
}

impl WordLevel {
    pub fn new(vocab: HashMap<String, u32>, unk_token: String) -> Result<Self> {
        let vocab_r = reverse_vocab(&vocab)?;
        Ok(WordLevel { vocab, vocab_r, unk_token })
    }

    pub fn tokenize(&self, word: &str, out: &mut Vec<ModelToken>) -> Result<()> {
        let id = match self.vocab.get(word) {
            Some(&id) => id,
            None => *self.vocab.get(&self.unk_token).ok_or_else(|| missing_unk(&self.unk_token))?,
        };
        out.push((id, 0, word.len()));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_or_unk() {
        let vocab = [("a b".to_string(), 0), ("<unk>".to_string(), 1)].into_iter().collect();
        let m = WordLevel::new(vocab, "<unk>".into()).unwrap();
        let mut out = Vec::new();
        m.tokenize("a b", &mut out).unwrap();
        m.tokenize("zz", &mut out).unwrap();
        assert_eq!(out, vec![(0, 0, 3), (1, 0, 2)]);
        let m = WordLevel::new(HashMap::new(), "<unk>".into()).unwrap();
        assert!(m.tokenize("zz", &mut out).unwrap_err().to_string().contains("<unk>"));
    }
}
