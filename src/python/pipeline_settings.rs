//! Truncation and padding settings of `PipelineTokenizer`, checked as HF's
//! `enable_truncation` / `enable_padding` check them (same messages).
//! A `PipelineSettings` never changes: `enable_*`/`no_*` make a new one, which
//! the Python object holds and passes to each encode (no lock, no copy per call).

use crate::pipeline::{Settings, Tokenizer};
use crate::processors::padding::PaddingParams;
use crate::processors::truncation::{Direction, Strategy, TruncationParams};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

#[pyclass(frozen, module = "bertpiece._core", name = "PipelineSettings")]
pub(super) struct PySettings {
    pub(super) inner: Settings,
}

impl PySettings {
    pub(super) fn new(inner: Settings) -> PySettings {
        PySettings { inner }
    }
}

#[pymethods]
impl PySettings {
    /// (max_length, stride, strategy, direction), or None.
    #[getter]
    fn truncation(&self) -> Option<TruncTuple> {
        trunc_tuple(&self.inner)
    }

    /// (length, pad_to_multiple_of, pad_id, pad_token, pad_type_id, direction), or None.
    #[getter]
    fn padding(&self) -> Option<PadTuple> {
        pad_tuple(&self.inner)
    }
}

/// (max_length, stride, strategy, direction)
pub(super) type TruncTuple = (usize, usize, String, String);
/// (length, pad_to_multiple_of, pad_id, pad_token, pad_type_id, direction)
pub(super) type PadTuple = (Option<usize>, Option<usize>, u32, String, u32, String);

fn direction(name: &str, hint: &str) -> PyResult<Direction> {
    Direction::parse(name).ok_or_else(|| PyValueError::new_err(format!("Unknown `direction`: `{name}`. Use one of `left` or `right`{hint}")))
}

fn trunc_tuple(s: &Settings) -> Option<TruncTuple> {
    s.truncation.map(|t| (t.max_length, t.stride, t.strategy.name().to_string(), t.direction.name().to_string()))
}

fn pad_tuple(s: &Settings) -> Option<PadTuple> {
    s.padding.as_ref().map(|p| (p.length, p.pad_to_multiple_of, p.pad_id, p.pad_token.clone(), p.pad_type_id, p.direction.name().to_string()))
}

/// `s` with truncation set to `params` (None: off).
pub(super) fn with_truncation(s: &Settings, t: &Tokenizer, params: Option<TruncTuple>) -> PyResult<PySettings> {
    let params = match params {
        None => None,
        Some((max_length, stride, strategy, dir)) => {
            let strategy = Strategy::parse(&strategy).ok_or_else(|| {
                PyValueError::new_err(format!("Unknown `strategy`: `{strategy}`. Use one of `longest_first`, `only_first`, or `only_second`"))
            })?;
            let direction = direction(&dir, ".")?;
            let added = t.num_special_tokens_to_add(false);
            // HF subtracts with wrap-around, so a max_length below the specials passes.
            let effective = max_length.wrapping_sub(added);
            if effective < stride {
                return Err(PyValueError::new_err(format!(
                    "tokenizer stride set to {stride}, which is greater than or equal to its effective max length of {effective} (= {max_length} original max length - {added} added special tokens), "
                )));
            }
            Some(TruncationParams { max_length, stride, strategy, direction })
        }
    };
    Ok(PySettings::new(Settings { truncation: params, padding: s.padding.clone() }))
}

/// `s` with padding set to `params` (None: off).
pub(super) fn with_padding(s: &Settings, params: Option<PadTuple>) -> PyResult<PySettings> {
    let params = match params {
        None => None,
        Some((length, pad_to_multiple_of, pad_id, pad_token, pad_type_id, dir)) => {
            Some(PaddingParams { length, direction: direction(&dir, "")?, pad_to_multiple_of, pad_id, pad_type_id, pad_token })
        }
    };
    Ok(PySettings::new(Settings { truncation: s.truncation, padding: params }))
}
