//! What a tokenizer's Python encodings share with it and with each other, below both the
//! encoding object (pipeline_encoding.rs) and the calls that make them (pipeline_rows.rs,
//! pipeline_tokenizer.rs): its ids as Python ints, how its ids-only rows were read, when a
//! text is encoded with the GIL released, and how an encoding kept long is cut to its length.

use super::pipeline_ints::IntTable;
use pyo3::Python;
use crate::encoding::Encoding;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Texts shorter than this are encoded without releasing the GIL: their work takes about as
/// long as releasing and taking it back again (measured: docs/pipeline-speed.md).
const DETACH_BYTES: usize = 1024;

/// `work` on a text of `bytes` bytes: with the GIL released unless the text is short.
#[inline]
pub(super) fn detached_if_long<T: Send>(py: Python<'_>, bytes: usize, work: impl FnOnce() -> T + Send) -> T {
    if bytes < DETACH_BYTES {
        work()
    } else {
        py.detach(work)
    }
}

/// A tokenizer's Python-side state, shared by its encodings: its ids as Python ints, and how
/// its ids-only rows were read.
pub(super) struct Shared {
    pub(super) ints: IntTable,
    pub(super) usage: Usage,
}

/// How many ids-only rows a tokenizer made, and how many of them were made whole after (a
/// column other than `ids`, `offsets`, `attention_mask` read). Where callers make most of them
/// whole, the ids path only adds its cost (7-17 % of such a call), so calls make whole encodings
/// at once instead ([`Usage::eager`]); both give the same values, only the cost differs.
#[derive(Default)]
pub(super) struct Usage {
    rows: AtomicU64,
    whole: AtomicU64,
}

/// Ids-only rows made before [`Usage::eager`] may say yes.
const LEARN_ROWS: u64 = 256;

impl Usage {
    /// Whether a call makes whole encodings: more than 3 in 4 of the ids-only rows were made whole.
    pub(super) fn eager(&self) -> bool {
        let rows = self.rows.load(Relaxed);
        rows >= LEARN_ROWS && self.whole.load(Relaxed) * 4 > rows * 3
    }

    /// Whether a call of `n` texts takes the ids path (unpadded, and not [`Usage::eager`]), its rows
    /// counted either way (a padded call's are not: its encodings are always whole).
    pub(super) fn take_ids_path(&self, padded: bool, n: usize) -> bool {
        if padded {
            return false;
        }
        let ids_only = !self.eager();
        self.made(n, ids_only);
        ids_only
    }

    /// `n` rows made: ids-only (`ids_only`), or whole by an eager call, which counts them as an
    /// eighth as many ids-only rows never made whole (after enough eager calls, one takes the ids
    /// path again and finds out whether the callers' reads changed).
    fn made(&self, n: usize, ids_only: bool) {
        let n = n as u64;
        self.rows.fetch_add(if ids_only { n } else { n.div_ceil(8) }, Relaxed);
    }

    /// An ids-only row made whole.
    pub(super) fn made_whole(&self) {
        self.whole.fetch_add(1, Relaxed);
    }
}

/// The unused room (tokens a column) from which an encoding is cut to its length.
const SHRINK_ROOM: usize = 32;

/// `e` cut to its length where it holds much unused room: a batch's encodings are all kept
/// at once (short texts leave little room unused, and shrinking cost them more than it saved).
pub(super) fn shrunk(mut e: Encoding) -> Encoding {
    if e.ids.capacity() - e.ids.len() >= SHRINK_ROOM {
        e.shrink_to_fit();
    }
    e
}
