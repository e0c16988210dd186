//! `bertpiece._core.SentencePieceModel`: the Rust sentencepiece processor
//! (src/sentencepiece/) behind `bertpiece.SentencePieceProcessor`. Encoding
//! and decoding release the GIL; lists are encoded on the shared pool in
//! slices, and the calling thread makes each slice's Python lists (taking the
//! GIL for it) as soon as the slice is done, from its flat buffers, with the
//! ints, strs and bytes of the model's ids made once per model. add_bos,
//! add_eos, reverse and emit_unk_piece are applied in the slices' jobs.

use super::list_args::ListOf;
use super::lists::{int_list, int_table, new_list, untracked};
use super::numpy_planes::int32_vector;
use crate::sentencepiece::batch::{RowOptions, Rows};
use crate::sentencepiece::model_proto::PieceType;
use crate::sentencepiece::{ModelType, Processor};
use crate::threads;
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyList;
use pyo3::ffi;
use std::sync::Arc;

#[pyclass(frozen, name = "SentencePieceModel", module = "bertpiece._core")]
pub(super) struct PySentencePieceModel {
    inner: Arc<Processor>,
    /// The ints and the strs of the piece ids, made on the first list encoded.
    ints: PyOnceLock<Vec<Py<PyAny>>>,
    strs: PyOnceLock<Vec<Py<PyAny>>>,
    /// The same as bytes (out_type=bytes), made on the first such list.
    bytes: PyOnceLock<Vec<Py<PyAny>>>,
}

/// A Python str of `text` (MemoryError when CPython cannot make it).
fn py_str<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    super::args::py_str(py, text.as_bytes())
}

/// A Python bytes of `text`'s UTF-8 (MemoryError when CPython cannot make it).
fn py_bytes<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let len = ffi::Py_ssize_t::try_from(text.len()).map_err(|_| pyo3::exceptions::PyMemoryError::new_err("piece too long"))?;
    // SAFETY: `len` readable bytes; a new reference, or null with the error set.
    unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyBytes_FromStringAndSize(text.as_ptr().cast(), len)) }
}

/// One list per text (made by `row` from a slice's rows and a text's range
/// in them), as one list. The lists of each slice are made, with the GIL, as
/// soon as it is encoded, while the other threads still encode later slices:
/// only the last slice's lists are left after the join.
fn encode_to_lists<'py, R>(py: Python<'py>, model: &Processor, texts: &[PyBackedStr], threads: usize, options: RowOptions, row: R) -> PyResult<Bound<'py, PyList>>
where
    R: for<'a> Fn(Python<'a>, &Rows, usize, usize) -> PyResult<Bound<'a, PyAny>> + Sync,
{
    let mut lists: Vec<Py<PyAny>> = Vec::with_capacity(texts.len());
    let mut error: Option<PyErr> = None;
    py.detach(|| {
        model.encode_batch(texts, threads, options, |rows| {
            Python::attach(|py| {
                let mut start = 0;
                for &end in &rows.ends {
                    if error.is_some() {
                        return;
                    }
                    match row(py, &rows, start, end) {
                        Ok(list) => lists.push(list.unbind()),
                        Err(e) => error = Some(e),
                    }
                    start = end;
                }
            })
        })
    })?;
    if let Some(e) = error {
        return Err(e);
    }
    new_list(py, lists.into_iter().map(|l| Ok(l.into_bound(py))))
}

fn out_of_range(id: i64, size: usize) -> PyErr {
    PyIndexError::new_err(format!("piece id is out of range: {id} (the model has {size} pieces)"))
}

/// The threads for sentencepiece's `num_threads` (a value below 1: all usable CPUs).
fn workers(num_threads: i64) -> crate::Result<usize> {
    threads::thread_count(usize::try_from(num_threads).ok().filter(|&n| n > 0))
}

impl PySentencePieceModel {
    fn piece(&self, id: i64) -> PyResult<&crate::sentencepiece::model_proto::ProtoPiece> {
        let p = &self.inner.proto.pieces;
        usize::try_from(id).ok().and_then(|i| p.get(i)).ok_or_else(|| out_of_range(id, p.len()))
    }
}

#[pymethods]
impl PySentencePieceModel {
    /// Loads a serialized ModelProto; a malformed one is a ValueError naming the field or byte.
    #[new]
    fn new(py: Python<'_>, model_proto: &[u8]) -> PyResult<Self> {
        let inner = py.detach(|| Processor::from_bytes(model_proto))?;
        Ok(PySentencePieceModel { inner: Arc::new(inner), ints: PyOnceLock::new(), strs: PyOnceLock::new(), bytes: PyOnceLock::new() })
    }

    fn encode_ids<'py>(&self, py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyList>> {
        // (the list made fallibly: PyO3's conversion of a `Vec` panics when CPython cannot allocate)
        int_list(py, &[], &py.detach(|| self.inner.encode_ids(text))?)
    }

    // (strs made through CPython's constructor: a failure is a MemoryError, where
    // PyO3's conversion of a `String` panics)
    fn encode_pieces<'py>(&self, py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyList>> {
        let pieces = py.detach(|| self.inner.encode_pieces(text))?;
        new_list(py, pieces.iter().map(|p| py_str(py, p)))
    }

    /// The ids of each text, as a list of ints or (`numpy`) an int32 array;
    /// `bos` / `eos` put first / last and `reverse` applied per text as
    /// sentencepiece's add_bos, add_eos and reverse.
    #[pyo3(signature = (texts, num_threads, bos=None, eos=None, reverse=false, numpy=false))]
    #[allow(clippy::too_many_arguments)]
    fn encode_ids_batch<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<PyBackedStr>,
        num_threads: i64,
        bos: Option<u32>,
        eos: Option<u32>,
        reverse: bool,
        numpy: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let threads = workers(num_threads)?;
        let options = RowOptions { pieces: false, bos, eos, reverse, emit_unk_piece: false };
        if numpy {
            return encode_to_lists(py, &self.inner, &texts, threads, options, |py, r, start, end| int32_vector(py, &r.ids[start..end]));
        }
        let ints = self.ints.get_or_init(py, || int_table(py, self.inner.len()));
        encode_to_lists(py, &self.inner, &texts, threads, options, |py, r, start, end| Ok(int_list(py, ints, &r.ids[start..end])?.into_any()))
    }

    /// The pieces of each text (as bytes with `as_bytes`), with the options of
    /// [`Self::encode_ids_batch`] and sentencepiece's emit_unk_piece.
    #[pyo3(signature = (texts, num_threads, bos=None, eos=None, reverse=false, emit_unk_piece=false, as_bytes=false))]
    #[allow(clippy::too_many_arguments)]
    fn encode_pieces_batch<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<PyBackedStr>,
        num_threads: i64,
        bos: Option<u32>,
        eos: Option<u32>,
        reverse: bool,
        emit_unk_piece: bool,
        as_bytes: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let threads = workers(num_threads)?;
        let inner = &self.inner;
        let make: for<'a> fn(Python<'a>, &str) -> PyResult<Bound<'a, PyAny>> = if as_bytes { py_bytes } else { py_str };
        let table = if as_bytes { &self.bytes } else { &self.strs };
        let table = table.get_or_try_init(py, || inner.proto.pieces.iter().map(|p| make(py, &p.piece).map(Bound::unbind)).collect::<PyResult<Vec<_>>>())?;
        let options = RowOptions { pieces: true, bos, eos, reverse, emit_unk_piece };
        encode_to_lists(py, inner, &texts, threads, options, |py, r, start, end| {
            // The surfaces are in id order: the first at or after `start` is the next to use.
            let mut surface = r.surfaces.partition_point(|(at, _)| *at < start);
            let list = new_list(py, (start..end).map(|at| match r.surfaces.get(surface) {
                Some((k, text)) if *k == at => {
                    surface += 1;
                    make(py, text)
                }
                // Every id the encoder gives is below the model's size.
                _ => table.get(r.ids[at] as usize).map(|s| s.bind(py).clone()).ok_or_else(|| out_of_range(r.ids[at] as i64, table.len())),
            }))?;
            Ok(untracked(list).into_any())
        })
    }

    fn decode_ids<'py>(&self, py: Python<'py>, ids: ListOf<i64>) -> PyResult<Bound<'py, PyAny>> {
        let ids = ids.0;
        let size = self.inner.len();
        if let Some(&bad) = ids.iter().find(|&&id| id < 0 || id as u64 >= size as u64) {
            return Err(out_of_range(bad, size));
        }
        py_str(py, &py.detach(|| self.inner.decode_ids(&ids)).transpose()?.unwrap_or_default())
    }

    fn decode_pieces<'py>(&self, py: Python<'py>, pieces: ListOf<PyBackedStr>) -> PyResult<Bound<'py, PyAny>> {
        py_str(py, &py.detach(|| self.inner.decode_pieces(&pieces.0))?)
    }

    fn normalize<'py>(&self, py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
        py_str(py, &py.detach(|| self.inner.normalize(text))?)
    }

    fn piece_to_id(&self, piece: &str) -> u32 {
        self.inner.piece_to_id(piece)
    }

    fn id_to_piece(&self, id: i64) -> PyResult<String> {
        Ok(self.piece(id)?.piece.clone())
    }

    fn get_score(&self, id: i64) -> PyResult<f32> {
        Ok(self.piece(id)?.score)
    }

    /// The piece's type as sentencepiece numbers it (NORMAL=1 ... BYTE=6).
    fn piece_type(&self, id: i64) -> PyResult<u8> {
        Ok(match self.piece(id)?.kind {
            PieceType::Normal => 1,
            PieceType::Unknown => 2,
            PieceType::Control => 3,
            PieceType::UserDefined => 4,
            PieceType::Unused => 5,
            PieceType::Byte => 6,
        })
    }

    /// (unk, bos, eos, pad) pieces from the trainer spec.
    fn special_pieces(&self) -> (String, String, String, String) {
        let t = &self.inner.proto.trainer_spec;
        let or = |s: &str, d: &str| if s.is_empty() { d.to_string() } else { s.to_string() };
        (or(&t.unk_piece, "<unk>"), or(&t.bos_piece, "<s>"), or(&t.eos_piece, "</s>"), or(&t.pad_piece, "<pad>"))
    }

    fn model_type(&self) -> &'static str {
        match self.inner.model_type() {
            ModelType::Unigram => "unigram",
            ModelType::Bpe => "bpe",
        }
    }

    /// Words in the model's shared word table (0 before one thread's cache has been shared): for tests.
    fn _shared_words(&self) -> usize {
        crate::sentencepiece::words::shared_len(&self.inner)
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }
}
