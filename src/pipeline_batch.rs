//! The bulk path of the general pipeline: many texts to ids (and offsets)
//! laid out back to back with row splits, ready to become NumPy arrays, on
//! the shared thread pool. Each row goes through `Tokenizer::encode_ids_into`
//! (ids and offsets straight into the job's vectors, no `Encoding`) where the
//! file's shape has that path, else through `Tokenizer::encode`, keeping only
//! its ids and offsets. Rows are handed out in blocks, the blocks as one
//! contiguous run per thread (`run_runs_with_state`): a thread's word cache
//! then learns its run's words, not those of blocks from all over the batch
//! (two threads taking blocks in turn spent their extra CPU time in the
//! Viterbi of words the other had seen); each thread appends the blocks it
//! takes in order to one buffer (run_output.rs).

use crate::pipeline::{Input, Settings, Tokenizer};
use crate::processors::truncation::TruncationParams;
use crate::room::make_room;
use crate::run_output::{concat, in_block_order, output_room, run_rows, RunBuffer};
use crate::threads::run_runs_with_state;
use crate::{Error, Result};

/// Rows one job encodes: enough to amortize the hand-off, few enough to balance.
pub const ROWS_PER_JOB: usize = 256;

/// The concatenated rows of a batch.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct FlatBatch {
    pub ids: Vec<u32>,
    /// `rows + 1` entries; row `i` is `ids[row_splits[i]..row_splits[i + 1]]`.
    pub row_splits: Vec<u64>,
    /// `(start, end)` in chars of the row's text per id, when asked; special tokens `(0, 0)`.
    pub offsets: Vec<[u32; 2]>,
    /// How many rows truncation cut (their `overflowing` was not empty).
    pub truncated: u64,
}

#[derive(Default)]
struct Part {
    ids: Vec<u32>,
    lens: Vec<u64>,
    offsets: Vec<[u32; 2]>,
    truncated: u64,
}

/// An offset as the int32 the arrays hold (a text of 2^31 chars or more cannot be reported).
fn offset(v: usize) -> Result<u32> {
    u32::try_from(v)
        .ok()
        .filter(|&v| v <= i32::MAX as u32)
        .ok_or_else(|| Error::Tokenize(format!("offset {v} does not fit the int32 offsets array")))
}

/// Appends the rows of `texts` to `part`: runs of texts on the ids-only
/// path's plan (made once for them all), each text it declines through `encode`.
fn encode_part(tok: &Tokenizer, texts: &[&str], add_special_tokens: bool, settings: &Settings, offsets: bool, part: &mut Part) -> Result<()> {
    make_room(&mut part.ids, guess(texts), "token ids")?;
    let plan = tok.ids_plan(add_special_tokens, settings.truncation, offsets);
    let mut k = 0;
    loop {
        if let Some(plan) = &plan {
            let (lens, truncated) = (&mut part.lens, &mut part.truncated);
            k += tok.encode_ids_run(plan, &texts[k..], &mut part.ids, offsets.then_some(&mut part.offsets), |n, cut| {
                lens.push(n as u64);
                *truncated += cut as u64;
            })?;
        }
        let Some(text) = texts.get(k) else { return Ok(()) };
        k += 1;
        // HF's encode with the truncation given; what it cuts off (overflowing) is dropped.
        let e = tok.encode(&Input::Raw(text), None, add_special_tokens, settings)?;
        make_room(&mut part.ids, e.ids.len(), "token ids")?;
        part.ids.extend_from_slice(&e.ids);
        part.lens.push(e.ids.len() as u64);
        part.truncated += !e.overflowing.is_empty() as u64;
        if offsets {
            make_room(&mut part.offsets, e.offsets.len(), "token offsets")?;
            for &(s, end) in &e.offsets {
                part.offsets.push([offset(s)?, offset(end)?]);
            }
        }
    }
}

/// A first guess of the ids of `texts`: English runs near 4.5 bytes a token.
fn guess(texts: &[&str]) -> usize {
    texts.iter().map(|t| t.len()).sum::<usize>() / 4 + texts.len()
}

/// Encodes `texts` as `Tokenizer::encode` does each (single sequences, no
/// padding), with `truncation` (`None`: none), on at most `threads` threads.
pub fn encode_flat(
    tok: &Tokenizer,
    texts: &[&str],
    add_special_tokens: bool,
    truncation: Option<TruncationParams>,
    offsets: bool,
    threads: usize,
) -> Result<FlatBatch> {
    let settings = Settings { truncation, padding: None };
    // One thread: one job, whose vectors are the batch's (no join, no copy).
    let rows_per_job = if threads <= 1 { texts.len().max(1) } else { ROWS_PER_JOB };
    let jobs = texts.len().div_ceil(rows_per_job);
    // Each worker's blocks taken in order go into one buffer; the buffer
    // holding block 0 becomes the output, with room up front for the whole
    // batch's ids, each other run's buffer for its own rows (run_output.rs).
    let (runs, alone) = run_runs_with_state(threads, jobs, |_| RunBuffer::new(Part::default()), |run, k| {
        let rows = &texts[k * rows_per_job..((k + 1) * rows_per_job).min(texts.len())];
        let place = run.take(k);
        let mut lone = Part::default();
        let part = if place.is_some() { &mut run.part } else { &mut lone };
        if place == Some(true) {
            let room = guess(&texts[run_rows(k, rows_per_job, jobs, threads, texts.len())]);
            output_room(&mut part.ids, room, "token ids")?;
            output_room(&mut part.offsets, if offsets { room } else { 0 }, "token offsets")?;
            make_room(&mut part.lens, if k == 0 { texts.len() } else { 0 }, "row lengths")?;
        }
        encode_part(tok, rows, add_special_tokens, &settings, offsets, part)?;
        Ok(place.is_none().then_some(lone))
    })?;
    let alone = alone.into_iter().collect::<Result<Vec<_>>>()?;
    let mut parts = in_block_order(runs, alone)?;
    let mut out = FlatBatch::default();
    make_room(&mut out.row_splits, texts.len() + 1, "row splits")?;
    out.row_splits.push(0);
    let mut end = 0;
    for p in &parts {
        out.truncated += p.truncated;
        for &n in &p.lens {
            end += n;
            out.row_splits.push(end);
        }
    }
    out.ids = concat(&mut parts, threads, |p| &mut p.ids, "token ids")?;
    out.offsets = concat(&mut parts, threads, |p| &mut p.offsets, "token offsets")?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::processors::truncation::{Direction, Strategy};

    const JSON: &str = r#"{
      "added_tokens": [{"id": 3, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false,
                        "normalized": false, "special": true}],
      "pre_tokenizer": {"type": "Whitespace"},
      "model": {"type": "WordLevel", "vocab": {"a": 0, "b": 1, "[UNK]": 2}, "unk_token": "[UNK]"}
    }"#;

    #[test]
    fn rows_match_encode_on_any_thread_count_and_block_size() {
        let tok = Tokenizer::from_json(JSON).unwrap();
        let pieces = ["a b", "", "b<s>a c", "a a a a"];
        let texts: Vec<&str> = (0..1000).map(|k| pieces[k % 4]).collect();
        let trunc = TruncationParams { max_length: 2, stride: 0, strategy: Strategy::LongestFirst, direction: Direction::Left };
        for truncation in [None, Some(trunc)] {
            let settings = Settings { truncation, padding: None };
            let one = encode_flat(&tok, &texts, true, truncation, true, 1).unwrap();
            assert_eq!(one, encode_flat(&tok, &texts, true, truncation, true, 2).unwrap());
            assert_eq!(one.row_splits.len(), texts.len() + 1);
            for (k, text) in texts.iter().enumerate() {
                let e = tok.encode(&Input::Raw(text), None, true, &settings).unwrap();
                let (a, b) = (one.row_splits[k] as usize, one.row_splits[k + 1] as usize);
                assert_eq!(one.ids[a..b], e.ids);
                let spans: Vec<[u32; 2]> = e.offsets.iter().map(|&(s, t)| [s as u32, t as u32]).collect();
                assert_eq!(one.offsets[a..b], spans);
            }
            assert_eq!(one.truncated, if truncation.is_some() { 500 } else { 0 }); // "b<s>a c" and "a a a a"
        }
        let no_offsets = encode_flat(&tok, &texts, true, None, false, 2).unwrap();
        assert!(no_offsets.offsets.is_empty());
        // jobs whose parts are all empty: the joined buffers are empty too
        let empty = encode_flat(&tok, &[""; 600], false, None, true, 2).unwrap();
        assert!(empty.ids.is_empty() && empty.offsets.is_empty());
        assert_eq!(empty.row_splits, vec![0; 601]);
        assert_eq!(encode_flat(&tok, &[], true, None, true, 2).unwrap().row_splits, [0]);
    }

    /// A small Metaspace + Unigram file (the fused path) with an added token, `<m>`.
    const UNIGRAM: &str = r#"{"added_tokens": [{"id": 7, "content": "<m>", "single_word": false, "lstrip": true, "rstrip": false,
                                               "normalized": false, "special": true}],
        "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true},
        "model": {"type": "Unigram", "unk_id": 0, "byte_fallback": false,
                  "vocab": [["<unk>", 0.0], ["▁", -2.0], ["a", -1.0], ["b", -1.0], ["▁a", -1.5], ["ab", -1.0], ["▁ab", -2.5]]}}"#;

    /// Runs of texts on the ids-only plan (made once per block, the byte-level
    /// word cache borrowed once per run; a text the plan declines, here a
    /// Unigram text that may hold `<m>`, through `encode` between two runs)
    /// give row by row what the general path gives each text.
    #[test]
    fn runs_on_the_plan_match_the_general_path() {
        use crate::fast_bytelevel::tests as bl;
        let pre = r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}"#;
        let byte_level = ["ab a", "x<s>ab c y's", "", "é ab  a", "'s ab c", " Ã©ab"];
        let unigram = ["ab a  b", " <m>ab xé", "", "▁a▁", "<m>", "xx ab"];
        let files = [(bl::json(pre, bl::ADDED), &byte_level), (bl::json(pre, bl::ADDED_PUNCTUATION), &byte_level), (UNIGRAM.to_string(), &unigram)];
        let cut = TruncationParams { max_length: 3, stride: 0, strategy: Strategy::LongestFirst, direction: Direction::Left };
        for (json, pieces) in files {
            let fast = Tokenizer::from_json(&json).unwrap();
            assert!(fast.fast_path().is_some());
            let general = Tokenizer::from_json(&json).unwrap().without_fast_paths();
            let texts: Vec<&str> = (0..700).map(|k| pieces[k % pieces.len()]).collect();
            for (truncation, add) in [(None, false), (None, true), (Some(cut), true)] {
                let settings = Settings { truncation, padding: None };
                let rows: Vec<_> = texts.iter().map(|t| general.encode(&Input::Raw(t), None, add, &settings).unwrap()).collect();
                for threads in [1, 2] {
                    let flat = encode_flat(&fast, &texts, add, truncation, true, threads).unwrap();
                    for (k, e) in rows.iter().enumerate() {
                        let (a, b) = (flat.row_splits[k] as usize, flat.row_splits[k + 1] as usize);
                        let spans: Vec<[u32; 2]> = e.offsets.iter().map(|&(s, t)| [s as u32, t as u32]).collect();
                        assert_eq!((&flat.ids[a..b], &flat.offsets[a..b]), (&e.ids[..], &spans[..]), "{:?}", texts[k]);
                    }
                    assert_eq!(flat.truncated, rows.iter().filter(|e| !e.overflowing.is_empty()).count() as u64);
                    assert_eq!(flat.ids, encode_flat(&fast, &texts, add, truncation, false, threads).unwrap().ids);
                }
            }
        }
    }
}
