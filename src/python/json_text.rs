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
