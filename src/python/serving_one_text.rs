//! `tok(text)` in the core (`serving_call.rs`'s descriptor): `serving.one_text`'s work for one str and
//! the default options, from what [`OneText`] holds of the tokenizer, to the same `BatchEncoding` and lazy
//! `_OneTextRows` as one_text makes (the tests compare the two on the same calls).

use super::full_tokenizer::PyFullTokenizer;
use super::serving::{one_text_dict, Needles};
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::exceptions::PyTypeError;
use pyo3::types::{PyDict, PyInt, PyString, PyTuple, PyType};
use std::ptr::null_mut;

/// What `tok(text)`'s core path reads of a tokenizer: made by serving.py's
/// `ServingState` (`st.one`, None where one_text would decline on the
/// settings), so it is dropped with it on any change of the tokenizer.
#[pyclass(frozen, module = "bertpiece._core", name = "OneText")]
pub(super) struct OneText {
    /// `id(tok)`: a shallow copy shares the engine (and its state), not the tokens.
    owner: usize,
    core: Py<PyFullTokenizer>,
    cls: u32,
    sep: u32,
    added: Py<Needles>,
    /// `model_max_length` when it is an int (clamped: ids never number 2^63);
    /// None: the Python path compares.
    limit: Option<i64>,
    /// `ServingState.one_made[True]`: the lazy rows' epoch and options.
    made: Py<PyAny>,
}

#[pymethods]
impl OneText {
    #[new]
    fn new(
        owner: usize,
        core: Py<PyFullTokenizer>,
        cls_id: u32,
        sep: u32,
        added: Py<Needles>,
        model_max_length: &Bound<'_, PyAny>,
        made: Py<PyAny>,
    ) -> Self {
        let limit = model_max_length.cast_exact::<PyInt>().ok().map(|n| {
            n.extract::<i64>().unwrap_or(if n.lt(0).unwrap_or(false) { i64::MIN } else { i64::MAX })
        });
        OneText { owner, core, cls: cls_id, sep, added, limit, made }
    }
}

/// The objects `tok(text)`'s path reads, made once when call.py installs the core's `__call__`
/// (serving_call.rs) and kept for the process.
pub(super) struct OneTextObjects {
    /// serving.py's module dict and its `one_text` as it was: a replaced one (the tests' hook to watch
    /// it or make it decline) sends `tok(text)` to the Python path, which calls it.
    pub(super) serving: Py<PyDict>,
    pub(super) one_text: Py<PyAny>,
    pub(super) encoding: Py<PyType>,
    pub(super) rows: Py<PyType>,
    pub(super) empty: Py<PyTuple>,
    pub(super) object_new: ffi::newfunc,
}

/// `serving.one_text(tok, text, True, True)`, or None where it declines (or the state is not yet made,
/// or is another tokenizer's: the Python path makes it).
pub(super) fn one_text<'py>(
    py: Python<'py>,
    state: &OneTextObjects,
    tok: Borrowed<'_, 'py, PyAny>,
    text: Borrowed<'_, 'py, PyString>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    match state.serving.bind(py).get_item(intern!(py, "one_text")) {
        Ok(Some(f)) if f.is(&state.one_text) => {}
        _ => return Ok(None),
    }
    // `tok._engine` by the generic lookup: the class's `__getattr__` would make it look up `__getattr__` and
    // `__getattribute__` on the class first (a `__getattribute__` of a subclass is not consulted for it)
    // SAFETY: a live object and an interned name; a null result is an exception, cleared
    let engine = unsafe {
        Bound::from_owned_ptr_or_opt(py, ffi::PyObject_GenericGetAttr(tok.as_ptr(), intern!(py, "_engine").as_ptr()))
    };
    let Some(Ok(serving)) = engine.map(|e| e.getattr(intern!(py, "serving"))) else {
        drop(PyErr::take(py));
        return Ok(None); // (not a tokenizer made by __init__: the Python path says what it makes of it)
    };
    if serving.is_none() {
        return Ok(None);
    }
    let Ok(one) = serving.getattr(intern!(py, "one")) else {
        return Ok(None);
    };
    let Ok(one) = one.cast_into::<OneText>() else {
        return Ok(None); // None: settings one_text declines
    };
    let o = one.get();
    let Some(limit) = o.limit.filter(|_| o.owner == tok.as_ptr() as usize) else {
        return Ok(None);
    };
    let found = one_text_dict(py, o.core.get(), &text, Some(o.cls), Some(o.sep), Some(o.added.bind(py)))?;
    let Some((data, n)) = found else {
        return Ok(None); // an added token in the text, or a lone surrogate: the general path
    };
    if i64::try_from(n).unwrap_or(i64::MAX) > limit {
        let ids = data.get_item(intern!(py, "input_ids"))?;
        tok.call_method1(intern!(py, "_warn_if_too_long"), (ids, false))?;
    }
    // `object.__new__(BatchEncoding)`, then one_text's stores
    let out = new_object(py, state, &state.encoding)?;
    out.setattr(intern!(py, "data"), data)?;
    let rows = new_object(py, state, &state.rows)?;
    out.setattr(intern!(py, "_rows"), &rows)?;
    rows.setattr(intern!(py, "_tok"), tok)?;
    rows.setattr(intern!(py, "_made"), o.made.bind(py))?;
    rows.setattr(intern!(py, "_text"), text)?;
    Ok(Some(out))
}

/// `object.__new__(cls)`: `object`'s tp_new itself, without the argument checks of a call.
fn new_object<'py>(py: Python<'py>, state: &OneTextObjects, cls: &Py<PyType>) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: object's tp_new with a type and an empty tuple, as `object.__new__(cls)` calls it
    unsafe {
        let made = (state.object_new)(cls.as_ptr().cast(), state.empty.as_ptr(), null_mut());
        Bound::from_owned_ptr_or_err(py, made)
    }
}

/// `object.__new__(cls)` for a class whose `__new__` is object's: the serving paths' `BatchEncoding` and
/// rows, made without `__init__` (as `object.__new__` makes them) but without the argument tuple and
/// checks of calling it (about 200 instructions a call). Any other class: TypeError.
#[pyfunction]
pub(super) fn new_instance<'py>(py: Python<'py>, cls: &Bound<'py, PyType>) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: slots read from live types (3.10+ reads static types' slots too); object's tp_new called as
    // `object.__new__(cls)` calls it, with an empty tuple
    unsafe {
        let object_new = ffi::PyType_GetSlot(&raw mut ffi::PyBaseObject_Type, ffi::Py_tp_new);
        if object_new.is_null() || ffi::PyType_GetSlot(cls.as_type_ptr(), ffi::Py_tp_new) != object_new {
            return Err(PyTypeError::new_err(format!("{} has a __new__ of its own", cls.name()?)));
        }
        let new = std::mem::transmute::<*mut std::ffi::c_void, ffi::newfunc>(object_new);
        Bound::from_owned_ptr_or_err(py, new(cls.as_type_ptr(), PyTuple::empty(py).as_ptr(), null_mut()))
    }
}
