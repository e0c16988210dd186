//! `PreTokenCounter`: the pre-tokens of a `bertpiece.Tokenizer`'s own
//! normalizer and pre-tokenizer counted in Rust (GIL released, on the thread
//! pool), as HF's `Tokenizer.train` feeds its trainers; the counts become a
//! `WordCounts` to train on. The facade is `bertpiece.tokenizers_api.training`.

use super::args::{thread_count, BatchTexts};
use super::train_words::PyWordCounts;
use crate::normalizer::Reference;
use crate::train::pre_tokens::PreTokenCounter;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::Mutex;

#[pyclass(frozen, module = "bertpiece._core", name = "PreTokenCounter")]
pub(super) struct PyPreTokenCounter {
    /// `None` once the counts were taken.
    counter: Mutex<Option<PreTokenCounter>>,
}

impl PyPreTokenCounter {
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, Option<PreTokenCounter>>> {
        self.counter.try_lock().map_err(|_| PyRuntimeError::new_err("this PreTokenCounter is in use by another thread"))
    }
}

#[pymethods]
impl PyPreTokenCounter {
    /// `json`: a tokenizer.json whose normalizer and pre-tokenizer split the texts.
    #[new]
    fn new(py: Python<'_>, json: &str) -> PyResult<Self> {
        let counter = py.detach(|| PreTokenCounter::from_json(json))?;
        Ok(PyPreTokenCounter { counter: Mutex::new(Some(counter)) })
    }

    /// Counts the pre-tokens of `texts` (a list of str; a lone surrogate
    /// raises UnicodeEncodeError).
    #[pyo3(signature = (texts, num_threads=None))]
    fn feed(&self, py: Python<'_>, texts: &Bound<'_, PyAny>, num_threads: Option<i64>) -> PyResult<()> {
        let threads = thread_count(py, num_threads)?;
        let read = BatchTexts::read(texts, Reference::Tokenizers, "texts")?;
        let bytes = read.slices();
        let mut slot = self.lock()?;
        let Some(counter) = slot.as_mut() else {
            return Err(PyValueError::new_err("cannot feed a PreTokenCounter after taking its counts"));
        };
        py.detach(|| counter.feed(&bytes, threads))?;
        Ok(())
    }

    /// `(pre-tokens, unique pre-tokens)` so far.
    fn stats(&self) -> PyResult<(u64, usize)> {
        let slot = self.lock()?;
        Ok(slot.as_ref().map_or((0, 0), |c| (c.words(), c.unique_words())))
    }

    /// Which counter runs: "general" (any normalizer and pre-tokenizer) or the
    /// one-pass counter of a shape: "bert", "byte_level", "metaspace".
    #[getter]
    fn kind(&self) -> PyResult<&'static str> {
        Ok(self.lock()?.as_ref().map_or("spent", |c| c.kind()))
    }

    /// The counts as a `WordCounts` (sorted by code points); the counter is spent.
    fn word_counts(&self, py: Python<'_>) -> PyResult<PyWordCounts> {
        let counter = self.lock()?.take().ok_or_else(|| PyValueError::new_err("the counts of this PreTokenCounter were already taken"))?;
        Ok(PyWordCounts::from_sorted(py.detach(|| counter.into_counts())))
    }
}
