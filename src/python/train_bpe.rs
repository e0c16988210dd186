//! BPE training: `ByteLevelCounter` (byte-level words, fed like
//! `WordCounter`) and the `train_bpe` both counters offer. The facade is
//! `bertpiece.trainers`.

use super::args::{thread_count, BatchTexts};
use crate::normalizer::Reference;
use crate::train::bpe::{train_bpe, BpeOptions};
use crate::train::Progress;
use crate::pre_tokenizers::byte_level;
use crate::train::byte_level::ByteLevelCounter;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::Mutex;

/// `(tokens in id order, merges by rank, alphabet size)`.
pub(super) type BpeResult = (Vec<String>, Vec<(String, String)>, usize);

/// The options of BPE training as `BpeTrainer` takes them (initial_alphabet: single
/// characters), checked once and passed to either counter's `train_bpe`.
#[pyclass(frozen, module = "bertpiece._core", name = "BpeOptions")]
pub(super) struct PyBpeOptions(BpeOptions);

#[pymethods]
impl PyBpeOptions {
    #[new]
    #[pyo3(signature = (vocab_size, *, min_frequency=0, special_tokens=Vec::new(), limit_alphabet=None,
        initial_alphabet=Vec::new(), continuing_subword_prefix=None, end_of_word_suffix=None, max_token_length=None,
        initial_tokens=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        vocab_size: usize,
        min_frequency: u64,
        special_tokens: Vec<String>,
        limit_alphabet: Option<usize>,
        initial_alphabet: Vec<String>,
        continuing_subword_prefix: Option<String>,
        end_of_word_suffix: Option<String>,
        max_token_length: Option<usize>,
        initial_tokens: Option<Vec<String>>,
    ) -> PyResult<Self> {
        let chars = single_chars(&initial_alphabet)?;
        Ok(PyBpeOptions(BpeOptions {
            vocab_size,
            min_frequency,
            special_tokens,
            limit_alphabet,
            initial_alphabet: chars,
            continuing_subword_prefix,
            end_of_word_suffix,
            max_token_length,
            initial_tokens,
        }))
    }
}

/// `initial_alphabet` as trainers take it: single characters, else a ValueError naming the entry.
pub(super) fn single_chars(initial_alphabet: &[String]) -> PyResult<Vec<char>> {
    initial_alphabet
        .iter()
        .map(|s| {
            let mut it = s.chars();
            match (it.next(), it.next()) {
                (Some(c), None) => Ok(c),
                _ => Err(PyValueError::new_err(format!("initial_alphabet entries must be single characters, got {s:?}"))),
            }
        })
        .collect()
}

/// Counting, then the counts (kept so one corpus trains several vocabularies); `C` is the counter.
pub(super) enum Stage<C> {
    Counting(Box<C>),
    Counted(Vec<(Vec<u32>, u64)>),
}

impl<C: Send> Stage<C> {
    /// The counts, ending the counting stage first (with the GIL released) if it has not ended.
    pub(super) fn counts(&mut self, py: Python<'_>, into_counts: impl FnOnce(C) -> Vec<(Vec<u32>, u64)> + Send) -> PyResult<&[(Vec<u32>, u64)]> {
        if let Stage::Counting(_) = self {
            if let Stage::Counting(counter) = std::mem::replace(self, Stage::Counted(Vec::new())) {
                *self = Stage::Counted(py.detach(|| into_counts(*counter)));
            }
        }
        match self {
            Stage::Counted(counts) => Ok(counts),
            Stage::Counting(_) => Err(PyRuntimeError::new_err("internal error: the words were not counted")),
        }
    }
}

/// Runs `train` with the GIL released, handing it a `report(size, target)` that calls
/// `progress` with the GIL held; the callback's exception (or Ctrl-C) stops training
/// (`report` returns false) and is raised.
pub(super) fn with_progress<T: Send>(
    py: Python<'_>,
    progress: Option<Py<PyAny>>,
    train: impl FnOnce(Progress<'_>) -> T + Send,
) -> PyResult<T> {
    let mut failure: Option<PyErr> = None;
    let out = py.detach(|| {
        let mut report = |size: usize, target: usize| -> bool {
            Python::attach(|py| {
                let result = py.check_signals().and_then(|_| match &progress {
                    Some(cb) => cb.call1(py, (size, target)).map(|_| ()),
                    None => Ok(()),
                });
                match result {
                    Ok(()) => true,
                    Err(e) => {
                        failure = Some(e);
                        false
                    }
                }
            })
        };
        train(&mut report)
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// BPE on `counts` (see [`with_progress`]).
pub(super) fn run_bpe(py: Python<'_>, counts: &[(Vec<u32>, u64)], opts: &PyBpeOptions, progress: Option<Py<PyAny>>) -> PyResult<BpeResult> {
    let t = with_progress(py, progress, |report| train_bpe(counts, &opts.0, report))?.map_err(PyErr::from)?;
    Ok((t.tokens, t.merges, t.alphabet))
}

#[pyclass(frozen, module = "bertpiece._core", name = "ByteLevelCounter")]
pub(super) struct PyByteLevelCounter {
    stage: Mutex<Stage<ByteLevelCounter>>,
    /// pre-tokens seen, unique pre-tokens
    stats: Mutex<(u64, usize)>,
}

#[pymethods]
impl PyByteLevelCounter {
    #[new]
    #[pyo3(signature = (*, add_prefix_space=false))]
    fn new(add_prefix_space: bool) -> PyResult<Self> {
        let counter = ByteLevelCounter::new(add_prefix_space)?;
        Ok(PyByteLevelCounter { stage: Mutex::new(Stage::Counting(Box::new(counter))), stats: Mutex::new((0, 0)) })
    }

    /// HF's `ByteLevel.alphabet()`, sorted.
    #[staticmethod]
    fn alphabet() -> Vec<String> {
        let mut a: Vec<String> = byte_level::alphabet().into_iter().map(String::from).collect();
        a.sort_unstable();
        a
    }

    /// Counts the pre-tokens of `texts` (a list of str; a lone surrogate
    /// raises UnicodeEncodeError).
    #[pyo3(signature = (texts, num_threads=None))]
    fn feed(&self, py: Python<'_>, texts: &Bound<'_, PyAny>, num_threads: Option<i64>) -> PyResult<()> {
        let threads = thread_count(py, num_threads)?;
        let read = BatchTexts::read(texts, Reference::Tokenizers, "texts")?;
        let bytes = read.slices();
        let mut stage = self.stage.try_lock().map_err(|_| PyRuntimeError::new_err("this ByteLevelCounter is in use by another thread"))?;
        let Stage::Counting(counter) = &mut *stage else {
            return Err(PyValueError::new_err("cannot feed a ByteLevelCounter after training from it"));
        };
        py.detach(|| counter.feed(&bytes, threads))?;
        *self.stats.lock().unwrap_or_else(|e| e.into_inner()) = (counter.words, counter.unique_words());
        Ok(())
    }

    /// `(pre-tokens, unique pre-tokens)` so far.
    fn stats(&self) -> (u64, usize) {
        *self.stats.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Trains BPE on the counted words: `(tokens, merges, alphabet size)`
    /// (`bertpiece.trainers`); `progress(size, target)` during the merges.
    #[pyo3(signature = (options, progress=None))]
    fn train_bpe(&self, py: Python<'_>, options: PyRef<'_, PyBpeOptions>, progress: Option<Py<PyAny>>) -> PyResult<BpeResult> {
        let mut stage = self.stage.try_lock().map_err(|_| PyRuntimeError::new_err("this ByteLevelCounter is in use by another thread"))?;
        let counts = stage.counts(py, ByteLevelCounter::into_counts)?;
        run_bpe(py, counts, &options, progress)
    }
}
