//! The serving entry points behind `BertTokenizer.__call__`'s common cases:
//! one text straight to a list of ids, a batch as Python lists, and a padded
//! batch as one NumPy block. They exist for the fixed cost of a call: each
//! is one crossing from Python, reads a plain `BERTPIECE_NUM_THREADS` itself, and
//! makes no Python int per token: the lists come from `lists.rs`, whose
//! `IntCache` makes the ints of the vocabulary's ids once per tokenizer.
//! The padded batch: `serving_padded.rs`.

use super::args::*;
use super::lists::{int_list, repeated, untracked, RowLists};
use super::full_tokenizer::PyFullTokenizer;
use crate::batch::BatchOptions;
use crate::encoder::with_thread_scratch;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::intern;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString};

/// The added tokens a batch's rows are searched for, converted once per
/// change of the tokenizer rather than on every call (`_core.Needles(list)`).
#[pyclass(frozen, module = "bertpiece._core", name = "Needles")]
pub(super) struct Needles {
    strings: Vec<Vec<u8>>,
    /// The first byte of every string, when they share one (special tokens
    /// all start with "["): a text without it holds none of them.
    first: Option<u8>,
}

#[pymethods]
impl Needles {
    #[new]
    fn new(added: Vec<String>) -> Self {
        let strings: Vec<Vec<u8>> = added.into_iter().map(String::into_bytes).filter(|s| !s.is_empty()).collect();
        let first = strings.first().map(|s| s[0]).filter(|&b| strings.iter().all(|s| s[0] == b));
        Needles { strings, first }
    }
}

impl Needles {
    pub(super) fn slices<'a>(needles: Option<&'a Bound<'_, Needles>>) -> Vec<&'a [u8]> {
        needles.map_or_else(Vec::new, |n| n.get().strings.iter().map(Vec::as_slice).collect())
    }

    /// Whether `text` holds one of the strings: the batch path's search
    /// (`batch_needles::holds_any`), after a scan for the shared first byte.
    fn found_in(needles: Option<&Bound<'_, Needles>>, text: &[u8]) -> bool {
        let Some(n) = needles.map(Bound::get) else {
            return false;
        };
        if n.strings.is_empty() || n.first.is_some_and(|b| memchr::memchr(b, text).is_none()) {
            return false;
        }
        crate::batch_needles::holds_any(&n.strings.iter().map(Vec::as_slice).collect::<Vec<_>>(), text)
    }
}

/// `num_threads`, or `BERTPIECE_NUM_THREADS` when it is None. A plain
/// integer is read here (Python's `os.environ` costs most of a small call);
/// anything else goes to `bertpiece.batch._num_threads`, the one definition
/// of what the variable may hold and of its error.
pub(super) fn threads_or_env(py: Python<'_>, num_threads: Option<i64>) -> PyResult<Option<i64>> {
    if num_threads.is_some() {
        return Ok(num_threads);
    }
    match std::env::var_os("BERTPIECE_NUM_THREADS") {
        None => Ok(None),
        Some(v) => match v.to_str().map(str::parse::<i64>) {
            Some(Ok(n)) => Ok(Some(n)),
            _ => py.import("bertpiece.batch")?.getattr("_num_threads")?.call1((py.None(),))?.extract(),
        },
    }
}

/// The ids of one text between `cls` and `sep` (when given), encoded without
/// the GIL; None when the text is not valid Unicode (a lone surrogate) or
/// holds one of `added`: the caller's general path says what happens.
fn text_ids(
    py: Python<'_>,
    t: &PyFullTokenizer,
    text: &Bound<'_, PyString>,
    cls: Option<u32>,
    sep: Option<u32>,
    added: Option<&Bound<'_, Needles>>,
) -> PyResult<Option<Vec<u32>>> {
    let Ok(s) = text.to_str() else {
        return Ok(None);
    };
    let bytes = s.as_bytes();
    if Needles::found_in(added, bytes) {
        return Ok(None);
    }
    let inner = &t.inner;
    let encode = || -> PyResult<_> {
        let mut ids = Vec::new(); // `encode_into` makes the room (fallibly) after [CLS]
        ids.extend(cls);
        with_thread_scratch(|s| {
            s.enable_cache(); // a server's calls come one after another on the same threads: a warm memo
            inner.encode_into(bytes, &mut ids, s)
        })?;
        ids.extend(sep);
        Ok(Some(ids))
    };
    if bytes.len() < HOLD_GIL_BELOW {
        return encode(); // a short text takes less time than letting go of the GIL and taking it back
    }
    py.detach(encode)
}

/// Texts shorter than this (bytes) are encoded holding the GIL: a sentence
/// takes about a microsecond, so letting go of the GIL and taking it back is
/// a share of the call worth saving; other threads wait a few µs at most.
pub(super) const HOLD_GIL_BELOW: usize = 2048;

/// The ids of one text as a list, between `cls` and `sep` when given; None
/// when the text is not valid Unicode or holds one of `added` (the search
/// the one-text path needs before it may encode, made here rather than in Python).
#[pyfunction]
#[pyo3(signature = (tok, text, cls=None, sep=None, added=None))]
pub(super) fn encode_to_list<'py>(
    py: Python<'py>,
    tok: &Bound<'py, PyFullTokenizer>,
    text: &Bound<'py, PyString>,
    cls: Option<u32>,
    sep: Option<u32>,
    added: Option<&Bound<'py, Needles>>,
) -> PyResult<Option<Bound<'py, PyList>>> {
    let t = tok.get();
    let Some(ids) = text_ids(py, t, text, cls, sep, added)? else {
        return Ok(None);
    };
    int_list(py, t.ints.ints(py, t.inner.vocab()), &ids).map(Some)
}

/// `tok(text)`'s data: the dict of `input_ids` (as [`encode_to_list`]),
/// `token_type_ids` (0s) and `attention_mask` (1s), the three lists made
/// here rather than by three Python steps; None where `encode_to_list` is None.
#[pyfunction]
#[pyo3(signature = (tok, text, cls=None, sep=None, added=None))]
pub(super) fn encode_to_dict<'py>(
    py: Python<'py>,
    tok: &Bound<'py, PyFullTokenizer>,
    text: &Bound<'py, PyString>,
    cls: Option<u32>,
    sep: Option<u32>,
    added: Option<&Bound<'py, Needles>>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    Ok(one_text_dict(py, tok.get(), text, cls, sep, added)?.map(|(data, _)| data))
}

/// [`encode_to_dict`]'s work (also `tok(text)`'s in `serving_call.rs`): the dict and its number of ids.
pub(super) fn one_text_dict<'py>(
    py: Python<'py>,
    t: &PyFullTokenizer,
    text: &Bound<'py, PyString>,
    cls: Option<u32>,
    sep: Option<u32>,
    added: Option<&Bound<'py, Needles>>,
) -> PyResult<Option<(Bound<'py, PyDict>, usize)>> {
    let Some(ids) = text_ids(py, t, text, cls, sep, added)? else {
        return Ok(None);
    };
    let (zero, one) = ZERO_AND_ONE.get_or_try_init(py, || -> PyResult<_> {
        let single = |v: i64| PyList::new(py, [v]).map(Bound::unbind);
        Ok((single(0)?, single(1)?))
    })?;
    let data = PyDict::new(py);
    data.set_item(intern!(py, "input_ids"), int_list(py, t.ints.ints(py, t.inner.vocab()), &ids)?)?;
    data.set_item(intern!(py, "token_type_ids"), repeated(zero.bind(py), ids.len())?)?;
    data.set_item(intern!(py, "attention_mask"), repeated(one.bind(py), ids.len())?)?;
    Ok(Some((data, ids.len())))
}

/// `[0]` and `[1]`, which [`encode_to_dict`]'s lists repeat (never handed out).
static ZERO_AND_ONE: PyOnceLock<(Py<PyList>, Py<PyList>)> = PyOnceLock::new();

/// The ids (a list, between `cls` and `sep`) and `(start, end)` code point
/// offsets (a list of tuples, `(0, 0)` for `cls` and `sep`) of one text, by
/// the core's offsets path; None for a text that is not valid Unicode.
#[pyfunction]
#[pyo3(signature = (tok, text, cls=None, sep=None))]
pub(super) fn encode_to_offsets<'py>(
    py: Python<'py>,
    tok: &Bound<'py, PyFullTokenizer>,
    text: &Bound<'py, PyString>,
    cls: Option<u32>,
    sep: Option<u32>,
) -> PyResult<Option<(Bound<'py, PyList>, Bound<'py, PyList>)>> {
    let t = tok.get();
    let Ok(s) = text.to_str() else {
        return Ok(None);
    };
    let bytes = s.as_bytes();
    let inner = &t.inner;
    let (ids, spans) = py.detach(|| -> PyResult<_> {
        let (mut ids, mut spans) = (Vec::new(), Vec::new());
        ids.extend(cls);
        spans.extend(cls.map(|_| (0, 0)));
        with_thread_scratch(|s| inner.encode_offsets_into(bytes, &mut ids, &mut spans, None, s))?;
        ids.extend(sep);
        spans.extend(sep.map(|_| (0, 0)));
        Ok((ids, spans))
    })?;
    let ids = int_list(py, t.ints.ints(py, t.inner.vocab()), &ids)?;
    Ok(Some((ids, untracked(super::lists::span_list(py, &spans)?))))
}

/// One text cut into windows (long-document chunking): `windows(n)` gives
/// the `(start, stop)` token ranges for the text's `n` tokens (HF's overflow
/// windows, computed by the caller's one definition of them). Returns the
/// windows as three lists of rows (ids between `cls` and `sep`, token type
/// ids, attention mask), or None for a text that is not valid Unicode.
#[pyfunction]
#[pyo3(signature = (tok, text, windows, cls=None, sep=None))]
#[allow(clippy::type_complexity)]
pub(super) fn encode_to_windows<'py>(
    py: Python<'py>,
    tok: &Bound<'py, PyFullTokenizer>,
    text: &Bound<'py, PyString>,
    windows: &Bound<'py, PyAny>,
    cls: Option<u32>,
    sep: Option<u32>,
) -> PyResult<Option<(Bound<'py, PyList>, Bound<'py, PyList>, Bound<'py, PyList>)>> {
    let t = tok.get();
    let Some(ids) = text_ids(py, t, text, None, None, None)? else {
        return Ok(None);
    };
    let ranges: Vec<(usize, usize)> = windows.call1((ids.len(),))?.extract()?;
    let (ints, out) = (t.ints.ints(py, t.inner.vocab()), RowLists::new(py)?);
    let mut row = Vec::new();
    for (a, b) in ranges {
        let Some(part) = ids.get(a..b) else {
            return Err(PyValueError::new_err(format!("window {a}..{b} is outside the text's {} tokens", ids.len())));
        };
        row.clear();
        row.extend(cls);
        row.extend_from_slice(part);
        row.extend(sep);
        out.push(ints, &row)?;
    }
    Ok(Some(out.into_lists()))
}

/// A batch of texts as three lists of rows (ids, token type ids, attention
/// mask) and the rows holding one of the `added` strings (for the caller to
/// redo). Options as `FullTokenizer.encode_batch`.
#[pyfunction]
#[pyo3(signature = (tok, texts, special=None, max_length=None, added=None, num_threads=None))]
#[allow(clippy::type_complexity)]
pub(super) fn encode_to_lists<'py>(
    py: Python<'py>,
    tok: &Bound<'py, PyFullTokenizer>,
    texts: &Bound<'py, PyAny>,
    special: Option<(u32, u32)>,
    max_length: Option<Bound<'py, PyAny>>,
    added: Option<&Bound<'py, Needles>>,
    num_threads: Option<i64>,
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyList>, Bound<'py, PyList>, Vec<u64>)> {
    let t = tok.get();
    let max_length = size_arg(max_length.as_ref(), "max_length")?;
    let opts = BatchOptions { special, max_length, ..Default::default() };
    let threads = thread_count(py, threads_or_env(py, num_threads)?)?;
    let (batch, _) = t.run_batch(py, texts, None, opts, threads, None, &Needles::slices(added), None)?;
    let (ints, out) = (t.ints.ints(py, t.inner.vocab()), RowLists::new(py)?);
    for w in batch.row_splits.windows(2) {
        out.push(ints, &batch.ids[w[0] as usize..w[1] as usize])?;
    }
    let (ids, types, mask) = out.into_lists();
    Ok((ids, types, mask, batch.flagged))
}
