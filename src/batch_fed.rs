//! A bulk call whose texts are read while it runs: the caller (the Python
//! binding, which must hold the GIL to read a str's UTF-8) hands each block
//! of rows over as soon as it has read it, and the pool's workers encode the
//! blocks already read meanwhile, where they used to wait for the whole list.
//! The blocks, the workers' runs and so the output are those of
//! [`encode_batch`](crate::batch::encode_batch) on the same texts.

use crate::batch::{block_job, BlockRows, finish, workers_for, Batch, BatchOptions, BlockTexts, Needles, Part, Plan};
use crate::run_output::RunBuffer;
use crate::threads::{run_holding, thread_count};
use crate::threads_fed::{run_runs_fed, Feed};
use crate::tokenizer::FullTokenizer;
use crate::{Error, Result};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The texts of a batch of `rows` rows on `workers` threads, block by block
/// as they are read. A block is written once ([`put`](Self::put)) and only
/// read after that (`OnceLock`: the reader's writes are seen by the worker
/// that finds the block there), so no lock is taken on the encode path.
pub struct TextFeed<'t> {
    plan: Plan,
    blocks: Vec<OnceLock<Vec<&'t [u8]>>>,
    /// Block `k` encoded (its texts never read again).
    done: Vec<AtomicBool>,
    arrived: AtomicUsize,
    stopped: AtomicBool,
}

impl<'t> TextFeed<'t> {
    /// `None` when the batch would not spread over all the threads asked
    /// (`requested`, as `thread_count` takes it) on its row count alone (the
    /// thread count [`encode_batch`](crate::batch::encode_batch) picks also
    /// counts the texts' bytes, unknown before they are read): such a batch
    /// is read first and encoded as before.
    pub fn new(rows: usize, requested: Option<usize>) -> Result<Option<Self>> {
        if requested == Some(1) || workers_for(usize::MAX, 0, rows) < 2 {
            return Ok(None);
        }
        let threads = thread_count(requested)?;
        if threads < 2 || workers_for(threads, 0, rows) < threads {
            return Ok(None);
        }
        let plan = Plan::new(threads, rows);
        let (blocks, done) = ((0..plan.blocks).map(|_| OnceLock::new()).collect(), (0..plan.blocks).map(|_| AtomicBool::new(false)).collect());
        Ok(Some(TextFeed { blocks, done, plan, arrived: AtomicUsize::new(0), stopped: AtomicBool::new(false) }))
    }

    /// The blocks in the order they are best read: the other workers' runs
    /// first (their first blocks first), so those workers start at once;
    /// then the calling thread's run (the first), from its back, which the
    /// other workers take from when they run out of their own.
    pub fn read_order(&self) -> Vec<usize> {
        let (jobs, workers) = (self.plan.blocks, self.plan.workers);
        let runs: Vec<Range<usize>> = (1..workers).map(|w| run_holding(jobs, workers, jobs * w / workers)).collect();
        let longest = runs.iter().map(|r| r.len()).max().unwrap_or(0);
        let mut order: Vec<usize> = (0..longest).flat_map(|i| runs.iter().filter_map(move |r| r.clone().nth(i))).collect();
        order.extend(run_holding(jobs, workers, 0).rev());
        order
    }

    /// How many blocks the batch is cut into.
    pub fn blocks(&self) -> usize {
        self.plan.blocks
    }

    /// The rows of block `k`.
    pub fn block_rows(&self, k: usize) -> Range<usize> {
        self.plan.block_rows(k)
    }

    /// Block `k`'s texts, read: one per row of the block.
    pub fn put(&self, k: usize, texts: Vec<&'t [u8]>) -> Result<()> {
        let (Some(slot), true) = (self.blocks.get(k), texts.len() == self.block_rows(k).len()) else {
            return Err(Error::Tokenize(format!("internal error: block {k} of {} texts", texts.len())));
        };
        slot.set(texts).map_err(|_| Error::Tokenize(format!("internal error: block {k} read twice")))?;
        self.arrived.fetch_add(1, Ordering::Release);
        Ok(())
    }

    /// Whether block `k` is encoded: no worker reads its texts any more, so
    /// what they point into may be given back before the call ends.
    pub fn is_done(&self, k: usize) -> bool {
        self.done.get(k).is_some_and(|d| d.load(Ordering::Acquire))
    }

    /// No more blocks will come (reading failed): the workers stop.
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::Release);
    }
}

impl Feed for TextFeed<'_> {
    fn ready(&self, k: usize) -> bool {
        self.blocks.get(k).is_some_and(|b| b.get().is_some())
    }
    fn arrived(&self) -> usize {
        self.arrived.load(Ordering::Acquire)
    }
    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }
}

impl BlockTexts for TextFeed<'_> {
    fn block(&self, _: &Plan, k: usize) -> Result<BlockRows<'_>> {
        match self.blocks.get(k).and_then(|b| b.get()) {
            Some(texts) => Ok((texts, None)),
            None => Err(Error::Tokenize(format!("internal error: block {k} encoded before it was read"))),
        }
    }

    /// The guess of the blocks read so far among `rows`, those not read yet
    /// taken as their average (a run's buffer is made at its first block,
    /// before the rest of its run is read; a wrong guess only costs a copy).
    fn guess(&self, plan: &Plan, rows: Range<usize>) -> usize {
        let (mut known, mut known_rows) = (0, 0);
        let blocks = rows.start / plan.block..rows.end.div_ceil(plan.block);
        for k in blocks.clone() {
            if let Some(texts) = self.blocks.get(k).and_then(|b| b.get()) {
                let r = plan.block_rows(k);
                let (from, to) = (rows.start.max(r.start) - r.start, rows.end.min(r.end).saturating_sub(r.start));
                if let Some(part) = texts.get(from..to) {
                    known += crate::batch::guess(part, None);
                    known_rows += part.len();
                }
            }
        }
        match known_rows {
            0 => 0,
            n => known + known / n * (rows.len() - n),
        }
    }
}

/// Encodes the texts `feed` gets as [`encode_batch`](crate::batch::encode_batch)
/// would (no pairs): `read(work)` runs on the calling thread, puts every block
/// (in [`read_order`](TextFeed::read_order)), then runs `work` once; if it
/// cannot, it stops the feed instead (and knows why). Returns the workers'
/// parts, put together by [`Pending::finish`] (which reads no text; an error
/// if the feed stopped).
pub fn encode_fed(
    tok: &FullTokenizer,
    feed: &TextFeed<'_>,
    opts: BatchOptions,
    needles: &[&[u8]],
    read: impl FnOnce(&(dyn Fn() + Sync)),
) -> Result<Pending> {
    let needles = Needles::new(needles);
    let plan = &feed.plan;
    let (runs, done) = run_runs_fed(plan.workers, plan.blocks, feed, |_| RunBuffer::new(Part::default()), |run, k| {
        let part = block_job(tok, feed, &opts, &needles, plan, run, k);
        if let Some(d) = feed.done.get(k) {
            d.store(true, Ordering::Release);
        }
        part
    }, read)?;
    let finished = !feed.stopped() && done.len() == plan.blocks;
    let alone = done.into_iter().map(|(_, part)| part).collect();
    Ok(Pending { runs, alone, plan: Plan::new(plan.workers, plan.rows), finished })
}

/// A fed batch's parts, to be put together ([`finish`](Self::finish)).
pub struct Pending {
    runs: Vec<RunBuffer<Part>>,
    alone: Vec<Result<Option<Part>>>,
    plan: Plan,
    finished: bool,
}

impl Pending {
    pub fn finish(self) -> Result<Batch> {
        if !self.finished {
            return Err(Error::Tokenize("internal error: a batch's reading stopped before its end".into()));
        }
        finish(self.runs, self.alone, &self.plan, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::{encode_batch, tests::tok};

    /// Texts of the small tokenizer's words, a needle in some, empty ones too.
    fn texts(n: usize) -> Vec<Vec<u8>> {
        let words = ["hello", "worlds", ",", "xyz", "Hello", "[MASK]", "world"];
        (0..n).map(|k| (0..(k * 7) % 13).map(|i| words[(k * 31 + i * 17) % words.len()]).collect::<Vec<_>>().join(" ").into_bytes()).collect()
    }

    #[test]
    fn the_read_order_holds_every_block_once_the_first_run_last_from_its_back() {
        for (rows, threads) in [(512, 2), (5_000, 2), (3_000, 3), (100_000, 8), (1_000, 5)] {
            let feed = TextFeed::new(rows, Some(threads)).unwrap().unwrap();
            let order = feed.read_order();
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..feed.plan.blocks).collect::<Vec<_>>(), "{rows} rows, {threads} threads");
            let first = run_holding(feed.plan.blocks, feed.plan.workers, 0);
            assert!(order[order.len() - first.len()..].iter().copied().eq(first.rev()));
        }
        // too few rows to spread on the rows alone, or one thread: read first, as before
        assert!(TextFeed::new(511, Some(2)).unwrap().is_none());
        assert!(TextFeed::new(100_000, Some(1)).unwrap().is_none());
    }

    #[test]
    fn a_fed_batch_equals_the_batch_read_first_whatever_the_readers_pace() {
        let tok = tok();
        let owned = texts(3_000);
        let all: Vec<&[u8]> = owned.iter().map(|t| t.as_slice()).collect();
        for offsets in [false, true] {
            let opts = BatchOptions { special: Some((2, 3)), max_length: if offsets { None } else { Some(9) }, offsets, ..Default::default() };
            let expected = encode_batch(&tok, &all, opts, &[b"[MASK]"], Some(1)).unwrap();
            assert!(!expected.flagged.is_empty());
            // no pause, a pause per block, a stall longer than the workers' patience
            for pause in [0, 100, 3_000] {
                let feed = TextFeed::new(all.len(), Some(2)).unwrap().unwrap();
                let pending = encode_fed(&tok, &feed, opts, &[b"[MASK]"], |work| {
                    for k in feed.read_order() {
                        std::thread::sleep(std::time::Duration::from_micros(pause));
                        feed.put(k, all[feed.block_rows(k)].to_vec()).unwrap();
                    }
                    work();
                })
                .unwrap();
                assert_eq!(pending.finish().unwrap(), expected, "offsets {offsets}, pause {pause} µs");
            }
        }
    }

    #[test]
    fn a_reading_that_stops_gives_no_batch() {
        let tok = tok();
        let owned = texts(2_000);
        let feed = TextFeed::new(owned.len(), Some(2)).unwrap().unwrap();
        let pending = encode_fed(&tok, &feed, BatchOptions::default(), &[], |_work| {
            let k = feed.read_order()[0];
            feed.put(k, owned[feed.block_rows(k)].iter().map(|t| t.as_slice()).collect()).unwrap();
            assert!(feed.put(k, Vec::new()).is_err()); // a block put twice (or of the wrong length) is refused
            feed.stop();
        })
        .unwrap();
        assert!(pending.finish().is_err());
    }
}
