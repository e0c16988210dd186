//! Lists from Python (token ids, pieces) as vectors made fallibly. PyO3's own
//! `Vec<T>` extraction allocates with `with_capacity`, which aborts the
//! process when the room cannot be had; a list of ids can be as large as
//! memory. The errors are PyO3's: a str is refused, a non-sequence is a
//! cast error, an item that is not a `T` fails as its own extraction does.

use crate::room::{make_room, try_push};
use pyo3::conversion::FromPyObjectOwned;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

/// A `Vec<T>` extracted from a Python sequence, its room made fallibly (a
/// list of lists is a `ListOf<ListOf<T>>`).
pub(super) struct ListOf<T>(pub Vec<T>);

impl<'a, 'py, T: FromPyObjectOwned<'py>> FromPyObject<'a, 'py> for ListOf<T> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err("Can't extract `str` to `Vec`"));
        }
        let Ok(list) = obj.cast::<PyList>() else {
            // another sequence (the wrappers pass lists): PyO3's extraction, errors and all
            return Ok(ListOf(obj.extract::<Vec<T>>()?));
        };
        let mut v = Vec::new();
        make_room(&mut v, list.len(), "list items")?;
        for item in list.iter() {
            // (the list may grow while an item's conversion runs Python code)
            try_push(&mut v, item.extract::<T>().map_err(Into::into)?, "list items")?;
        }
        Ok(ListOf(v))
    }
}
