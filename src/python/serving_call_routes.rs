//! Two keyword calls a server repeats, sent by the core's `__call__` (serving_call.rs) straight to
//! serving.py's functions for them, instead of `__call__`'s Python function with its 22 parameters,
//! its `**kwargs` dict and its tests of every option (what made each keyword call ~0.1 µs dearer once
//! `__call__` became the core's descriptor):
//! - `tok(texts, padding=True, truncation=True, max_length=n, return_tensors="np")`, texts a list or
//!   tuple: `padded_call(tok, texts, n)`;
//! - `tok(text, return_offsets_mapping=True)`, text a str: `offsets_call(tok, text)`.
//!
//! Only those exact calls are sent: one positional argument of that type, those keywords (names
//! interned, as a call site's are; in any order) with `True`, an exact `int` and the `str` "np".
//! Anything else is the usual hand-off. Each function does what `__call__` does for its call.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::ptr::null_mut;

/// `PyObject_Vectorcall`'s (and `PyObject_VectorcallMethod`'s) signature: serving_call.rs finds them
/// by name, since neither is in the limited API before 3.12.
pub(super) type Vectorcall =
    unsafe extern "C" fn(*mut ffi::PyObject, *const *mut ffi::PyObject, usize, *mut ffi::PyObject) -> *mut ffi::PyObject;

/// What the routes read: serving.py's functions and the names and value compared by address.
pub(super) struct Routes {
    padded_call: Py<PyAny>,
    offsets_call: Py<PyAny>,
    /// serving.py's module dict and its `batch` as it was: a replaced one (the tests' hook to watch it or
    /// make it decline) sends the padded call to `__call__`'s Python function, which calls it.
    serving: Py<PyDict>,
    batch: Py<PyAny>,
    batch_name: Py<PyString>,
    /// `padding`, `truncation`, `max_length`, `return_tensors`
    names: [Py<PyString>; 4],
    np: Py<PyString>,
    offsets: Py<PyString>,
}

impl Routes {
    /// From serving.py's module dict; None where it lacks a function (no route: the hand-off).
    pub(super) fn new(py: Python<'_>, serving: &Bound<'_, PyDict>) -> PyResult<Option<Self>> {
        let get = |name: &str| serving.get_item(name);
        let (Some(padded_call), Some(offsets_call), Some(batch)) = (get("padded_call")?, get("offsets_call")?, get("batch")?)
        else {
            return Ok(None);
        };
        let name = |s: &str| PyString::intern(py, s).unbind();
        Ok(Some(Routes {
            padded_call: padded_call.unbind(),
            offsets_call: offsets_call.unbind(),
            serving: serving.clone().unbind(),
            batch: batch.unbind(),
            batch_name: name("batch"),
            names: [name("padding"), name("truncation"), name("max_length"), name("return_tensors")],
            np: name("np"),
            offsets: name("return_offsets_mapping"),
        }))
    }

    /// The route's answer when the call is one of the two, else None.
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
        vectorcall: Option<Vectorcall>,
    ) -> Option<*mut ffi::PyObject> {
        // SAFETY: `args` holds 1 + len(kwnames) live objects; `kwnames` is a tuple of str
        unsafe {
            let text = *args;
            let (f, third) = match ffi::PyTuple_Size(kwnames) {
                4 => (self.padded_call.as_ptr(), self.padded(text, args, kwnames)?),
                1 if ffi::PyTuple_GetItem(kwnames, 0) == self.offsets.as_ptr()
                    && *args.add(1) == ffi::Py_True()
                    && ffi::PyUnicode_CheckExact(text) != 0 =>
                {
                    (self.offsets_call.as_ptr(), null_mut())
                }
                _ => return None,
            };
            let n = if third.is_null() { 2 } else { 3 };
            Some(match vectorcall {
                Some(call) => call(f, [slf, text, third].as_ptr(), n, null_mut()),
                // (the list ends at the first null: `third`'s when there are two)
                None => ffi::PyObject_CallFunctionObjArgs(f, slf, text, third, null_mut::<ffi::PyObject>()),
            })
        }
    }

    /// The padded call's `max_length` when the call is that call, else None.
    ///
    /// # Safety
    /// As [`Routes::call`], with four keywords.
    unsafe fn padded(
        &self,
        texts: *mut ffi::PyObject,
        args: *const *mut ffi::PyObject,
        kwnames: *mut ffi::PyObject,
    ) -> Option<*mut ffi::PyObject> {
        // SAFETY: as the caller's
        unsafe {
            if ffi::PyList_CheckExact(texts) == 0 && ffi::PyTuple_CheckExact(texts) == 0 {
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
            // (a name given twice cannot reach here: CPython refuses the call first)
            let batch = ffi::PyDict_GetItem(self.serving.as_ptr(), self.batch_name.as_ptr());
            (seen == 0b1111 && batch == self.batch.as_ptr()).then_some(max_length)
        }
    }
}
