//! A batch of single texts encoded by the general pipeline and padded into
//! one int64 block, for `bertpiece.AutoTokenizer`'s serving calls
//! (src/python/pipeline_serving.rs): the rows are [`encode_flat`]'s (the ids
//! `Tokenizer::encode` gives with the truncation), the block is
//! [`Batch::pad_stacked`]'s (BERT's serving block: ids, token type ids,
//! attention mask). BERT-shaped files' rows take BertTokenizer's batch path
//! where they are its rows (src/pipeline_bert_batch.rs).

use crate::batch::{encode_batch, Batch, BatchOptions};
use crate::padding::Padding;
use crate::pipeline::Tokenizer;
use crate::pipeline_batch::{encode_flat, ROWS_PER_JOB};
use crate::processors::truncation::TruncationParams;
use crate::Result;

/// A padded batch: `block` holds `3 x rows x width` cells.
#[derive(Debug, PartialEq, Eq)]
pub struct PaddedBlock {
    pub width: usize,
    pub block: Vec<i64>,
    /// The longest and the shortest row before padding (0 for no rows): where
    /// transformers leaves rows ragged, the caller sees it from these.
    pub longest: usize,
    pub shortest: usize,
}

/// `texts` encoded one row each and padded as `padding` says (to its `to` or
/// the longest row, at least the longest row, rounded up to its `multiple_of`),
/// on up to `threads` threads (`None`: the usable CPUs, looked up only where
/// the batch can use more than one: the lookup is a system call).
pub fn encode_padded(
    tok: &Tokenizer,
    texts: &[&str],
    add_special_tokens: bool,
    truncation: Option<TruncationParams>,
    padding: &Padding,
    threads: Option<usize>,
) -> Result<PaddedBlock> {
    let all = || crate::threads::thread_count(threads);
    if let Some(b) = tok.bert_batch(add_special_tokens, truncation.as_ref()) {
        // BERT-shaped rows on BertTokenizer's batch path (src/pipeline_bert_batch.rs), on as many
        // threads as `encode_flat` gives jobs (one per `ROWS_PER_JOB` rows); a row holding an
        // added token's text: the whole batch the general way, below
        let bytes: Vec<&[u8]> = texts.iter().map(|t| t.as_bytes()).collect();
        let jobs = if texts.len() <= ROWS_PER_JOB { 1 } else { all()?.min(texts.len().div_ceil(ROWS_PER_JOB)) };
        let opts = BatchOptions { valid_text: true, ..b.opts }; // (each row a str)
        let batch = encode_batch(b.bert, &bytes, opts, &b.needles, Some(jobs))?;
        if batch.flagged.is_empty() {
            // (the scatter into the block on one thread below 16k ids, as BertTokenizer's padded call)
            let pad_threads = if batch.ids.len() < 1 << 14 { 1 } else { all()? };
            return padded(Batch { ids: batch.ids, row_splits: batch.row_splits, ..Default::default() }, padding, pad_threads);
        }
    }
    let threads = all()?;
    let flat = encode_flat(tok, texts, add_special_tokens, truncation, false, threads)?;
    padded(Batch { ids: flat.ids, row_splits: flat.row_splits, ..Default::default() }, padding, threads)
}

/// `batch`'s rows (ids only) padded into the block.
fn padded(batch: Batch, padding: &Padding, threads: usize) -> Result<PaddedBlock> {
    let lengths = batch.row_splits.windows(2).map(|w| (w[1] - w[0]) as usize);
    let (longest, shortest) = (lengths.clone().max().unwrap_or(0), lengths.min().unwrap_or(0));
    let (width, block) = batch.pad_stacked(padding, threads)?;
    Ok(PaddedBlock { width, block, longest, shortest })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{Input, Settings};
    use crate::processors::truncation::{Direction, Strategy};

    const JSON: &str = r#"{
      "pre_tokenizer": {"type": "Whitespace"},
      "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0]},
      "model": {"type": "WordLevel", "vocab": {"<s>": 0, "<pad>": 1, "</s>": 2, "a": 3, "b": 4, "[UNK]": 5}, "unk_token": "[UNK]"}
    }"#;

    #[test]
    fn each_row_of_the_block_is_encode_padded() {
        let tok = Tokenizer::from_json(JSON).unwrap();
        let texts = ["a b a", "", "b c"];
        let cut = TruncationParams { max_length: 4, stride: 0, strategy: Strategy::LongestFirst, direction: Direction::Left };
        for (truncation, left, threads) in [(None, false, 1), (None, true, 2), (Some(cut), false, 2), (Some(cut), true, 1)] {
            let p = Padding { to: None, multiple_of: Some(4), pad_id: 1, pad_type_id: 7, left };
            let out = encode_padded(&tok, &texts, true, truncation, &p, Some(threads)).unwrap();
            let settings = Settings { truncation, padding: None };
            let rows: Vec<Vec<u32>> = texts.iter().map(|t| tok.encode(&Input::Raw(t), None, true, &settings).unwrap().ids).collect();
            let longest = rows.iter().map(Vec::len).max().unwrap();
            assert_eq!((out.longest, out.shortest), (longest, 2)); // ("": <s> </s>)
            assert_eq!(out.width, longest.div_ceil(4) * 4);
            let (width, cells) = (out.width, texts.len() * out.width);
            assert_eq!(out.block.len(), 3 * cells);
            for (r, ids) in rows.iter().enumerate() {
                let pad = width - ids.len();
                let at = r * width + if left { pad } else { 0 };
                let row: Vec<u32> = out.block[at..at + ids.len()].iter().map(|&v| v as u32).collect();
                assert_eq!(&row, ids);
                let (types, mask) = (&out.block[cells + r * width..][..width], &out.block[2 * cells + r * width..][..width]);
                assert_eq!(mask.iter().sum::<i64>() as usize, ids.len());
                assert_eq!(types.iter().filter(|&&t| t == 7).count(), pad);
                assert_eq!(out.block[r * width..][..width].iter().filter(|&&v| v == 1).count(), pad);
            }
        }
        let none = encode_padded(&tok, &[], true, None, &Padding { to: Some(3), multiple_of: None, pad_id: 1, pad_type_id: 0, left: false }, None).unwrap();
        assert_eq!((none.width, none.block.len(), none.longest, none.shortest), (3, 0, 0, 0));
    }
}
