//! BERT-shaped files' padded batch on `bertpiece.BertTokenizer`'s own batch path: where a file's
//! rows would take the fused encoder (`encode_ids_into`'s BERT path, src/pipeline_ids.rs) and its
//! post-processor puts one special token before the sequence and one after, each row is what
//! [`crate::batch::encode_batch`] gives with `[CLS]`/`[SEP]` and the right cut to `max_length`
//! (both encode with the same `FullTokenizer`), so a batch takes that path: the per-row set-up
//! (post-processor plan, limits, thread scratch) is done once per batch instead of once per row.
//! Rows holding an added token's text are flagged by that path; the caller then encodes the batch
//! the general way (src/pipeline_padded.rs).

use super::ids::PostPlan;
use super::Tokenizer;
use crate::batch::BatchOptions;
use crate::processors::truncation::{Direction, Strategy, TruncationParams};
use crate::tokenizer::FullTokenizer;

/// What a BERT-shaped batch needs: the fused encoder, the row options, the added tokens' texts.
pub struct BertBatch<'a> {
    pub bert: &'a FullTokenizer,
    pub opts: BatchOptions,
    pub needles: Vec<&'a [u8]>,
}

impl Tokenizer {
    /// The [`BertBatch`] under which each row of `encode_flat(texts, add_special_tokens, truncation)`
    /// is `encode_batch`'s row (rows holding an added token's text flagged), or None where the
    /// file, its post-processor or the truncation is not of that kind.
    pub fn bert_batch(&self, add_special_tokens: bool, truncation: Option<&TruncationParams>) -> Option<BertBatch<'_>> {
        let bert = self.bert_ids_path()?;
        let plan = PostPlan::new(self.config.post_processor.as_ref())?;
        let special = if add_special_tokens {
            let (mut before, mut after) = (Vec::new(), Vec::new());
            plan.push_specials(true, &mut before, &mut None).ok()?;
            plan.push_specials(false, &mut after, &mut None).ok()?;
            match (before.as_slice(), after.as_slice()) {
                ([], []) => None,
                (&[cls], &[sep]) if self.num_special_tokens_to_add(false) == 2 => Some((cls, sep)),
                _ => return None, // (other templates: the row loop)
            }
        } else {
            None
        };
        let max_length = match truncation {
            None => None,
            Some(t) => {
                let added = if special.is_some() { 2 } else { 0 };
                // the sequence keeps `max_length - added` ids (`max_ids`); a smaller max_length wraps
                // around there, a stride at least that long is `encode`'s error: the row loop
                let max = t.max_length.checked_sub(added)?;
                if t.direction != Direction::Right || t.strategy == Strategy::OnlySecond || (max > 0 && t.stride >= max) {
                    return None;
                }
                Some(t.max_length)
            }
        };
        let needles = self.added.keys().map(|k| k.as_bytes()).collect();
        Some(BertBatch { bert, opts: BatchOptions { special, max_length, ..Default::default() }, needles })
    }
}

#[cfg(test)]
mod tests {
    use crate::padding::Padding;
    use crate::pipeline::{Input, Settings, Tokenizer};
    use crate::pipeline_padded::encode_padded;
    use crate::processors::truncation::{Direction, Strategy, TruncationParams};

    fn json(post_processor: &str) -> String {
        format!(
            r###"{{
      "added_tokens": [
        {{"id": 0, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}},
        {{"id": 1, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}},
        {{"id": 2, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}}],
      "normalizer": {{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true}},
      "pre_tokenizer": {{"type": "BertPreTokenizer"}},
      "post_processor": {post_processor},
      "model": {{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
                "vocab": {{"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "un": 3, "##aff": 4, "##able": 5, "!": 6, "?": 7, "e": 8, "中": 9}}}}
    }}"###
        )
    }

    const BERT: &str = r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#;
    const TEMPLATE: &str = r#"{"type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [2], "tokens": ["[SEP]"]}}}"#;
    const TWO_BEFORE: &str = r#"{"type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}}}"#;

    fn cut(max_length: usize, stride: usize, strategy: Strategy, direction: Direction) -> Option<TruncationParams> {
        Some(TruncationParams { max_length, stride, strategy, direction })
    }

    #[test]
    fn taken_where_the_rows_are_encode_batchs_and_equal_to_encode() {
        use Direction::{Left, Right};
        use Strategy::{LongestFirst, OnlyFirst, OnlySecond};
        let long = "unaffable e\u{301} \u{301}!中 ".repeat(30);
        let texts = ["UNAFFABLE!? é中x", "", "un un", long.as_str(), "\u{0}e\u{301}", "un[CLS]aff", "  \t\n  "];
        let truncations = [None, cut(5, 0, LongestFirst, Right), cut(2, 0, OnlyFirst, Right), cut(1, 0, LongestFirst, Right),
            cut(9, 3, LongestFirst, Right), cut(9, 7, LongestFirst, Right), cut(5, 0, OnlySecond, Right), cut(5, 0, LongestFirst, Left)];
        for (post, taken_with_specials) in [(BERT, true), (TEMPLATE, true), (TWO_BEFORE, false), ("null", true)] {
            let tok = Tokenizer::from_json(&json(post)).unwrap();
            for t in truncations {
                for add in [true, false] {
                    let taken = tok.bert_batch(add, t.as_ref()).is_some();
                    // (a post-processor adding none: the specials are none, and so is their room)
                    let specials = add && post != "null";
                    let refused = t.is_some_and(|t| {
                        let max = t.max_length.wrapping_sub(if specials && taken_with_specials { 2 } else { 0 });
                        t.direction == Left || t.strategy == OnlySecond || (max > 0 && t.stride >= max) || (specials && t.max_length < 2)
                    });
                    assert_eq!(taken, (taken_with_specials || !add) && !refused, "{post} {t:?} {add}");
                    let settings = Settings { truncation: t, padding: None };
                    let p = Padding { to: None, multiple_of: None, pad_id: 0, pad_type_id: 0, left: false };
                    // the first five hold no added token's text (the route's rows); all seven: flagged, the row loop
                    for texts in [&texts[..5], &texts[..]] {
                        let rows: Result<Vec<Vec<u32>>, _> =
                            texts.iter().map(|x| tok.encode(&Input::Raw(x), None, add, &settings).map(|e| e.ids)).collect();
                        let Ok(rows) = rows else {
                            assert!(encode_padded(&tok, texts, add, t, &p, Some(1)).is_err());
                            continue;
                        };
                        let out = encode_padded(&tok, texts, add, t, &p, Some(1)).unwrap();
                        assert_eq!(out.longest, rows.iter().map(Vec::len).max().unwrap());
                        for (r, ids) in rows.iter().enumerate() {
                            let row: Vec<u32> = out.block[r * out.width..][..ids.len()].iter().map(|&v| v as u32).collect();
                            assert_eq!(&row, ids, "{post} {t:?} {add} {r}");
                            let mask = &out.block[2 * texts.len() * out.width + r * out.width..][..out.width];
                            assert_eq!(mask.iter().sum::<i64>(), ids.len() as i64);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_block_is_the_same_on_any_thread_count_and_across_the_jobs_rows() {
        // `encode_padded` looks the CPUs up only for batches that can use them (None), and splits
        // batches of more than ROWS_PER_JOB rows into jobs: every count gives one-thread's block,
        // long rows cut at max_length (the right-truncation parts) included.
        let tok = Tokenizer::from_json(&json(BERT)).unwrap();
        let long = "unaffable e\u{301} un ".repeat(40);
        let texts: Vec<String> = (0..600).map(|i| if i % 7 == 0 { long.clone() } else { "un aff ".repeat(i % 13) + "!" }).collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let p = Padding { to: None, multiple_of: Some(8), pad_id: 0, pad_type_id: 0, left: false };
        for n in [1, 255, 256, 257, 600] {
            for t in [None, cut(16, 0, Strategy::LongestFirst, Direction::Right)] {
                let one = encode_padded(&tok, &texts[..n], true, t, &p, Some(1)).unwrap();
                for threads in [None, Some(2)] {
                    assert_eq!(encode_padded(&tok, &texts[..n], true, t, &p, threads).unwrap(), one, "{n} {t:?} {threads:?}");
                }
                let settings = Settings { truncation: t, padding: None };
                let want = tok.encode(&Input::Raw(texts[0]), None, true, &settings).unwrap().ids;
                let row: Vec<u32> = one.block[..want.len()].iter().map(|&v| v as u32).collect();
                assert_eq!(row, want, "{n} {t:?}");
            }
        }
    }
}
