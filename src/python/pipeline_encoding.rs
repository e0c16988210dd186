//! `PipelineEncoding` (exported as `bertpiece.Encoding`): one encoding of the
//! general pipeline, kept in Rust; each attribute becomes a Python list only
//! when read, as `tokenizers.Encoding` does. Building every column's Python
//! objects eagerly (a str and a tuple per token) cost more than tokenizing.
//! An encoding of one text made on the ids-only path ([`IdsRow`]) holds only its
//! ids until another attribute is read (docs/benchmarks/encode-objects-45.md).

use super::pipeline_shared::{detached_if_long, shrunk, Shared};
use crate::room::make_room;
use crate::encoding::{Encoding, TokenVocab};
use crate::pipeline::{Input, Settings, Tokenizer};
use crate::processors::truncation::TruncationParams;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyList, PyTuple, PyType};
use std::sync::{Arc, OnceLock};

/// The texts of an encoding's tokens stored as ids: its tokenizer's vocabulary
/// (the tokenizer is immutable: it outlives the call that made the encoding),
/// and the tokenizer's Python-side state (its ids as shared Python ints: [`Shared`]).
/// An unpickled encoding has all its texts, so it needs neither.
#[derive(Clone)]
pub(super) struct Vocab(pub(super) Option<Arc<Tokenizer>>, pub(super) Option<Arc<Shared>>);

impl TokenVocab for Vocab {
    fn text(&self, id: u32) -> Option<&str> {
        self.0.as_ref()?.text(id)
    }
}

/// One text's encoding from the ids-only path (src/pipeline_ids.rs): its ids, and what
/// makes the rest of its columns when one is first read: the general path's `encode` of
/// the same text (the caller's str, referenced, not copied) with the same options, on the
/// same immutable tokenizer. Both paths give the same ids (tests/test_pipeline_encoding_lazy.py).
pub(super) struct IdsRow {
    pub(super) ids: Box<[u32]>,
    pub(super) text: PyBackedStr,
    pub(super) add_special_tokens: bool,
    pub(super) truncation: Option<TruncationParams>,
    /// Truncation cut the text: its `overflowing` is not empty (else it is, with no `encode`).
    pub(super) truncated: bool,
}

/// `row`'s offsets from the ids-only path with offsets, where it takes the text (it gives
/// `encode`'s; None: it declines, the caller takes `encode`).
pub(super) fn row_offsets(t: &Tokenizer, row: &IdsRow) -> crate::Result<Option<Vec<[u32; 2]>>> {
    let Some(plan) = t.ids_plan(row.add_special_tokens, row.truncation, true) else { return Ok(None) };
    let (mut ids, mut offsets) = (Vec::new(), Vec::new());
    make_room(&mut ids, row.ids.len(), "token ids")?;
    make_room(&mut offsets, row.ids.len(), "token offsets")?;
    let done = t.encode_ids_run(&plan, &[&row.text], &mut ids, Some(&mut offsets), |_, _| ())?;
    Ok((done == 1 && ids[..] == row.ids[..] && offsets.len() == ids.len()).then_some(offsets))
}

/// The encodings are boxed: inline, they made the object 536 bytes, past the 512 that CPython's
/// small-object allocator serves (every object then came from malloc).
enum Body {
    Full(Box<Encoding>),
    /// The row, and its full encoding once made.
    Ids(IdsRow, OnceLock<Box<Encoding>>),
}

#[pyclass(frozen, module = "bertpiece._core", name = "PipelineEncoding")]
pub(super) struct PyPipelineEncoding {
    body: Body,
    vocab: Vocab,
    /// Each column's list, made on first read and returned again after (as the
    /// eager lists were): reading `enc.word_ids[k]` in a loop stays linear.
    lists: [OnceLock<Py<PyList>>; 9],
}

impl PyPipelineEncoding {
    pub(super) fn new(e: Encoding, vocab: Vocab) -> Self {
        PyPipelineEncoding { body: Body::Full(Box::new(e)), vocab, lists: Default::default() }
    }

    /// An encoding holding `row`'s ids only (`vocab` names the tokenizer that made them).
    pub(super) fn from_ids(row: IdsRow, vocab: Vocab) -> Self {
        PyPipelineEncoding { body: Body::Ids(row, OnceLock::new()), vocab, lists: Default::default() }
    }

    fn ids_slice(&self) -> &[u32] {
        match &self.body {
            Body::Full(e) => &e.ids,
            Body::Ids(r, _) => &r.ids,
        }
    }

    /// The whole encoding (an [`IdsRow`]'s made by `encode` on first use).
    fn e(&self, py: Python<'_>) -> PyResult<&Encoding> {
        let (row, full) = match &self.body {
            Body::Full(e) => return Ok(e),
            Body::Ids(row, full) => (row, full),
        };
        if let Some(e) = full.get() {
            return Ok(e);
        }
        let t = self.vocab.0.as_ref().ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("Encoding: no tokenizer to make its columns"))?;
        if let Some(shared) = &self.vocab.1 {
            shared.usage.made_whole();
        }
        let settings = Settings { truncation: row.truncation, padding: None };
        let e = detached_if_long(py, row.text.len(), || t.encode(&Input::Raw(&row.text), None, row.add_special_tokens, &settings))?;
        // The two paths are tested equal; should they ever differ, an encoding whose ids and other
        // columns disagree must be an error, not a silent mix of two answers.
        if e.ids[..] != row.ids[..] {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "Encoding: the ids-only path and encode gave different ids for this text (a bertpiece bug: please report it)",
            ));
        }
        // kept as long as the object: cut to its length where much room is unused (as a batch's are)
        let e = shrunk(e);
        Ok(full.get_or_init(|| Box::new(e)))
    }

    fn cached<'py>(&self, py: Python<'py>, k: usize, make: impl FnOnce() -> PyResult<Bound<'py, PyList>>) -> PyResult<Bound<'py, PyList>> {
        if let Some(l) = self.lists[k].get() {
            return Ok(l.bind(py).clone());
        }
        let l = make()?;
        let _ = self.lists[k].set(l.clone().unbind());
        Ok(self.lists[k].get().map_or(l, |c| c.bind(py).clone()))
    }

    /// `ids` as a list of the tokenizer's shared ints (new ints where there is no table).
    fn int_list<'py>(&self, py: Python<'py>, ids: &[u32]) -> PyResult<Bound<'py, PyList>> {
        match &self.vocab.1 {
            Some(shared) => shared.ints.list(py, ids),
            None => PyList::new(py, ids),
        }
    }

    /// The `offsets` list: an [`IdsRow`]'s not made whole yet from the ids-only path with
    /// offsets (what `encode` gives, at a third to a half of its cost), else the encoding's.
    fn offsets_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        if let (Body::Ids(row, full), Some(t), Some(shared)) = (&self.body, &self.vocab.0, &self.vocab.1) {
            if full.get().is_none() {
                let spans = detached_if_long(py, row.text.len(), || row_offsets(t, row))?;
                if let Some(spans) = spans {
                    return shared.ints.pairs(py, spans.iter().map(|&[s, e]| (s as usize, e as usize)));
                }
            }
        }
        let e = self.e(py)?;
        match &self.vocab.1 {
            Some(shared) => shared.ints.pairs(py, e.offsets.iter().copied()),
            None => PyList::new(py, &e.offsets),
        }
    }

    fn overflowing_of(&self, py: Python<'_>) -> PyResult<Vec<PyPipelineEncoding>> {
        if let Body::Ids(IdsRow { truncated: false, .. }, full) = &self.body {
            if full.get().is_none() {
                return Ok(Vec::new());
            }
        }
        Ok(self.e(py)?.overflowing.iter().map(|o| PyPipelineEncoding::new(o.clone(), self.vocab.clone())).collect())
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
        self.cached(py, 0, || self.int_list(py, self.ids_slice()))
    }

    #[getter]
    fn type_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 1, || self.int_list(py, &self.e(py)?.type_ids))
    }

    #[getter]
    fn tokens<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 2, || {
            let e = self.e(py)?;
            PyList::new(py, (0..e.len()).map(|i| e.token(i, &self.vocab)))
        })
    }

    #[getter]
    fn word_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 3, || PyList::new(py, &self.e(py)?.words))
    }

    /// Deprecated alias of `word_ids` (as in tokenizers).
    #[getter]
    fn words<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.word_ids(py)
    }

    #[getter]
    fn offsets<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 4, || self.offsets_list(py))
    }

    #[getter]
    fn special_tokens_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 5, || self.int_list(py, &self.e(py)?.special_tokens_mask))
    }

    #[getter]
    fn attention_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 6, || match &self.body {
            // unpadded (an ids row never is): every token's mask is 1, as `encode` makes it
            Body::Ids(row, full) if full.get().is_none() => PyList::new(py, std::iter::repeat_n(1u32, row.ids.len())),
            _ => self.int_list(py, &self.e(py)?.attention_mask),
        })
    }

    #[getter]
    fn sequence_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 7, || PyList::new(py, self.e(py)?.sequence_ids()))
    }

    /// What truncation cut off, each piece an encoding of its own (nested for pairs, as in HF).
    #[getter]
    fn overflowing(&self, py: Python<'_>) -> PyResult<Vec<PyPipelineEncoding>> {
        self.overflowing_of(py)
    }

    /// Alignment, as `tokenizers.Encoding`'s (src/encoding_align.rs).
    #[getter]
    fn n_sequences(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.e(py)?.n_sequences())
    }

    fn token_to_sequence(&self, py: Python<'_>, token_index: usize) -> PyResult<Option<usize>> {
        Ok(self.e(py)?.token_to_sequence(token_index))
    }

    fn token_to_chars(&self, py: Python<'_>, token_index: usize) -> PyResult<Option<(usize, usize)>> {
        Ok(self.e(py)?.token_to_chars(token_index))
    }

    fn token_to_word(&self, py: Python<'_>, token_index: usize) -> PyResult<Option<u32>> {
        Ok(self.e(py)?.token_to_word(token_index))
    }

    #[pyo3(signature = (word_index, sequence_index=0))]
    fn word_to_tokens(&self, py: Python<'_>, word_index: u32, sequence_index: usize) -> PyResult<Option<(usize, usize)>> {
        Ok(self.e(py)?.word_to_tokens(word_index, sequence_index))
    }

    #[pyo3(signature = (word_index, sequence_index=0))]
    fn word_to_chars(&self, py: Python<'_>, word_index: u32, sequence_index: usize) -> PyResult<Option<(usize, usize)>> {
        Ok(self.e(py)?.word_to_chars(word_index, sequence_index))
    }

    #[pyo3(signature = (char_pos, sequence_index=0))]
    fn char_to_token(&self, py: Python<'_>, char_pos: usize, sequence_index: usize) -> PyResult<Option<usize>> {
        Ok(self.e(py)?.char_to_token(char_pos, sequence_index))
    }

    #[pyo3(signature = (char_pos, sequence_index=0))]
    fn char_to_word(&self, py: Python<'_>, char_pos: usize, sequence_index: usize) -> PyResult<Option<u32>> {
        Ok(self.e(py)?.char_to_word(char_pos, sequence_index))
    }

    fn __len__(&self) -> usize {
        self.ids_slice().len()
    }

    fn __repr__(&self) -> String {
        format!(
            "Encoding(num_tokens={}, attributes=[ids, type_ids, tokens, offsets, attention_mask, special_tokens_mask, overflowing])",
            self.ids_slice().len()
        )
    }

    /// Pickling: the columns, the sequence ranges and the overflowing pieces.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let e = self.e(py)?;
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
        let args = (cols, ranges, self.overflowing_of(py)?).into_pyobject(py)?;
        Ok((restore, args))
    }

    #[classmethod]
    fn _from_state(
        cls: &Bound<'_, PyType>,
        cols: Columns,
        ranges: Vec<(usize, usize, usize)>,
        overflowing: Vec<PyRef<'_, PyPipelineEncoding>>,
    ) -> PyResult<PyPipelineEncoding> {
        let py = cls.py();
        let (ids, type_ids, tokens, words, offsets, special_tokens_mask, attention_mask) = cols;
        let n = ids.len();
        let lens = [type_ids.len(), tokens.len(), words.len(), offsets.len(), special_tokens_mask.len(), attention_mask.len()];
        if lens.iter().any(|&l| l != n) || ranges.iter().any(|&(_, s, e)| s > e || e > n) {
            return Err(pyo3::exceptions::PyValueError::new_err("Encoding state: columns of unequal length or a sequence range outside them"));
        }
        let overflowing = overflowing.iter().map(|o| Ok(with_texts(o.e(py)?, &o.vocab))).collect::<PyResult<_>>()?;
        Ok(PyPipelineEncoding::new(Encoding {
            ids,
            type_ids,
            tokens: tokens.into_iter().map(|t| Some(t.into_boxed_str())).collect(),
            words,
            offsets,
            special_tokens_mask,
            attention_mask,
            sequence_ranges: ranges.into_iter().map(|(k, s, e)| (k, s..e)).collect(),
            overflowing,
        }, Vocab(None, None)))
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
