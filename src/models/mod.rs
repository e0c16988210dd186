//! Models of the general pipeline (HF tokenizers' `models`). This slice has BPE;
//! the BERT WordPiece model lives in `crate::wordpiece` for now.

pub mod bpe;
