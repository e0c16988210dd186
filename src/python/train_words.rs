//! `WordCounts`: counted words — the pre-tokens of a `bertpiece.Tokenizer`'s
//! own normalizer and pre-tokenizer (`PreTokenCounter`), as HF's
//! `Tokenizer.train` feeds its trainers, or pairs given from Python — trained
//! by the same BPE and Unigram code as the counters. The facade is `bertpiece.tokenizers_api.training`.

use super::args::thread_count;
use super::train_bpe::{run_bpe, single_chars, with_progress, BpeResult, PyBpeOptions};
use crate::train::unigram::{train_unigram, UnigramOptions};
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
    #[pyo3(signature = (vocab_size, *, special_tokens=Vec::new(), shrinking_factor=0.75, unk_token=None,
        max_piece_length=16, n_sub_iterations=2, initial_alphabet=Vec::new(), seed_size=1_000_000,
        num_threads=None, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn train_unigram(
        &self,
        py: Python<'_>,
        vocab_size: usize,
        special_tokens: Vec<String>,
        shrinking_factor: f64,
        unk_token: Option<String>,
        max_piece_length: usize,
        n_sub_iterations: usize,
        initial_alphabet: Vec<String>,
        seed_size: usize,
        num_threads: Option<i64>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<(Vec<(String, f64)>, Option<usize>, usize)> {
        let threads = thread_count(py, num_threads)?;
        let opts = UnigramOptions {
            vocab_size,
            special_tokens,
            shrinking_factor,
            unk_token,
            max_piece_length,
            n_sub_iterations,
            initial_alphabet: single_chars(&initial_alphabet)?,
            seed_size,
        };
        let counts = &self.counts;
        let t = with_progress(py, progress, |report| train_unigram(counts, &opts, threads, report))?.map_err(PyErr::from)?;
        Ok((t.pieces, t.unk_id, t.rounds))
    }
}
