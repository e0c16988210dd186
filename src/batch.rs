//! Batch encoding on all cores: many texts (or pairs of texts) to ids (and
//! offsets, or token type ids) in parallel, with the ids of each row laid out
//! back to back (`row_splits` says where each row starts), ready to become
//! NumPy arrays without a Python object per token.

use crate::aligned::Span;
use crate::encoder::{with_thread_scratch, Scratch};
use crate::tokenizer::FullTokenizer;
use crate::room::{make_room, out_of_memory, zeroed, Zeroable};
use crate::{Error, Result};
use crate::threads::{for_each_slice, run_jobs_in_runs, thread_count};
use crate::batch_needles::Needles;
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

#[derive(Default)]
struct Row {
    ids: Vec<u32>,
    offsets: Vec<Span>,
}

/// With offsets (`offsets.rs`, which makes the row's room): one row at a time.
fn encode_row_offsets(tok: &FullTokenizer, text: &[u8], opts: &BatchOptions, scratch: &mut Scratch) -> Result<Row> {
    let mut row = Row::default();
    open_row(opts, &mut row.ids, |id| id);
    open_row(opts, &mut row.offsets, |_| (0, 0));
    tok.encode_offsets_into(text, &mut row.ids, &mut row.offsets, None, scratch)?;
    close_row(opts, &mut row.ids, 0, |id| id);
    close_row(opts, &mut row.offsets, 0, |_| (0, 0));
    Ok(row)
}

/// Ids only: each row's ids appended to `ids`, its length to `lens`, and
/// its index (from `first`) to `flagged` if it holds a needle. Through the
/// one-pass encoder, with the thread's scratch space (and word memo); the
/// needle search reads each text just before the encoder does, so the text
/// is read from memory once. With `seconds`, row `k` is the pair
/// `(texts[k], seconds[k])`.
#[allow(clippy::too_many_arguments)]
fn encode_rows(
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
        let bytes = texts.iter().chain(seconds.unwrap_or_default()).map(|t| t.len()).sum::<usize>();
        // A first guess; each text makes the room it can need (`encode_into`).
        make_room(&mut out.ids, bytes / 4 + 3 * texts.len(), "token ids")?;
        for (k, text) in texts.iter().enumerate() {
            let second = seconds.and_then(|s| s.get(k));
            if needles.found_in(text) || second.is_some_and(|b| needles.found_in(b)) {
                out.flagged.push((first + k) as u64);
            }
            let start = out.ids.len();
            match second {
                None => {
                    open_row(opts, &mut out.ids, |id| id);
                    // Right truncation: only the text's first ids are kept, so only they are made.
                    match content_limit(opts) {
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

/// What one block of rows gives.
#[derive(Default)]
struct Part {
    ids: Vec<u32>,
    lens: Vec<u64>,
    flagged: Vec<u64>,
    types: Vec<u8>,
    too_short: bool,
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
fn workers_for(threads: usize, bytes: usize, rows: usize) -> usize {
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
    // Every batch turns its threads' word memos on (2 MiB once per thread,
    // kept for later batches): serving calls are small batches one after
    // another on the same threads, and a warm memo took about a quarter off a
    // padded batch of 32 or 256 sentences (issue 28; it used to wait for 64 kB).
    let memo = true;
    let workers = workers_for(threads, bytes, texts.len());
    // Contiguous blocks, several per thread for balance, dealt as one run of
    // neighbours per thread (`run_jobs_in_runs`: each memo learns its rows' words).
    let block = texts.len().div_ceil(workers * 16).max(1);
    let blocks = if workers == 1 { 1 } else { texts.len().div_ceil(block) };
    let block = if workers == 1 { texts.len().max(1) } else { block };
    let mut batch = Batch::default();
    if opts.offsets {
        let rows: Vec<Vec<Row>> = run_jobs_in_runs(workers, blocks, |k| {
            let rows = &texts[(k * block).min(texts.len())..((k + 1) * block).min(texts.len())];
            with_thread_scratch(|scratch| {
                if memo {
                    scratch.enable_cache();
                }
                rows.iter().map(|t| encode_row_offsets(tok, t, &opts, scratch)).collect::<Result<Vec<Row>>>()
            })
        })?
        .into_iter()
        .collect::<Result<_>>()?;
        let rows: Vec<Row> = rows.into_iter().flatten().collect();
        let total = rows.iter().map(|r| r.ids.len()).sum();
        batch.ids.try_reserve_exact(total).map_err(|_| out_of_memory::<u32>(total, "token ids"))?;
        batch.offsets.try_reserve_exact(total).map_err(|_| out_of_memory::<Span>(total, "token offsets"))?;
        let mut lens = Vec::with_capacity(rows.len());
        for r in rows {
            batch.ids.extend_from_slice(&r.ids);
            batch.offsets.extend_from_slice(&r.offsets);
            lens.push(r.ids.len() as u64);
        }
        batch.row_splits = splits(&lens)?;
        batch.flagged = texts.iter().enumerate().filter(|(_, t)| needles.found_in(t)).map(|(i, _)| i as u64).collect();
        return Ok(batch);
    }
    if workers == 1 {
        let mut part = Part { lens: Vec::with_capacity(texts.len()), ..Part::default() };
        encode_rows(tok, texts, seconds, &opts, &needles, memo, 0, &mut part)?;
        batch.row_splits = splits(&part.lens)?;
        (batch.ids, batch.flagged, batch.too_short) = (part.ids, part.flagged, part.too_short);
        batch.type_ids = seconds.map(|_| part.types);
        return Ok(batch);
    }
    // Each block into its own buffer; then the buffers are copied into place in parallel.
    let parts: Vec<Part> = run_jobs_in_runs(workers, blocks, |k| {
        let rows = &texts[k * block..((k + 1) * block).min(texts.len())];
        let mut part = Part { lens: Vec::with_capacity(rows.len()), ..Part::default() };
        let seconds = seconds.map(|s| &s[k * block..k * block + rows.len()]);
        encode_rows(tok, rows, seconds, &opts, &needles, memo, k * block, &mut part).map(|()| part)
    })?
    .into_iter()
    .collect::<Result<_>>()?;
    batch.ids = gather(workers, &parts, |p| &p.ids)?;
    batch.type_ids = seconds.map(|_| gather(workers, &parts, |p| &p.types)).transpose()?;
    let mut lens = Vec::with_capacity(texts.len());
    for p in &parts {
        lens.extend_from_slice(&p.lens);
        batch.flagged.extend_from_slice(&p.flagged);
        batch.too_short |= p.too_short;
    }
    batch.row_splits = splits(&lens)?;
    Ok(batch)
}

/// Values below which the parts are copied on the calling thread: a copy
/// of a few hundred kB takes less than handing it to a pool thread and
/// waiting for that thread to wake (a serving batch of 256 sentences has
/// about 6,000 ids).
const PAR_MIN_GATHER: usize = 1 << 18;

/// The parts' `field`s back to back, copied into place on `threads`
/// threads (zeroed memory comes from the OS untouched: its pages are first
/// written, and faulted in, by the copy).
fn gather<T: Zeroable + Send + Sync>(threads: usize, parts: &[Part], field: impl Fn(&Part) -> &[T] + Sync) -> Result<Vec<T>> {
    let total = parts.iter().map(|p| field(p).len()).sum();
    let threads = if total < PAR_MIN_GATHER { 1 } else { threads };
    let mut all = zeroed::<T>(total, "batch output")?;
    let mut rest = &mut all[..];
    let mut places = Vec::with_capacity(parts.len());
    for p in parts {
        let (here, tail) = rest.split_at_mut(field(p).len());
        places.push(here);
        rest = tail;
    }
    for_each_slice(threads, places, |k, dst| dst.copy_from_slice(field(&parts[k])))?;
    Ok(all)
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
