//! `PipelineEncoding` (exported as `bertpiece.Encoding`): one encoding of the
//! general pipeline, kept in Rust; each attribute becomes a Python list only
//! when read, as `tokenizers.Encoding` does. Building every column's Python
//! objects eagerly (a str and a tuple per token) cost more than tokenizing.

use crate::encoding::{Encoding, TokenVocab};
use crate::pipeline::Tokenizer;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple, PyType};
use std::sync::{Arc, OnceLock};

/// The texts of an encoding's tokens stored as ids: its tokenizer's vocabulary
/// (the tokenizer is immutable: it outlives the call that made the encoding).
/// An unpickled encoding has all its texts, so it needs none.
#[derive(Clone)]
pub(super) struct Vocab(pub(super) Option<Arc<Tokenizer>>);

impl TokenVocab for Vocab {
    fn text(&self, id: u32) -> Option<&str> {
        self.0.as_ref()?.text(id)
    }
}

#[pyclass(frozen, module = "bertpiece._core", name = "PipelineEncoding")]
pub(super) struct PyPipelineEncoding {
    e: Encoding,
    vocab: Vocab,
    /// Each column's list, made on first read and returned again after (as the
    /// eager lists were): reading `enc.word_ids[k]` in a loop stays linear.
    lists: [OnceLock<Py<PyList>>; 9],
}

impl PyPipelineEncoding {
    pub(super) fn new(e: Encoding, vocab: Vocab) -> Self {
        PyPipelineEncoding { e, vocab, lists: Default::default() }
    }

    fn cached<'py>(&self, py: Python<'py>, k: usize, make: impl FnOnce() -> PyResult<Bound<'py, PyList>>) -> PyResult<Bound<'py, PyList>> {
        if let Some(l) = self.lists[k].get() {
            return Ok(l.bind(py).clone());
        }
        let l = make()?;
        let _ = self.lists[k].set(l.clone().unbind());
        Ok(self.lists[k].get().map_or(l, |c| c.bind(py).clone()))
    }
}

type Columns = (
    Vec<u32>,
    Vec<u32>,
    Vec<String>,
    Vec<Option<u32>>,
    Vec<(usize, usize)>,
    Vec<u32>,
    Vec<u32>,
);

#[pymethods]
impl PyPipelineEncoding {
    #[getter]
    fn ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 0, || PyList::new(py, &self.e.ids))
    }

    #[getter]
    fn type_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 1, || PyList::new(py, &self.e.type_ids))
    }

    #[getter]
    fn tokens<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 2, || PyList::new(py, (0..self.e.len()).map(|i| self.e.token(i, &self.vocab))))
    }

    #[getter]
    fn word_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 3, || PyList::new(py, &self.e.words))
    }

    /// Deprecated alias of `word_ids` (as in tokenizers).
    #[getter]
    fn words<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 3, || PyList::new(py, &self.e.words))
    }

    #[getter]
    fn offsets<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 4, || PyList::new(py, &self.e.offsets))
    }

    #[getter]
    fn special_tokens_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 5, || PyList::new(py, &self.e.special_tokens_mask))
    }

    #[getter]
    fn attention_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 6, || PyList::new(py, &self.e.attention_mask))
    }

    #[getter]
    fn sequence_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 7, || PyList::new(py, self.e.sequence_ids()))
    }

    /// What truncation cut off, each piece an encoding of its own (nested for pairs, as in HF).
    #[getter]
    fn overflowing(&self) -> Vec<PyPipelineEncoding> {
        self.e.overflowing.iter().map(|o| PyPipelineEncoding::new(o.clone(), self.vocab.clone())).collect()
    }

    /// Alignment, as `tokenizers.Encoding`'s (src/encoding_align.rs).
    #[getter]
    fn n_sequences(&self) -> usize {
        self.e.n_sequences()
    }

    fn token_to_sequence(&self, token_index: usize) -> Option<usize> {
        self.e.token_to_sequence(token_index)
    }

    fn token_to_chars(&self, token_index: usize) -> Option<(usize, usize)> {
        self.e.token_to_chars(token_index)
    }

    fn token_to_word(&self, token_index: usize) -> Option<u32> {
        self.e.token_to_word(token_index)
    }

    #[pyo3(signature = (word_index, sequence_index=0))]
    fn word_to_tokens(&self, word_index: u32, sequence_index: usize) -> Option<(usize, usize)> {
        self.e.word_to_tokens(word_index, sequence_index)
    }

    #[pyo3(signature = (word_index, sequence_index=0))]
    fn word_to_chars(&self, word_index: u32, sequence_index: usize) -> Option<(usize, usize)> {
        self.e.word_to_chars(word_index, sequence_index)
    }

    #[pyo3(signature = (char_pos, sequence_index=0))]
    fn char_to_token(&self, char_pos: usize, sequence_index: usize) -> Option<usize> {
        self.e.char_to_token(char_pos, sequence_index)
    }

    #[pyo3(signature = (char_pos, sequence_index=0))]
    fn char_to_word(&self, char_pos: usize, sequence_index: usize) -> Option<u32> {
        self.e.char_to_word(char_pos, sequence_index)
    }

    fn __len__(&self) -> usize {
        self.e.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "Encoding(num_tokens={}, attributes=[ids, type_ids, tokens, offsets, attention_mask, special_tokens_mask, overflowing])",
            self.e.len()
        )
    }

    /// Pickling: the columns, the sequence ranges and the overflowing pieces.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let e = &self.e;
        let cols: Columns = (
            e.ids.clone(),
            e.type_ids.clone(),
            e.token_strings(&self.vocab),
            e.words.clone(),
            e.offsets.clone(),
            e.special_tokens_mask.clone(),
            e.attention_mask.clone(),
        );
        let ranges: Vec<(usize, usize, usize)> = e.sequence_ranges.iter().map(|(&k, r)| (k, r.start, r.end)).collect();
        let restore = py.get_type::<PyPipelineEncoding>().getattr("_from_state")?;
        let args = (cols, ranges, self.overflowing()).into_pyobject(py)?;
        Ok((restore, args))
    }

    #[classmethod]
    fn _from_state(
        _cls: &Bound<'_, PyType>,
        cols: Columns,
        ranges: Vec<(usize, usize, usize)>,
        overflowing: Vec<PyRef<'_, PyPipelineEncoding>>,
    ) -> PyResult<PyPipelineEncoding> {
        let (ids, type_ids, tokens, words, offsets, special_tokens_mask, attention_mask) = cols;
        let n = ids.len();
        let lens = [type_ids.len(), tokens.len(), words.len(), offsets.len(), special_tokens_mask.len(), attention_mask.len()];
        if lens.iter().any(|&l| l != n) || ranges.iter().any(|&(_, s, e)| s > e || e > n) {
            return Err(pyo3::exceptions::PyValueError::new_err("Encoding state: columns of unequal length or a sequence range outside them"));
        }
        Ok(PyPipelineEncoding::new(Encoding {
            ids,
            type_ids,
            tokens: tokens.into_iter().map(|t| Some(t.into_boxed_str())).collect(),
            words,
            offsets,
            special_tokens_mask,
            attention_mask,
            sequence_ranges: ranges.into_iter().map(|(k, s, e)| (k, s..e)).collect(),
            overflowing: overflowing.iter().map(|o| with_texts(&o.e, &o.vocab)).collect(),
        }, Vocab(None)))
    }
}

/// `e` with every token's text stored (it then needs no vocabulary).
fn with_texts(e: &Encoding, vocab: &Vocab) -> Encoding {
    Encoding {
        tokens: e.token_strings(vocab).into_iter().map(|t| Some(t.into_boxed_str())).collect(),
        overflowing: e.overflowing.iter().map(|o| with_texts(o, vocab)).collect(),
        ..e.clone()
    }
}
