//! `PipelineTokenizer`: the general pipeline loaded from a tokenizer.json,
//! behind `bertpiece.Tokenizer` (python/bertpiece/tokenizers_api/). Encodings
//! come back as tuples of columns; the facade wraps them in `Encoding`.

use super::args::thread_count;
use crate::encoding::Encoding;
use crate::pipeline::{Input, Tokenizer};
use crate::threads;
use pyo3::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;

type Columns = (
    Vec<u32>,
    Vec<u32>,
    Vec<String>,
    Vec<Option<u32>>,
    Vec<(usize, usize)>,
    Vec<u32>,
    Vec<u32>,
    Vec<Option<usize>>,
);

fn columns(e: Encoding) -> Columns {
    let seq = e.sequence_ids();
    (e.ids, e.type_ids, e.tokens, e.words, e.offsets, e.special_tokens_mask, e.attention_mask, seq)
}

/// One input: its words (one text unless pre-tokenized) and its pair's.
type Item = (Vec<String>, Option<Vec<String>>);

fn input(words: &[String], is_pretokenized: bool) -> Input<'_> {
    match (is_pretokenized, words) {
        (false, [text]) => Input::Raw(text),
        _ => Input::PreTokenized(words.iter().map(String::as_str).collect()),
    }
}

fn encode_one(t: &Tokenizer, item: &Item, is_pretokenized: bool, add_special_tokens: bool) -> crate::Result<Encoding> {
    let pair = item.1.as_deref().map(|p| input(p, is_pretokenized));
    t.encode(&input(&item.0, is_pretokenized), pair.as_ref(), add_special_tokens)
}

#[pyclass(frozen, module = "bertpiece._core", name = "PipelineTokenizer")]
pub(super) struct PyPipelineTokenizer {
    inner: Arc<Tokenizer>,
}

#[pymethods]
impl PyPipelineTokenizer {
    /// Loads a tokenizer.json given as a string.
    #[staticmethod]
    fn from_str(py: Python<'_>, json: String) -> PyResult<Self> {
        let inner = py.detach(|| Tokenizer::from_json(&json))?;
        Ok(PyPipelineTokenizer { inner: Arc::new(inner) })
    }

    #[pyo3(signature = (item, is_pretokenized, add_special_tokens))]
    fn encode(&self, py: Python<'_>, item: Item, is_pretokenized: bool, add_special_tokens: bool) -> PyResult<Columns> {
        let t = &self.inner;
        Ok(py.detach(|| encode_one(t, &item, is_pretokenized, add_special_tokens).map(columns))?)
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
    ) -> PyResult<Vec<Columns>> {
        let threads = threads::thread_count(thread_count(py, num_threads)?)?;
        let t = &self.inner;
        let out = py.detach(|| {
            threads::run_jobs(threads, items.len(), |k| encode_one(t, &items[k], is_pretokenized, add_special_tokens))
        })?;
        Ok(out.into_iter().map(|r| r.map(columns)).collect::<crate::Result<Vec<_>>>()?)
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
        self.inner.config.post_processor.as_ref().map_or(0, |p| p.added_tokens(is_pair))
    }
}
