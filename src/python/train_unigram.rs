//! Unigram training: `MetaspaceCounter` (words as HF's `Metaspace()` splits,
//! fed like `WordCounter`) and its `train_unigram`. The facade is
//! `bertpiece.trainers.UnigramTrainer`. `UnigramOptions` are the options both
//! `train_unigram`s take (this one and `WordCounts`'), built once.

use super::args::{thread_count, BatchTexts};
use super::train_bpe::{single_chars, with_progress, Stage};
use crate::normalizer::Reference;
use crate::train::unigram::{train_unigram, MetaspaceCounter, UnigramOptions};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::Mutex;

/// `(pieces with scores in id order, unk id, EM rounds)`.
pub(super) type UnigramResult = (Vec<(String, f64)>, Option<usize>, usize);

#[pyclass(frozen, module = "bertpiece._core", name = "MetaspaceCounter")]
pub(super) struct PyMetaspaceCounter {
    stage: Mutex<Stage<MetaspaceCounter>>,
    /// words seen, unique words
    stats: Mutex<(u64, usize)>,
}

#[pymethods]
impl PyMetaspaceCounter {
    #[new]
    fn new() -> Self {
        PyMetaspaceCounter { stage: Mutex::new(Stage::Counting(Box::default())), stats: Mutex::new((0, 0)) }
    }

    /// Counts the words of `texts` (a list of str; a lone surrogate raises
    /// UnicodeEncodeError).
    #[pyo3(signature = (texts, num_threads=None))]
    fn feed(&self, py: Python<'_>, texts: &Bound<'_, PyAny>, num_threads: Option<i64>) -> PyResult<()> {
        let threads = thread_count(py, num_threads)?;
        let read = BatchTexts::read(texts, Reference::Tokenizers, "texts")?;
        let bytes = read.slices();
        let mut stage = self.stage.try_lock().map_err(|_| PyRuntimeError::new_err("this MetaspaceCounter is in use by another thread"))?;
        let Stage::Counting(counter) = &mut *stage else {
            return Err(PyValueError::new_err("cannot feed a MetaspaceCounter after training from it"));
        };
        py.detach(|| counter.feed(&bytes, threads))?;
        *self.stats.lock().unwrap_or_else(|e| e.into_inner()) = (counter.words, counter.unique_words());
        Ok(())
    }

    /// `(words, unique words)` so far.
    fn stats(&self) -> (u64, usize) {
        *self.stats.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The counted words, sorted by code points (for tests and the oracle).
    fn counts(&self, py: Python<'_>) -> PyResult<Vec<(String, u64)>> {
        let mut stage = self.stage.try_lock().map_err(|_| PyRuntimeError::new_err("this MetaspaceCounter is in use by another thread"))?;
        let counts = stage.counts(py, MetaspaceCounter::into_counts)?;
        Ok(counts.iter().map(|(w, n)| (w.iter().filter_map(|&c| char::from_u32(c)).collect(), *n)).collect())
    }

    /// Trains Unigram on the counted words: `(pieces, unk id, rounds)`;
    /// `progress(pieces, vocab_size)` after each EM step.
    #[pyo3(signature = (options, num_threads=None, progress=None))]
    fn train_unigram(
        &self,
        py: Python<'_>,
        options: PyRef<'_, PyUnigramOptions>,
        num_threads: Option<i64>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<UnigramResult> {
        let mut stage = self.stage.try_lock().map_err(|_| PyRuntimeError::new_err("this MetaspaceCounter is in use by another thread"))?;
        let counts = stage.counts(py, MetaspaceCounter::into_counts)?;
        run_unigram(py, counts, &options, num_threads, progress)
    }
}

/// The options of Unigram training as `UnigramTrainer` takes them (initial_alphabet:
/// single characters), checked once and passed to either `train_unigram`
/// (`MetaspaceCounter`'s, `WordCounts`').
#[pyclass(frozen, module = "bertpiece._core", name = "UnigramOptions")]
pub(super) struct PyUnigramOptions(UnigramOptions);

#[pymethods]
impl PyUnigramOptions {
    #[new]
    #[pyo3(signature = (vocab_size, *, special_tokens=Vec::new(), shrinking_factor=0.75, unk_token=None,
        max_piece_length=16, n_sub_iterations=2, initial_alphabet=Vec::new(), seed_size=1_000_000))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        vocab_size: usize,
        special_tokens: Vec<String>,
        shrinking_factor: f64,
        unk_token: Option<String>,
        max_piece_length: usize,
        n_sub_iterations: usize,
        initial_alphabet: Vec<String>,
        seed_size: usize,
    ) -> PyResult<Self> {
        Ok(PyUnigramOptions(UnigramOptions {
            vocab_size,
            special_tokens,
            shrinking_factor,
            unk_token,
            max_piece_length,
            n_sub_iterations,
            initial_alphabet: single_chars(&initial_alphabet)?,
            seed_size,
        }))
    }
}

/// Unigram on `counts` on `num_threads` threads (see [`with_progress`]).
pub(super) fn run_unigram(
    py: Python<'_>,
    counts: &[(Vec<u32>, u64)],
    options: &PyUnigramOptions,
    num_threads: Option<i64>,
    progress: Option<Py<PyAny>>,
) -> PyResult<UnigramResult> {
    let threads = thread_count(py, num_threads)?;
    let opts = &options.0;
    let t = with_progress(py, progress, |report| train_unigram(counts, opts, threads, report))?.map_err(PyErr::from)?;
    Ok((t.pieces, t.unk_id, t.rounds))
}
