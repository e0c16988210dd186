//! `PipelineTokenizer`: the general pipeline loaded from a tokenizer.json,
//! behind `bertpiece.Tokenizer` (python/bertpiece/tokenizers_api/). Encodings
//! come back as `PipelineEncoding` objects (`bertpiece.Encoding`).

use super::args::{py_str, thread_count};
use super::list_args::ListOf;
use super::lists::new_list;
use crate::encoding::Encoding;
use crate::pipeline::{Input, Settings, Tokenizer};
use crate::processors::padding::pad_encodings;
use crate::threads;
use pyo3::prelude::*;
use pyo3::types::PyList;
use pyo3::pybacked::PyBackedStr;
use crate::added_tokens::AddedToken;
use std::collections::HashMap;
use std::sync::Arc;

use super::pipeline_encoding::{PyPipelineEncoding, Vocab};
use super::pipeline_ints::IntTable;
use super::pipeline_rows::{encoding, one_row, rows, Row};
use super::pipeline_shared::{detached_if_long, shrunk, Shared};
use super::pipeline_settings::{PadTuple, PySettings, TruncTuple};

/// An added token: (content, single_word, lstrip, rstrip, normalized, special).
type TokenTuple = (String, bool, bool, bool, bool, bool);

/// One input: its words (one text unless pre-tokenized) and its pair's.
type Item = (Vec<String>, Option<Vec<String>>);

fn input(words: &[String], is_pretokenized: bool) -> Input<'_> {
    match (is_pretokenized, words) {
        (false, [text]) => Input::Raw(text),
        _ => Input::PreTokenized(words.iter().map(String::as_str).collect()),
    }
}

fn encode_one(t: &Tokenizer, item: &Item, is_pretokenized: bool, add_special_tokens: bool, s: &Settings) -> crate::Result<Encoding> {
    let pair = item.1.as_deref().map(|p| input(p, is_pretokenized));
    t.encode(&input(&item.0, is_pretokenized), pair.as_ref(), add_special_tokens, s)
}

#[pyclass(frozen, module = "bertpiece._core", name = "PipelineTokenizer")]
pub(super) struct PyPipelineTokenizer {
    /// Never changed: adding tokens makes a new `PipelineTokenizer`.
    pub(super) inner: Arc<Tokenizer>,
    /// Its ids as Python ints, shared by its encodings' lists, and how its encodings are read.
    shared: Arc<Shared>,
}

impl PyPipelineTokenizer {
    fn wrap(t: Tokenizer) -> Self {
        let shared = Arc::new(Shared { ints: IntTable::new(t.config.model.vocab_size()), usage: Default::default() });
        PyPipelineTokenizer { inner: Arc::new(t), shared }
    }

    fn vocab(&self) -> Vocab {
        Vocab(Some(self.inner.clone()), Some(self.shared.clone()))
    }
}

#[pymethods]
impl PyPipelineTokenizer {
    /// Loads a tokenizer.json given as a string; `fast_path=False` keeps it
    /// on the general path (tests check the fast paths against it).
    #[staticmethod]
    #[pyo3(signature = (json, fast_path=true))]
    fn from_str(py: Python<'_>, json: String, fast_path: bool) -> PyResult<Self> {
        let inner = py.detach(|| Tokenizer::from_json(&json).map(|t| if fast_path { t } else { t.without_fast_paths() }))?;
        Ok(PyPipelineTokenizer::wrap(inner))
    }

    /// The file's stored truncation and padding.
    fn stored_settings(&self) -> PySettings {
        PySettings::new(self.inner.config.settings.clone())
    }

    #[pyo3(signature = (item, is_pretokenized, add_special_tokens, settings))]
    fn encode(
        &self,
        py: Python<'_>,
        item: Item,
        is_pretokenized: bool,
        add_special_tokens: bool,
        settings: &Bound<'_, PySettings>,
    ) -> PyResult<PyPipelineEncoding> {
        let (t, s) = (&self.inner, &settings.get().inner);
        let e = py.detach(|| encode_one(t, &item, is_pretokenized, add_special_tokens, s))?;
        Ok(PyPipelineEncoding::new(e, self.vocab()))
    }

    /// `encode` of one text (no pair, not pre-tokenized): the per-text call's own entry, the
    /// text borrowed from the Python str (no copy, no list or tuple around it).
    #[pyo3(signature = (text, add_special_tokens, settings))]
    /// Unpadded, a text the ids-only plan takes keeps its ids only (src/python/pipeline_rows.rs).
    fn encode_text(&self, py: Python<'_>, text: PyBackedStr, add_special_tokens: &Bound<'_, PyAny>, settings: &Bound<'_, PySettings>) -> PyResult<PyPipelineEncoding> {
        // a bool or NumPy bool only (tokenizers' TypeError for 1 or None)
        let (t, s, add) = (&self.inner, &settings.get().inner, add_special_tokens.extract::<bool>()?);
        if self.shared.usage.take_ids_path(s.padding.is_some(), 1) {
            let row = detached_if_long(py, text.len(), || one_row(t, &text, add, s.truncation))?;
            return Ok(encoding(py, row, &text, add, s.truncation, &self.vocab()));
        }
        let e = detached_if_long(py, text.len(), || t.encode(&Input::Raw(&text), None, add, s))?;
        Ok(PyPipelineEncoding::new(e, self.vocab()))
    }

    /// `encode_batch` of texts (no pairs, not pre-tokenized), borrowed from the Python strs.
    #[pyo3(signature = (texts, add_special_tokens, settings, num_threads=None))]
    fn encode_batch_texts<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<PyBackedStr>,
        add_special_tokens: &Bound<'_, PyAny>,
        settings: &Bound<'_, PySettings>,
        num_threads: Option<i64>,
    ) -> PyResult<Vec<Bound<'py, PyPipelineEncoding>>> {
        // a bool or NumPy bool only (tokenizers' TypeError for 1 or None)
        let (t, s, add) = (&self.inner, &settings.get().inner, add_special_tokens.extract::<bool>()?);
        if !self.shared.usage.take_ids_path(s.padding.is_some(), texts.len()) {
            return encode_all(py, &self.vocab(), s, texts.len(), num_threads, |k| t.encode(&Input::Raw(&texts[k]), None, add, s));
        }
        // unpadded: runs of texts on the ids-only plan (src/python/pipeline_rows.rs)
        let strs: Vec<&str> = texts.iter().map(|x| &**x).collect();
        let vocab = self.vocab();
        in_order(py, num_threads, texts.len(), |r| rows(t, &strs[r], add, s.truncation), |py, k, row| {
            encoding(py, row, &texts[k], add, s.truncation, &vocab)
        })
    }

    /// Encodes all `items` on up to `num_threads` threads (all cores by default), GIL released.
    #[pyo3(signature = (items, is_pretokenized, add_special_tokens, settings, num_threads=None))]
    fn encode_batch<'py>(
        &self,
        py: Python<'py>,
        items: Vec<Item>,
        is_pretokenized: bool,
        add_special_tokens: bool,
        settings: &Bound<'_, PySettings>,
        num_threads: Option<i64>,
    ) -> PyResult<Vec<Bound<'py, PyPipelineEncoding>>> {
        let (t, s) = (&self.inner, &settings.get().inner);
        encode_all(py, &self.vocab(), s, items.len(), num_threads, |k| encode_one(t, &items[k], is_pretokenized, add_special_tokens, s))
    }

    fn decode<'py>(&self, py: Python<'py>, ids: ListOf<u32>, skip_special_tokens: bool) -> PyResult<Bound<'py, PyAny>> {
        let text = py.detach(|| self.inner.decode(&ids.0, skip_special_tokens))?;
        py_str(py, text.as_bytes())
    }

    #[pyo3(signature = (batch, skip_special_tokens, num_threads=None))]
    fn decode_batch<'py>(
        &self,
        py: Python<'py>,
        batch: ListOf<ListOf<u32>>,
        skip_special_tokens: bool,
        num_threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        let threads = threads::thread_count(thread_count(py, num_threads)?)?;
        let (t, batch) = (&self.inner, &batch.0);
        let texts = py.detach(|| threads::run_jobs(threads, batch.len(), |k| t.decode(&batch[k].0, skip_special_tokens)))?;
        new_list(py, texts.into_iter().map(|text| py_str(py, text?.as_bytes())))
    }

    fn token_to_id(&self, token: &str) -> Option<u32> {
        self.inner.token_to_id(token)
    }

    fn id_to_token(&self, id: u32) -> Option<String> {
        self.inner.id_to_token(id)
    }

    fn get_vocab(&self, with_added_tokens: bool) -> HashMap<String, u32> {
        self.inner.get_vocab(with_added_tokens)
    }

    /// The fast path the file's shape runs on ("byte_level_bpe", "metaspace_unigram", "bert_wordpiece"), or None (the general path).
    fn fast_path(&self) -> Option<&'static str> {
        self.inner.fast_path()
    }

    /// Special tokens as HF's `post_processor.num_special_tokens_to_add`.
    fn num_special_tokens_to_add(&self, is_pair: bool) -> usize {
        self.inner.num_special_tokens_to_add(is_pair)
    }

    /// `settings` with truncation set to `params` (max_length, stride, strategy, direction), or off (None).
    #[pyo3(signature = (settings, params))]
    fn with_truncation(&self, settings: &Bound<'_, PySettings>, params: Option<TruncTuple>) -> PyResult<PySettings> {
        super::pipeline_settings::with_truncation(&settings.get().inner, &self.inner, params)
    }

    /// `settings` with padding set to `params` (length, pad_to_multiple_of, pad_id, pad_token, pad_type_id, direction), or off (None).
    #[pyo3(signature = (settings, params))]
    fn with_padding(&self, settings: &Bound<'_, PySettings>, params: Option<PadTuple>) -> PyResult<PySettings> {
        super::pipeline_settings::with_padding(&settings.get().inner, params)
    }

    /// A new tokenizer with `tokens` added as HF's `add_tokens` adds them, and how many were added.
    fn with_added_tokens(&self, py: Python<'_>, tokens: Vec<TokenTuple>) -> (PyPipelineTokenizer, usize) {
        let tokens: Vec<AddedToken> = tokens
            .into_iter()
            .map(|(content, single_word, lstrip, rstrip, normalized, special)| AddedToken { content, single_word, lstrip, rstrip, normalized, special })
            .collect();
        let (t, n) = py.detach(|| self.inner.with_added_tokens(&tokens));
        (PyPipelineTokenizer::wrap(t), n)
    }

    /// HF's `encode_special_tokens`: special added tokens left in the text as plain text.
    #[getter]
    fn encode_special_tokens(&self) -> bool {
        self.inner.encode_special_tokens
    }

    /// A new tokenizer with `encode_special_tokens` set to `value`.
    fn with_encode_special_tokens(&self, py: Python<'_>, value: bool) -> PyPipelineTokenizer {
        let t = py.detach(|| {
            let mut t = (*self.inner).clone();
            t.encode_special_tokens = value;
            t
        });
        PyPipelineTokenizer::wrap(t)
    }

    /// (id, token) of every added token, by increasing id.
    fn added_tokens(&self) -> Vec<(u32, TokenTuple)> {
        let tuple = |t: &AddedToken| (t.content.clone(), t.single_word, t.lstrip, t.rstrip, t.normalized, t.special);
        self.inner.added_tokens().into_iter().map(|(id, t)| (id, tuple(t))).collect()
    }
}

/// Jobs per thread in [`in_order`] (texts are dealt in runs of about `n / (threads * this)`),
/// and the most texts one job takes.
const JOBS_PER_THREAD: usize = 16;
const MAX_JOB_TEXTS: usize = 512;

/// The share of the jobs (percent, times the other threads) left to the other threads while the
/// calling thread makes the Python objects of those done (as sentencepiece's batch does).
const HANDOVER_PERCENT: usize = 15;

/// The `n` encodings `encode(k)` makes, on up to `num_threads` threads with the GIL released, padded
/// as the settings say (HF pads each encoding, then the batch together: BatchLongest to the longest).
fn encode_all<'py>(
    py: Python<'py>,
    vocab: &Vocab,
    s: &Settings,
    n: usize,
    num_threads: Option<i64>,
    encode: impl Fn(usize) -> crate::Result<Encoding> + Send + Sync,
) -> PyResult<Vec<Bound<'py, PyPipelineEncoding>>> {
    // Columns cut to their length where made (in parallel): a batch's encodings are all kept
    // at once (the per-text calls' results mostly are not kept: there the shrinking cost more
    // than it saved, docs/benchmarks/encode-one-32.md).
    let encode = |k: usize| encode(k).map(shrunk);
    if let Some(p) = &s.padding {
        let threads = threads::thread_count(thread_count(py, num_threads)?)?;
        let out = py.detach(|| -> crate::Result<Vec<Encoding>> {
            let mut out = threads::run_jobs(threads, n, encode)?.into_iter().collect::<crate::Result<Vec<_>>>()?;
            pad_encodings(&mut out, p)?;
            Ok(out)
        })?;
        return out.into_iter().map(|e| Bound::new(py, PyPipelineEncoding::new(e, vocab.clone()))).collect();
    }
    in_order(py, num_threads, n, |r| r.map(&encode).map(|e| e.map(Row::Full)).collect(), |_, _, row| match row {
        Row::Full(e) => PyPipelineEncoding::new(e, vocab.clone()),
        Row::Ids(..) => unreachable!("encode_all makes whole encodings only"),
    })
}

/// The `n` rows `run(range)` makes, by runs of texts on up to `num_threads` threads with the GIL
/// released, each made a Python object by `wrap(k, row)`. The calling thread makes the objects
/// of the runs done, in order, while the other threads encode the rest: made after all the
/// encoding, that serial part was longer than the encoding itself and 2 threads were slower
/// than 1 (docs/benchmarks/encode-one-32.md).
fn in_order<'py>(
    py: Python<'py>,
    num_threads: Option<i64>,
    n: usize,
    run: impl Fn(std::ops::Range<usize>) -> crate::Result<Vec<Row>> + Send + Sync,
    mut wrap: impl FnMut(Python<'_>, usize, Row) -> PyPipelineEncoding + Send,
) -> PyResult<Vec<Bound<'py, PyPipelineEncoding>>> {
    let threads = threads::thread_count(thread_count(py, num_threads)?)?;
    let per_job = (n / (threads * JOBS_PER_THREAD)).clamp(1, MAX_JOB_TEXTS);
    let jobs = n.div_ceil(per_job);
    let reserve = jobs * threads.saturating_sub(1) * HANDOVER_PERCENT / 100;
    let (mut out, mut failed) = (Vec::<Py<PyPipelineEncoding>>::with_capacity(n), None::<PyErr>);
    let job = |j: usize| run(j * per_job..n.min((j + 1) * per_job));
    let ready = |j: usize, done: crate::Result<Vec<Row>>| {
        // the first error in input order, as when all were collected first
        if failed.is_some() {
            return;
        }
        Python::attach(|py| match done {
            Ok(done) => {
                for (k, row) in (j * per_job..).zip(done) {
                    match Bound::new(py, wrap(py, k, row)) {
                        Ok(o) => out.push(o.unbind()),
                        Err(e) => return failed = Some(e),
                    }
                }
            }
            Err(e) => failed = Some(e.into()),
        })
    };
    py.detach(|| threads::run_jobs_in_order(threads, jobs, reserve, job, ready))?;
    match failed {
        Some(e) => Err(e),
        None => Ok(out.into_iter().map(|o| o.into_bound(py)).collect()),
    }
}
