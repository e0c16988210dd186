//! Batch encoding on all cores: many texts (or pairs of texts) to ids (and
//! offsets, or token type ids) in parallel, with the ids of each row laid out
//! back to back (`row_splits` says where each row starts), ready to become
//! NumPy arrays without a Python object per token.

use crate::aligned::Span;
use crate::encoder::with_thread_scratch;
use crate::tokenizer::FullTokenizer;
use crate::room::make_room;
use crate::{Error, Result};
use crate::run_output::{concat, in_block_order, output_room, run_rows, RunBuffer};
use crate::threads::{run_runs_with_state, thread_count};
pub(crate) use crate::batch_needles::Needles;
use crate::batch_pairs::encode_pair;
use crate::batch_rows::{close_row, content_limit, open_row};
pub use crate::batch_rows::{BatchOptions, PairTruncation};

/// The concatenated rows.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Batch {
    pub ids: Vec<u32>,
    /// `rows + 1` entries; row `i` is `ids[row_splits[i]..row_splits[i + 1]]`.
    pub row_splits: Vec<u64>,
    /// `(start, end)` in code points per id, when asked.
    pub offsets: Vec<Span>,
    /// The rows whose text holds one of the needles (added tokens, which the
    /// caller encodes another way), in order.
    pub flagged: Vec<u64>,
    /// Pairs: the token type id (0 or 1) of each id (`None` for single texts).
    pub type_ids: Option<Vec<u8>>,
    /// Pairs: some row cannot be cut to `max_length` by its strategy (the
    /// caller's general path says what then happens).
    pub too_short: bool,
}

/// With offsets (`offsets.rs`, which makes each row's room): each row's ids
/// and spans appended to `out`'s, its length to `lens`, and its index (from
/// `first`) to `flagged` if it holds a needle.
pub(crate) fn encode_rows_offsets(tok: &FullTokenizer, texts: &[&[u8]], opts: &BatchOptions, needles: &Needles, first: usize, out: &mut Part) -> Result<()> {
    with_thread_scratch(|scratch| {
        scratch.enable_cache();
        for (k, text) in texts.iter().enumerate() {
            if needles.found_in(text) {
                out.flagged.push((first + k) as u64);
            }
            // (the row's [CLS] fallibly too: the buffer holds the rows before it)
            make_room(&mut out.ids, 1, "token ids")?;
            make_room(&mut out.offsets, 1, "token offsets")?;
            let start = open_row(opts, &mut out.ids, |id| id);
            open_row(opts, &mut out.offsets, |_| (0, 0));
            tok.encode_offsets_into(text, &mut out.ids, &mut out.offsets, None, scratch)?;
            close_row(opts, &mut out.ids, start, |id| id);
            close_row(opts, &mut out.offsets, start, |_| (0, 0));
            out.lens.push((out.ids.len() - start) as u64);
        }
        Ok(())
    })
}

/// Ids only: each row's ids appended to `ids`, its length to `lens`, and
/// its index (from `first`) to `flagged` if it holds a needle. Through the
/// one-pass encoder, with the thread's scratch space (and word memo); the
/// needle search reads each text just before the encoder does, so the text
/// is read from memory once. With `seconds`, row `k` is the pair
/// `(texts[k], seconds[k])`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn encode_rows(
    tok: &FullTokenizer,
    texts: &[&[u8]],
    seconds: Option<&[&[u8]]>,
    opts: &BatchOptions,
    needles: &Needles,
    memo: bool,
    first: usize,
    out: &mut Part,
) -> Result<()> {
    with_thread_scratch(|scratch| {
        if memo {
            scratch.enable_cache();
        }
        make_room(&mut out.ids, guess(texts, seconds), "token ids")?;
        for (k, text) in texts.iter().enumerate() {
            // The next row's text requested while this one is encoded: the search below is
            // otherwise the first touch of each text's bytes, and waits for them.
            if let Some(next) = texts.get(k + 1) {
                prefetch_text(next);
            }
            let second = seconds.and_then(|s| s.get(k));
            if needles.found_in(text) || second.is_some_and(|b| needles.found_in(b)) {
                out.flagged.push((first + k) as u64);
            }
            let start = out.ids.len();
            match second {
                None => {
                    make_room(&mut out.ids, 1, "token ids")?;
                    open_row(opts, &mut out.ids, |id| id);
                    // Right truncation: only the text's first ids are kept, so only they are made.
                    match content_limit(opts) {
                        Some(limit) if opts.valid_text => tok.encode_valid_prefix_into(text, limit, &mut out.ids, scratch)?,
                        Some(limit) => tok.encode_prefix_into(text, limit, &mut out.ids, scratch)?,
                        None => tok.encode_into(text, &mut out.ids, scratch)?,
                    }
                    close_row(opts, &mut out.ids, start, |id| id);
                }
                Some(b) => {
                    let first_len = encode_pair(tok, text, b, opts, scratch, &mut out.ids, &mut out.too_short)?;
                    let types = &mut out.types;
                    make_room(types, out.ids.len() - start, "token type ids")?;
                    types.extend(std::iter::repeat_n(0, first_len));
                    types.extend(std::iter::repeat_n(1, out.ids.len() - start - first_len));
                }
            }
            out.lens.push((out.ids.len() - start) as u64);
        }
        Ok(())
    })
}

/// Bytes of a row's text that [`encode_rows`] asks the cache for ahead of it
/// (a row cut at 128 ids reads about 640).
const PREFETCH_TEXT: usize = 512;

/// Starts loading the cache lines of `text`'s first [`PREFETCH_TEXT`] bytes: a hint.
#[inline(always)]
fn prefetch_text(text: &[u8]) {
    let text = &text[..text.len().min(PREFETCH_TEXT)];
    for line in text.chunks(64) {
        crate::prefetch::prefetch(&line[0]);
    }
    if let Some(last) = text.last() {
        crate::prefetch::prefetch(last); // (the text starts anywhere in its first line)
    }
}

/// What one block of rows gives.
#[derive(Default)]
pub(crate) struct Part {
    ids: Vec<u32>,
    offsets: Vec<Span>,
    lens: Vec<u64>,
    flagged: Vec<u64>,
    types: Vec<u8>,
    too_short: bool,
}

impl Part {
    /// Room for `ids` ids (and as many offsets, when asked) in buffers that
    /// become the call's output, and for `rows` row lengths.
    pub(crate) fn make_output_room(&mut self, ids: usize, offsets: bool, rows: usize) -> Result<()> {
        output_room(&mut self.ids, ids, "token ids")?;
        output_room(&mut self.offsets, if offsets { ids } else { 0 }, "token offsets")?;
        make_room(&mut self.lens, rows, "row lengths")
    }
}

/// Encodes `texts` (generalized UTF-8) on `num_threads` threads (`None`: all
/// cores), noting the rows that hold one of `needles`.
pub fn encode_batch(tok: &FullTokenizer, texts: &[&[u8]], opts: BatchOptions, needles: &[&[u8]], num_threads: Option<usize>) -> Result<Batch> {
    encode(tok, texts, None, opts, needles, num_threads)
}

/// Encodes the pairs `(firsts[k], seconds[k])` (ids and token type ids; no
/// offsets), as [`encode_batch`] does texts. The two lists must be equally long.
pub fn encode_pairs(
    tok: &FullTokenizer,
    firsts: &[&[u8]],
    seconds: &[&[u8]],
    opts: BatchOptions,
    needles: &[&[u8]],
    num_threads: Option<usize>,
) -> Result<Batch> {
    if firsts.len() != seconds.len() {
        return Err(Error::PairCount { texts: firsts.len(), pairs: seconds.len() });
    }
    encode(tok, firsts, Some(seconds), BatchOptions { offsets: false, ..opts }, needles, num_threads)
}

/// Input bytes per thread below which a batch does not spread further:
/// waking a pool thread and handing it rows costs about what encoding a few
/// kB does, so a short batch (one sentence, a few dozen) stays on the
/// calling thread. Each row counts as `ROW_COST` bytes more (its setup).
const PAR_MIN_BYTES: usize = 16 << 10;
const ROW_COST: usize = 64;

/// The threads a batch of `bytes` input bytes and `rows` rows uses out of `threads`.
pub(crate) fn workers_for(threads: usize, bytes: usize, rows: usize) -> usize {
    threads.min(bytes.saturating_add(rows.saturating_mul(ROW_COST)) / PAR_MIN_BYTES).max(1)
}

fn encode(
    tok: &FullTokenizer,
    texts: &[&[u8]],
    seconds: Option<&[&[u8]]>,
    opts: BatchOptions,
    needles: &[&[u8]],
    num_threads: Option<usize>,
) -> Result<Batch> {
    let bytes = texts.iter().chain(seconds.unwrap_or_default()).map(|t| t.len()).sum::<usize>();
    // A batch too small to share runs here whatever the thread count (whose
    // lookup, a system call, is a share of a serving call); 0 is still an error.
    let threads = if num_threads != Some(0) && workers_for(usize::MAX, bytes, texts.len()) == 1 {
        1
    } else {
        thread_count(num_threads)?
    };
    let needles = Needles::new(needles);
    let plan = Plan::new(workers_for(threads, bytes, texts.len()), texts.len());
    // Contiguous blocks, several per thread for balance, dealt as one run of
    // neighbours per thread (`run_runs_with_state`: each memo learns its rows'
    // words), each worker's blocks taken in order into one buffer (run_output.rs).
    let rows = Slices { texts, seconds };
    let (runs, alone) = run_runs_with_state(plan.workers, plan.blocks, |_| RunBuffer::new(Part::default()), |run, k| {
        block_job(tok, &rows, &opts, &needles, &plan, run, k)
    })?;
    finish(runs, alone, &plan, seconds.is_some())
}

/// How a batch of `rows` rows is cut into blocks for `workers` threads.
pub(crate) struct Plan {
    pub(crate) workers: usize,
    pub(crate) block: usize,
    pub(crate) blocks: usize,
    pub(crate) rows: usize,
}

impl Plan {
    pub(crate) fn new(workers: usize, rows: usize) -> Self {
        let block = rows.div_ceil(workers * 16).max(1);
        let blocks = if workers == 1 { 1 } else { rows.div_ceil(block) };
        let block = if workers == 1 { rows.max(1) } else { block };
        Plan { workers, block, blocks, rows }
    }

    /// The rows of block `k`.
    pub(crate) fn block_rows(&self, k: usize) -> std::ops::Range<usize> {
        (k * self.block).min(self.rows)..((k + 1) * self.block).min(self.rows)
    }
}

/// A block's texts and, for pairs, second texts.
pub(crate) type BlockRows<'a> = (&'a [&'a [u8]], Option<&'a [&'a [u8]]>);

/// Where a block job finds its rows' texts.
pub(crate) trait BlockTexts: Sync {
    /// The texts (and second texts of pairs) of block `k`'s rows.
    fn block(&self, plan: &Plan, k: usize) -> Result<BlockRows<'_>>;
    /// A first guess of the ids of `rows` ([`guess`]), for a buffer's room.
    fn guess(&self, plan: &Plan, rows: std::ops::Range<usize>) -> usize;
}

/// The texts all there, as slices.
struct Slices<'a, 't> {
    texts: &'a [&'t [u8]],
    seconds: Option<&'a [&'t [u8]]>,
}

impl BlockTexts for Slices<'_, '_> {
    fn block(&self, plan: &Plan, k: usize) -> Result<BlockRows<'_>> {
        let r = plan.block_rows(k);
        Ok((&self.texts[r.clone()], self.seconds.map(|s| &s[r])))
    }

    fn guess(&self, _: &Plan, rows: std::ops::Range<usize>) -> usize {
        guess(&self.texts[rows.clone()], self.seconds.map(|s| &s[rows]))
    }
}

/// Block `k` encoded into its worker's buffer `run`, or alone (returned).
/// The buffer holding block 0 becomes the batch's ids: room up front for the
/// whole batch's (a first guess, as `encode_rows` makes), so the other
/// blocks' ids are copied after them without moving them.
pub(crate) fn block_job(
    tok: &FullTokenizer,
    texts: &dyn BlockTexts,
    opts: &BatchOptions,
    needles: &Needles,
    plan: &Plan,
    run: &mut RunBuffer<Part>,
    k: usize,
) -> Result<Option<Part>> {
    let (rows, row_seconds) = texts.block(plan, k)?;
    let place = run.take(k);
    let mut lone = Part::default();
    let out = if place.is_some() { &mut run.part } else { &mut lone };
    if place == Some(true) {
        let room = texts.guess(plan, run_rows(k, plan.block, plan.blocks, plan.workers, plan.rows));
        out.make_output_room(room, opts.offsets, if k == 0 { plan.rows } else { 0 })?;
    }
    // Every batch turns its threads' word memos on (2.5 MiB once per thread,
    // kept for later batches): serving calls are small batches one after
    // another on the same threads, and a warm memo took about a quarter off a
    // padded batch of 32 or 256 sentences (issue 28; it used to wait for 64 kB).
    let memo = true;
    match opts.offsets {
        true => encode_rows_offsets(tok, rows, opts, needles, k * plan.block, out)?,
        false => encode_rows(tok, rows, row_seconds, opts, needles, memo, k * plan.block, out)?,
    }
    Ok(place.is_none().then_some(lone))
}

/// The workers' buffers and lone blocks into the batch.
pub(crate) fn finish(runs: Vec<RunBuffer<Part>>, alone: Vec<Result<Option<Part>>>, plan: &Plan, pairs: bool) -> Result<Batch> {
    let alone = alone.into_iter().collect::<Result<Vec<_>>>()?;
    let mut parts = in_block_order(runs, alone)?;
    let workers = plan.workers;
    let mut batch = Batch {
        ids: concat(&mut parts, workers, |p| &mut p.ids, "token ids")?,
        offsets: concat(&mut parts, workers, |p| &mut p.offsets, "token offsets")?,
        type_ids: pairs.then(|| concat(&mut parts, workers, |p| &mut p.types, "token type ids")).transpose()?,
        ..Batch::default()
    };
    let mut lens = Vec::new();
    make_room(&mut lens, plan.rows, "row lengths")?;
    for p in &parts {
        lens.extend_from_slice(&p.lens);
        batch.flagged.extend_from_slice(&p.flagged);
        batch.too_short |= p.too_short;
    }
    batch.row_splits = splits(&lens)?;
    Ok(batch)
}

/// A first guess of the ids of `texts` (and `seconds`): English runs near
/// 4.5 bytes a token; each text makes the room it can need (`encode_into`).
pub(crate) fn guess(texts: &[&[u8]], seconds: Option<&[&[u8]]>) -> usize {
    texts.iter().chain(seconds.unwrap_or_default()).map(|t| t.len()).sum::<usize>() / 4 + 3 * texts.len()
}

/// Row lengths to `rows + 1` boundaries.
fn splits(lens: &[u64]) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    make_room(&mut out, lens.len() + 1, "row splits")?;
    out.push(0);
    for &n in lens {
        out.push(out[out.len() - 1] + n);
    }
    Ok(out)
}

#[cfg(test)]
#[path = "batch_tests.rs"]
pub(crate) mod tests;
