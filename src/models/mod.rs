//! Models of the general pipeline (HF tokenizers' `models`): one word in,
//! tokens with byte spans of that word out. [`Model`] is what a tokenizer.json
//! names; the BERT WordPiece of the fused path lives in `crate::wordpiece`.

pub mod bpe;
pub mod unigram;
pub mod wordlevel;
pub mod wordpiece;

use crate::{Error, Result};
use std::collections::HashMap;

/// One token of a word: id and the bytes `[start, end)` of the word it covers.
pub type ModelToken = (u32, usize, usize);

#[derive(Clone, Debug)]
pub enum Model {
    Bpe(bpe::Bpe),
    WordPiece(wordpiece::WordPiece),
    WordLevel(wordlevel::WordLevel),
    Unigram(unigram::Unigram),
}

impl Model {
    /// Tokens of one non-empty word.
    pub fn tokenize(&self, word: &str, out: &mut Vec<ModelToken>) -> Result<()> {
        match self {
            Model::Bpe(m) => m.tokenize(word, out),
            Model::WordPiece(m) => m.tokenize(word, out),
            Model::WordLevel(m) => m.tokenize(word, out),
            Model::Unigram(m) => m.tokenize(word, out),
        }
    }

    /// The text HF reports for a token of `word` (its `Token.value`): the
    /// vocabulary entry, except Unigram's unknown runs, which keep their text.
    pub fn token_text(&self, word: &str, t: &ModelToken) -> String {
        if let Model::Unigram(m) = self {
            if let Some(s) = m.unknown_text(word, t) {
                return s.to_string();
            }
        }
        self.id_to_token(t.0).unwrap_or_default().to_string()
    }

    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        match self {
            Model::Bpe(m) => m.vocab.get(token).copied(),
            Model::WordPiece(m) => m.vocab.get(token).copied(),
            Model::WordLevel(m) => m.vocab.get(token).copied(),
            Model::Unigram(m) => m.token_to_id(token),
        }
    }

    pub fn id_to_token(&self, id: u32) -> Option<&str> {
        match self {
            Model::Bpe(m) => m.vocab_r.get(&id).map(String::as_str),
            Model::WordPiece(m) => m.vocab_r.get(&id).map(String::as_str),
            Model::WordLevel(m) => m.vocab_r.get(&id).map(String::as_str),
            Model::Unigram(m) => m.id_to_token(id),
        }
    }

    /// HF's `get_vocab_size`: the number of entries of the model's vocabulary.
    pub fn vocab_size(&self) -> usize {
        match self {
            Model::Bpe(m) => m.vocab.len(),
            Model::WordPiece(m) => m.vocab.len(),
            Model::WordLevel(m) => m.vocab.len(),
            Model::Unigram(m) => m.len(),
        }
    }

    pub fn get_vocab(&self) -> HashMap<String, u32> {
        match self {
            Model::Bpe(m) => m.vocab.clone(),
            Model::WordPiece(m) => m.vocab.clone(),
            Model::WordLevel(m) => m.vocab.clone(),
            Model::Unigram(m) => m.get_vocab(),
        }
    }
}

/// id -> token of a token -> id map; two tokens with one id are an error
/// (HF keeps either, by hash order).
pub fn reverse_vocab(vocab: &HashMap<String, u32>) -> Result<HashMap<u32, String>> {
    let mut vocab_r = HashMap::with_capacity(vocab.len());
    for (token, &id) in vocab {
        if let Some(other) = vocab_r.insert(id, token.clone()) {
            let (a, b) = if other < *token { (other, token.clone()) } else { (token.clone(), other) };
            return Err(Error::Config(format!("model.vocab: id {id} is given to both {a:?} and {b:?}")));
        }
    }
    Ok(vocab_r)
}

/// The error HF raises when a word needs the unknown token and it is missing.
pub fn missing_unk(unk: &str) -> Error {
    Error::Tokenize(format!("unk_token {unk:?} is not in the vocabulary"))
}
