//! The tokenizer.json text passes of `crate::json_text` for serialization.py.

use crate::json_text;
use pyo3::prelude::*;

/// `text` with the float literals serde_json would misread replaced by `fallback(literal)`.
#[pyfunction]
pub fn exact_float_literals(text: &str, fallback: &Bound<'_, PyAny>) -> PyResult<String> {
    let mut raised: Option<PyErr> = None;
    let result = json_text::exact_float_literals(text, &mut |literal| {
        fallback.call1((literal,)).and_then(|v| v.extract::<String>()).map_err(|e| {
            raised = Some(e);
            crate::Error::Config("the fallback raised".into())
        })
    });
    match (result, raised) {
        (_, Some(e)) => Err(e),
        (r, None) => Ok(r?),
    }
}

/// The values of `keys` in `text`'s top-level object as json.dumps writes them at level 1.
#[pyfunction]
pub fn json_top_level_values(text: &str, keys: Vec<String>, pretty: bool) -> PyResult<Vec<Option<String>>> {
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    Ok(json_text::top_level_values(text, &keys, pretty)?)
}

/// `to_str`'s text: `head` then the `keys`' values of `text` (`json_document::document`), the GIL released.
#[pyfunction]
pub fn json_document(py: Python<'_>, text: &str, head: &str, keys: Vec<String>, pretty: bool) -> PyResult<String> {
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    Ok(py.detach(|| crate::json_document::document(text, head, &keys, pretty))?)
}

/// `json_document`'s text written to the file at `path` (created or truncated; the
/// caller makes the write atomic): the text never becomes a Python object, as
/// tokenizers' `save` writes straight from Rust.
#[pyfunction]
pub fn json_document_to_file(
    py: Python<'_>,
    text: &str,
    head: &str,
    keys: Vec<String>,
    pretty: bool,
    path: std::path::PathBuf,
) -> PyResult<()> {
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    py.detach(|| {
        let out = crate::json_document::document(text, head, &keys, pretty)?;
        std::fs::write(&path, out).map_err(PyErr::from)
    })
}
