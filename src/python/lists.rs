//! Python lists of token columns (ids, `(start, end)` offsets, word
//! indices). Building the lists costs more than encoding (an int object per
//! value, a tuple per offset), so int objects are shared where a value
//! repeats: ids from the tokenizer's table of them (serving.rs), a
//! token's start from the previous token's end (pieces of a word touch), a
//! word index from the previous token's. Ints are immutable: sharing one
//! object is invisible to Python code.

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

#[inline]
fn int(py: Python<'_>, v: u32) -> Bound<'_, PyAny> {
    let Ok(o) = v.into_pyobject(py);
    o.into_any()
}

/// `(ids, offsets, words)` as three lists: ints (from the tokenizer's
/// `ints`, see serving.rs), `(start, end)` tuples, ints.
#[allow(clippy::type_complexity)]
pub(super) fn offsets_lists<'py>(
    py: Python<'py>,
    ints: &[Py<PyAny>],
    ids: &[u32],
    spans: &[(u32, u32)],
    words: &[u32],
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyList>, Bound<'py, PyList>)> {
    let ids = super::serving::int_list(py, ints, ids)?;
    let offsets = span_list(py, spans)?;
    let mut prev: Option<(u32, Bound<'py, PyAny>)> = None;
    let words = PyList::new(
        py,
        words.iter().map(|&w| match &prev {
            Some((v, o)) if *v == w => o.clone(),
            _ => {
                let o = int(py, w);
                prev = Some((w, o.clone()));
                o
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
    let list = PyList::empty(py);
    let mut prev: Option<(u32, Bound<'py, PyAny>)> = None;
    for &(s, e) in spans {
        let start = match &prev {
            Some((v, o)) if *v == s => o.clone(),
            _ => int(py, s),
        };
        let end = if e == s { start.clone() } else { int(py, e) };
        prev = Some((e, end.clone()));
        let pair = PyTuple::new(py, [start, end])?;
        // SAFETY: a live tuple just made (PyTuple_New tracks it; untracking is allowed at any time).
        unsafe { pyo3::ffi::PyObject_GC_UnTrack(pair.as_ptr().cast()) };
        list.append(pair)?;
    }
    Ok(list)
}
