//! `Array.__array_struct__`: NumPy's C-level array interface, a capsule
//! holding a `PyArrayInterface` (numpy/ndarraytypes.h). `numpy.asarray` asks
//! for it before `__array_interface__`, and reading a struct costs it less
//! than parsing a dict of tuples (the padded serving calls make one array per
//! call). NumPy copies the shape and strides out of the struct and keeps the
//! `Array` itself (not the capsule) alive as the new array's base.

use pyo3::ffi;
use pyo3::prelude::*;
use std::os::raw::{c_char, c_int, c_void};

/// NumPy's `PyArrayInterface`, field for field.
#[repr(C)]
struct ArrayInterface {
    two: c_int,
    nd: c_int,
    typekind: c_char,
    itemsize: c_int,
    flags: c_int,
    shape: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    data: *mut c_void,
    descr: *mut ffi::PyObject,
}

/// The struct with the shape and strides it points to (a `Vec`: its heap
/// block stays where it is when the box moves). `repr(C)`: the interface
/// first, where the capsule's pointer points.
#[repr(C)]
struct Held {
    iface: ArrayInterface,
    _dims: Vec<ffi::Py_ssize_t>,
}

// NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED | NPY_ARRAY_WRITEABLE
const FLAGS: c_int = 0x1 | 0x100 | 0x200 | 0x400;

unsafe extern "C" fn free_held(capsule: *mut ffi::PyObject) {
    // SAFETY: the pointer was made by `Box::into_raw` in `capsule` below, and this runs once.
    let p = unsafe { ffi::PyCapsule_GetPointer(capsule, std::ptr::null()) };
    if !p.is_null() {
        drop(unsafe { Box::from_raw(p.cast::<Held>()) });
    }
}

/// The capsule for C-contiguous data at `address` of `typestr` ("<i8", "|u1"...) and `shape`.
pub(super) fn capsule<'py>(py: Python<'py>, address: usize, typestr: &str, shape: &[usize]) -> PyResult<Bound<'py, PyAny>> {
    let bytes = typestr.as_bytes();
    let itemsize: usize = typestr.get(2..).and_then(|s| s.parse().ok()).unwrap_or(1);
    let nd = shape.len();
    let mut dims: Vec<ffi::Py_ssize_t> = Vec::with_capacity(2 * nd);
    dims.extend(shape.iter().map(|&n| n as ffi::Py_ssize_t));
    let mut strides = vec![itemsize as ffi::Py_ssize_t; nd];
    for k in (0..nd.saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * dims[k + 1];
    }
    dims.extend(strides);
    let mut held = Box::new(Held {
        iface: ArrayInterface {
            two: 2,
            nd: nd as c_int,
            typekind: bytes.get(1).copied().unwrap_or(b'u') as c_char,
            itemsize: itemsize as c_int,
            flags: FLAGS,
            shape: std::ptr::null_mut(),
            strides: std::ptr::null_mut(),
            data: address as *mut c_void,
            descr: std::ptr::null_mut(),
        },
        _dims: dims,
    });
    let base = held._dims.as_mut_ptr();
    held.iface.shape = base;
    // SAFETY: `_dims` holds 2 * nd values: the strides start at nd.
    held.iface.strides = unsafe { base.add(nd) };
    let raw = Box::into_raw(held);
    // SAFETY: `raw` is a valid pointer (the struct starts with the interface NumPy reads); the
    // destructor frees it. On failure the box is taken back and freed here.
    unsafe {
        let cap = ffi::PyCapsule_New(raw.cast(), std::ptr::null(), Some(free_held));
        if cap.is_null() {
            drop(Box::from_raw(raw));
            return Err(PyErr::fetch(py));
        }
        Ok(Bound::from_owned_ptr(py, cap))
    }
}
