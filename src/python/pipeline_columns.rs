//! An encoding of the general pipeline as the Python columns the facade reads
//! (`Encoding._from_flat`): `[(columns, parent index), ...]`, the encoding
//! then its overflowing pieces depth first. The column lists (and offset
//! tuples) are made out of the cyclic garbage collector's sight, as
//! `lists.rs` makes BERT's: a batch's lists are millions of new containers,
//! and the collector's passes over them took a quarter of `encode_batch`
//! (perf, Unigram on en-large). They hold only ints, strs and int tuples.

use super::lists::{new_list, untracked};
use crate::encoding::Encoding;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

/// A Python int for a column value.
#[inline]
fn int(py: Python<'_>, v: u64) -> PyResult<Bound<'_, PyAny>> {
    // SAFETY: a new reference, or null with the error set.
    unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyLong_FromUnsignedLongLong(v)) }
}

fn ints<'py>(py: Python<'py>, values: impl ExactSizeIterator<Item = u64>) -> PyResult<Bound<'py, PyAny>> {
    Ok(untracked(new_list(py, values.map(|v| int(py, v)))?).into_any())
}

/// A list of optional ints (`None` for a special token's word or sequence).
fn optional_ints<'py>(py: Python<'py>, values: impl ExactSizeIterator<Item = Option<u64>>) -> PyResult<Bound<'py, PyAny>> {
    let items = values.map(|v| match v {
        Some(v) => int(py, v),
        None => Ok(py.None().into_bound(py)),
    });
    Ok(untracked(new_list(py, items)?).into_any())
}

/// A tuple of `items` (MemoryError when CPython cannot make it).
fn tuple<'py, const N: usize>(py: Python<'py>, items: [Bound<'py, PyAny>; N]) -> PyResult<Bound<'py, PyTuple>> {
    // SAFETY: a new tuple of N empty slots, or null with the error set; each
    // slot `k < N` is set once and PyTuple_SetItem takes the reference.
    unsafe {
        let t = Bound::from_owned_ptr_or_err(py, ffi::PyTuple_New(N as ffi::Py_ssize_t))?.cast_into_unchecked::<PyTuple>();
        for (k, item) in items.into_iter().enumerate() {
            ffi::PyTuple_SetItem(t.as_ptr(), k as ffi::Py_ssize_t, item.into_ptr());
        }
        Ok(t)
    }
}

fn columns<'py>(py: Python<'py>, e: &Encoding) -> PyResult<Bound<'py, PyTuple>> {
    let tokens = untracked(new_list(py, e.tokens.iter().map(|t| Ok(PyString::new(py, t).into_any())))?).into_any();
    let offsets = e.offsets.iter().map(|&(s, t)| Ok(untracked(tuple(py, [int(py, s as u64)?, int(py, t as u64)?])?).into_any()));
    let offsets = untracked(new_list(py, offsets)?).into_any();
    let items = [
        ints(py, e.ids.iter().map(|&v| v as u64))?,
        ints(py, e.type_ids.iter().map(|&v| v as u64))?,
        tokens,
        optional_ints(py, e.words.iter().map(|w| w.map(u64::from)))?,
        offsets,
        ints(py, e.special_tokens_mask.iter().map(|&v| v as u64))?,
        ints(py, e.attention_mask.iter().map(|&v| v as u64))?,
        optional_ints(py, e.sequence_ids().into_iter().map(|s| s.map(|s| s as u64)))?,
    ];
    tuple(py, items)
}

fn flatten<'py>(py: Python<'py>, e: &Encoding, parent: Option<usize>, out: &mut Vec<Bound<'py, PyAny>>) -> PyResult<()> {
    let me = out.len();
    let parent = match parent {
        Some(p) => int(py, p as u64)?,
        None => py.None().into_bound(py),
    };
    out.push(tuple(py, [columns(py, e)?.into_any(), parent])?.into_any());
    e.overflowing.iter().try_for_each(|o| flatten(py, o, Some(me), out))
}

/// `[(columns, parent index), ...]` of `e`.
pub(super) fn flat<'py>(py: Python<'py>, e: &Encoding) -> PyResult<Bound<'py, PyList>> {
    let mut out = Vec::with_capacity(1 + e.overflowing.len());
    flatten(py, e, None, &mut out)?;
    new_list(py, out.into_iter().map(Ok))
}
