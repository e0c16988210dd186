//! `BertTokenizer.__call__` made by the core: a method descriptor
//! (`METH_FASTCALL | METH_KEYWORDS`) that call.py puts in place of its Python
//! function, so that CPython's `slot_tp_call` calls it with the instance first
//! and no Python frame. For exactly one positional `str` and nothing else
//! (`tok(text)`) it does `serving.one_text`'s work here: the tokenizer's
//! [`OneText`] state, the core's dict, the `BatchEncoding` and its lazy
//! `_OneTextRows`, as one_text makes them. The model server's padded call and
//! `tok(text, return_offsets_mapping=True)` go to serving.py's functions for
//! them, without `__call__`'s Python frame (serving_call_routes.rs).
//! Every other call, and every call
//! the state declines, goes to the Python function it replaced (the
//! definition) with the argument array and keyword names as they came: by
//! `PyObject_Vectorcall` (exported from 3.11), `PyObject_VectorcallMethod`
//! (3.9; by the name `_general_call`), else `PyObject_Call` with a rebuilt
//! tuple and dict. Neither vectorcall is in the limited API before 3.12 (this
//! module is abi3 from 3.10), so they are looked up in the running process.

use super::serving_call_routes::{Routes, Vectorcall};
use super::serving_one_text::{one_text, OneTextObjects};
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple, PyType};
use std::ffi::{c_char, c_void, CString};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering};

/// What the descriptor reads on every call: set by [`serving_call`] (at call.py's import), never freed
/// (an import made twice leaves the first behind: a few objects, once).
pub(super) struct CallState {
    general: Py<PyAny>,
    /// `_general_call`, the name the `PyObject_VectorcallMethod` hand-off finds `general` by
    method_name: Py<PyString>,
    /// What `tok(text)`'s own path reads (serving_one_text.rs).
    one: OneTextObjects,
    /// The padded and offsets calls' routes (serving_call_routes.rs); None: serving.py lacks them.
    routes: Option<Routes>,
    vectorcall: Option<Vectorcall>,
    vectorcall_method: Option<Vectorcall>,
}

static STATE: AtomicPtr<CallState> = AtomicPtr::new(null_mut());

/// The descriptor's state, set by [`serving_call`] before the descriptor exists.
fn call_state() -> PyResult<&'static CallState> {
    // SAFETY: a non-null STATE is a leaked Box, never freed or changed after it is stored
    unsafe { STATE.load(Ordering::Acquire).as_ref() }
        .ok_or_else(|| PyValueError::new_err("BertTokenizer.__call__ is not set up"))
}

/// The hand-offs, the first found of which `auto` uses (the others: tests).
const AUTO: u8 = 0;
const METHOD: u8 = 1;
const CALL: u8 = 2;

/// The descriptor for call.py's `Calls.__call__`: `general` is the Python function it replaces (also
/// reachable as `owner._general_call`), `doc` its `__text_signature__` and docstring. `handoff`:
/// "auto", or "vectorcall_method" / "call" to force a fallback (tests).
#[pyfunction]
#[pyo3(signature = (general, serving, encoding, rows, owner, doc, handoff="auto"))]
#[allow(clippy::too_many_arguments)]
pub(super) fn serving_call<'py>(
    py: Python<'py>,
    general: Bound<'py, PyAny>,
    serving: Bound<'py, PyDict>,
    encoding: Bound<'py, PyType>,
    rows: Bound<'py, PyType>,
    owner: Bound<'py, PyType>,
    doc: &str,
    handoff: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let Some(one_text) = serving.get_item(intern!(py, "one_text"))? else {
        return Err(PyValueError::new_err("serving has no one_text"));
    };
    let (vectorcall, vectorcall_method) = (lookup(c"PyObject_Vectorcall"), lookup(c"PyObject_VectorcallMethod"));
    let meth: ffi::PyCFunctionFastWithKeywords = match handoff {
        "auto" => call::<AUTO>,
        "vectorcall_method" if vectorcall_method.is_some() => call::<METHOD>,
        "call" => call::<CALL>,
        _ => return Err(PyValueError::new_err(format!("hand-off {handoff:?} unknown or not available here"))),
    };
    // SAFETY: `object`'s tp_new (3.10+ reads static types' slots); the pointer is never null.
    let object_new = unsafe { ffi::PyType_GetSlot(&raw mut ffi::PyBaseObject_Type, ffi::Py_tp_new) };
    if object_new.is_null() {
        return Err(PyValueError::new_err("object has no tp_new"));
    }
    let routes = Routes::new(py, &serving)?;
    let state = CallState {
        general: general.unbind(),
        routes,
        method_name: intern!(py, "_general_call").clone().unbind(),
        one: OneTextObjects {
            serving: serving.unbind(),
            one_text: one_text.unbind(),
            encoding: encoding.unbind(),
            rows: rows.unbind(),
            empty: PyTuple::empty(py).unbind(),
            // SAFETY: a tp_new slot holds a newfunc
            object_new: unsafe { std::mem::transmute::<*mut c_void, ffi::newfunc>(object_new) },
        },
        vectorcall,
        vectorcall_method,
    };
    STATE.store(Box::into_raw(Box::new(state)), Ordering::Release);
    let doc = CString::new(doc).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let def = Box::leak(Box::new(ffi::PyMethodDef {
        ml_name: c"__call__".as_ptr(),
        ml_meth: ffi::PyMethodDefPointer { PyCFunctionFastWithKeywords: meth },
        ml_flags: ffi::METH_FASTCALL | ffi::METH_KEYWORDS,
        ml_doc: doc.into_raw(), // (a descriptor keeps pointers to its definition: both live as long as the process)
    }));
    // SAFETY: `owner` is a type; `def` lives for ever
    unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyDescr_NewMethod(owner.as_type_ptr(), def)) }
}

/// The hand-off `auto` uses in this Python: "vectorcall", "vectorcall_method" or "call".
#[pyfunction]
pub(super) fn serving_call_handoff() -> &'static str {
    if lookup(c"PyObject_Vectorcall").is_some() {
        "vectorcall"
    } else if lookup(c"PyObject_VectorcallMethod").is_some() {
        "vectorcall_method"
    } else {
        "call"
    }
}

/// A function of the running interpreter by name (None where it does not export it, or off Linux and macOS).
fn lookup(name: &std::ffi::CStr) -> Option<Vectorcall> {
    #[cfg(any(target_os = "linux", target_os = "macos"))]
    {
        extern "C" {
            fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
        }
        #[cfg(target_os = "linux")]
        const RTLD_DEFAULT: *mut c_void = null_mut();
        #[cfg(target_os = "macos")]
        const RTLD_DEFAULT: *mut c_void = -2isize as *mut c_void;
        // SAFETY: dlsym with a NUL-terminated name; the functions found have the vectorcall signature
        let found = unsafe { dlsym(RTLD_DEFAULT, name.as_ptr()) };
        (!found.is_null()).then(|| unsafe { std::mem::transmute::<*mut c_void, Vectorcall>(found) })
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = name;
        None
    }
}

/// The descriptor's C function (`slf`: the tokenizer; `args`: the positional arguments, then the keyword
/// values). `tok(text)` goes through PyO3's trampoline (panics caught, its thread state); the hand-off is
/// plain C API calls, where nothing can panic, so the keyword calls pay for no set-up.
///
/// # Safety
/// Called by CPython as a METH_FASTCALL | METH_KEYWORDS method, attached to the interpreter.
unsafe extern "C" fn call<const MODE: u8>(
    slf: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: CPython's arguments: `slf` and `nargs` items of `args` live for the call
    unsafe {
        if nargs == 1 && kwnames.is_null() && ffi::PyUnicode_CheckExact(*args) != 0 {
            let one = match MODE {
                AUTO => pyo3::get_trampoline_function!(fastcall_cfunction_with_keywords, one_text_auto),
                METHOD => pyo3::get_trampoline_function!(fastcall_cfunction_with_keywords, one_text_method),
                _ => pyo3::get_trampoline_function!(fastcall_cfunction_with_keywords, one_text_tuple),
            };
            return one(slf, args, nargs, kwnames);
        }
        if nargs == 1 && !kwnames.is_null() {
            // SAFETY: as `call_state`'s
            if let Some(state) = STATE.load(Ordering::Acquire).as_ref() {
                let vectorcall = if MODE == AUTO { state.vectorcall } else { None };
                if let Some(out) = state.routes.as_ref().and_then(|r| r.call(slf, args, kwnames, vectorcall)) {
                    return out;
                }
            }
        }
        hand_off::<MODE>(slf, args, nargs, kwnames)
    }
}

/// [`one_text_or_hand_off`] for each hand-off (what PyO3's trampoline takes: a function, not a generic one).
/// (`get_trampoline_function!` is how PyO3's own methods are wrapped; it is hidden from PyO3's docs, so a
/// PyO3 upgrade may rename it.)
macro_rules! one_text_with {
    ($($name:ident: $mode:expr),*) => {$(
        /// # Safety
        /// As [`call`], with one str argument.
        unsafe fn $name(
            py: Python<'_>,
            slf: *mut ffi::PyObject,
            args: *const *mut ffi::PyObject,
            nargs: ffi::Py_ssize_t,
            kwnames: *mut ffi::PyObject,
        ) -> PyResult<*mut ffi::PyObject> {
            // SAFETY: as the caller's
            unsafe { one_text_or_hand_off::<{ $mode }>(py, slf, args, nargs, kwnames) }
        }
    )*};
}
one_text_with!(one_text_auto: AUTO, one_text_method: METHOD, one_text_tuple: CALL);

/// `tok(text)`: the core's one-text path, else the hand-off.
///
/// # Safety
/// As [`call`], with one str argument.
#[inline(always)]
unsafe fn one_text_or_hand_off<const MODE: u8>(
    py: Python<'_>,
    slf: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> PyResult<*mut ffi::PyObject> {
    // SAFETY: set before the descriptor exists, never freed; the arguments as in `call`
    unsafe {
        let state = call_state()?;
        let text = Borrowed::from_ptr(py, *args).cast_unchecked::<PyString>();
        if let Some(out) = one_text(py, &state.one, Borrowed::from_ptr(py, slf), text)? {
            return Ok(out.into_ptr());
        }
        Ok(hand_off::<MODE>(slf, args, nargs, kwnames)) // (null: its exception is set, and passed on)
    }
}

/// The Python function's call with the arguments as they came, the tokenizer first: one vectorcall
/// over a copy of the argument array (`args[-1]` is not the tokenizer when the descriptor was bound
/// first, `tok.__call__(...)`), or [`call_with_tuple`] where none is found.
///
/// # Safety
/// As [`call`].
unsafe fn hand_off<const MODE: u8>(
    slf: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: as in `call`; the copies hold `1 + nargs + len(kwnames)` pointers
    unsafe {
        let state = call_state().ok();
        let found = state.and_then(|s| match (MODE, s.vectorcall, s.vectorcall_method) {
            (AUTO, Some(f), _) => Some((f, s.general.as_ptr())),
            (AUTO | METHOD, _, Some(f)) => Some((f, s.method_name.as_ptr())),
            _ => None,
        });
        let Some((f, target)) = found else {
            let tuple = pyo3::get_trampoline_function!(fastcall_cfunction_with_keywords, call_with_tuple);
            return tuple(slf, args, nargs, kwnames);
        };
        let nkw = if kwnames.is_null() { 0 } else { ffi::PyTuple_Size(kwnames).max(0) };
        let (n, total) = (nargs.max(0) as usize, (nargs.max(0) + nkw) as usize);
        let mut small = [null_mut(); 24];
        if total < small.len() {
            small[0] = slf;
            std::ptr::copy_nonoverlapping(args, small.as_mut_ptr().add(1), total);
            return f(target, small.as_ptr(), n + 1, kwnames);
        }
        let mut large = Vec::new();
        if large.try_reserve_exact(total + 1).is_err() {
            return ffi::PyErr_NoMemory();
        }
        large.push(slf);
        large.extend_from_slice(std::slice::from_raw_parts(args, total));
        f(target, large.as_ptr(), n + 1, kwnames)
    }
}

/// `PyObject_Call(general, (tok, *args), {name: value})`: where no vectorcall is found.
///
/// # Safety
/// As [`call`].
unsafe fn call_with_tuple(
    py: Python<'_>,
    slf: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> PyResult<*mut ffi::PyObject> {
    // SAFETY: as in `call`
    unsafe {
        let state = call_state()?;
        let nkw = if kwnames.is_null() { 0 } else { ffi::PyTuple_Size(kwnames).max(0) as usize };
        let n = nargs.max(0) as usize;
        let item = |i: usize| Borrowed::from_ptr(py, *args.add(i));
        let positional = PyTuple::new(py, (0..n + 1).map(|i| if i == 0 { Borrowed::from_ptr(py, slf) } else { item(i - 1) }))?;
        let keywords = if nkw == 0 {
            None
        } else {
            let names = Borrowed::from_ptr(py, kwnames).cast_unchecked::<PyTuple>();
            let dict = PyDict::new(py);
            for (k, name) in names.iter().enumerate() {
                dict.set_item(name, item(n + k))?;
            }
            Some(dict)
        };
        Ok(ffi::PyObject_Call(
            state.general.as_ptr(),
            positional.as_ptr(),
            keywords.as_ref().map_or(null_mut(), |d| d.as_ptr()),
        ))
    }
}
