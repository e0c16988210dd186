//! The BERT bulk call with its texts read while the pool's workers already
//! encode (crate::batch_fed): the calling thread holds the GIL and reads a
//! block of strs after another, the other workers encode each block once it
//! is read, and the calling thread joins them (without the GIL) when all are.
//! Reading used to come first, on one thread, while the others waited.

use super::args::prefetch_object;
use crate::batch::{Batch, BatchOptions};
use crate::batch_fed::{encode_fed, TextFeed};
use crate::batch_stream::Streamed;
use crate::tokenizer::FullTokenizer;
use pyo3::ffi;
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
    let Some(seq) = Seq::of(texts) else { return Ok(None) };
    // `items` holds a reference to each str whose UTF-8 the feed points into:
    // declared before the feed, it outlives it.
    let mut items = Held(Vec::new());
    let Some(feed) = TextFeed::new(seq.len(), threads)? else {
        return Ok(None);
    };
    crate::room::make_room(&mut items.0, feed.blocks(), "texts")?;
    let mut read_all = false;
    let pending = encode_fed(tok, &feed, opts, needles, |work| {
        read_all = read_blocks(&seq, &feed, &mut items.0);
        if read_all {
            py.detach(work);
            // The calling thread is out of blocks; the others may still encode
            // their last: the references of the blocks done are given back
            // meanwhile (a serial step at the call's end otherwise).
            items.release(|k| feed.is_done(k));
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

/// Rows a chunk of the one-thread call reads before encoding them (en-large's
/// lines: ~80 kB of text, which stays in L2 beside the word memo).
const CHUNK: usize = 256;

/// `texts` encoded on the calling thread a chunk at a time (crate::batch_stream),
/// or `None` where that is not taken: not a list or tuple, more than one
/// thread, a batch of one chunk or less, or an item that is not a str with
/// its own UTF-8 (read the usual way, which names the first bad item, or
/// encodes what a str subclass's `encode` gives; the chunks encoded before
/// it are done again there). The GIL is released between chunks, so a list
/// another Python thread changes meanwhile gives each row from the str the
/// list held when its chunk was read (each held by a reference while it is
/// encoded; a list grown shorter is read again the usual way).
pub(super) fn encode_batch_streamed(
    py: Python<'_>,
    tok: &FullTokenizer,
    texts: &Bound<'_, PyAny>,
    opts: BatchOptions,
    needles: &[&[u8]],
    threads: Option<usize>,
) -> PyResult<Option<Batch>> {
    let Some(seq) = Seq::of(texts) else { return Ok(None) };
    let rows = seq.len();
    if rows <= CHUNK || threads == Some(0) || crate::threads::thread_count(threads)? != 1 {
        return Ok(None);
    }
    let mut stream = Streamed::new(rows, opts, needles);
    let mut items = Vec::with_capacity(CHUNK);
    let ptrs = &mut Vec::new();
    let mut chunk: Vec<&[u8]> = Vec::with_capacity(CHUNK);
    for first in (0..rows).step_by(CHUNK) {
        if !seq.take(first..(first + CHUNK).min(rows), &mut items, ptrs) {
            return Ok(None);
        }
        // (`items` holds the strs until the chunk is encoded)
        if !push_utf8(&items, &mut chunk) {
            return Ok(None);
        }
        py.detach(|| stream.encode(tok, &chunk))?;
        chunk.clear();
        items.clear(); // (the references given back while their headers are in the cache)
    }
    Ok(Some(py.detach(|| stream.finish())?))
}

enum Seq<'a, 'py> {
    List(&'a Bound<'py, PyList>),
    Tuple(&'a Bound<'py, PyTuple>),
}

impl<'a, 'py> Seq<'a, 'py> {
    /// `texts` as a list or tuple, or `None`.
    fn of(texts: &'a Bound<'py, PyAny>) -> Option<Self> {
        if let Ok(list) = texts.cast::<PyList>() {
            Some(Seq::List(list))
        } else if let Ok(tuple) = texts.cast::<PyTuple>() {
            Some(Seq::Tuple(tuple))
        } else {
            None
        }
    }

    fn len(&self) -> usize {
        match self {
            Seq::List(l) => l.len(),
            Seq::Tuple(t) => t.len(),
        }
    }

    fn py(&self) -> Python<'py> {
        match self {
            Seq::List(l) => l.py(),
            Seq::Tuple(t) => t.py(),
        }
    }

    /// Item `k`'s address, borrowed (the object itself is not touched):
    /// valid while no Python code runs.
    fn borrowed(&self, k: usize) -> Option<*mut ffi::PyObject> {
        let k = isize::try_from(k).ok()?;
        let p = match self {
            // SAFETY: the GIL is held (the `'py` token) and the sequence is a list / tuple.
            Seq::List(l) => unsafe { ffi::PyList_GetItem(l.as_ptr(), k) },
            Seq::Tuple(t) => unsafe { ffi::PyTuple_GetItem(t.as_ptr(), k) },
        };
        if p.is_null() {
            let _ = PyErr::take(self.py()); // (out of range: the IndexError set is not ours to raise)
            return None;
        }
        Some(p)
    }

    /// Items `rows` onto `items`, a reference each: first every item's address,
    /// its header requested, then the references taken, so that the headers'
    /// cache misses (the objects lie apart in memory) overlap where taking
    /// each reference at once waited for each in turn. False if an item is
    /// missing (`ptrs`: scratch space).
    fn take(&self, rows: std::ops::Range<usize>, items: &mut Vec<Bound<'py, PyAny>>, ptrs: &mut Vec<*mut ffi::PyObject>) -> bool {
        ptrs.clear();
        if crate::room::make_room(ptrs, rows.len(), "texts").is_err() || crate::room::make_room(items, rows.len(), "texts").is_err() {
            return false;
        }
        for i in rows {
            let Some(p) = self.borrowed(i) else { return false };
            prefetch_object(p);
            ptrs.push(p);
        }
        let py = self.py();
        // SAFETY: each is a live item of the sequence (borrowed above; no Python code ran since).
        items.extend(ptrs.iter().map(|&p| unsafe { Bound::from_borrowed_ptr(py, p) }));
        true
    }
}

/// Reads every block in the feed's order, putting each as it is read;
/// false at the first item that is not a str with its own UTF-8 (nothing
/// is put after it). No Python code runs here (the items are exact strs;
/// a str's UTF-8 is made by C code that allocates no object the collector
/// tracks), so the sequence cannot change while it is read.
fn read_blocks<'py>(seq: &Seq<'_, 'py>, feed: &TextFeed<'_>, held: &mut Vec<(usize, Vec<Bound<'py, PyAny>>)>) -> bool {
    let ptrs = &mut Vec::new();
    for k in feed.read_order() {
        let rows = feed.block_rows(k);
        held.push((k, Vec::new()));
        let Some((_, items)) = held.last_mut() else { return false };
        if !seq.take(rows, items, ptrs) {
            return false;
        }
        let mut texts = Vec::new();
        if texts.try_reserve_exact(items.len()).is_err() {
            return false; // (read the usual way, which reports the memory error)
        }
        // (`held` keeps the strs until the feed, and every worker, is done with the block)
        if !push_utf8(items, &mut texts) {
            return false;
        }
        if feed.put(k, texts).is_err() {
            return false;
        }
    }
    true
}

/// Appends each item's UTF-8 to `texts`; false at the first that is not an
/// exact str with its own UTF-8 (a subclass, lone surrogates: read the usual
/// way). The slices outlive the borrow of `items`: the caller keeps every
/// item (a reference to its str) alive as long as the slices are read.
fn push_utf8(items: &[Bound<'_, PyAny>], texts: &mut Vec<&[u8]>) -> bool {
    for item in items {
        let Ok(s) = item.cast_exact::<PyString>() else { return false };
        let Ok(text) = s.to_str() else { return false };
        // SAFETY: a str's UTF-8 buffer lives, unchanged, as long as the str, which the caller holds
        // (see above) while `texts` is read.
        texts.push(unsafe { std::slice::from_raw_parts(text.as_ptr(), text.len()) });
    }
    true
}

/// The strs read, block by block (each with its block), given back in order
/// with each header loaded ahead (the encoding has pushed them out of the
/// cache), as `BatchTexts` does.
struct Held<'py>(Vec<(usize, Vec<Bound<'py, PyAny>>)>);

impl Held<'_> {
    /// Gives back the references of the blocks `done` says.
    fn release(&mut self, done: impl Fn(usize) -> bool) {
        for (k, items) in &mut self.0 {
            if done(*k) {
                give_back(std::mem::take(items));
            }
        }
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.release(|_| true);
    }
}

/// Drops `items` in order, each header requested `AHEAD` items before.
fn give_back(items: Vec<Bound<'_, PyAny>>) {
    const AHEAD: usize = 16;
    let mut items = items.into_iter();
    loop {
        if let Some(ahead) = items.as_slice().get(AHEAD) {
            prefetch_object(ahead.as_ptr());
        }
        if items.next().is_none() {
            break;
        }
    }
}
