//! Python lists of token columns (ids, `(start, end)` offsets, word
//! indices). Building the lists costs more than encoding (an int object per
//! value, a tuple per offset), so int objects are shared where a value
//! repeats: ids from the tokenizer's table of them (`IntCache`), a
//! token's start from the previous token's end (pieces of a word touch), a
//! word index from the previous token's. Ints are immutable: sharing one
//! object is invisible to Python code.
//!
//! Lists, tuples and ints are made here through CPython's constructors with
//! their failure kept (PyO3's `PyList::new`, `PyTuple::new` and int
//! conversion panic when CPython cannot allocate): a document too large for
//! memory is a MemoryError.

use crate::vocab::Vocab;
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyTuple};
use std::os::raw::c_ulong;

/// A Python int; MemoryError when CPython cannot make it.
#[inline]
fn int(py: Python<'_>, v: u32) -> PyResult<Bound<'_, PyAny>> {
    // SAFETY: a new reference, or null with the error set.
    unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyLong_FromUnsignedLong(v as c_ulong)) }
}

/// A list of `items` (MemoryError when CPython cannot make it).
pub(super) fn new_list<'py>(
    py: Python<'py>,
    items: impl ExactSizeIterator<Item = PyResult<Bound<'py, PyAny>>>,
) -> PyResult<Bound<'py, PyList>> {
    let n = items.len();
    let len = ffi::Py_ssize_t::try_from(n).map_err(|_| pyo3::exceptions::PyMemoryError::new_err("list too long"))?;
    // SAFETY: a new list of `len` empty slots, or null with the error set.
    let list = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(len))?.cast_into_unchecked::<PyList>() };
    for (k, item) in items.take(n).enumerate() {
        // SAFETY: `k < len`; the slot is empty and PyList_SetItem takes the reference.
        if unsafe { ffi::PyList_SetItem(list.as_ptr(), k as ffi::Py_ssize_t, item?.into_ptr()) } != 0 {
            return Err(PyErr::fetch(py));
        }
    }
    Ok(list)
}

/// The tuple `(a, b)` (MemoryError when CPython cannot make it).
fn pair<'py>(py: Python<'py>, a: Bound<'py, PyAny>, b: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    // SAFETY: a new tuple of two empty slots, or null with the error set;
    // PyTuple_SetItem takes each reference.
    unsafe {
        let t = Bound::from_owned_ptr_or_err(py, ffi::PyTuple_New(2))?.cast_into_unchecked::<PyTuple>();
        ffi::PyTuple_SetItem(t.as_ptr(), 0, a.into_ptr());
        ffi::PyTuple_SetItem(t.as_ptr(), 1, b.into_ptr());
        Ok(t)
    }
}

/// The most ids whose ints are kept (2 MiB of pointers and 8 MiB of ints at
/// most); ids above it, rare outside huge vocabularies, get a new int.
const MAX_CACHED_IDS: usize = 1 << 18;

/// The Python ints `0..n` for the ids of one tokenizer, made on first use.
#[derive(Default)]
pub(super) struct IntCache(PyOnceLock<Vec<Py<PyAny>>>);

impl IntCache {
    pub(super) fn ints<'a>(&'a self, py: Python<'_>, vocab: &Vocab) -> &'a [Py<PyAny>] {
        self.0.get_or_init(py, || int_table(py, vocab.entries().iter().map(|e| e.1 as usize + 1).max().unwrap_or(0)))
    }
}

/// The Python ints `0..top` (at most MAX_CACHED_IDS of them), for [`int_list`].
pub(super) fn int_table(py: Python<'_>, top: usize) -> Vec<Py<PyAny>> {
    // Ints from 0 to 256 are CPython's own and the rest small: a
    // failure here leaves the table short (later ids get new ints).
    (0..top.min(MAX_CACHED_IDS) as u32).map_while(|i| int(py, i).ok().map(Bound::unbind)).collect()
}

/// `ids` as a list of Python ints from the cache.
pub(super) fn int_list<'py>(py: Python<'py>, ints: &[Py<PyAny>], ids: &[u32]) -> PyResult<Bound<'py, PyList>> {
    let list = new_list(py, ids.iter().map(|&i| match ints.get(i as usize) {
        Some(o) => Ok(o.bind(py).clone()),
        None => int(py, i),
    }))?;
    Ok(untracked(list))
}

/// Rows as the three lists of a `BatchEncoding`: ids (from the int table),
/// token type ids (0) and attention mask (1), each row list untracked.
pub(super) struct RowLists<'py> {
    zero: Bound<'py, PyList>,
    one: Bound<'py, PyList>,
    ids: Bound<'py, PyList>,
    types: Bound<'py, PyList>,
    mask: Bound<'py, PyList>,
}

impl<'py> RowLists<'py> {
    pub(super) fn new(py: Python<'py>) -> PyResult<Self> {
        let empty = || new_list(py, std::iter::empty());
        let (zero, one) = (new_list(py, std::iter::once(int(py, 0)))?, new_list(py, std::iter::once(int(py, 1)))?);
        Ok(RowLists { zero, one, ids: empty()?, types: empty()?, mask: empty()? })
    }

    pub(super) fn push(&self, ints: &[Py<PyAny>], row: &[u32]) -> PyResult<()> {
        self.ids.append(int_list(self.ids.py(), ints, row)?)?;
        self.types.append(repeated(&self.zero, row.len())?)?;
        self.mask.append(repeated(&self.one, row.len())?)
    }

    pub(super) fn into_lists(self) -> (Bound<'py, PyList>, Bound<'py, PyList>, Bound<'py, PyList>) {
        (self.ids, self.types, self.mask)
    }
}

/// `one * n` for a one-element list `one` (`[0] * n`: a fill in C).
pub(super) fn repeated<'py>(one: &Bound<'py, PyList>, n: usize) -> PyResult<Bound<'py, PyList>> {
    Ok(untracked(one.as_sequence().repeat(n)?.cast_into::<PyList>()?))
}

/// A list or tuple of ints taken out of the cyclic garbage collector's sight.
/// It cannot be part of a cycle, and a batch's row lists are millions of
/// references: once `gc` is back on, its first pass over them took a third of
/// `tok(texts)` (CPython untracks tuples and dicts of atomic values the same
/// way). A row the caller later makes part of a cycle is only never freed.
pub(super) fn untracked<T>(obj: Bound<'_, T>) -> Bound<'_, T> {
    // SAFETY: a live object (a new list or tuple, which its constructor tracks; untracking is allowed at any time).
    unsafe { pyo3::ffi::PyObject_GC_UnTrack(obj.as_ptr().cast()) };
    obj
}

/// `(ids, offsets, words)` as three lists: ints (from the tokenizer's
/// `IntCache`), `(start, end)` tuples, ints.
#[allow(clippy::type_complexity)]
pub(super) fn offsets_lists<'py>(
    py: Python<'py>,
    ints: &[Py<PyAny>],
    ids: &[u32],
    spans: &[(u32, u32)],
    words: &[u32],
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyList>, Bound<'py, PyList>)> {
    let ids = int_list(py, ints, ids)?;
    let offsets = span_list(py, spans)?;
    let mut prev: Option<(u32, Bound<'py, PyAny>)> = None;
    let words = new_list(
        py,
        words.iter().map(|&w| match &prev {
            Some((v, o)) if *v == w => Ok(o.clone()),
            _ => {
                let o = int(py, w)?;
                prev = Some((w, o.clone()));
                Ok(o)
            }
        }),
    )?;
    Ok((ids, offsets, words))
}

/// `(start, end)` tuples, a token's start shared with the previous token's
/// end. The tuples are taken out of the cyclic garbage collector's sight as
/// they are made (a tuple of ints cannot be part of a cycle; CPython's own
/// collector would untrack them on its first pass over them, a pass that
/// otherwise runs again and again while a long document's tuples are made).
pub(super) fn span_list<'py>(py: Python<'py>, spans: &[(u32, u32)]) -> PyResult<Bound<'py, PyList>> {
    let mut prev: Option<(u32, Bound<'py, PyAny>)> = None;
    new_list(py, spans.iter().map(|&(s, e)| {
        let start = match &prev {
            Some((v, o)) if *v == s => o.clone(),
            _ => int(py, s)?,
        };
        let end = if e == s { start.clone() } else { int(py, e)? };
        prev = Some((e, end.clone()));
        Ok(untracked(pair(py, start, end)?).into_any())
    }))
}

/// The rows of a NumPy integer array as Python lists, untracked (see
/// `untracked`): what `array.tolist()` gives, without the collector passes
/// over every new row list (which the Python side used to avoid by pausing
/// `gc` process-wide, re-enabling it under other threads). `data` is the
/// array's little-endian int64 bytes (`array.astype("<i8").tobytes()`); row
/// `k` is the values `bounds[k]..bounds[k + 1]`, as `(start, end)` tuples of
/// two values each when `pairs` (offsets).
#[pyfunction]
#[pyo3(signature = (data, bounds, pairs=false))]
pub(super) fn int_rows<'py>(py: Python<'py>, data: &[u8], bounds: Vec<usize>, pairs: bool) -> PyResult<Bound<'py, PyList>> {
    if !data.len().is_multiple_of(8) {
        return Err(PyValueError::new_err(format!("int_rows: {} bytes is not a whole number of int64 values", data.len())));
    }
    let values: Vec<i64> = data
        .chunks_exact(8)
        .map(|b| i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .collect();
    let step = if pairs { 2 } else { 1 };
    if bounds.windows(2).any(|w| w[0] > w[1] || (w[1] - w[0]) % step != 0) || bounds.last().is_some_and(|&b| b > values.len()) {
        return Err(PyValueError::new_err("int_rows: bounds must be increasing row ends within the data"));
    }
    new_list(py, bounds.windows(2).map(|w| {
        let row = &values[w[0]..w[1]];
        let list = if pairs {
            new_list(py, row.chunks_exact(2).map(|p| Ok(untracked(pair(py, int64(py, p[0])?, int64(py, p[1])?)?).into_any())))?
        } else {
            new_list(py, row.iter().map(|&v| int64(py, v)))?
        };
        Ok(untracked(list).into_any())
    }))
}

/// A Python int of an i64; MemoryError when CPython cannot make it.
fn int64(py: Python<'_>, v: i64) -> PyResult<Bound<'_, PyAny>> {
    // SAFETY: a new reference, or null with the error set.
    unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyLong_FromLongLong(v)) }
}
