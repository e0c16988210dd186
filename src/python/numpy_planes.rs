//! A padded block's three int64 planes (ids, token type ids, attention mask)
//! as three NumPy arrays made by the core through NumPy's own C API table,
//! the `_ARRAY_API` capsule of `numpy._core._multiarray_umath` (what NumPy's
//! `import_array()` reads; read here once per process). `numpy.asarray` of
//! an [`Array`] through `__array_struct__` and three row views cost about a
//! fifth of a padded call of one text: NumPy rebuilds the dtype from a type
//! string on every call. The arrays are the ones the views were: C-contiguous,
//! writeable, not owning their data; their base is the `Array` holding it.

use super::args::Array;
use pyo3::exceptions::PyRuntimeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use std::os::raw::{c_int, c_long, c_void};

/// The table's address (a pointer NumPy keeps alive while its module is loaded).
struct Table(usize);

static TABLE: PyOnceLock<Table> = PyOnceLock::new();

// Slots of NumPy's C API table (numpy/__multiarray_api.h; the same in NumPy 1 and 2).
const ARRAY_TYPE: usize = 2;
const DESCR_FROM_TYPE: usize = 45;
const NEW_FROM_DESCR: usize = 94;
const SET_BASE_OBJECT: usize = 282;
/// NumPy's type number of int64: NPY_LONG where a C long has 64 bits, NPY_LONGLONG otherwise.
const INT64: c_int = if std::mem::size_of::<c_long>() == 8 { 7 } else { 9 };
/// NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_WRITEABLE: what the data is.
const CARRAY: c_int = 0x1 | 0x100 | 0x400;

type DescrFromType = unsafe extern "C" fn(c_int) -> *mut ffi::PyObject;
type NewFromDescr = unsafe extern "C" fn(
    *mut ffi::PyTypeObject,
    *mut ffi::PyObject,
    c_int,
    *const ffi::Py_ssize_t,
    *const ffi::Py_ssize_t,
    *mut c_void,
    c_int,
    *mut ffi::PyObject,
) -> *mut ffi::PyObject;
type SetBaseObject = unsafe extern "C" fn(*mut ffi::PyObject, *mut ffi::PyObject) -> c_int;

fn table(py: Python<'_>) -> PyResult<*const *const c_void> {
    let t = TABLE.get_or_try_init(py, || -> PyResult<_> {
        let module = py.import("numpy._core._multiarray_umath").or_else(|_| py.import("numpy.core._multiarray_umath"))?;
        let capsule = module.getattr("_ARRAY_API")?;
        // SAFETY: a capsule's pointer, named NULL as NumPy makes it; NULL (with an error set) on failure.
        let p = unsafe { ffi::PyCapsule_GetPointer(capsule.as_ptr(), std::ptr::null()) };
        if p.is_null() {
            return Err(PyErr::take(py).unwrap_or_else(|| PyRuntimeError::new_err("NumPy's _ARRAY_API is empty")));
        }
        Ok(Table(p as usize))
    })?;
    Ok(t.0 as *const *const c_void)
}

/// `block` (3 planes of `rows x width` int64, one after another) as three 2-D arrays.
pub(super) fn planes<'py>(
    py: Python<'py>,
    block: Vec<i64>,
    rows: usize,
    width: usize,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let api = table(py)?;
    let owner = Bound::new(py, Array::pooled(block, vec![3, rows, width])?)?;
    let address = owner.get().address();
    let dims = [rows as ffi::Py_ssize_t, width as ffi::Py_ssize_t];
    // The strides the views of `numpy.asarray(block)` had, also where a size is 0 (NumPy's own would differ there).
    let strides = [(width * 8) as ffi::Py_ssize_t, 8];
    let plane = |k: usize| -> PyResult<Bound<'py, PyAny>> {
        // SAFETY: the slots hold these functions (NumPy's C API); the data is `rows x width`
        // int64 values at plane k of the owner's block, which the array keeps alive as its base.
        unsafe {
            let descr_from_type: DescrFromType = std::mem::transmute(*api.add(DESCR_FROM_TYPE));
            let new_from_descr: NewFromDescr = std::mem::transmute(*api.add(NEW_FROM_DESCR));
            let set_base: SetBaseObject = std::mem::transmute(*api.add(SET_BASE_OBJECT));
            let descr = descr_from_type(INT64);
            if descr.is_null() {
                return Err(PyErr::fetch(py));
            }
            let data = (address as *mut i64).add(k * rows * width);
            // (the descr reference is taken by the call, whatever its result)
            let array = new_from_descr(
                *api.add(ARRAY_TYPE) as *mut ffi::PyTypeObject,
                descr,
                2,
                dims.as_ptr(),
                strides.as_ptr(),
                data.cast(),
                CARRAY,
                std::ptr::null_mut(),
            );
            if array.is_null() {
                return Err(PyErr::fetch(py));
            }
            let array = Bound::from_owned_ptr(py, array);
            // (the owner reference is taken by the call, whatever its result)
            if set_base(array.as_ptr(), owner.clone().into_ptr()) != 0 {
                return Err(PyErr::fetch(py));
            }
            Ok(array)
        }
    };
    Ok((plane(0)?, plane(1)?, plane(2)?))
}

/// NumPy's type number of int32 (NPY_INT: a C int has 32 bits on every platform NumPy supports).
const INT32: c_int = 5;
const WRITEABLE: c_int = 0x400;

/// The leading fields of NumPy's array object (`PyArrayObject_fields`, the same in NumPy 1 and 2):
/// what its `PyArray_DATA` and `PyArray_CLEARFLAGS` macros read and write.
#[repr(C)]
struct ArrayFields {
    head: ffi::PyObject,
    data: *mut u8,
    nd: c_int,
    dimensions: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    base: *mut ffi::PyObject,
    descr: *mut ffi::PyObject,
    flags: c_int,
}

/// `values` as a new read-only 1-D int32 array, as sentencepiece's `out_type="numpy"` rows
/// (theirs are read-only views of a buffer; this one owns its data). Values above `i32::MAX`
/// are refused.
pub(super) fn int32_vector<'py>(py: Python<'py>, values: &[u32]) -> PyResult<Bound<'py, PyAny>> {
    if values.iter().any(|&v| v > i32::MAX as u32) {
        return Err(pyo3::exceptions::PyOverflowError::new_err("an id does not fit in int32"));
    }
    let api = table(py)?;
    let dims = [values.len() as ffi::Py_ssize_t];
    // SAFETY: the slots hold these functions (NumPy's C API); with no data given NumPy allocates
    // a C-contiguous array of `dims` int32 values, whose fields are laid out as ArrayFields.
    unsafe {
        let descr_from_type: DescrFromType = std::mem::transmute(*api.add(DESCR_FROM_TYPE));
        let new_from_descr: NewFromDescr = std::mem::transmute(*api.add(NEW_FROM_DESCR));
        let descr = descr_from_type(INT32);
        if descr.is_null() {
            return Err(PyErr::fetch(py));
        }
        let array = new_from_descr(
            *api.add(ARRAY_TYPE) as *mut ffi::PyTypeObject,
            descr,
            1,
            dims.as_ptr(),
            std::ptr::null(),
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
        );
        if array.is_null() {
            return Err(PyErr::fetch(py));
        }
        let array = Bound::from_owned_ptr(py, array);
        let fields = array.as_ptr().cast::<ArrayFields>();
        if !values.is_empty() {
            std::ptr::copy_nonoverlapping(values.as_ptr(), (*fields).data.cast::<u32>(), values.len());
        }
        (*fields).flags &= !WRITEABLE;
        Ok(array)
    }
}
