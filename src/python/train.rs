//! Vocabulary training: `WordCounter` (fed batches of texts, GIL released,
//! counted in parallel), then `train` on the counts. The facade is
//! `bertpiece.training`.

use super::args::{max_chars_arg, thread_count, BatchTexts};
use super::train_bpe::{run_bpe, single_chars, with_progress, BpeResult, PyBpeOptions, Stage};
use crate::normalizer::Reference;
use crate::train::{self, Algorithm, CountOptions, TrainOptions, WordCounter};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::Mutex;

#[pyclass(frozen, module = "bertpiece._core", name = "WordCounter")]
pub(super) struct PyWordCounter {
    stage: Mutex<Stage<WordCounter>>,
    /// words seen, words skipped for their length, unique words
    stats: Mutex<(u64, u64, usize)>,
}

impl PyWordCounter {
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, Stage<WordCounter>>> {
        self.stage.try_lock().map_err(|_| PyRuntimeError::new_err("this WordCounter is in use by another thread"))
    }

    /// The stage, counting finished (the counts kept for further training).
    fn counts(&self, py: Python<'_>) -> PyResult<std::sync::MutexGuard<'_, Stage<WordCounter>>> {
        let mut stage = self.lock()?;
        stage.counts(py, WordCounter::into_counts)?;
        Ok(stage)
    }
}

#[pymethods]
impl PyWordCounter {
    #[new]
    #[pyo3(signature = (*, reference="google", do_lower_case=true, strip_accents=None,
        tokenize_chinese_chars=true, max_input_chars_per_word=None))]
    fn new(
        reference: &str,
        do_lower_case: bool,
        strip_accents: Option<bool>,
        tokenize_chinese_chars: bool,
        max_input_chars_per_word: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let reference = Reference::parse(reference)?;
        // Past 64 bits: no limit in effect, as for the tokenizers (never a bare OverflowError).
        let max_chars = match max_chars_arg(max_input_chars_per_word.as_ref(), Reference::Google)? {
            Some(n) if n <= 0 => return Err(PyValueError::new_err(format!("max_input_chars_per_word must be positive, got {n}"))),
            Some(n) => Some(n as usize),
            None => None,
        };
        let opts = CountOptions { reference, do_lower_case, strip_accents, tokenize_chinese_chars, max_chars };
        Ok(PyWordCounter { stage: Mutex::new(Stage::Counting(Box::new(WordCounter::new(opts)?))), stats: Mutex::new((0, 0, 0)) })
    }

    /// Counts the words of `texts` (a list of str). A text holding a lone
    /// surrogate raises UnicodeEncodeError whatever the reference (read as
    /// HF tokenizers reads text): no vocabulary can hold one, and the facade
    /// turns it into an error naming the text.
    #[pyo3(signature = (texts, num_threads=None))]
    fn feed(&self, py: Python<'_>, texts: &Bound<'_, PyAny>, num_threads: Option<i64>) -> PyResult<()> {
        let threads = thread_count(py, num_threads)?;
        let read = BatchTexts::read(texts, Reference::Tokenizers, "texts")?;
        let bytes = read.slices();
        let mut stage = self.lock()?;
        let Stage::Counting(counter) = &mut *stage else {
            return Err(PyValueError::new_err("cannot feed a WordCounter after training from it"));
        };
        py.detach(|| counter.feed(&bytes, threads))?;
        let mut stats = self.stats.lock().unwrap_or_else(|e| e.into_inner());
        *stats = (counter.words, counter.skipped, counter.unique_words());
        Ok(())
    }

    /// `(words, words skipped as too long, unique words)` so far.
    fn stats(&self) -> (u64, u64, usize) {
        *self.stats.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Trains BPE on the counted words: `(tokens, merges, alphabet size)`
    /// (`bertpiece.trainers`); `progress(size, target)` during the merges.
    #[pyo3(signature = (options, progress=None))]
    fn train_bpe(&self, py: Python<'_>, options: PyRef<'_, PyBpeOptions>, progress: Option<Py<PyAny>>) -> PyResult<BpeResult> {
        let counts = self.counts(py)?;
        let Stage::Counted(counts) = &*counts else {
            return Err(PyRuntimeError::new_err("internal error: the words were not counted"));
        };
        run_bpe(py, counts, &options, progress)
    }

    /// Trains a vocabulary: `(tokens in id order, alphabet size, merges)`.
    /// `progress(size, target)` is called during the merges.
    #[pyo3(signature = (vocab_size, *, algorithm="likelihood", special_tokens=Vec::new(), unused_tokens=0,
        min_frequency=0, limit_alphabet=None, initial_alphabet=Vec::new(), continuing_subword_prefix="##".to_string(),
        initial_tokens=None, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn train(
        &self,
        py: Python<'_>,
        vocab_size: usize,
        algorithm: &str,
        special_tokens: Vec<String>,
        unused_tokens: usize,
        min_frequency: u64,
        limit_alphabet: Option<usize>,
        initial_alphabet: Vec<String>,
        continuing_subword_prefix: String,
        initial_tokens: Option<Vec<String>>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<(Vec<String>, usize, usize)> {
        let chars = single_chars(&initial_alphabet)?;
        let opts = TrainOptions {
            vocab_size,
            algorithm: Algorithm::parse(algorithm)?,
            special_tokens,
            unused_tokens,
            min_frequency,
            limit_alphabet,
            initial_alphabet: chars,
            prefix: continuing_subword_prefix,
            initial_tokens,
        };
        let stage = self.counts(py)?;
        let Stage::Counted(counts) = &*stage else {
            return Err(PyRuntimeError::new_err("internal error: the words were not counted"));
        };
        let trained = with_progress(py, progress, |report| train::train(counts, &opts, report))?;
        let t = trained.map_err(PyErr::from)?;
        Ok((t.tokens, t.alphabet, t.merges))
    }
}
