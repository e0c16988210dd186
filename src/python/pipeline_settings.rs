//! Truncation and padding settings of `PipelineTokenizer`, checked as HF's
//! `enable_truncation` / `enable_padding` check them (same messages).

use crate::pipeline::{Settings, Tokenizer};
use crate::processors::padding::PaddingParams;
use crate::processors::truncation::{Direction, Strategy, TruncationParams};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::RwLock;

/// (max_length, stride, strategy, direction)
pub(super) type TruncTuple = (usize, usize, String, String);
/// (length, pad_to_multiple_of, pad_id, pad_token, pad_type_id, direction)
pub(super) type PadTuple = (Option<usize>, Option<usize>, u32, String, u32, String);

pub(super) fn read(lock: &RwLock<Settings>) -> Settings {
    // A poisoned lock still holds whole settings (they are replaced, never edited in place).
    lock.read().unwrap_or_else(|e| e.into_inner()).clone()
}

fn write(lock: &RwLock<Settings>, f: impl FnOnce(&mut Settings)) {
    f(&mut lock.write().unwrap_or_else(|e| e.into_inner()));
}

fn direction(name: &str, hint: &str) -> PyResult<Direction> {
    Direction::parse(name).ok_or_else(|| PyValueError::new_err(format!("Unknown `direction`: `{name}`. Use one of `left` or `right`{hint}")))
}

pub(super) fn trunc_tuple(s: &Settings) -> Option<TruncTuple> {
    s.truncation.map(|t| (t.max_length, t.stride, t.strategy.name().to_string(), t.direction.name().to_string()))
}

pub(super) fn pad_tuple(s: &Settings) -> Option<PadTuple> {
    s.padding.as_ref().map(|p| (p.length, p.pad_to_multiple_of, p.pad_id, p.pad_token.clone(), p.pad_type_id, p.direction.name().to_string()))
}

pub(super) fn set_truncation(lock: &RwLock<Settings>, t: &Tokenizer, params: Option<TruncTuple>) -> PyResult<()> {
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
    write(lock, |s| s.truncation = params);
    Ok(())
}

pub(super) fn set_padding(lock: &RwLock<Settings>, params: Option<PadTuple>) -> PyResult<()> {
    let params = match params {
        None => None,
        Some((length, pad_to_multiple_of, pad_id, pad_token, pad_type_id, dir)) => {
            Some(PaddingParams { length, direction: direction(&dir, "")?, pad_to_multiple_of, pad_id, pad_type_id, pad_token })
        }
    };
    write(lock, |s| s.padding = params);
    Ok(())
}
