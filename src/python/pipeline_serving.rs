//! The serving calls of `bertpiece.AutoTokenizer` over the general pipeline
//! (python/bertpiece/auto_tokenizer/call_plan.py): one text's ids as a list,
//! and a batch of single texts padded into one int64 block, each with as
//! little between Python and the core as the BERT serving path has
//! (src/python/serving.rs). Rows are `encode_flat`'s (src/pipeline_batch.rs),
//! so they are the ids `encode` gives with the settings' truncation; the
//! block is src/pipeline_padded.rs's (BERT's `Batch::pad_stacked`). A padded
//! call's fixed options are a [`PipelinePaddedPlan`] made once per plan, and its
//! three planes come back as NumPy arrays made by the core (`numpy_planes.rs`),
//! as `bertpiece.BertTokenizer`'s padded call has them (serving_padded.rs).

use super::args::{size_arg, thread_count, Array, BatchTexts};
use super::lists::int_list;
use super::text_rows::utf8_rows;
use super::pipeline_settings::PySettings;
use super::pipeline_tokenizer::PyPipelineTokenizer;
use crate::normalizer::Reference;
use crate::padding::Padding;
use crate::pipeline::IdsOnly;
use crate::pipeline_batch::encode_flat;
use crate::room::make_room;
use crate::pipeline_padded::{encode_padded, PaddedBlock};
use crate::processors::truncation::TruncationParams;
use pyo3::prelude::*;
use pyo3::types::PyList;

/// Text (bytes) below which a call keeps the GIL: one sentence takes a few
/// microseconds, about what letting go of the GIL and taking it back costs.
const HOLD_GIL_BELOW: usize = 2048;

/// The threads a call asks for, as [`encode_padded`] takes them: 1, a count (capped at the usable
/// CPUs there), or `None` for all usable CPUs, which it looks up only for a batch that can use more
/// than one (a lock and a `getpid` system call each time: ~0.25 µs, a tenth of a padded call of
/// one text, and most serving batches run on one thread).
fn padded_threads(py: Python<'_>, num_threads: Option<i64>) -> PyResult<Option<usize>> {
    Ok(match num_threads {
        Some(1) => Some(1),
        n => thread_count(py, n)?,
    })
}

/// The ids of one text (`encode(text).ids` with the settings' truncation, no
/// padding) as a list of int.
#[pyfunction]
#[pyo3(signature = (tokenizer, settings, text, add_special_tokens=true))]
pub(super) fn pipeline_encode_ids<'py>(
    py: Python<'py>,
    tokenizer: &Bound<'_, PyPipelineTokenizer>,
    settings: &Bound<'_, PySettings>,
    text: &str,
    add_special_tokens: bool,
) -> PyResult<Bound<'py, PyList>> {
    let (inner, truncation) = (&tokenizer.get().inner, settings.get().inner.truncation);
    let encode = || -> crate::Result<Vec<u32>> {
        // the row as `encode_flat` makes it (`encode_ids_into`, else `encode`), without its batch's set-up
        let mut ids = Vec::new();
        make_room(&mut ids, text.len() / 4 + 4, "token ids")?;
        match inner.encode_ids_into(text, add_special_tokens, truncation.as_ref(), &mut ids, None)? {
            IdsOnly::Done { .. } => Ok(ids),
            IdsOnly::Declined => encode_flat(inner, &[text], add_special_tokens, truncation, false, 1).map(|b| b.ids),
        }
    };
    let ids = if text.len() < HOLD_GIL_BELOW { encode()? } else { py.detach(encode)? };
    // (the list made fallibly: PyO3's conversion of a `Vec` panics when CPython cannot allocate)
    int_list(py, &[], &ids)
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
    let threads = padded_threads(py, num_threads)?;
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

/// The fixed options of a padded call on the general pipeline, checked once:
/// `PipelinePaddedPlan(settings, add_special_tokens, pad_to, pad_to_multiple_of, pad_id, pad_type_id,
/// padding_left)` as [`pipeline_encode_padded`] takes them (the settings' truncation is read here).
#[pyclass(frozen, module = "bertpiece._core", name = "PipelinePaddedPlan")]
pub(super) struct PipelinePaddedPlan {
    truncation: Option<TruncationParams>,
    add_special_tokens: bool,
    padding: Padding,
}

#[pymethods]
impl PipelinePaddedPlan {
    #[new]
    #[pyo3(signature = (settings, add_special_tokens=true, pad_to=None, pad_to_multiple_of=None, pad_id=0, pad_type_id=0,
        padding_left=false))]
    fn new(
        settings: &Bound<'_, PySettings>,
        add_special_tokens: bool,
        pad_to: Option<Bound<'_, PyAny>>,
        pad_to_multiple_of: Option<Bound<'_, PyAny>>,
        pad_id: u32,
        pad_type_id: u32,
        padding_left: bool,
    ) -> PyResult<Self> {
        let to = size_arg(pad_to.as_ref(), "max_length")?;
        let multiple_of = size_arg(pad_to_multiple_of.as_ref(), "pad_to_multiple_of")?;
        Ok(PipelinePaddedPlan {
            truncation: settings.get().inner.truncation,
            add_special_tokens,
            padding: Padding { to, multiple_of, pad_id, pad_type_id, left: padding_left },
        })
    }
}

/// [`pipeline_encode_padded`] with the options of a [`PipelinePaddedPlan`] and the block's three
/// planes as three NumPy arrays (`numpy_planes.rs`): `(width, (ids, token type ids, attention
/// mask), longest row, shortest row)`. Threads as [`pipeline_encode_padded`] takes them (the
/// general pipeline costs up to ten times BERT's fused encoder a byte, so BERT's one-thread
/// threshold is not this path's).
#[pyfunction]
#[pyo3(signature = (tokenizer, texts, plan, num_threads=None))]
#[allow(clippy::type_complexity)]
pub(super) fn pipeline_encode_padded_planes<'py>(
    py: Python<'py>,
    tokenizer: &Bound<'py, PyPipelineTokenizer>,
    texts: &Bound<'py, PyAny>,
    plan: &Bound<'py, PipelinePaddedPlan>,
    num_threads: Option<i64>,
) -> PyResult<(usize, (Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyAny>), usize, usize)> {
    let (inner, plan) = (&tokenizer.get().inner, plan.get());
    let read = BatchTexts::read(texts, Reference::Tokenizers, "texts")?;
    let bytes = read.slices();
    let strs = match read.strs() {
        Some(strs) => strs,
        None => utf8_rows(&bytes)?,
    };
    let size: usize = bytes.iter().map(|b| b.len()).sum();
    let threads = padded_threads(py, num_threads)?;
    let work = || encode_padded(inner, &strs, plan.add_special_tokens, plan.truncation, &plan.padding, threads);
    let PaddedBlock { width, block, longest, shortest } = if size < HOLD_GIL_BELOW { work()? } else { py.detach(work)? };
    Ok((width, super::numpy_planes::planes(py, block, strs.len(), width)?, longest, shortest))
}
