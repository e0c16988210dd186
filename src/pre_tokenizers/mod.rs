//! Pre-tokenizers of the general pipeline (HF tokenizers' `pre_tokenizers`).
//! This slice has ByteLevel; a missing pre-tokenizer keeps each piece whole.

pub mod byte_level;
pub mod metaspace;

use crate::normalized_string::NormalizedString;
pub use byte_level::ByteLevel;
pub use metaspace::Metaspace;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreTokenizer {
    ByteLevel(ByteLevel),
    Metaspace(Metaspace),
}

impl PreTokenizer {
    pub fn pre_tokenize(&self, s: NormalizedString, out: &mut Vec<NormalizedString>) {
        match self {
            PreTokenizer::ByteLevel(b) => b.pre_tokenize(s, out),
            PreTokenizer::Metaspace(m) => m.pre_tokenize(s, out),
        }
    }
}
