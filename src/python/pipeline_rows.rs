//! The per-text calls' encodings of plain texts (`encode(text)`, `encode_batch(texts)`,
//! no padding): each text the ids-only plan takes (src/pipeline_ids.rs, the fast paths'
//! ids) becomes an [`IdsRow`] holding its ids alone, the rest of its columns made by
//! `encode` when first read; each text it declines is encoded whole, as before. Building
//! the seven columns of every encoding (tokens, words, offsets, masks) was most of these
//! calls' time, and most callers read `ids` only (docs/benchmarks/encode-objects-45.md).

use super::pipeline_encoding::{IdsRow, PyPipelineEncoding, Vocab};
use crate::encoding::Encoding;
use crate::pipeline::{IdsPlan, Input, Settings, Tokenizer};
use std::cell::RefCell;
use crate::processors::truncation::TruncationParams;
use crate::room::make_room;
use super::pipeline_shared::shrunk;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

/// One text's encoding as a job makes it (without the GIL). Rows live only in a job's vector
/// until their Python objects are made: a boxed `Encoding` would cost a declined text an allocation.
#[allow(clippy::large_enum_variant)]
pub(super) enum Row {
    /// The ids, and whether truncation cut the text (its `overflowing` then not empty).
    Ids(Box<[u32]>, bool),
    Full(Encoding),
}

/// `ids` in a box of their own, made fallibly.
fn boxed(ids: &[u32]) -> crate::Result<Box<[u32]>> {
    crate::room::try_copy(ids, "token ids").map(Vec::into_boxed_slice)
}

/// The rows of `texts`, in order: runs on the ids-only plan, each text it declines through `encode`.
pub(super) fn rows(t: &Tokenizer, texts: &[&str], add_special_tokens: bool, truncation: Option<TruncationParams>) -> crate::Result<Vec<Row>> {
    let plan = t.ids_plan(add_special_tokens, truncation, false);
    let settings = Settings { truncation, padding: None };
    let (mut out, mut ids, mut lens) = (Vec::new(), Vec::new(), Vec::new());
    make_room(&mut out, texts.len(), "encodings")?;
    make_room(&mut lens, texts.len(), "row lengths")?;
    // English runs near 4.5 bytes a token
    make_room(&mut ids, texts.iter().map(|s| s.len()).sum::<usize>() / 4 + texts.len(), "token ids")?;
    let mut k = 0;
    loop {
        if let Some(plan) = &plan {
            ids.clear();
            lens.clear();
            k += t.encode_ids_run(plan, &texts[k..], &mut ids, None, |n, cut| lens.push((n, cut)))?;
            let mut at = 0;
            for &(n, cut) in &lens {
                out.push(Row::Ids(boxed(&ids[at..at + n])?, cut));
                at += n;
            }
        }
        let Some(text) = texts.get(k) else { return Ok(out) };
        k += 1;
        out.push(Row::Full(shrunk(t.encode(&Input::Raw(text), None, add_special_tokens, &settings)?)));
    }
}

/// [`rows`] of one text, with no more allocations than the ids' own (the per-text call's row):
/// the ids made in this thread's scratch vector, then copied into a box of their length. Made
/// in a box guessed from the text's length, they outgrew it on most lines of a small
/// vocabulary (XLM-R's shape, ~0.4 ids a byte: a growing `realloc` and a shrinking one a call).
pub(super) fn one_row(t: &Tokenizer, text: &str, add_special_tokens: bool, truncation: Option<TruncationParams>) -> crate::Result<Row> {
    if let Some(plan) = t.ids_plan(add_special_tokens, truncation, false) {
        let row = SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut ids) => ids_row(t, &plan, text, &mut ids),
            // (never taken: nothing in an encode calls back here)
            Err(_) => ids_row(t, &plan, text, &mut Vec::new()),
        })?;
        if let Some(row) = row {
            return Ok(row);
        }
    }
    Ok(Row::Full(t.encode(&Input::Raw(text), None, add_special_tokens, &Settings { truncation, padding: None })?))
}

thread_local! {
    /// [`one_row`]'s ids before they are boxed.
    static SCRATCH: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// The scratch vector's room kept between calls (ids); a longer text's is given back.
const SCRATCH_KEEP: usize = 1 << 16;

/// `text`'s ids row on `plan`, made in `ids` (emptied first); None where the plan declines the text.
fn ids_row(t: &Tokenizer, plan: &IdsPlan<'_>, text: &str, ids: &mut Vec<u32>) -> crate::Result<Option<Row>> {
    ids.clear();
    let mut truncated = false;
    let done = t.encode_ids_run(plan, &[text], ids, None, |_, cut| truncated = cut);
    let row = match done {
        Ok(1) => boxed(ids).map(|ids| Some(Row::Ids(ids, truncated))),
        Ok(_) => Ok(None),
        Err(e) => Err(e),
    };
    if ids.capacity() > SCRATCH_KEEP {
        *ids = Vec::new();
    }
    row
}

/// `row` (of `text`) as a Python encoding.
pub(super) fn encoding(py: Python<'_>, row: Row, text: &PyBackedStr, add_special_tokens: bool, truncation: Option<TruncationParams>, vocab: &Vocab) -> PyPipelineEncoding {
    match row {
        Row::Ids(ids, truncated) => {
            let row = IdsRow { ids, text: text.clone_ref(py), add_special_tokens, truncation, truncated };
            PyPipelineEncoding::from_ids(row, vocab.clone())
        }
        Row::Full(e) => PyPipelineEncoding::new(e, vocab.clone()),
    }
}
