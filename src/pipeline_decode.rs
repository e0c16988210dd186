//! A pipeline's vocabulary lookups and `decode`: ids back to text through the
//! file's decoder, as HF's `Tokenizer::decode` (tokenizers 0.23.3). A list of
//! ids can be as large as memory, so the tokens and every decoder stage's
//! output grow fallibly: a `MemoryError`, never an abort.

use super::Tokenizer;
use crate::decoders::Tokens;
use crate::Result;
use std::collections::HashMap;

impl Tokenizer {
    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.added.get(token).copied().or_else(|| self.config.model.token_to_id(token))
    }

    /// The token of `id`; a normalized added token gives its normalized form, as in HF.
    pub fn id_to_token(&self, id: u32) -> Option<String> {
        self.token_text(id).map(str::to_string)
    }

    fn token_text(&self, id: u32) -> Option<&str> {
        match self.added_r.get(&id) {
            Some(t) => Some(self.normalized_forms.get(&id).unwrap_or(&t.content)),
            None => self.config.model.id_to_token(id),
        }
    }

    pub fn get_vocab(&self, with_added_tokens: bool) -> HashMap<String, u32> {
        let mut v = self.config.model.get_vocab();
        if with_added_tokens {
            v.extend(self.added.iter().map(|(k, &id)| (k.clone(), id)));
        }
        v
    }

    /// The text of `ids`: ids with no token are left out (as HF), special
    /// tokens too with `skip_special_tokens`; the decoder's text, or the
    /// tokens joined by spaces when the file has no decoder.
    pub fn decode(&self, ids: &[u32], skip_special_tokens: bool) -> Result<String> {
        let joined = self.config.decoder.is_none();
        let mut tokens = Tokens::default();
        for &id in ids {
            let Some(t) = self.token_text(id) else { continue };
            if skip_special_tokens && self.special.contains(t) {
                continue;
            }
            if joined && !tokens.is_empty() {
                tokens.push_char(' ')?;
            }
            tokens.push(t)?;
        }
        match &self.config.decoder {
            Some(d) => d.decode(&tokens),
            None => Ok(tokens.into_text()),
        }
    }
}
