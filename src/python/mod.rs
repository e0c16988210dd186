//! The PyO3 binding, `bertpiece._core`. Everything Python-specific lives here:
//! argument conversion, the GIL, and the mapping of core errors to exceptions.
//! Classes are frozen and hold an `Arc` of an immutable core object, so one
//! instance is shared across threads without locks.
//!
//! One file per audience: `args.rs` (argument conversion shared by all),
//! `full_tokenizer.rs` (the tokenizer behind `BertTokenizer` and
//! `FullTokenizer`, batches), `google.rs` (Google's BasicTokenizer,
//! WordpieceTokenizer and module functions), `serving.rs` (the entry points
//! of `BertTokenizer.__call__`'s common cases; `serving_call.rs`: `__call__` itself),
//! `lists.rs` (token columns as
//! Python lists), `pipeline_tokenizer.rs` (the general pipeline behind
//! `bertpiece.Tokenizer`), `sentencepiece.rs` (the model behind
//! `bertpiece.SentencePieceProcessor`).

mod args;
mod array_struct;
mod batch_fed;
mod full_tokenizer;
mod google;
mod list_args;
mod json_text;
mod lists;
mod numpy_planes;
mod pipeline_bulk;
mod pipeline_serving;
mod pipeline_encoding;
mod pipeline_ints;
mod pipeline_rows;
mod pipeline_settings;
mod pipeline_shared;
mod pipeline_tokenizer;
mod sentencepiece;
mod serde_literal;
mod serving;
mod serving_call;
mod serving_call_routes;
mod serving_one_text;
mod serving_padded;
mod text_rows;
mod train;
mod train_bpe;
mod train_pre_tokens;
mod train_unigram;
mod train_words;

use crate::unicode;
use crate::Error;
use pyo3::exceptions::{
    PyFileNotFoundError, PyMemoryError, PyNotImplementedError, PyOSError, PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        let msg = e.to_string();
        match e {
            Error::VocabNotFound { path } => {
                PyFileNotFoundError::new_err((2, msg, path.to_string_lossy().into_owned()))
            }
            Error::VocabIo { .. } => PyOSError::new_err(msg),
            Error::VocabNotUtf8 { .. }
            | Error::MissingUnkToken { .. }
            | Error::InvalidText
            | Error::UnknownReference(_)
            | Error::UnsupportedOption(_)
            | Error::PairCount { .. }
            | Error::BadThreadCount(_)
            | Error::TrainVocabTooSmall { .. }
            | Error::TrainOption(_)
            | Error::Config(_)
            | Error::Tokenize(_) => PyValueError::new_err(msg),
            Error::Unsupported(_) => PyNotImplementedError::new_err(msg),
            Error::ThreadPool(_) => PyRuntimeError::new_err(msg),
            Error::OutputTooLarge { .. } | Error::OutOfMemory { .. } => PyMemoryError::new_err(msg),
        }
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("UNICODE_VERSION", unicode::UNICODE_VERSION)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<full_tokenizer::PyFullTokenizer>()?;
    m.add_class::<google::PyBasicTokenizer>()?;
    m.add_class::<google::PyWordpieceTokenizer>()?;
    m.add_class::<args::Array>()?;
    m.add_class::<serving::Needles>()?;
    m.add_class::<serving_padded::PaddedPlan>()?;
    m.add_class::<pipeline_serving::PipelinePaddedPlan>()?;
    m.add_class::<serving_one_text::OneText>()?;
    m.add_class::<train::PyWordCounter>()?;
    m.add_class::<train_bpe::PyByteLevelCounter>()?;
    m.add_class::<train_bpe::PyBpeOptions>()?;
    m.add_class::<train_unigram::PyMetaspaceCounter>()?;
    m.add_class::<train_unigram::PyUnigramOptions>()?;
    m.add_class::<train_words::PyWordCounts>()?;
    m.add_class::<train_pre_tokens::PyPreTokenCounter>()?;
    m.add_class::<pipeline_tokenizer::PyPipelineTokenizer>()?;
    m.add_class::<pipeline_settings::PySettings>()?;
    m.add_class::<pipeline_encoding::PyPipelineEncoding>()?;
    m.add_class::<sentencepiece::PySentencePieceModel>()?;
    m.add_function(wrap_pyfunction!(serde_literal::serde_exact_literal, m)?)?;
    m.add_function(wrap_pyfunction!(serving::encode_to_list, m)?)?;
    m.add_function(wrap_pyfunction!(serving::encode_to_dict, m)?)?;
    m.add_function(wrap_pyfunction!(serving::encode_to_lists, m)?)?;
    m.add_function(wrap_pyfunction!(serving::encode_to_offsets, m)?)?;
    m.add_function(wrap_pyfunction!(serving::encode_to_windows, m)?)?;
    m.add_function(wrap_pyfunction!(serving_call::serving_call, m)?)?;
    m.add_function(wrap_pyfunction!(serving_call::serving_call_handoff, m)?)?;
    m.add_function(wrap_pyfunction!(serving_one_text::new_instance, m)?)?;
    m.add_function(wrap_pyfunction!(serving_padded::encode_padded_block, m)?)?;
    m.add_function(wrap_pyfunction!(serving_padded::encode_padded_planes, m)?)?;
    m.add_function(wrap_pyfunction!(lists::int_rows, m)?)?;
    m.add_function(wrap_pyfunction!(pipeline_bulk::pipeline_encode_flat, m)?)?;
    m.add_function(wrap_pyfunction!(pipeline_serving::pipeline_encode_ids, m)?)?;
    m.add_function(wrap_pyfunction!(pipeline_serving::pipeline_encode_padded, m)?)?;
    m.add_function(wrap_pyfunction!(pipeline_serving::pipeline_encode_padded_planes, m)?)?;
    m.add_function(wrap_pyfunction!(json_text::exact_float_literals, m)?)?;
    m.add_function(wrap_pyfunction!(json_text::json_top_level_values, m)?)?;
    m.add_function(wrap_pyfunction!(json_text::json_document, m)?)?;
    m.add_function(wrap_pyfunction!(json_text::json_document_to_file, m)?)?;
    m.add_function(wrap_pyfunction!(google::load_vocab, m)?)?;
    m.add_function(wrap_pyfunction!(google::whitespace_tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(google::_normalize, m)?)?;
    m.add_function(wrap_pyfunction!(google::_forget_words, m)?)?;
    Ok(())
}
