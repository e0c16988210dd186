//! A tokenizer's ids as Python ints, each made the first time a list holds it and shared
//! by every list after: a list of ids then takes a reference per id instead of allocating
//! an int per id (a GPT-2 row of ~90 ids made ~90 ints, most of the `.ids` read's time).
//! Ints are immutable, so sharing them is invisible to Python code (as CPython's own
//! small-int cache is).

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::cell::UnsafeCell;

/// The most ids a table holds (ids past it get an int of their own each time).
const MAX_IDS: usize = 1 << 21;
/// The least: the ints also serve offsets (chars into a text), ints like any other.
const MIN_IDS: usize = 1 << 14;

/// Ints by id, made on first use. Read and written only with the GIL held (every access
/// takes a `Python` token; this abi3 module never runs on a free-threaded interpreter).
pub(super) struct IntTable(Box<[UnsafeCell<Option<Py<PyAny>>>]>);

// SAFETY: the cells are only touched through `list`, which holds the GIL (its `Python`
// token), so no two threads touch them at once; `Py` itself is Send + Sync.
unsafe impl Sync for IntTable {}
unsafe impl Send for IntTable {}

impl IntTable {
    /// Room for the ids below `n` (at least [`MIN_IDS`], at most [`MAX_IDS`]); the ints are made as they are used.
    pub(super) fn new(n: usize) -> IntTable {
        IntTable((0..n.clamp(MIN_IDS, MAX_IDS)).map(|_| UnsafeCell::new(None)).collect())
    }

    /// `ids` as a new Python list of ints.
    pub(super) fn list<'py>(&self, py: Python<'py>, ids: &[u32]) -> PyResult<Bound<'py, PyList>> {
        let n = ffi::Py_ssize_t::try_from(ids.len()).map_err(|_| pyo3::exceptions::PyMemoryError::new_err("list too long"))?;
        // SAFETY: PyList_New gives a new reference or NULL with an exception set; each slot
        // is set once with a new reference (PyList_SetItem steals it); a list left with
        // NULL slots after an error is freed as CPython frees any (Py_XDECREF per slot).
        unsafe {
            let list = Bound::from_owned_ptr_or_err(py, ffi::PyList_New(n))?;
            for (k, &id) in ids.iter().enumerate() {
                let item = self.int(py, id)?;
                if ffi::PyList_SetItem(list.as_ptr(), k as ffi::Py_ssize_t, item) != 0 {
                    return Err(PyErr::fetch(py));
                }
            }
            Ok(list.cast_into_unchecked())
        }
    }

    /// `spans` as a new Python list of `(start, end)` tuples of ints. The tuples hold ints only
    /// (immutable, no reference to any container), so they can never be part of a cycle: they
    /// are untracked by the garbage collector, as CPython itself untracks such tuples when a
    /// collection first meets them (tracked, ~90 tuples a row made every collection walk them).
    pub(super) fn pairs<'py>(&self, py: Python<'py>, spans: impl ExactSizeIterator<Item = (usize, usize)>) -> PyResult<Bound<'py, PyList>> {
        let n = ffi::Py_ssize_t::try_from(spans.len()).map_err(|_| pyo3::exceptions::PyMemoryError::new_err("list too long"))?;
        // SAFETY: as in `list`; each tuple is new (PyTuple_New), filled with new references
        // before anything else sees it, and untracked while only this function holds it.
        unsafe {
            let list = Bound::from_owned_ptr_or_err(py, ffi::PyList_New(n))?;
            for (k, (s, e)) in spans.enumerate() {
                let t = Bound::from_owned_ptr_or_err(py, ffi::PyTuple_New(2))?;
                for (j, v) in [s, e].into_iter().enumerate() {
                    if ffi::PyTuple_SetItem(t.as_ptr(), j as ffi::Py_ssize_t, self.int_of(py, v)?) != 0 {
                        return Err(PyErr::fetch(py));
                    }
                }
                ffi::PyObject_GC_UnTrack(t.as_ptr().cast());
                if ffi::PyList_SetItem(list.as_ptr(), k as ffi::Py_ssize_t, t.into_ptr()) != 0 {
                    return Err(PyErr::fetch(py));
                }
            }
            Ok(list.cast_into_unchecked())
        }
    }

    /// A new reference to `v`'s int (an offset: any size).
    fn int_of(&self, py: Python<'_>, v: usize) -> PyResult<*mut ffi::PyObject> {
        match u32::try_from(v) {
            Ok(v) => self.int(py, v),
            // SAFETY: a new reference or NULL with an exception set
            Err(_) => unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyLong_FromSize_t(v)) }.map(Bound::into_ptr),
        }
    }

    /// A new reference to `id`'s int: the table's (inline), else made (out of line).
    #[inline(always)]
    fn int(&self, py: Python<'_>, id: u32) -> PyResult<*mut ffi::PyObject> {
        // SAFETY: the GIL is held (`py`): nothing else writes the cell meanwhile
        if let Some(o) = self.0.get(id as usize).and_then(|cell| unsafe { (*cell.get()).as_ref() }) {
            return Ok(o.clone_ref(py).into_ptr());
        }
        self.make(py, id)
    }

    #[cold]
    #[inline(never)]
    fn make(&self, py: Python<'_>, id: u32) -> PyResult<*mut ffi::PyObject> {
        // SAFETY: a new reference or NULL with an exception set
        let new = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyLong_FromUnsignedLong(id.into())) }?;
        let Some(cell) = self.0.get(id as usize) else { return Ok(new.into_ptr()) };
        // SAFETY: the GIL is held: nothing else reads or writes the cell meanwhile, and making
        // the int above ran no Python code that could have come back here.
        let slot = unsafe { &mut *cell.get() };
        Ok(slot.get_or_insert(new.unbind()).clone_ref(py).into_ptr())
    }
}
