//! `pipeline_encode_flat`: the bulk path of `PipelineTokenizer` (see
//! src/pipeline_batch.rs) behind `bertpiece.Tokenizer.encode_batch_arrays`:
//! texts (a list of str, or Arrow string chunks read in place) to NumPy-ready
//! arrays, the GIL released.

use super::args::{thread_count, Array, BatchTexts};
use super::text_rows::{arrow_texts, utf8_rows, ArrowChunk};
use super::pipeline_settings::PySettings;
use super::pipeline_tokenizer::PyPipelineTokenizer;
use crate::normalizer::Reference;
use crate::pipeline_batch::encode_flat;
use crate::processors::truncation::{Direction, Strategy, TruncationParams};
use crate::threads;
use pyo3::prelude::*;

/// ids (int32), row splits (int64), offsets (int32, `(n, 2)`) or None, and
/// how many rows truncation cut.
type FlatArrays = (Array, Array, Option<Array>, u64);

/// Encodes `texts` (or the `arrow` chunks) one row per text. Truncation:
/// `max_length` cuts each row to that many ids (special tokens included),
/// on the side and by the strategy of the tokenizer's own truncation when it
/// has one (right otherwise); without `max_length`, `own_truncation` says
/// whether the tokenizer's own truncation applies (as `encode_batch` applies
/// it). Padding never applies: the rows are ragged.
#[pyfunction]
#[pyo3(signature = (tokenizer, settings, texts, *, add_special_tokens=true, max_length=None, own_truncation=true,
    return_offsets=false, num_threads=None, arrow=None))]
#[allow(clippy::too_many_arguments)]
pub(super) fn pipeline_encode_flat(
    py: Python<'_>,
    tokenizer: &Bound<'_, PyPipelineTokenizer>,
    settings: &Bound<'_, PySettings>,
    texts: &Bound<'_, PyAny>,
    add_special_tokens: bool,
    max_length: Option<usize>,
    own_truncation: bool,
    return_offsets: bool,
    num_threads: Option<i64>,
    arrow: Option<Vec<ArrowChunk>>,
) -> PyResult<FlatArrays> {
    let tok = tokenizer.get();
    let own = settings.get().inner.truncation;
    let truncation = match max_length {
        Some(max_length) => Some(TruncationParams {
            max_length,
            // Only the kept ids are returned: the stride (overlap of the cut-off pieces) does not matter.
            stride: 0,
            strategy: own.map_or(Strategy::LongestFirst, |t| t.strategy),
            direction: own.map_or(Direction::Right, |t| t.direction),
        }),
        None if own_truncation => own,
        None => None,
    };
    let threads = threads::thread_count(thread_count(py, num_threads)?)?;
    let read = match arrow {
        None => Some(BatchTexts::read(texts, Reference::Tokenizers, "texts")?),
        Some(_) => None,
    };
    // a str's own UTF-8 needs no validation (4% of the byte-level bulk call)
    let own_strs = read.as_ref().and_then(|r| r.strs());
    let bytes = match (&arrow, &read) {
        (Some(chunks), _) => arrow_texts(chunks)?,
        (None, Some(read)) if own_strs.is_none() => read.slices(),
        (None, _) => Vec::new(),
    };
    let strs = match own_strs {
        Some(strs) => strs,
        None => utf8_rows(&bytes)?,
    };
    let inner = &tok.inner;
    let batch = py.detach(|| encode_flat(inner, &strs, add_special_tokens, truncation, return_offsets, threads))?;
    let (n, rows) = (batch.ids.len(), batch.row_splits.len());
    let offsets = if return_offsets { Some(Array::new(batch.offsets, vec![n])?) } else { None };
    Ok((Array::new(batch.ids, vec![n])?, Array::new(batch.row_splits, vec![rows])?, offsets, batch.truncated))
}
