//! The parallel counting every streaming word counter of `Tokenizer.train`
//! shares (general pipeline, byte-level, Metaspace): a batch of texts is cut
//! into chunks, each chunk counted into a local map on the thread pool, and
//! the local maps merged into the counter's. Memory is bounded by the unique
//! words, not the corpus.

use crate::fxhash::FxHashMap;
use crate::threads::{run_jobs, thread_count};
use crate::Result;
use std::borrow::Borrow;
use std::hash::Hash;

/// Texts per parallel task at least: enough that a task's local map pays off.
const MIN_TEXTS_PER_TASK: usize = 256;

/// Counts `texts` (UTF-8) on `num_threads` threads: `count_chunk` gives a
/// chunk's local counts and the words it saw; they are added to `counts`
/// and `words`.
pub(super) fn feed_counts<K: Eq + Hash + Send>(
    counts: &mut FxHashMap<K, u64>,
    words: &mut u64,
    texts: &[&[u8]],
    num_threads: Option<usize>,
    count_chunk: impl Fn(&[&[u8]]) -> Result<(FxHashMap<K, u64>, u64)> + Sync,
) -> Result<()> {
    let threads = thread_count(num_threads)?;
    // Two tasks per thread: few local maps (each holds the common words again).
    let per_task = texts.len().div_ceil(2 * threads).max(MIN_TEXTS_PER_TASK);
    let chunks: Vec<&[&[u8]]> = texts.chunks(per_task).collect();
    let locals = run_jobs(threads, chunks.len(), |k| count_chunk(chunks[k]))?;
    for local in locals {
        let (local, seen) = local?;
        *words += seen;
        if counts.is_empty() {
            *counts = local;
            continue;
        }
        for (w, n) in local {
            *counts.entry(w).or_insert(0) += n;
        }
    }
    Ok(())
}

/// Adds one to `word`'s count, copying the word only the first time.
#[inline]
pub(super) fn bump<K, Q>(counts: &mut FxHashMap<K, u64>, word: &Q)
where
    K: Eq + Hash + Borrow<Q> + for<'a> From<&'a Q>,
    Q: Eq + Hash + ?Sized,
{
    match counts.get_mut(word) {
        Some(n) => *n += 1,
        None => {
            counts.insert(K::from(word), 1);
        }
    }
}
