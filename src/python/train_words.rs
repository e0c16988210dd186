//! `WordCounts`: counted words — the pre-tokens of a `bertpiece.Tokenizer`'s
//! own normalizer and pre-tokenizer (`PreTokenCounter`), as HF's
//! `Tokenizer.train` feeds its trainers, or pairs given from Python — trained
//! by the same BPE and Unigram code as the counters. The facade is `bertpiece.tokenizers_api.training`.

use super::train_bpe::{run_bpe, BpeResult, PyBpeOptions};
use super::train_unigram::{run_unigram, PyUnigramOptions, UnigramResult};
use pyo3::prelude::*;

#[pyclass(frozen, module = "bertpiece._core", name = "WordCounts")]
pub(super) struct PyWordCounts {
    /// words as code points, sorted as the counters sort theirs (so the result
    /// does not depend on the order Python counted them in)
    counts: Vec<(Vec<u32>, u64)>,
}

impl PyWordCounts {
    /// Counts already sorted by code points, each word once (a counter's `into_counts`).
    pub(super) fn from_sorted(counts: Vec<(Vec<u32>, u64)>) -> Self {
        PyWordCounts { counts }
    }
}

#[pymethods]
impl PyWordCounts {
    /// `counts`: (word, count) pairs, each word once (a Python `Counter`'s items).
    #[new]
    fn new(py: Python<'_>, counts: Vec<(String, u64)>) -> Self {
        let counts = py.detach(|| {
            let mut all: Vec<(Vec<u32>, u64)> =
                counts.into_iter().map(|(w, n)| (w.chars().map(u32::from).collect(), n)).collect();
            all.sort_unstable();
            all
        });
        PyWordCounts { counts }
    }

    fn __len__(&self) -> usize {
        self.counts.len()
    }

    /// The (word, count) pairs, sorted by code points.
    fn items(&self) -> Vec<(String, u64)> {
        self.counts.iter().map(|(w, n)| (w.iter().filter_map(|&c| char::from_u32(c)).collect(), *n)).collect()
    }

    /// BPE on the words: `(tokens, merges, alphabet size)`; `progress(size, target)` during the merges.
    #[pyo3(signature = (options, progress=None))]
    fn train_bpe(&self, py: Python<'_>, options: PyRef<'_, PyBpeOptions>, progress: Option<Py<PyAny>>) -> PyResult<BpeResult> {
        run_bpe(py, &self.counts, &options, progress)
    }

    /// Unigram on the words, as `MetaspaceCounter.train_unigram`: `(pieces, unk id, rounds)`.
    #[pyo3(signature = (options, num_threads=None, progress=None))]
    fn train_unigram(
        &self,
        py: Python<'_>,
        options: PyRef<'_, PyUnigramOptions>,
        num_threads: Option<i64>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<UnigramResult> {
        run_unigram(py, &self.counts, &options, num_threads, progress)
    }
}
