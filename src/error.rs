//! The one error type of the core. `src/python/mod.rs` maps each variant to a
//! Python exception in one place.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("vocabulary file not found: {}", path.display())]
    VocabNotFound { path: PathBuf },
    #[error("cannot read vocabulary file {}: {source}", path.display())]
    VocabIo { path: PathBuf, source: std::io::Error },
    #[error("vocabulary file {} is not valid UTF-8 (line {line})", path.display())]
    VocabNotUtf8 { path: PathBuf, line: usize },
    #[error("the unknown token {token:?} is not in the vocabulary")]
    MissingUnkToken { token: String },
    #[error("text is not valid UTF-8")]
    InvalidText,
    #[error("unknown reference {0:?}: expected one of \"google\", \"transformers\", \"tokenizers\"")]
    UnknownReference(String),
    #[error("{texts} texts but {pairs} text pairs")]
    PairCount { texts: usize, pairs: usize },
    #[error("num_threads must be a positive integer, got {0}")]
    BadThreadCount(i64),
    #[error("cannot allocate the padded output: {rows} rows of {width} ids (made that wide by {arg}={value})")]
    OutputTooLarge { arg: &'static str, value: u128, rows: usize, width: u128 },
    #[error("out of memory: cannot make room for {bytes} more bytes of {what}")]
    OutOfMemory { what: &'static str, bytes: u128 },
    #[error("cannot start the thread pool: {0}")]
    ThreadPool(String),
    #[error("{0} is not available with reference=\"tokenizers\" (HF tokenizers has no such option)")]
    UnsupportedOption(&'static str),
    #[error("vocab_size={vocab_size} is smaller than the special tokens and the alphabet ({needed} tokens)")]
    TrainVocabTooSmall { vocab_size: usize, needed: usize },
    #[error("{0}")]
    TrainOption(String),
    /// A tokenizer.json field that is malformed: names the field and the value.
    #[error("{0}")]
    Config(String),
    /// A tokenizer.json component (or option) this version does not implement.
    #[error("{0}")]
    Unsupported(String),
    /// Input the loaded tokenizer cannot encode (e.g. its unk token is missing).
    #[error("{0}")]
    Tokenize(String),
}

pub type Result<T> = std::result::Result<T, Error>;
