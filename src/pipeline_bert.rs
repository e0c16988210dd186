//! The BERT fast path of the general pipeline: a BERT-shaped tokenizer.json
//! (what transformers and HF tokenizers save for BERT) runs on the fused
//! one-pass encoder that `bertpiece.BertTokenizer` uses (`FullTokenizer` in
//! its HF tokenizers mode: src/encoder.rs, src/offsets.rs), for the ids-only
//! entry (`Tokenizer::encode_ids_into`, src/pipeline_ids.rs) and each
//! sequence's `Encoding` (`Tokenizer::encode_text`). The shape is checked once
//! at load ([`for_shape`]); every other file, and every option below that the
//! fused encoder does not reproduce, stays on the general path.

use super::Tokenizer;
use crate::added_tokens::Split;
use crate::config::TokenizerConfig;
use crate::encoding::Encoding;
use crate::encoder::with_thread_scratch;
use crate::models::Model;
use crate::normalizer::Reference;
use crate::normalizers::Normalizer;
use crate::pre_tokenizers::PreTokenizer;
use crate::room::make_room;
use crate::tokenizer::{BasicOptions, FullOptions, FullTokenizer};
use crate::vocab::Vocab;
use crate::Result;

/// The fused encoder for `config`, when its shape is one the encoder
/// reproduces exactly in its HF tokenizers mode:
/// - normalizer `BertNormalizer` with `clean_text` (the encoder always
///   cleans); any `handle_chinese_chars`, `strip_accents`, `lowercase`;
/// - pre-tokenizer `BertPreTokenizer`;
/// - model `WordPiece` with the prefix `##` (the encoder's trie walks it)
///   and its unknown token in the vocabulary; any `max_input_chars_per_word`.
///
/// The post-processor and added tokens are checked per call
/// (`encode_ids_into` declines what it cannot apply on ids).
pub(super) fn for_shape(config: &TokenizerConfig) -> Option<FullTokenizer> {
    let Some(Normalizer::Bert(n)) = &config.normalizer else { return None };
    let (Some(PreTokenizer::Bert), Model::WordPiece(wp)) = (&config.pre_tokenizer, &config.model) else { return None };
    if !n.clean_text || wp.continuing_subword_prefix != "##" || !wp.vocab.contains_key(&wp.unk_token) {
        return None;
    }
    let max = i64::try_from(wp.max_input_chars_per_word).ok()?;
    let basic = BasicOptions {
        do_lower_case: n.lowercase,
        strip_accents: n.strip_accents,
        tokenize_chinese_chars: n.handle_chinese_chars,
        do_split_on_punc: true,
        reference: Reference::Tokenizers,
        never_split: Vec::new(),
    };
    let opts = FullOptions { basic, unk_token: wp.unk_token.clone(), max_input_chars_per_word: Some(max), preserve_unused_tokens: false };
    let vocab = Vocab::from_pairs(wp.vocab.iter().map(|(t, &id)| (t.as_bytes().to_vec(), id)));
    FullTokenizer::new(vocab, opts).ok().filter(FullTokenizer::is_one_pass)
}

impl Tokenizer {
    /// The fused encoder when a sequence's ids take it (`encode_ids_into`, the BERT-shaped padded
    /// batch): a BERT-shaped file no other fast path covers, with no normalized added token (those
    /// are matched on the normalized text: the general path).
    pub(super) fn bert_ids_path(&self) -> Option<&FullTokenizer> {
        match (&self.fast, self.fused_unigram(), &self.bert) {
            (None, None, Some(b)) if self.normalized_matcher.is_empty() => Some(b),
            _ => None,
        }
    }

    /// The sequence's ids (and offsets, in chars of `text`) on the fused
    /// encoder. Added tokens (matched on the raw text: the caller declines
    /// files with normalized ones) are split out as `encode_text` does, the
    /// text between them encoded piece by piece: BertNormalizer and
    /// BertPreTokenizer act char by char, so each piece alone gives what it
    /// gives inside the general path's split.
    ///
    /// `limit`: the caller keeps only the first `limit` ids (right truncation); a text
    /// holding no added token, without offsets, is then encoded a part at a time
    /// ([`FullTokenizer::encode_str_prefix_into`]), until it has given that many. No step of
    /// BertNormalizer, BertPreTokenizer or WordPiece looks across ASCII whitespace (NFD
    /// reorders combining marks only, never across a space), so the parts' ids are the
    /// first ids of the whole text.
    pub(super) fn encode_bert_ids(
        &self,
        bert: &FullTokenizer,
        text: &str,
        limit: Option<usize>,
        ids: &mut Vec<u32>,
        offsets: &mut Option<&mut Vec<[u32; 2]>>,
    ) -> Result<()> {
        with_thread_scratch(|scratch| {
            scratch.enable_cache(); // many calls on the same threads: a warm word memo
            if let (Some(limit), None, false) = (limit, offsets.as_deref(), self.added_first.may_occur_in(text)) {
                return bert.encode_str_prefix_into(text, limit, ids, scratch);
            }
            // `encode_offsets_into` keeps its ids and spans side by side (it rolls both back to one
            // length): its own vectors, appended to the caller's after
            let (mut piece_ids, mut spans) = (Vec::new(), Vec::new());
            let mut piece = |t: &str, origin: usize, ids: &mut Vec<u32>, offsets: &mut Option<&mut Vec<[u32; 2]>>| -> Result<()> {
                match offsets.as_deref_mut() {
                    None => bert.encode_into(t.as_bytes(), ids, scratch),
                    Some(o) => {
                        piece_ids.clear();
                        spans.clear();
                        bert.encode_offsets_into(t.as_bytes(), &mut piece_ids, &mut spans, None, scratch)?;
                        make_room(ids, piece_ids.len(), "token ids")?;
                        make_room(o, spans.len(), "token offsets")?;
                        ids.extend_from_slice(&piece_ids);
                        let at = origin as u32; // the caller keeps texts under i32::MAX bytes
                        o.extend(spans.iter().map(|&(s, e)| [s + at, e + at]));
                        Ok(())
                    }
                }
            };
            if !self.added_first.may_occur_in(text) {
                return piece(text, 0, ids, offsets);
            }
            for split in self.added_splits_unnormalized(text)? {
                match split {
                    Split::Token(p, id) => {
                        ids.push(id);
                        if let Some(o) = offsets.as_deref_mut() {
                            let span = p.original_span(0..p.len()).unwrap_or((p.origin, p.origin));
                            o.push([span.0 as u32, span.1 as u32]);
                        }
                    }
                    Split::Text(p) => piece(&p.text()?, p.origin, ids, offsets)?,
                }
            }
            Ok(())
        })
    }
}

impl Tokenizer {
    /// [`Tokenizer::encode_text`] on the fused encoder (files whose added tokens are all matched on
    /// the raw text; [`Tokenizer::encode_text_pieces`] splits them out): each piece's ids, spans
    /// (chars) and word indices from `encode_offsets_into`, tokens from the vocabulary (ids are
    /// unique in it: the config refuses a repeated id), word indices counted on across pieces as
    /// the general path counts its splits (`word` overrides them: pre-tokenized input).
    pub(super) fn encode_text_bert(&self, bert: &FullTokenizer, text: &str, type_id: u32, word: Option<u32>, out: &mut Encoding) -> Result<()> {
        with_thread_scratch(|scratch| {
            scratch.enable_cache();
            let (mut ids, mut spans, mut words) = (Vec::new(), Vec::new(), Vec::new());
            self.encode_text_pieces(text, type_id, word, out, |t, origin, next_word, out| {
                ids.clear();
                spans.clear();
                words.clear();
                bert.encode_offsets_into(t.as_bytes(), &mut ids, &mut spans, Some(&mut words), scratch)?;
                for ((&id, &(s, e)), &w) in ids.iter().zip(&spans).zip(&words) {
                    // the vocabulary's text of the id: stored as the id
                    out.push(id, None, (s as usize + origin, e as usize + origin), Some(word.unwrap_or(*next_word + w)), type_id);
                }
                if let Some(&last) = words.last() {
                    *next_word += last + 1;
                }
                Ok(())
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::{IdsOnly, Input, Settings, Tokenizer};

    const JSON: &str = r###"{
      "added_tokens": [
        {"id": 0, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
        {"id": 1, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
        {"id": 2, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
      "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
      "pre_tokenizer": {"type": "BertPreTokenizer"},
      "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]},
      "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
                "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "un": 3, "##aff": 4, "##able": 5, "!": 6, "?": 7, "e": 8, "中": 9}}
    }"###;

    #[test]
    fn ids_and_offsets_equal_the_general_path() {
        let fast = Tokenizer::from_json(JSON).unwrap();
        assert_eq!(fast.fast_path(), Some("bert_wordpiece"));
        let general = Tokenizer::from_json(JSON).unwrap().without_fast_paths();
        // ASCII punctuation then a non-ASCII char (the encoder's offsets lane takes the chunk back),
        // an added token in the text, accents, CJK
        for text in ["!?\u{2026}", "UNAFFABLE!? [SEP]é中x", "", "\u{0}", "un[CLS]aff"] {
            for add in [true, false] {
                let want = general.encode(&Input::Raw(text), None, add, &Settings::default()).unwrap();
                let (mut ids, mut offsets) = (vec![7], vec![[9, 9]]); // the rows before this one stay
                let done = fast.encode_ids_into(text, add, None, &mut ids, Some(&mut offsets)).unwrap();
                assert_eq!(done, IdsOnly::Done { truncated: false });
                assert_eq!(ids[1..], want.ids[..], "{text:?}");
                let spans: Vec<[u32; 2]> = want.offsets.iter().map(|&(s, e)| [s as u32, e as u32]).collect();
                assert_eq!(offsets[1..], spans[..], "{text:?}");
            }
        }
    }

    #[test]
    fn encodings_equal_the_general_path() {
        let fast = Tokenizer::from_json(JSON).unwrap();
        let general = Tokenizer::from_json(JSON).unwrap().without_fast_paths();
        let texts = ["!?\u{2026}", "UNAFFABLE!? [SEP]é中x", "", "un[CLS]aff un", "\u{0}e\u{301}"];
        for (a, b) in texts.iter().zip(texts.iter().rev()) {
            let words = Input::PreTokenized(vec![a, b]);
            for (first, pair) in [(Input::Raw(a), None), (Input::Raw(a), Some(Input::Raw(b))), (words, None)] {
                let one = |t: &Tokenizer| t.encode(&first, pair.as_ref(), true, &Settings::default()).unwrap();
                let (x, y) = (one(&fast), one(&general));
                assert_eq!((&x.ids, &x.tokens, &x.offsets, &x.words, &x.type_ids), (&y.ids, &y.tokens, &y.offsets, &y.words, &y.type_ids), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn right_truncation_reads_only_the_start_and_equals_the_general_path() {
        use crate::processors::truncation::{Direction, Strategy, TruncationParams};
        let fast = Tokenizer::from_json(JSON).unwrap();
        let general = Tokenizer::from_json(JSON).unwrap().without_fast_paths();
        let long = format!("{}{}", "unaffable e\u{301} \u{301}!中 ".repeat(40), "x".repeat(300));
        for text in [long.as_str(), "un un", "", "  \t\n  "] {
            for max_length in [0, 1, 2, 3, 5, 64, 100, 1000] {
                let t = TruncationParams { max_length, stride: 0, strategy: Strategy::LongestFirst, direction: Direction::Right };
                let settings = Settings { truncation: Some(t), padding: None };
                let want = general.encode(&Input::Raw(text), None, true, &settings).unwrap();
                let mut ids = Vec::new();
                let done = fast.encode_ids_into(text, true, Some(&t), &mut ids, None).unwrap();
                assert_eq!(done, IdsOnly::Done { truncated: !want.overflowing.is_empty() }, "{max_length}");
                assert_eq!(ids, want.ids, "{max_length}");
            }
        }
    }
}
