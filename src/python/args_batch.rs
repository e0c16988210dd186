//! A batch's texts read from a Python list, tuple or iterable of str, each
//! item once, with the UTF-8 of each str where CPython keeps it.

use crate::normalizer::Reference;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};

/// A batch's texts as UTF-8, each item read once. A str's UTF-8 is CPython's
/// own, cached inside the object (held in `items`; strs are immutable); a str
/// with lone surrogates is encoded into `owned` ("surrogatepass").
pub(in crate::python) struct BatchTexts<'py> {
    items: Vec<Bound<'py, PyAny>>,
    owned: Vec<Vec<u8>>,
    spans: Vec<(*const u8, usize)>,
}

impl<'py> BatchTexts<'py> {
    /// Every item must be a str (`TypeError` naming the first that is not,
    /// as `what[k]`). HF tokenizers cannot take lone surrogates (its binding
    /// raises UnicodeEncodeError), so for that reference neither do we.
    pub(in crate::python) fn read(texts: &Bound<'py, PyAny>, reference: Reference, what: &str) -> PyResult<Self> {
        let n = texts.len().unwrap_or(0);
        let mut out = BatchTexts { items: Vec::with_capacity(n), owned: Vec::new(), spans: Vec::with_capacity(n) };
        let (spans, owned) = (&mut out.spans, &mut out.owned);
        let mut add = |k: usize, item: &Bound<'py, PyAny>| -> PyResult<()> {
            spans.push(text_span(item, k, reference, what, owned)?);
            Ok(())
        };
        // A list or tuple in one pass, each item's header requested `AHEAD` items
        // before it is read (the items' objects lie apart in memory, and the first
        // touch of each misses the cache): taking a reference and reading the str
        // touch the same line, so it is loaded once (two passes loaded each header
        // twice, the second time from past L2 on a large batch). Only a hint reads
        // the borrowed item ahead; each item is read as a reference of its own.
        let items = &mut out.items;
        if let Ok(list) = texts.cast::<PyList>() {
            for k in 0..list.len() {
                // (the length read again: a str subclass's own `encode` may change the list)
                if k + AHEAD < list.len() {
                    // SAFETY: the list is live and the index in range (a borrowed pointer, only prefetched)
                    prefetch_str(unsafe { pyo3::ffi::PyList_GetItem(list.as_ptr(), (k + AHEAD) as isize) });
                }
                let item = list.get_item(k)?;
                add(k, &item)?;
                items.push(item);
            }
        } else if let Ok(tuple) = texts.cast::<PyTuple>() {
            let n = tuple.len(); // (a tuple's items do not change)
            for k in 0..n {
                if k + AHEAD < n {
                    // SAFETY: the tuple is live and the index in range (as for the list)
                    prefetch_str(unsafe { pyo3::ffi::PyTuple_GetItem(tuple.as_ptr(), (k + AHEAD) as isize) });
                }
                let item = tuple.get_item(k)?;
                add(k, &item)?;
                items.push(item);
            }
        } else {
            // (any other iterable read an item at a time: a bad item stops it there)
            for (k, item) in texts.try_iter()?.enumerate() {
                let item = item?;
                add(k, &item)?;
                items.push(item);
            }
        }
        Ok(out)
    }

    /// The texts as `&str` without validating them again, when every one is
    /// a str's own UTF-8 (None when one was encoded with "surrogatepass").
    pub(in crate::python) fn strs(&self) -> Option<Vec<&str>> {
        if !self.owned.is_empty() {
            return None;
        }
        let _ = &self.items; // what the spans point into
        // SAFETY: with `owned` empty every span is the `&str` that `PyString::to_str`
        // returned (CPython's UTF-8 buffer, cached in the str held in `items`, which
        // lives and stays unchanged as long as `self`).
        let strs = self.spans.iter().map(|&(p, n)| if n == 0 { "" } else { unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(p, n)) } });
        Some(strs.collect())
    }

    pub(in crate::python) fn slices(&self) -> Vec<&[u8]> {
        let _ = (&self.items, &self.owned); // what the spans point into
        // SAFETY: each span is a str's UTF-8 buffer or an `owned` buffer; both
        // live (and stay unchanged) as long as `self`, and so do the slices.
        self.spans.iter().map(|&(p, n)| if n == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(p, n) } }).collect()
    }
}

impl Drop for BatchTexts<'_> {
    /// The reference counts given back in order, each str's header loaded
    /// `AHEAD` items before (the encoding has pushed them out of the cache).
    fn drop(&mut self) {
        let mut items = std::mem::take(&mut self.items).into_iter();
        loop {
            if let Some(ahead) = items.as_slice().get(AHEAD) {
                prefetch_object(ahead.as_ptr());
            }
            if items.next().is_none() {
                break;
            }
        }
    }
}

/// The UTF-8 of `item` (`what[k]`, which must be a str), as BatchTexts
/// reads it: the str's own (cached in the object; valid while it lives), or,
/// with lone surrogates, "surrogatepass" bytes pushed to `owned` (a Vec's
/// heap buffer stays put as `owned` grows).
pub(in crate::python) fn text_span(item: &Bound<'_, PyAny>, k: usize, reference: Reference, what: &str, owned: &mut Vec<Vec<u8>>) -> PyResult<(*const u8, usize)> {
    let s = match item.cast_exact::<PyString>() {
        Ok(s) => s,
        Err(_) => item.cast::<PyString>().map_err(|_| {
            let ty = item.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
            PyTypeError::new_err(format!("{what}[{k}] must be str, not {ty}"))
        })?,
    };
    match s.to_str() {
        Ok(text) => Ok((text.as_ptr(), text.len())),
        Err(e) if reference == Reference::Tokenizers => Err(e),
        Err(_) => {
            let b = s.call_method1("encode", ("utf-8", "surrogatepass"))?;
            owned.push(b.cast::<PyBytes>()?.as_bytes().to_vec());
            let b = &owned[owned.len() - 1];
            Ok((b.as_ptr(), b.len()))
        }
    }
}

/// How many items ahead [`BatchTexts::read`] starts loading a str's header.
const AHEAD: usize = 16;

/// Starts loading the header of the object at `obj` (null: nothing): a
/// hint, with no effect on any result.
#[inline(always)]
pub(in crate::python) fn prefetch_object(obj: *mut pyo3::ffi::PyObject) {
    // SAFETY: the caller's pointer is null or a live object's (borrowed, the GIL held)
    if let Some(obj) = unsafe { obj.as_ref() } {
        crate::prefetch::prefetch(obj);
    }
}

/// Starts loading the header of the str at `obj` (null: nothing) as far as
/// `PyUnicode_AsUTF8AndSize` reads it: the refcount and type, its state
/// byte (offset 32) and the UTF-8 pointer and length of a non-ASCII str (up
/// to offset 64). Objects are 16-byte aligned, so that is one cache line or
/// two; the second one was where the reading of a batch missed. A hint, with
/// no effect on any result.
#[inline(always)]
fn prefetch_str(obj: *mut pyo3::ffi::PyObject) {
    const HEADER_END: usize = 63;
    #[cfg(target_arch = "x86_64")]
    if !obj.is_null() {
        // SAFETY: a prefetch reads nothing into the program and never faults, whatever the address
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch(obj as *const i8, _MM_HINT_T0);
            _mm_prefetch((obj as *const i8).wrapping_add(HEADER_END), _MM_HINT_T0);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = obj;
}
