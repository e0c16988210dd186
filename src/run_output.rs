//! The output of a bulk call whose blocks of rows run as contiguous runs
//! ([`run_runs_with_state`](crate::threads::run_runs_with_state)): each
//! worker appends the blocks it takes in order to one buffer of its own (a
//! [`RunBuffer`]), and only a block taken out of order (one taken from the
//! back of another worker's run) gets a part of its own. The buffer holding
//! block 0 then becomes the call's output as it is, and only the rest is
//! copied after it: with two threads about half the ids are copied, where
//! every block in a buffer of its own, gathered into a fresh zeroed array,
//! copied them all and wrote every page twice (memset, page faults).

use crate::threads::{for_each_slice, run_holding};
use std::ops::Range;
use crate::{Error, Result};

/// One worker's blocks `first..next`, back to back in `part`.
pub struct RunBuffer<P> {
    first: usize,
    next: usize,
    pub part: P,
}

impl<P> RunBuffer<P> {
    pub fn new(part: P) -> Self {
        RunBuffer { first: 0, next: 0, part }
    }

    /// Whether no block is in this buffer yet.
    pub fn is_empty(&self) -> bool {
        self.first == self.next
    }

    /// Takes block `k` as [`takes`](Self::takes) does and says where it goes:
    /// `Some(true)` into this buffer as its first block (the caller makes the
    /// buffer's room then: [`run_rows`]), `Some(false)` into this buffer after
    /// the blocks before it, `None` alone (a block taken out of order, from the
    /// back of another worker's run).
    pub fn take(&mut self, k: usize) -> Option<bool> {
        let first = self.is_empty();
        self.takes(k).then_some(first)
    }

    /// Whether block `k` goes into this buffer: its first block, or the one
    /// after its last (noted as taken when so).
    pub fn takes(&mut self, k: usize) -> bool {
        if self.first == self.next {
            (self.first, self.next) = (k, k + 1);
            true
        } else if k == self.next {
            self.next += 1;
            true
        } else {
            false
        }
    }
}

/// The rows a run's buffer is made for at its first block `k`, of `jobs`
/// blocks of `block` rows (`rows` in all) dealt to `workers`: block 0's buffer
/// becomes the call's output, so room for every row; another, its own run's
/// rows from `k` on ([`run_holding`]).
pub fn run_rows(k: usize, block: usize, jobs: usize, workers: usize, rows: usize) -> Range<usize> {
    if k == 0 {
        return 0..rows;
    }
    (k * block).min(rows)..(run_holding(jobs, workers, k).end * block).min(rows)
}

/// The parts of all `jobs` blocks in block order, each covering one or more
/// consecutive blocks: the workers' buffers and the blocks done alone
/// (`alone[k]`, `None` for a block in a buffer).
pub fn in_block_order<P>(runs: Vec<RunBuffer<P>>, alone: Vec<Option<P>>) -> Result<Vec<P>> {
    let jobs = alone.len();
    let mut pieces: Vec<(usize, usize, P)> = runs.into_iter().filter(|r| r.next > r.first).map(|r| (r.first, r.next, r.part)).collect();
    pieces.extend(alone.into_iter().enumerate().filter_map(|(k, p)| p.map(|p| (k, k + 1, p))));
    pieces.sort_unstable_by_key(|&(first, _, _)| first);
    // The pieces must tile 0..jobs exactly (each block in one place).
    let mut expected = 0;
    for &(first, next, _) in &pieces {
        if first != expected {
            return Err(internal(format!("block {expected} missing or doubled")));
        }
        expected = next;
    }
    if expected != jobs {
        return Err(internal(format!("{expected} of {jobs} blocks done")));
    }
    Ok(pieces.into_iter().map(|(_, _, p)| p).collect())
}

/// Room for `n` more elements in a vector that becomes a call's output,
/// the kernel asked to back it with huge pages (Linux: transparent huge
/// pages, when their mode is `madvise` as here, are only given on request):
/// a large batch's output is fresh memory every call, and faulting it in
/// 4 kB at a time cost more than zeroing it.
pub fn output_room<T>(v: &mut Vec<T>, n: usize, what: &'static str) -> Result<()> {
    crate::room::make_room(v, n, what)?;
    advise_huge_pages(v);
    Ok(())
}

/// Asks for huge pages over the whole 2 MiB pages inside `v`'s capacity
/// (nothing below 4 MiB; advice only, its result ignored).
fn advise_huge_pages<T>(v: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        const MADV_HUGEPAGE: std::ffi::c_int = 14;
        extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: std::ffi::c_int) -> std::ffi::c_int;
        }
        let start = v.as_mut_ptr() as usize;
        let end = start.saturating_add(v.capacity().saturating_mul(std::mem::size_of::<T>()));
        let (from, to) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if to >= from.saturating_add(2 * HUGE) {
            // SAFETY: the range is page-aligned and inside the vector's own allocation; MADV_HUGEPAGE
            // changes how its pages are backed, never their contents.
            unsafe { madvise(from as *mut std::ffi::c_void, to - from, MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

fn internal(what: String) -> Error {
    Error::Tokenize(format!("internal error: {what}"))
}

/// Elements below which the copy runs on the calling thread: a copy of a
/// few hundred kB takes less than handing it to a pool thread and waiting
/// for that thread to wake (a serving batch of 256 sentences has about
/// 6,000 ids).
const PAR_MIN_COPY: usize = 1 << 18;

/// `column(part)` of every part back to back: the first part's vector,
/// grown to hold the others', which are copied after it (on `threads`
/// threads when long, each part into its own place).
pub fn concat<P: Send, T: Copy + Send + Sync>(
    parts: &mut [P],
    threads: usize,
    column: impl Fn(&mut P) -> &mut Vec<T>,
    what: &'static str,
) -> Result<Vec<T>> {
    let Some((head, rest)) = parts.split_first_mut() else {
        return Ok(Vec::new());
    };
    let mut out = std::mem::take(column(head));
    let sources: Vec<&[T]> = rest.iter_mut().map(|p| column(p).as_slice()).collect();
    let more: usize = sources.iter().map(|s| s.len()).sum();
    if more == 0 {
        return Ok(out);
    }
    crate::room::make_room(&mut out, more, what)?;
    let threads = if more < PAR_MIN_COPY { 1 } else { threads };
    // each part's place in the (uninitialized) room after the first part's elements, in order
    let mut places = Vec::with_capacity(sources.len());
    let mut room = out.spare_capacity_mut().get_mut(..more).unwrap_or_default();
    for s in &sources {
        let Some((here, tail)) = room.split_at_mut_checked(s.len()) else {
            return Err(internal(format!("parts longer than their {more} {what}")));
        };
        places.push(here);
        room = tail;
    }
    for_each_slice(threads, places, |k, dst| {
        if let Some(s) = sources.get(k) {
            dst.write_copy_of_slice(s);
        }
    })?;
    // SAFETY: the places cover the `more` slots after `out.len()` exactly
    // (their lengths sum to `more`, within the room made for it), and
    // `for_each_slice` ran the copy into each (it returned Ok: every job
    // ran; a panic would not get here), so those slots are initialized.
    unsafe { out.set_len(out.len() + more) };
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::threads::run_runs_with_state;

    #[test]
    fn blocks_taken_in_any_order_come_out_in_block_order() {
        // Worker buffers and lone blocks as the runs deal them, on any thread count and block count.
        for threads in [1, 2, 3, 8] {
            for jobs in [0, 1, 2, 5, 64, 1000] {
                let (runs, alone) = run_runs_with_state(threads, jobs, |_| RunBuffer::new(Vec::new()), |run: &mut RunBuffer<Vec<u32>>, k| {
                    if jobs == 64 {
                        // slow jobs: every worker takes some of its own run before the others steal
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    }
                    let block: Vec<u32> = (0..k as u32 % 7).map(|i| k as u32 * 10 + i).collect();
                    if run.takes(k) {
                        run.part.extend_from_slice(&block);
                        None
                    } else {
                        Some(block)
                    }
                })
                .unwrap();
                let mut parts = in_block_order(runs, alone).unwrap();
                let all = concat(&mut parts, threads, |p| p, "ids").unwrap();
                let expected: Vec<u32> = (0..jobs as u32).flat_map(|k| (0..k % 7).map(move |i| k * 10 + i)).collect();
                assert_eq!(all, expected, "{threads} threads, {jobs} jobs");
            }
        }
    }

    #[test]
    fn a_buffer_takes_its_first_block_then_only_the_next() {
        let mut run = RunBuffer::new(());
        assert!(run.takes(5) && run.takes(6) && !run.takes(4) && !run.takes(8) && run.takes(7));
        assert_eq!((run.first, run.next), (5, 8));
        let mut run = RunBuffer::new(());
        assert_eq!([5, 6, 4, 8, 7].map(|k| run.take(k)), [Some(true), Some(false), None, None, Some(false)]);
    }

    #[test]
    fn a_run_buffer_is_made_for_its_runs_rows_and_block_0s_for_all() {
        // 10 blocks of 3 rows (29 rows: the last block short) dealt to 3 workers: runs 0..3, 3..6, 6..10
        assert_eq!([0, 3, 4, 6].map(|k| run_rows(k, 3, 10, 3, 29)), [0..29, 9..18, 12..18, 18..29]);
        assert_eq!(run_rows(0, 5, 1, 1, 0), 0..0);
    }

    #[test]
    fn buffers_and_lone_blocks_are_put_in_block_order() {
        let run = |first, next, part| RunBuffer { first, next, part };
        // the second worker's buffer (5..8) handed back first; blocks 2..5 taken alone
        let alone = vec![None, None, Some("b2"), Some("b3"), Some("b4"), None, None, None];
        assert_eq!(in_block_order(vec![run(5, 8, "c"), run(0, 2, "a")], alone).unwrap(), ["a", "b2", "b3", "b4", "c"]);
    }

    #[test]
    fn blocks_missing_or_doubled_are_an_error_not_a_wrong_output() {
        let run = |first, next| RunBuffer { first, next, part: () };
        assert!(in_block_order(vec![run(0, 2)], vec![None, None, Some(())]).is_ok());
        assert!(in_block_order(vec![run(0, 2)], vec![None, None, None]).is_err()); // block 2 nowhere
        assert!(in_block_order(vec![run(0, 2)], vec![None, Some(()), None]).is_err()); // block 1 twice
    }

    #[test]
    fn long_copies_run_in_parallel_into_the_first_part() {
        let mut parts: Vec<Vec<u64>> = (0..5u64).map(|p| (0..PAR_MIN_COPY as u64 / 2).map(|i| p << 32 | i).collect()).collect();
        let all = concat(&mut parts, 2, |p| p, "ids").unwrap();
        assert!(all.iter().copied().eq((0..5u64).flat_map(|p| (0..PAR_MIN_COPY as u64 / 2).map(move |i| p << 32 | i))));
    }
}
