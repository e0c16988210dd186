//! The serving calls of `bertpiece.AutoTokenizer` over the general pipeline
//! (python/bertpiece/auto_tokenizer/call_plan.py): one text's ids as a list,
//! and a batch of single texts padded into one int64 block, each with as
//! little between Python and the core as the BERT serving path has
//! (src/python/serving.rs). Rows are `encode_flat`'s (src/pipeline_batch.rs),
//! so they are the ids `encode` gives with the settings' truncation; the
//! block is src/pipeline_padded.rs's (BERT's `Batch::pad_stacked`).

use super::args::{thread_count, Array, BatchTexts};
use super::text_rows::utf8_rows;
use super::pipeline_settings::PySettings;
use super::pipeline_tokenizer::PyPipelineTokenizer;
use crate::normalizer::Reference;
use crate::padding::Padding;
use crate::pipeline_batch::encode_flat;
use crate::pipeline_padded::encode_padded;
use crate::threads;
use pyo3::prelude::*;

/// Text (bytes) below which a call keeps the GIL: one sentence takes a few
/// microseconds, about what letting go of the GIL and taking it back costs.
const HOLD_GIL_BELOW: usize = 2048;

/// The ids of one text (`encode(text).ids` with the settings' truncation, no
/// padding) as a list of int.
#[pyfunction]
#[pyo3(signature = (tokenizer, settings, text, add_special_tokens=true))]
pub(super) fn pipeline_encode_ids(
    py: Python<'_>,
    tokenizer: &Bound<'_, PyPipelineTokenizer>,
    settings: &Bound<'_, PySettings>,
    text: &str,
    add_special_tokens: bool,
) -> PyResult<Vec<u32>> {
    let (inner, truncation) = (&tokenizer.get().inner, settings.get().inner.truncation);
    let encode = || encode_flat(inner, &[text], add_special_tokens, truncation, false, 1).map(|b| b.ids);
    Ok(if text.len() < HOLD_GIL_BELOW { encode()? } else { py.detach(encode)? })
}

/// `texts` encoded one row each (as [`pipeline_encode_ids`]) and padded into
/// one int64 block of `3 x rows x width`: ids, token type ids (0, and
/// `pad_type_id` in the padding) and the attention mask. The width is
/// `pad_to` or the longest row, at least the longest row, rounded up to
/// `pad_to_multiple_of`. Returns `(width, block, longest row, shortest row)`:
/// the caller sees from them where transformers would leave rows ragged.
#[pyfunction]
#[pyo3(signature = (tokenizer, settings, texts, *, add_special_tokens=true, pad_to=None, pad_to_multiple_of=None,
    pad_id=0, pad_type_id=0, padding_left=false, num_threads=None))]
#[allow(clippy::too_many_arguments)]
pub(super) fn pipeline_encode_padded(
    py: Python<'_>,
    tokenizer: &Bound<'_, PyPipelineTokenizer>,
    settings: &Bound<'_, PySettings>,
    texts: &Bound<'_, PyAny>,
    add_special_tokens: bool,
    pad_to: Option<usize>,
    pad_to_multiple_of: Option<usize>,
    pad_id: u32,
    pad_type_id: u32,
    padding_left: bool,
    num_threads: Option<i64>,
) -> PyResult<(usize, Array, usize, usize)> {
    let (inner, truncation) = (&tokenizer.get().inner, settings.get().inner.truncation);
    let threads = threads::thread_count(thread_count(py, num_threads)?)?;
    let read = BatchTexts::read(texts, Reference::Tokenizers, "texts")?;
    let bytes = read.slices();
    // (as pipeline_encode_flat: a str's own UTF-8 needs no validation)
    let strs = match read.strs() {
        Some(strs) => strs,
        None => utf8_rows(&bytes)?,
    };
    let padding = Padding { to: pad_to, multiple_of: pad_to_multiple_of, pad_id, pad_type_id, left: padding_left };
    let work = || encode_padded(inner, &strs, add_special_tokens, truncation, &padding, threads);
    let size: usize = bytes.iter().map(|b| b.len()).sum();
    let out = if size < HOLD_GIL_BELOW { work()? } else { py.detach(work)? };
    Ok((out.width, Array::new(out.block, vec![3, strs.len(), out.width])?, out.longest, out.shortest))
}
