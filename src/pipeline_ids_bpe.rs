//! The ids-only path for BPE files that no fast path takes (CLIP's: a
//! normalizer, a Split before ByteLevel, `</w>`): the general path's splits
//! (normalizer, added tokens, pre-tokenizer) and model, as `encode_text`
//! runs them, without the `Encoding`: no token string per token (a
//! vocabulary lookup and a `String` each, a sixth of the call), word index,
//! type id or offsets (a call asking for offsets takes `encode`).

use super::super::Tokenizer;
use crate::added_tokens::Split;
use crate::models::bpe::Bpe;
use crate::models::{Model, ModelToken};
use crate::room::{ensure_text_room, make_room, try_push};
use crate::Result;

const WHAT: &str = "the word being tokenized";

impl Tokenizer {
    /// The BPE model when this file's texts take [`Tokenizer::general_bpe_ids`]: no fast path
    /// of `encode_text`'s (they come before the general path there) and no offsets asked.
    pub(super) fn general_bpe_ids_path(&self, offsets: bool) -> Option<&Bpe> {
        match (&self.fast, self.fused_unigram(), &self.bert, &self.words, &self.config.model) {
            (None, None, None, None, Model::Bpe(m)) if !offsets => Some(m),
            _ => None,
        }
    }

    /// The sequence's ids of `text`, appended to `ids`: what `encode_text`'s general path pushes.
    pub(super) fn general_bpe_ids(&self, model: &Bpe, text: &str, ids: &mut Vec<u32>) -> Result<()> {
        let (mut word, mut tokens) = (String::new(), Vec::<ModelToken>::new());
        for split in self.splits(text)? {
            match split {
                Split::Token(_, id) => try_push(ids, id, WHAT)?,
                Split::Text(piece) => {
                    word.clear();
                    ensure_text_room(&mut word, piece.chars.iter().map(|c| c.len_utf8()).sum(), WHAT)?;
                    word.extend(piece.chars.iter());
                    tokens.clear();
                    make_room(&mut tokens, word.len(), WHAT)?;
                    model.tokenize(&word, &mut tokens)?;
                    make_room(ids, tokens.len(), WHAT)?;
                    ids.extend(tokens.iter().map(|t| t.0));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::{IdsOnly, Input, Settings, Tokenizer};
    use crate::processors::truncation::{Direction, Strategy, TruncationParams};

    /// CLIP's shape in small: Lowercase, a Split that keeps its matches, ByteLevel, `</w>`, added tokens
    /// matched before and after normalizing, RobertaProcessing.
    fn clip_like() -> String {
        let chars = crate::pre_tokenizers::byte_level::alphabet();
        let mut vocab: Vec<String> = chars.iter().map(|c| c.to_string()).collect();
        vocab.extend(chars.iter().map(|c| format!("{c}</w>")));
        vocab.extend(["ab", "ab</w>", "c</w>", "abc</w>", "<s>", "</s>", "<x>", "AB"].map(String::from));
        let vocab: Vec<String> = vocab.iter().enumerate().map(|(i, t)| format!("{t:?}: {i}")).collect();
        let n = vocab.len();
        format!(
            r#"{{"added_tokens": [
              {{"id": {s}, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}},
              {{"id": {e}, "content": "</s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}},
              {{"id": {x}, "content": "<x>", "single_word": false, "lstrip": true, "rstrip": false, "normalized": true, "special": false}}],
            "normalizer": {{"type": "Lowercase"}},
            "pre_tokenizer": {{"type": "Sequence", "pretokenizers": [
              {{"type": "Split", "pattern": {{"Regex": "[\\p{{L}}]+|[\\p{{N}}]|[^\\s\\p{{L}}\\p{{N}}]+"}}, "behavior": "Removed", "invert": true}},
              {{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}}]}},
            "post_processor": {{"type": "RobertaProcessing", "sep": ["</s>", {e}], "cls": ["<s>", {s}], "trim_offsets": false, "add_prefix_space": false}},
            "model": {{"type": "BPE", "vocab": {{{}}}, "merges": ["a b", "ab c</w>", "a b</w>"], "end_of_word_suffix": "</w>"}}}}"#,
            vocab.join(", "),
            s = n - 4,
            e = n - 3,
            x = n - 2,
        )
    }

    #[test]
    fn general_bpe_ids_are_encodes() {
        let tok = Tokenizer::from_json(&clip_like()).unwrap();
        assert_eq!(tok.fast_path(), None);
        let mut truncations = vec![None];
        for (max_length, direction) in [(0, Direction::Left), (1, Direction::Right), (3, Direction::Left), (4, Direction::Right)] {
            truncations.push(Some(TruncationParams { max_length, stride: 0, strategy: Strategy::LongestFirst, direction }));
        }
        for s in ["ab abc", "ABC  aBc<s>ab c", "é", "", "   ", "日本 ab\u{301}c<x> <X>", "x</s>1234!!", "AB ab"] {
            for truncation in &truncations {
                for add in [false, true] {
                    let settings = Settings { truncation: *truncation, padding: None };
                    let want = tok.encode(&Input::Raw(s), None, add, &settings).unwrap();
                    let mut ids = vec![7]; // appended after what is there
                    let done = tok.encode_ids_into(s, add, truncation.as_ref(), &mut ids, None).unwrap();
                    assert_eq!(done, IdsOnly::Done { truncated: !want.overflowing.is_empty() }, "{s:?}");
                    assert_eq!(&ids[1..], &want.ids[..], "{s:?} {truncation:?} add={add}");
                }
            }
        }
        // offsets asked: `encode`'s
        assert_eq!(tok.encode_ids_into("ab", true, None, &mut Vec::new(), Some(&mut Vec::new())).unwrap(), IdsOnly::Declined);
    }
}
