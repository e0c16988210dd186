//! The model server's padded call, `tok(texts, padding=True, truncation=True, max_length=n,
//! return_tensors="np")`, sent by the core's `__call__` (serving_call.rs) to serving.py's
//! `padded_call(tok, texts, n)`: three positional arguments, instead of `__call__`'s Python function
//! with its 22 parameters, its `**kwargs` dict and its tests of every option (what made each keyword
//! call ~0.1 µs dearer once `__call__` became the core's descriptor). Only that exact call is sent: one
//! positional list or tuple, those four keywords (names interned, as a call site's are; in any order),
//! `True`, `True`, an `int` and the `str` "np". Anything else is the usual hand-off.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::ptr::null_mut;

/// What the route reads: serving.py's `padded_call` and the names and value it compares by address.
pub(super) struct PaddedCall {
    function: Py<PyAny>,
    /// serving.py's module dict and its `batch` as it was: a replaced one (the tests' hook to watch it or
    /// make it decline) sends the call to `__call__`'s Python function, which calls it.
    serving: Py<PyDict>,
    batch: Py<PyAny>,
    /// `padding`, `truncation`, `max_length`, `return_tensors`
    names: [Py<PyString>; 4],
    batch_name: Py<PyString>,
    np: Py<PyString>,
}

impl PaddedCall {
    /// From serving.py's module dict; None where it has no `padded_call` (no route: the hand-off).
    pub(super) fn new(py: Python<'_>, serving: &Bound<'_, PyDict>) -> PyResult<Option<Self>> {
        let (Some(function), Some(batch)) = (serving.get_item("padded_call")?, serving.get_item("batch")?) else {
            return Ok(None);
        };
        let name = |s: &str| PyString::intern(py, s).unbind();
        Ok(Some(PaddedCall {
            function: function.unbind(),
            serving: serving.clone().unbind(),
            batch: batch.unbind(),
            batch_name: name("batch"),
            names: [name("padding"), name("truncation"), name("max_length"), name("return_tensors")],
            np: name("np"),
        }))
    }

    /// `padded_call(tok, texts, max_length)` when the call is the server's padded call, else None.
    /// `vectorcall`: `PyObject_Vectorcall` where found (else a C call that builds the tuple).
    ///
    /// # Safety
    /// CPython's arguments of a METH_FASTCALL | METH_KEYWORDS call with `nargs == 1` and `kwnames` not
    /// null, attached to the interpreter.
    pub(super) unsafe fn call(
        &self,
        slf: *mut ffi::PyObject,
        args: *const *mut ffi::PyObject,
        kwnames: *mut ffi::PyObject,
        vectorcall: Option<super::serving_call::Vectorcall>,
    ) -> Option<*mut ffi::PyObject> {
        // SAFETY: `args` holds 1 + len(kwnames) live objects; `kwnames` is a tuple of str
        unsafe {
            let texts = *args;
            if ffi::PyTuple_Size(kwnames) != 4 || (ffi::PyList_CheckExact(texts) == 0 && ffi::PyTuple_CheckExact(texts) == 0)
            {
                return None;
            }
            let (mut seen, mut max_length) = (0u8, null_mut());
            for k in 0..4 {
                let (name, value) = (ffi::PyTuple_GetItem(kwnames, k), *args.add(1 + k as usize));
                let i = self.names.iter().position(|n| n.as_ptr() == name)?;
                let fits = match i {
                    0 | 1 => value == ffi::Py_True(),
                    2 => ffi::PyLong_CheckExact(value) != 0,
                    _ => {
                        value == self.np.as_ptr()
                            || (ffi::PyUnicode_CheckExact(value) != 0 && ffi::PyUnicode_Compare(value, self.np.as_ptr()) == 0)
                    }
                };
                if !fits {
                    return None;
                }
                if i == 2 {
                    max_length = value;
                }
                seen |= 1 << i;
            }
            if seen != 0b1111
                || ffi::PyDict_GetItem(self.serving.as_ptr(), self.batch_name.as_ptr()) != self.batch.as_ptr()
            {
                return None; // (a name given twice: the hand-off's call raises as Python's would)
            }
            let f = self.function.as_ptr();
            Some(match vectorcall {
                Some(call) => call(f, [slf, texts, max_length].as_ptr(), 3, null_mut()),
                None => ffi::PyObject_CallFunctionObjArgs(f, slf, texts, max_length, null_mut::<ffi::PyObject>()),
            })
        }
    }
}
