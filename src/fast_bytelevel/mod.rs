//! The byte-level BPE fast path: for tokenizer.json files shaped as GPT-2's
//! (no normalizer, the `ByteLevel` pre-tokenizer with its regex, a BPE model
//! whose vocabulary holds all 256 byte chars, no prefix/suffix), the text
//! between added tokens goes straight from `&str` to tokens: a hand-written
//! GPT-2 splitter ([`scan`]) gives byte ranges, merges run on byte ids
//! ([`merge`]), and offsets come from counting chars once, with no
//! `NormalizedString` and no byte-level string. It yields the same
//! [`Encoding`] as the general path, so added tokens, post-processors,
//! truncation and padding stay the general path's.

pub mod merge;
pub mod scan;

use crate::config::TokenizerConfig;
use crate::encoding::Encoding;
use crate::models::Model;
use crate::pre_tokenizers::PreTokenizer;
use merge::{ByteBpe, Piece};
use std::sync::Arc;

/// Cloned with the tokenizer when tokens are added: the tables are shared.
#[derive(Clone)]
pub struct FastByteLevel {
    bpe: Arc<ByteBpe>,
    add_prefix_space: bool,
    /// id -> token text (dense; ids the model lacks are empty).
    tokens: Arc<Vec<String>>,
    /// First bytes of the added tokens: a text holding none of them holds no added token.
    added_first: [bool; 256],
}

impl FastByteLevel {
    /// The fast path for `config`, or None when its shape needs the general path.
    pub fn new(config: &TokenizerConfig) -> Option<FastByteLevel> {
        if config.normalizer.is_some() {
            return None;
        }
        let Some(PreTokenizer::ByteLevel(pre)) = &config.pre_tokenizer else { return None };
        if !pre.use_regex {
            return None;
        }
        let Model::Bpe(model) = &config.model else { return None };
        let bpe = ByteBpe::new(model)?;
        let size = model.vocab_r.keys().max().map_or(0, |&m| m as usize + 1);
        let mut tokens = vec![String::new(); size];
        for (&id, t) in &model.vocab_r {
            tokens[id as usize] = t.clone();
        }
        // Filled by `set_added_tokens` (the pipeline calls it whenever its added tokens change).
        let added_first = [false; 256];
        Some(FastByteLevel { bpe: Arc::new(bpe), add_prefix_space: pre.add_prefix_space, tokens: Arc::new(tokens), added_first })
    }

    /// Notes the first byte of every added token, so that a text holding none
    /// of them skips the added-token split.
    pub fn set_added_tokens<'a>(&mut self, contents: impl Iterator<Item = &'a str>) {
        self.added_first = [false; 256];
        for content in contents {
            // no normalizer on this path: normalized tokens are matched as written
            if let Some(&b) = content.as_bytes().first() {
                self.added_first[b as usize] = true;
            }
        }
    }

    /// False when no added token can occur in `text` (none of their first bytes does).
    pub fn may_hold_added_token(&self, text: &str) -> bool {
        text.bytes().any(|b| self.added_first[b as usize])
    }

    /// Encodes one stretch of text between added tokens, `text` starting at
    /// char `origin` of the input: what the general path does with
    /// pre-tokenizer and model. `word` is the next word index (advanced per
    /// word) unless `fixed_word` overrides it (pre-tokenized input).
    pub fn encode_piece(&self, text: &str, origin: usize, word: &mut u32, fixed_word: Option<u32>, type_id: u32, out: &mut Encoding) {
        if text.is_empty() {
            return;
        }
        // HF's prepend: the added space carries the first char's span.
        let prefixed;
        let (text, prefix) = if self.add_prefix_space && !text.starts_with(' ') {
            prefixed = format!(" {text}");
            (prefixed.as_str(), 1usize)
        } else {
            (text, 0)
        };
        let bytes = text.as_bytes();
        // English runs near 4.5 bytes a token: one allocation per column, mostly
        out.reserve(text.len() / 4 + 1);
        let mut pieces: Vec<Piece> = Vec::new();
        // chars of `text` before the current word
        let mut chars_before = 0usize;
        scan::split_gpt2(text, |start, end| {
            let w = fixed_word.unwrap_or(*word);
            *word += 1;
            pieces.clear();
            self.bpe.tokenize(&bytes[start..end], &mut pieces);
            let mut at = start; // byte where the next token starts
            let mut char_at = chars_before; // chars before `at`
            for &(id, len) in &pieces {
                let end_byte = at + len as usize;
                // a token starting inside a char takes that whole char (as in HF)
                let first = if is_char_start(bytes, at) { char_at } else { char_at.saturating_sub(1) };
                let chars_in = bytes[at..end_byte].iter().filter(|&&b| is_char_start_byte(b)).count();
                char_at += chars_in;
                let last = char_at.saturating_sub(1); // char holding the token's last byte
                // in prefixed text, char k is original char k - 1; the space is char 0's
                let span = (origin + first.saturating_sub(prefix), origin + last.saturating_sub(prefix) + 1);
                let token = self.tokens.get(id as usize).cloned().unwrap_or_default();
                out.push(id, token, span, Some(w), type_id);
                at = end_byte;
            }
            chars_before = char_at;
        });
    }
}

#[inline]
fn is_char_start_byte(b: u8) -> bool {
    (b as i8) >= -0x40
}

#[inline]
fn is_char_start(bytes: &[u8], i: usize) -> bool {
    bytes.get(i).is_some_and(|&b| is_char_start_byte(b))
}

#[cfg(test)]
mod tests;
