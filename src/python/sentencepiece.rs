//! `bertpiece._core.SentencePieceModel`: the Rust sentencepiece processor
//! (src/sentencepiece/) behind `bertpiece.SentencePieceProcessor`. Encoding
//! and decoding release the GIL; lists are encoded on the shared pool.

use crate::sentencepiece::model_proto::PieceType;
use crate::sentencepiece::{ModelType, Processor};
use crate::threads;
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use std::sync::Arc;

#[pyclass(frozen, name = "SentencePieceModel", module = "bertpiece._core")]
pub(super) struct PySentencePieceModel {
    inner: Arc<Processor>,
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
        Ok(PySentencePieceModel { inner: Arc::new(inner) })
    }

    fn encode_ids(&self, py: Python<'_>, text: &str) -> Vec<u32> {
        py.detach(|| self.inner.encode_ids(text))
    }

    fn encode_pieces(&self, py: Python<'_>, text: &str) -> Vec<String> {
        py.detach(|| self.inner.encode_pieces(text))
    }

    fn encode_ids_batch(&self, py: Python<'_>, texts: Vec<PyBackedStr>, num_threads: i64) -> PyResult<Vec<Vec<u32>>> {
        let threads = workers(num_threads)?;
        let inner = &self.inner;
        Ok(py.detach(|| threads::run_jobs(threads, texts.len(), |k| inner.encode_ids(&texts[k])))?)
    }

    fn encode_pieces_batch(&self, py: Python<'_>, texts: Vec<PyBackedStr>, num_threads: i64) -> PyResult<Vec<Vec<String>>> {
        let threads = workers(num_threads)?;
        let inner = &self.inner;
        Ok(py.detach(|| threads::run_jobs(threads, texts.len(), |k| inner.encode_pieces(&texts[k])))?)
    }

    fn decode_ids(&self, py: Python<'_>, ids: Vec<i64>) -> PyResult<String> {
        let size = self.inner.len();
        if let Some(&bad) = ids.iter().find(|&&id| id < 0 || id as u64 >= size as u64) {
            return Err(out_of_range(bad, size));
        }
        Ok(py.detach(|| self.inner.decode_ids(&ids)).unwrap_or_default())
    }

    fn decode_pieces(&self, py: Python<'_>, pieces: Vec<PyBackedStr>) -> String {
        py.detach(|| self.inner.decode_pieces(&pieces))
    }

    fn normalize(&self, py: Python<'_>, text: &str) -> String {
        py.detach(|| self.inner.normalize(text))
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

    fn __len__(&self) -> usize {
        self.inner.len()
    }
}
