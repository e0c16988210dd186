//! bertpiece: exact BERT WordPiece tokenization.
//!
//! One module per pipeline stage: [`normalizer`] (cleaning, CJK spacing,
//! lowercase, accents), [`pre_tokenizer`] (whitespace and punctuation
//! splits), [`wordpiece`] (the matcher), [`vocab`] (vocab.txt loading), and
//! [`tokenizer`], which puts them together as Google's `BasicTokenizer` and
//! `FullTokenizer`; [`encoder`] runs all stages in one pass for ids.
//! [`unicode`] reads the generated tables.
//!
//! The general pipeline (any tokenizer.json; byte-level BPE so far) lives
//! beside it: [`config`] (tokenizer.json -> components), [`normalizers`],
//! [`pre_tokenizers`], [`models`], [`added_tokens`], [`processors`],
//! [`decoders`], composed by [`pipeline`]. No Python here:
//! the PyO3 binding is `python/`, behind the `python` feature.

pub mod added_tokens;
pub mod aligned;
pub mod batch;
pub mod batch_fed;
pub mod batch_stream;
mod batch_needles;
mod batch_pairs;
mod batch_rows;
mod code_point_classes;
pub mod config;
pub mod decoders;
pub mod encoder;
pub mod encoding;
mod encoding_align;
mod encoding_ranges;
pub mod error;
mod json_exact_float;
mod json_number;
pub mod json_text;
pub mod json_document;
pub mod fast_bytelevel;
mod fxhash;
#[rustfmt::skip]
mod hf_tables;
pub mod models;
pub mod normalized_string;
pub mod normalizer;
pub mod normalizers;
pub mod offsets;
pub mod padding;
pub mod block_pool;
mod piece_chars;
mod prefetch;
pub mod pipeline;
pub mod pipeline_batch;
pub mod pipeline_padded;
pub mod pre_tokenizer;
pub mod pre_tokenizers;
pub mod processors;
pub mod room;
mod run_output;
pub mod sentencepiece;
pub mod threads;
pub mod threads_fed;
pub mod tokenizer;
pub mod train;
pub mod unicode;
#[rustfmt::skip]
mod unicode_tables;
pub mod vocab;
pub mod word_cache;
pub mod wordpiece;

#[cfg(feature = "python")]
mod python;

pub use error::{Error, Result};
pub use normalizer::Reference;
pub use tokenizer::{BasicOptions, BasicTokenizer, FullOptions, FullTokenizer, Piece, Token};
pub use vocab::Vocab;
pub use wordpiece::WordPiece;
