//! The general pipeline, composed from a tokenizer.json as HF tokenizers
//! composes it: added tokens split out (raw text, then normalized text) ->
//! normalizer -> pre-tokenizer -> model -> post-processor; decoding through
//! the decoder. Offsets are tracked through every stage and reported in chars
//! of the original text, as HF's Python API reports them.

use crate::added_tokens::{split_pieces, AddedToken, FirstBytes, Matcher, Split};
use crate::config::{self, TokenizerConfig};
pub use crate::config::Settings;
use crate::encoding::{Encoding, TokenVocab};
use crate::models::unigram::{MetaspaceUnigram, Sink};
use crate::models::Model;
use crate::normalized_string::NormalizedString;
use crate::processors::padding::pad_encodings;
use crate::processors::truncation::truncate_encodings;
use crate::room::{ensure_text_room, make_room, try_push};
use crate::Result;
use std::collections::{HashMap, HashSet};

#[path = "pipeline_added.rs"]
mod added;
#[path = "pipeline_bert.rs"]
mod bert;
#[path = "pipeline_bert_batch.rs"]
mod bert_batch;
#[path = "pipeline_decode.rs"]
mod decode;
#[path = "pipeline_ids.rs"]
mod ids;
#[path = "pipeline_words.rs"]
mod words;
pub use ids::{IdsOnly, IdsPlan};

#[derive(Clone)]
pub struct Tokenizer {
    pub config: TokenizerConfig,
    /// content -> id and id -> token, as HF's AddedVocabulary assigns them.
    added: HashMap<String, u32>,
    added_r: HashMap<u32, AddedToken>,
    special: HashSet<String>,
    /// Normalized added tokens whose normalized form differs: id -> that form
    /// (HF's `normalized_cache`, which `id_to_token` and decoding return).
    normalized_forms: HashMap<u32, String>,
    raw_matcher: Matcher,
    normalized_matcher: Matcher,
    /// First bytes of every added token's content, for the fast paths' "no added token here" check.
    added_first: FirstBytes,
    /// Metaspace + Unigram files: words cut and tokenized in one pass.
    fused_unigram: Option<MetaspaceUnigram>,
    /// The byte-level BPE fast path, when the file's shape allows it.
    fast: Option<crate::fast_bytelevel::FastByteLevel>,
    /// BERT-shaped files: the fused one-pass encoder (src/pipeline_bert.rs).
    bert: Option<std::sync::Arc<crate::tokenizer::FullTokenizer>>,
    /// Plain words (no normalizer, Whitespace/WhitespaceSplit, WordLevel/BPE): src/pipeline_words.rs.
    words: Option<words::PlainWords>,
    /// HF's `encode_special_tokens`: special added tokens are not split out of
    /// the text (it is a run-time flag: not in the file, as in HF).
    pub encode_special_tokens: bool,
}

/// One input sequence: raw text, or words already split by the caller.
pub enum Input<'a> {
    Raw(&'a str),
    PreTokenized(Vec<&'a str>),
}

impl Tokenizer {
    pub fn from_json(text: &str) -> Result<Tokenizer> {
        Ok(Tokenizer::new(config::parse(text)?))
    }

    pub fn new(config: TokenizerConfig) -> Tokenizer {
        // HF's deserialization: one `add_tokens` of the file's tokens in file
        // order; their stored ids are not used.
        let tokens: Vec<AddedToken> = config.added_tokens.iter().map(|(_, t)| t.clone()).collect();
        let fused_unigram = MetaspaceUnigram::for_shape(config.pre_tokenizer.as_ref(), &config.model);
        let mut t = Tokenizer {
            fused_unigram,
            fast: crate::fast_bytelevel::FastByteLevel::new(&config),
            bert: bert::for_shape(&config).map(std::sync::Arc::new),
            words: words::for_shape(&config),
            raw_matcher: Matcher::default(),
            normalized_matcher: Matcher::default(),
            added_first: FirstBytes::default(),
            config,
            added: HashMap::new(),
            added_r: HashMap::new(),
            special: HashSet::new(),
            normalized_forms: HashMap::new(),
            encode_special_tokens: false,
        };
        t.add_tokens(&tokens);
        t
    }

    /// HF's `extract_and_normalize` then pre-tokenization: the splits of one text.
    fn splits(&self, text: &str) -> Result<Vec<Split>> {
        const WHAT: &str = "pre-tokenized text";
        let whole = NormalizedString::new(text, 0)?;
        let mut first = Vec::new();
        if self.added_first.may_occur_in(text) {
            split_pieces(&whole, &self.raw_matcher, &self.added_r, self.encode_special_tokens, &mut first, |piece, out| {
                try_push(out, Split::Text(piece), WHAT)
            })?;
        } else if !whole.is_empty() {
            // no added token's first byte in the text: what the matcher would give (the whole
            // text as one piece, equal to `whole.slice(0..len)`), without its walk or a copy
            first.push(Split::Text(whole));
        }
        let mut out = Vec::with_capacity(first.len());
        for split in first {
            let Split::Text(mut piece) = split else {
                try_push(&mut out, split, WHAT)?;
                continue;
            };
            if let Some(n) = &self.config.normalizer {
                n.normalize(&mut piece)?;
            }
            let pre_tokenize = |p: NormalizedString, out: &mut Vec<Split>| match &self.config.pre_tokenizer {
                // The fused path cuts the words itself (encode_text).
                Some(_) if self.fused_unigram.is_some() => try_push(out, Split::Text(p), WHAT),
                Some(pt) => {
                    let mut words = Vec::new();
                    pt.pre_tokenize(p, &mut words)?;
                    make_room(out, words.len(), WHAT)?;
                    out.extend(words.into_iter().filter(|w| !w.is_empty()).map(Split::Text));
                    Ok(())
                }
                None => try_push(out, Split::Text(p), WHAT),
            };
            if !self.normalized_matcher.is_empty() {
                split_pieces(&piece, &self.normalized_matcher, &self.added_r, self.encode_special_tokens, &mut out, pre_tokenize)?;
            } else if !piece.is_empty() {
                // no normalized added token: the matcher's one piece, `piece.slice(0..len)`, without the copy
                piece.origin = piece.original_span(0..piece.len()).map_or(piece.origin, |s| s.0);
                pre_tokenize(piece, &mut out)?;
            }
        }
        Ok(out)
    }

    /// Tokens of one text; `word` overrides the word index (pre-tokenized input).
    fn encode_text(&self, text: &str, type_id: u32, word: Option<u32>, out: &mut Encoding) -> Result<()> {
        if let Some(fast) = &self.fast {
            return self.encode_text_fast(fast, text, type_id, word, out);
        }
        if let (Some(bert), true) = (&self.bert, self.normalized_matcher.is_empty()) {
            return self.encode_text_bert(bert, text, type_id, word, out);
        }
        if let Some(plain) = &self.words {
            let model = &self.config.model;
            return self.encode_text_pieces(text, type_id, word, out, |piece, origin, next_word, out| {
                plain.encode_piece(model, piece, origin, next_word, word, type_id, out)
            });
        }
        let mut next_word = 0u32;
        // Metaspace + Unigram, a whole text with no added token that the normalizer keeps: cut from its bytes
        if let (Some(u), None, true) = (self.fused_unigram(), word, self.normalized_matcher.is_empty()) {
            if !self.added_first.may_occur_in(text) && u.encode_plain(text, &mut Sink { out: &mut *out, type_id, word, next_word: &mut next_word })? {
                return Ok(());
            }
        }
        let (mut model_tokens, mut char_of, mut word_text) = (Vec::new(), Vec::new(), String::new());
        for split in self.splits(text)? {
            let w = Some(word.unwrap_or(next_word));
            match (split, &self.fused_unigram, &self.config.model) {
                (Split::Text(piece), Some(fused), Model::Unigram(model)) => {
                    let mut sink = Sink { out: &mut *out, type_id, word, next_word: &mut next_word };
                    fused.encode_piece(model, piece, &mut sink)?;
                    continue;
                }
                (split, ..) => match split {
                Split::Token(piece, id) => {
                    let span = piece.original_span(0..piece.len()).unwrap_or((piece.origin, piece.origin));
                    out.ensure(1)?;
                    out.push(id, self.own(id, &piece.text()?), span, w, type_id);
                }
                Split::Text(piece) => {
                    // the word's text, its tokens (one a byte at most) and a char index a byte, made
                    // fallibly: a text with no space is one word
                    const WHAT: &str = "the word being tokenized";
                    let bytes = piece.chars.iter().map(|c| c.len_utf8()).sum();
                    word_text.clear();
                    ensure_text_room(&mut word_text, bytes, WHAT)?;
                    word_text.extend(piece.chars.iter());
                    model_tokens.clear();
                    make_room(&mut model_tokens, bytes, WHAT)?;
                    self.config.model.tokenize(&word_text, &mut model_tokens)?;
                    out.ensure(model_tokens.len())?;
                    // byte offset in the word -> char index
                    char_of.clear();
                    make_room(&mut char_of, bytes, WHAT)?;
                    for (ci, c) in word_text.chars().enumerate() {
                        char_of.extend(std::iter::repeat_n(ci, c.len_utf8()));
                    }
                    for &(id, bs, be) in &model_tokens {
                        let r = char_of.get(bs).copied().unwrap_or(piece.len())..char_of.get(be.wrapping_sub(1)).map_or(piece.len(), |c| c + 1);
                        let span = piece.original_span(r).unwrap_or((piece.origin, piece.origin));
                        let token = self.config.model.token_text(&word_text, &(id, bs, be));
                        out.push(id, self.own(id, &token), span, w, type_id);
                    }
                }
                },
            }
            next_word += 1;
        }
        Ok(())
    }

    /// [`Tokenizer::encode_text`] through the byte-level fast path (see [`Tokenizer::encode_text_pieces`]).
    fn encode_text_fast(&self, fast: &crate::fast_bytelevel::FastByteLevel, text: &str, type_id: u32, word: Option<u32>, out: &mut Encoding) -> Result<()> {
        self.encode_text_pieces(text, type_id, word, out, |piece, origin, next_word, out| {
            fast.encode_piece(piece, origin, next_word, word, type_id, out)
        })
    }

    /// [`Tokenizer::encode_text`] for the fast paths (files whose added tokens are all matched on
    /// the raw text): added tokens split out as in [`Tokenizer::splits`] (skipped when no added
    /// token can start in `text`), each pushed with its span and a word of its own; the text
    /// between them to `piece(text, origin, next_word, out)`, which counts its words on.
    pub(super) fn encode_text_pieces(
        &self,
        text: &str,
        type_id: u32,
        word: Option<u32>,
        out: &mut Encoding,
        mut piece: impl FnMut(&str, usize, &mut u32, &mut Encoding) -> Result<()>,
    ) -> Result<()> {
        let mut next_word = 0u32;
        if !self.added_first.may_occur_in(text) {
            return piece(text, 0, &mut next_word, out);
        }
        for split in self.added_splits_unnormalized(text)? {
            match split {
                Split::Token(p, id) => {
                    let span = p.original_span(0..p.len()).unwrap_or((p.origin, p.origin));
                    out.ensure(1)?;
                    out.push(id, self.own(id, &p.text()?), span, Some(word.unwrap_or(next_word)), type_id);
                    next_word += 1;
                }
                Split::Text(p) => piece(&p.text()?, p.origin, &mut next_word, out)?,
            }
        }
        Ok(())
    }

    /// The added-token splits of `text` for a file without normalizer (the
    /// fast paths): the raw matcher, then the normalized matcher on the raw
    /// pieces, as [`Tokenizer::splits`] does with no normalizer and no pre-tokenizer.
    fn added_splits_unnormalized(&self, text: &str) -> Result<Vec<Split>> {
        const WHAT: &str = "added-token splits";
        let text_piece = |p, out: &mut Vec<Split>| try_push(out, Split::Text(p), WHAT);
        let mut first = Vec::new();
        split_pieces(&NormalizedString::new(text, 0)?, &self.raw_matcher, &self.added_r, self.encode_special_tokens, &mut first, text_piece)?;
        let mut out = Vec::with_capacity(first.len());
        for split in first {
            match split {
                Split::Text(piece) => split_pieces(&piece, &self.normalized_matcher, &self.added_r, self.encode_special_tokens, &mut out, text_piece)?,
                token => try_push(&mut out, token, WHAT)?,
            }
        }
        Ok(out)
    }

    /// One sequence's encoding; `room`: columns reserved for this many more tokens
    /// (the post-processor's specials, laid out in place after).
    fn encode_sequence(&self, input: &Input, type_id: u32, room: usize) -> Result<Encoding> {
        let mut e = Encoding::default();
        match input {
            Input::Raw(text) => {
                // One allocation per column for most texts: short English sentences run near 3 bytes
                // a token, long texts near 4.5 (their rare growth costs less than the room unused).
                e.reserve(text.len() / if text.len() <= 4096 { 2 } else { 4 } + 1 + room)?;
                self.encode_text(text, type_id, None, &mut e)?
            }
            Input::PreTokenized(words) => {
                for (i, w) in words.iter().enumerate() {
                    self.encode_text(w, type_id, Some(i as u32), &mut e)?;
                }
            }
        }
        Ok(e)
    }

    /// HF's `encode` then `post_process`: truncation (its `max_length` less
    /// the specials the post-processor adds), the post-processor, padding.
    pub fn encode(&self, input: &Input, pair: Option<&Input>, add_special_tokens: bool, settings: &Settings) -> Result<Encoding> {
        let room = if add_special_tokens { self.num_special_tokens_to_add(pair.is_some()) } else { 0 };
        let mut first = self.encode_sequence(input, 0, room)?;
        let mut second = pair.map(|p| self.encode_sequence(p, 1, 0)).transpose()?;
        if let Some(t) = &settings.truncation {
            let added = self.num_special_tokens_to_add(second.is_some());
            let mut t = *t;
            if add_special_tokens && added > 0 {
                // HF subtracts with wrap-around: a max_length below the specials' count
                // becomes a huge one, i.e. no truncation at all (measured on 0.23.3).
                t.max_length = t.max_length.wrapping_sub(added);
            }
            truncate_encodings(&mut first, second.as_mut(), &t)?;
        }
        let mut out = match (&self.config.post_processor, second) {
            (Some(p), second) => p.process(first, second, add_special_tokens, self)?,
            (None, None) => first,
            (None, Some(mut second)) => {
                first.set_sequence_id(0);
                second.set_sequence_id(1);
                Encoding::merge(vec![first, second])?
            }
        };
        if let Some(p) = &settings.padding {
            pad_encodings(std::slice::from_mut(&mut out), p)?;
        }
        Ok(out)
    }

    /// `text` as an encoding stores it for `id` ([`TokenVocab::own`]).
    fn own(&self, id: u32, text: &str) -> crate::encoding::TokenText {
        TokenVocab::own(self, id, text)
    }

    /// The same tokenizer on the general path only (tests compare the two).
    pub fn without_fast_paths(mut self) -> Tokenizer {
        self.fused_unigram = None;
        self.fast = None;
        self.bert = None;
        self.words = None;
        self
    }

    /// The fused Metaspace + Unigram path's ids-only entry, for this file's shape.
    pub fn fused_unigram(&self) -> Option<crate::models::unigram::FusedUnigram<'_>> {
        let (Some(shape), Model::Unigram(model)) = (&self.fused_unigram, &self.config.model) else { return None };
        Some(crate::models::unigram::FusedUnigram { shape, model, normalizer: self.config.normalizer.as_ref() })
    }

    /// The name of the fast path this file's shape runs on, if any.
    pub fn fast_path(&self) -> Option<&'static str> {
        match (&self.fast, &self.fused_unigram, &self.bert, &self.words) {
            (Some(_), ..) => Some("byte_level_bpe"),
            (None, Some(_), ..) => Some("metaspace_unigram"),
            (None, None, Some(_), _) => Some("bert_wordpiece"),
            (None, None, None, Some(_)) => Some("plain_words"),
            (None, None, None, None) => None,
        }
    }

    /// Special tokens as HF's `post_processor.added_tokens`.
    pub fn num_special_tokens_to_add(&self, is_pair: bool) -> usize {
        self.config.post_processor.as_ref().map_or(0, |p| p.added_tokens(is_pair))
    }
}

/// An encoding's tokens stored as ids are the model's texts (byte-level files count their spaces from a table).
impl TokenVocab for Tokenizer {
    fn text(&self, id: u32) -> Option<&str> {
        self.config.model.id_to_token(id)
    }

    fn spaces_table(&self) -> Option<&[(u32, u32)]> {
        self.fast.as_ref().map(|f| f.spaces_table())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON: &str = r#"{
      "added_tokens": [{"id": 5, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false,
                        "normalized": false, "special": true}],
      "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true},
      "post_processor": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true},
      "decoder": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true},
      "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "Ġ": 3, "Ġab": 4}, "merges": ["a b", "Ġ ab"]}
    }"#;

    #[test]
    fn encodes_with_added_tokens_and_trimmed_offsets() {
        let t = Tokenizer::from_json(JSON).unwrap();
        let e = t.encode(&Input::Raw("ab<s> ab"), None, true, &Settings::default()).unwrap();
        assert_eq!(e.token_strings(&t), vec!["ab", "<s>", "Ġab"]);
        assert_eq!(e.ids, vec![2, 5, 4]);
        assert_eq!(e.offsets, vec![(0, 2), (2, 5), (6, 8)]);
        assert_eq!(e.words, vec![Some(0), Some(1), Some(2)]);
        assert_eq!(t.decode(&e.ids, true).unwrap(), "ab ab");
    }
}
