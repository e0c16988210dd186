//! bertpiece: exact BERT WordPiece tokenization.
//!
//! One module per pipeline stage: [`normalizer`] (cleaning, CJK spacing,
//! lowercase, accents), [`pre_tokenizer`] (whitespace and punctuation
//! splits), [`wordpiece`] (the matcher), [`vocab`] (vocab.txt loading), and
//! [`tokenizer`], which puts them together as Google's `BasicTokenizer` and
//! `FullTokenizer`; [`encoder`] runs all stages in one pass for ids.
//! [`unicode`] reads the generated tables. No Python here:
//! the PyO3 binding is `python/`, behind the `python` feature.

pub mod aligned;
pub mod batch;
mod code_point_classes;
pub mod encoder;
pub mod error;
mod fxhash;
#[rustfmt::skip]
mod hf_tables;
pub mod normalizer;
pub mod offsets;
pub mod padding;
mod piece_chars;
pub mod pre_tokenizer;
pub mod room;
pub mod threads;
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
