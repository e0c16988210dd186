//! The BERT bulk call with its texts read while the pool's workers already
//! encode (crate::batch_fed): the calling thread holds the GIL and reads a
//! block of strs after another, the other workers encode each block once it
//! is read, and the calling thread joins them (without the GIL) when all are.
//! Reading used to come first, on one thread, while the others waited.

use super::args::prefetch_object;
use crate::batch::{Batch, BatchOptions};
use crate::batch_fed::{encode_fed, TextFeed};
use crate::tokenizer::FullTokenizer;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

/// `texts` encoded with the reading overlapped, or `None` where that is not
/// taken: not a list or tuple, a batch too small to spread over every
/// thread asked, or an item that is not a str with its own UTF-8 (a
/// subclass, lone surrogates): such a batch is read the usual way
/// (`BatchTexts`), which names the first bad item as before.
pub(super) fn encode_batch_fed(
    py: Python<'_>,
    tok: &FullTokenizer,
    texts: &Bound<'_, PyAny>,
    opts: BatchOptions,
    needles: &[&[u8]],
    threads: Option<usize>,
) -> PyResult<Option<Batch>> {
    let seq = if let Ok(list) = texts.cast::<PyList>() {
        Seq::List(list)
    } else if let Ok(tuple) = texts.cast::<PyTuple>() {
        Seq::Tuple(tuple)
    } else {
        return Ok(None);
    };
    // `items` holds a reference to each str whose UTF-8 the feed points into:
    // declared before the feed, it outlives it.
    let mut items = Held(Vec::new());
    let Some(feed) = TextFeed::new(seq.len(), threads)? else {
        return Ok(None);
    };
    crate::room::make_room(&mut items.0, seq.len(), "texts")?;
    let mut read_all = false;
    let pending = encode_fed(tok, &feed, opts, needles, |work| {
        read_all = read_blocks(&seq, &feed, &mut items.0);
        if read_all {
            py.detach(work);
        } else {
            feed.stop();
        }
    })?;
    if !read_all {
        return Ok(None);
    }
    let batch = py.detach(|| pending.finish())?;
    drop(feed);
    Ok(Some(batch))
}

enum Seq<'a, 'py> {
    List(&'a Bound<'py, PyList>),
    Tuple(&'a Bound<'py, PyTuple>),
}

impl<'py> Seq<'_, 'py> {
    fn len(&self) -> usize {
        match self {
            Seq::List(l) => l.len(),
            Seq::Tuple(t) => t.len(),
        }
    }

    fn get(&self, k: usize) -> Option<Bound<'py, PyAny>> {
        match self {
            Seq::List(l) => l.get_item(k).ok(),
            Seq::Tuple(t) => t.get_item(k).ok(),
        }
    }
}

/// Reads every block in the feed's order, putting each as it is read;
/// false at the first item that is not a str with its own UTF-8 (nothing
/// is put after it). No Python code runs here (the items are exact strs;
/// a str's UTF-8 is made by C code that allocates no object the collector
/// tracks), so the sequence cannot change while it is read.
fn read_blocks<'py>(seq: &Seq<'_, 'py>, feed: &TextFeed<'_>, items: &mut Vec<Bound<'py, PyAny>>) -> bool {
    for k in feed.read_order() {
        let rows = feed.block_rows(k);
        let first = items.len();
        // The block's items taken and their headers requested, then read (the
        // objects lie apart in memory: the first touch of each misses the cache).
        if crate::room::make_room(items, rows.len(), "texts").is_err() {
            return false;
        }
        for i in rows {
            let Some(item) = seq.get(i) else { return false };
            prefetch_object(item.as_ptr());
            items.push(item);
        }
        let mut texts = Vec::new();
        if texts.try_reserve_exact(items.len() - first).is_err() {
            return false; // (read the usual way, which reports the memory error)
        }
        for item in &items[first..] {
            let Ok(s) = item.cast_exact::<PyString>() else { return false };
            let Ok(text) = s.to_str() else { return false };
            // SAFETY: a str's UTF-8 buffer lives, unchanged, as long as the str,
            // which `items` holds until the feed (and every worker) is done.
            texts.push(unsafe { std::slice::from_raw_parts(text.as_ptr(), text.len()) });
        }
        if feed.put(k, texts).is_err() {
            return false;
        }
    }
    true
}

/// The strs read, given back in order with each header loaded ahead
/// (the encoding has pushed them out of the cache), as `BatchTexts` does.
struct Held<'py>(Vec<Bound<'py, PyAny>>);

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let mut items = std::mem::take(&mut self.0).into_iter();
        loop {
            if let Some(ahead) = items.as_slice().get(16) {
                prefetch_object(ahead.as_ptr());
            }
            if items.next().is_none() {
                break;
            }
        }
    }
}
