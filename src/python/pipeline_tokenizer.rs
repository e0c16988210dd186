//! `PipelineTokenizer`: the general pipeline loaded from a tokenizer.json,
//! behind `bertpiece.Tokenizer` (python/bertpiece/tokenizers_api/). Encodings
//! come back as `PipelineEncoding` objects (`bertpiece.Encoding`).

use super::args::thread_count;
use crate::encoding::Encoding;
use crate::pipeline::{Input, Settings, Tokenizer};
use crate::processors::padding::pad_encodings;
use crate::threads;
use pyo3::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use super::pipeline_encoding::PyPipelineEncoding;
use super::pipeline_settings::{read, PadTuple, TruncTuple};

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
    inner: Arc<Tokenizer>,
    /// Truncation and padding: the file's, changed by enable_*/no_*.
    settings: RwLock<Settings>,
}

impl PyPipelineTokenizer {
    fn settings(&self) -> Settings {
        read(&self.settings)
    }
}

#[pymethods]
impl PyPipelineTokenizer {
    /// Loads a tokenizer.json given as a string; `fast_path=False` keeps
    /// byte-level BPE on the general path (for checking one against the other).
    #[staticmethod]
    #[pyo3(signature = (json, fast_path=true))]
    fn from_str(py: Python<'_>, json: String, fast_path: bool) -> PyResult<Self> {
        let mut inner = py.detach(|| Tokenizer::from_json(&json))?;
        if !fast_path {
            inner.disable_fast_path();
        }
        let settings = RwLock::new(inner.config.settings.clone());
        Ok(PyPipelineTokenizer { inner: Arc::new(inner), settings })
    }

    #[pyo3(signature = (item, is_pretokenized, add_special_tokens))]
    fn encode(&self, py: Python<'_>, item: Item, is_pretokenized: bool, add_special_tokens: bool) -> PyResult<PyPipelineEncoding> {
        let (t, s) = (&self.inner, self.settings());
        Ok(py.detach(|| encode_one(t, &item, is_pretokenized, add_special_tokens, &s).map(PyPipelineEncoding::new))?)
    }

    /// Encodes all `items` on up to `num_threads` threads (all cores by default), GIL released.
    #[pyo3(signature = (items, is_pretokenized, add_special_tokens, num_threads=None))]
    fn encode_batch(
        &self,
        py: Python<'_>,
        items: Vec<Item>,
        is_pretokenized: bool,
        add_special_tokens: bool,
        num_threads: Option<i64>,
    ) -> PyResult<Vec<PyPipelineEncoding>> {
        let threads = threads::thread_count(thread_count(py, num_threads)?)?;
        let (t, s) = (&self.inner, self.settings());
        let out = py.detach(|| -> crate::Result<Vec<Encoding>> {
            let out = threads::run_jobs(threads, items.len(), |k| encode_one(t, &items[k], is_pretokenized, add_special_tokens, &s))?;
            let mut out = out.into_iter().collect::<crate::Result<Vec<_>>>()?;
            // HF pads each encoding, then the batch together (BatchLongest: to the longest).
            if let Some(p) = &s.padding {
                pad_encodings(&mut out, p)?;
            }
            Ok(out)
        })?;
        Ok(out.into_iter().map(PyPipelineEncoding::new).collect())
    }

    fn decode(&self, py: Python<'_>, ids: Vec<u32>, skip_special_tokens: bool) -> String {
        py.detach(|| self.inner.decode(&ids, skip_special_tokens))
    }

    #[pyo3(signature = (batch, skip_special_tokens, num_threads=None))]
    fn decode_batch(&self, py: Python<'_>, batch: Vec<Vec<u32>>, skip_special_tokens: bool, num_threads: Option<i64>) -> PyResult<Vec<String>> {
        let threads = threads::thread_count(thread_count(py, num_threads)?)?;
        let t = &self.inner;
        Ok(py.detach(|| threads::run_jobs(threads, batch.len(), |k| t.decode(&batch[k], skip_special_tokens)))?)
    }

    /// Whether encoding takes the byte-level fast path.
    fn has_fast_path(&self) -> bool {
        self.inner.has_fast_path()
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

    /// Special tokens as HF's `post_processor.num_special_tokens_to_add`.
    fn num_special_tokens_to_add(&self, is_pair: bool) -> usize {
        self.inner.num_special_tokens_to_add(is_pair)
    }

    /// (max_length, stride, strategy, direction), or None.
    fn get_truncation(&self) -> Option<TruncTuple> {
        super::pipeline_settings::trunc_tuple(&self.settings())
    }

    #[pyo3(signature = (params))]
    fn set_truncation(&self, params: Option<TruncTuple>) -> PyResult<()> {
        super::pipeline_settings::set_truncation(&self.settings, &self.inner, params)
    }

    /// (length, pad_to_multiple_of, pad_id, pad_token, pad_type_id, direction), or None.
    fn get_padding(&self) -> Option<PadTuple> {
        super::pipeline_settings::pad_tuple(&self.settings())
    }

    #[pyo3(signature = (params))]
    fn set_padding(&self, params: Option<PadTuple>) -> PyResult<()> {
        super::pipeline_settings::set_padding(&self.settings, params)
    }
}
