//! The padded serving batch behind `tok(texts, padding=..., return_tensors="np")`:
//! a batch of single texts encoded and padded by the core into one int64 block
//! (ids, token type ids, attention mask), handed to NumPy as three arrays
//! (`numpy_planes.rs`). A call's fixed options are a [`PaddedPlan`], made once
//! per distinct set of them (the Python side keeps it with its plan), so a call
//! passes three arguments rather than eleven.

use super::args::*;
use super::full_tokenizer::PyFullTokenizer;
use super::serving::{threads_or_env, Needles, HOLD_GIL_BELOW};
use crate::batch::{encode_batch, BatchOptions};
use crate::padding::Padding;
use pyo3::prelude::*;

/// Text (bytes) below which a padded batch stays on the calling thread
/// unless `num_threads` or `BERTPIECE_NUM_THREADS` asks for more. Measured
/// on this 2-core machine at the load its benchmarks run at (6 to 8), a
/// second thread took 5 to 13 % more CPU and no less wall-clock time at 256
/// EWT sentences (19 kB) and at 1,024 (77 kB); `batch::workers_for` would
/// give it a second thread from 16 kB.
const ONE_THREAD_BELOW: usize = 128 << 10;

/// A batch of single texts padded (transformers' `padding`) into one int64
/// block of `3 x rows x width`: ids, token type ids, attention mask. Returns
/// `(width, block, rows holding an added string, longest row)`.
#[pyfunction]
#[pyo3(signature = (tok, texts, special=None, max_length=None, pad_to=None, pad_to_multiple_of=None, pad_id=0,
    padding_left=false, pad_type_id=0, added=None, num_threads=None))]
#[allow(clippy::too_many_arguments)]
pub(super) fn encode_padded_block<'py>(
    py: Python<'py>,
    tok: &Bound<'py, PyFullTokenizer>,
    texts: &Bound<'py, PyAny>,
    special: Option<(u32, u32)>,
    max_length: Option<Bound<'py, PyAny>>,
    pad_to: Option<Bound<'py, PyAny>>,
    pad_to_multiple_of: Option<Bound<'py, PyAny>>,
    pad_id: u32,
    padding_left: bool,
    pad_type_id: u32,
    added: Option<&Bound<'py, Needles>>,
    num_threads: Option<i64>,
) -> PyResult<(usize, Array, Vec<u64>, usize)> {
    let plan = PaddedPlan::new(special, max_length, pad_to, pad_to_multiple_of, pad_id, padding_left, pad_type_id, None)?;
    let p = padded(py, tok, texts, &plan, added, num_threads)?;
    Ok((p.width, Array::new(p.block, vec![3, p.rows, p.width])?, p.flagged, p.longest))
}

/// The fixed options of a padded call, checked once: `PaddedPlan(special, max_length, pad_to,
/// pad_to_multiple_of, pad_id, padding_left, pad_type_id, added)` as [`encode_padded_block`] takes them.
#[pyclass(frozen, module = "bertpiece._core", name = "PaddedPlan")]
pub(super) struct PaddedPlan {
    opts: BatchOptions,
    padding: Padding,
    added: Option<Py<Needles>>,
}

#[pymethods]
impl PaddedPlan {
    #[new]
    #[pyo3(signature = (special=None, max_length=None, pad_to=None, pad_to_multiple_of=None, pad_id=0,
        padding_left=false, pad_type_id=0, added=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        special: Option<(u32, u32)>,
        max_length: Option<Bound<'_, PyAny>>,
        pad_to: Option<Bound<'_, PyAny>>,
        pad_to_multiple_of: Option<Bound<'_, PyAny>>,
        pad_id: u32,
        padding_left: bool,
        pad_type_id: u32,
        added: Option<Py<Needles>>,
    ) -> PyResult<Self> {
        let max_length = size_arg(max_length.as_ref(), "max_length")?;
        let to = size_arg(pad_to.as_ref(), "max_length")?;
        let multiple_of = size_arg(pad_to_multiple_of.as_ref(), "pad_to_multiple_of")?;
        Ok(PaddedPlan {
            // (the texts are read by `BatchTexts`: a str's UTF-8 or "surrogatepass" bytes)
            opts: BatchOptions { special, max_length, valid_text: true, ..Default::default() },
            padding: Padding { to, multiple_of, pad_id, pad_type_id, left: padding_left },
            added,
        })
    }
}

/// [`encode_padded_block`] with the options of a [`PaddedPlan`] and the block's three
/// planes as three NumPy arrays (`numpy_planes.rs`): `(width, (ids, token type ids,
/// attention mask), rows holding an added string, longest row)`. What
/// `tok(texts, padding=..., return_tensors="np")` returns.
#[pyfunction]
#[pyo3(signature = (tok, texts, plan, num_threads=None))]
#[allow(clippy::type_complexity)]
pub(super) fn encode_padded_planes<'py>(
    py: Python<'py>,
    tok: &Bound<'py, PyFullTokenizer>,
    texts: &Bound<'py, PyAny>,
    plan: &Bound<'py, PaddedPlan>,
    num_threads: Option<i64>,
) -> PyResult<(usize, (Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyAny>), Vec<u64>, usize)> {
    let plan = plan.get();
    let added = plan.added.as_ref().map(|a| a.bind(py));
    let p = padded(py, tok, texts, plan, added, num_threads)?;
    Ok((p.width, super::numpy_planes::planes(py, p.block, p.rows, p.width)?, p.flagged, p.longest))
}

/// A padded batch: its `3 x rows x width` block and what the callers report of it.
struct Padded {
    width: usize,
    rows: usize,
    block: Vec<i64>,
    flagged: Vec<u64>,
    longest: usize,
}

fn padded<'py>(
    py: Python<'py>,
    tok: &Bound<'py, PyFullTokenizer>,
    texts: &Bound<'py, PyAny>,
    plan: &PaddedPlan,
    added: Option<&Bound<'py, Needles>>,
    num_threads: Option<i64>,
) -> PyResult<Padded> {
    let t = tok.get();
    let (opts, padding) = (plan.opts, &plan.padding);
    let read = BatchTexts::read(texts, t.inner.basic().options().reference, "texts")?;
    let (bytes, needles, inner) = (read.slices(), Needles::slices(added), &t.inner);
    let size = bytes.iter().map(|b| b.len()).sum::<usize>();
    let threads = match threads_or_env(py, num_threads)? {
        None if size < ONE_THREAD_BELOW => Some(1),
        asked => thread_count(py, asked)?,
    };
    // Encoded and padded in one go; a small batch holding the GIL (as one short text does).
    let work = || -> PyResult<_> {
        let batch = encode_batch(inner, &bytes, opts, &needles, threads)?;
        // The thread count (a system call to look up) only for ids enough to
        // share their scatter into the block (which writes one cell per id).
        let pad_threads = match threads {
            None if batch.ids.len() < 1 << 14 => 1,
            n => crate::threads::thread_count(n)?,
        };
        let (width, block) = batch.pad_stacked(padding, pad_threads)?;
        Ok((batch, width, block))
    };
    let (batch, width, block) = if size < HOLD_GIL_BELOW { work()? } else { py.detach(work)? };
    let rows = batch.row_splits.len().saturating_sub(1);
    let longest = batch.row_splits.windows(2).map(|w| (w[1] - w[0]) as usize).max().unwrap_or(0);
    Ok(Padded { width, rows, block, flagged: batch.flagged, longest })
}
