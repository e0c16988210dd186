//! HF tokenizers' Unigram model (`encode_optimized`, a port of sentencepiece's
//! `EncodeOptimized`): the best path over the text's char boundaries, each
//! step a piece starting there (scores of the file, f64, first best kept on
//! ties) or, for a char no single-char piece covers, the unknown piece at
//! `min score - 10`. Runs of unknown pieces are fused into one token that
//! keeps its text; with `byte_fallback` a run not in the vocabulary becomes
//! its `<0xNN>` byte pieces, each over the whole run.

mod char_trie;
mod fused;
mod fused_cut;
mod fused_ids;
mod plain_form;
pub(crate) mod trie;
mod word_cache;
mod ws_split;

pub use fused::{MetaspaceUnigram, Sink};
pub use fused_ids::FusedUnigram;

use super::ModelToken;
use char_trie::CharTrie;
use crate::{Error, Result};
use std::collections::HashMap;

/// HF's `K_UNK_PENALTY`.
const UNK_PENALTY: f64 = 10.0;

#[derive(Clone, Debug)]
pub struct Unigram {
    pieces: Vec<(String, f64)>,
    ids: HashMap<String, u32>,
    /// The pieces with their scores (the Viterbi reads a piece's score with its trie cell).
    trie: CharTrie,
    min_score: f64,
    unk_id: Option<u32>,
    byte_fallback: bool,
}

/// Buffers of one Viterbi pass, kept between words.
#[derive(Default)]
struct Scratch {
    best: Vec<Best>,
    path: Vec<ModelToken>,
    /// The word's char ids (`CharTrie::char_id`).
    chars: Vec<u32>,
    /// The byte offset of each char, then the word's length.
    at: Vec<u32>,
}

/// The best path ending at a char: its last piece (its trie cell, or
/// `UNK`) and where that starts (`NONE`: not reached yet). 16 bytes, a
/// quarter of a cache line.
#[derive(Clone, Copy)]
struct Best {
    node: u32,
    start: u32,
    score: f64,
}

const NONE: u32 = u32::MAX;
/// `Best::node` of the unknown piece (no trie cell's number).
const UNK: u32 = u32::MAX;

fn missing_unk_id() -> Error {
    Error::Tokenize("Encountered an unknown token but `unk_id` is missing".into())
}

impl Unigram {
    /// `pieces` in id order. An empty vocabulary, an `unk_id` past its end and
    /// a piece given twice are errors naming the field.
    pub fn new(pieces: Vec<(String, f64)>, unk_id: Option<u32>, byte_fallback: bool) -> Result<Unigram> {
        if pieces.is_empty() {
            return Err(Error::Config("model.vocab: empty (a Unigram model needs at least its unknown piece)".into()));
        }
        if let Some(u) = unk_id {
            if u as usize >= pieces.len() {
                return Err(Error::Config(format!("model.unk_id: {u} is past the end of model.vocab ({} pieces)", pieces.len())));
            }
        }
        let mut ids = HashMap::with_capacity(pieces.len());
        let mut min_score = f64::INFINITY;
        for (id, (piece, score)) in pieces.iter().enumerate() {
            if let Some(first) = ids.insert(piece.clone(), id as u32) {
                return Err(Error::Config(format!("model.vocab[{id}]: piece {piece:?} is already model.vocab[{first}]")));
            }
            if *score < min_score {
                min_score = *score;
            }
        }
        let trie = CharTrie::new(pieces.iter().enumerate().map(|(id, (p, score))| (p.as_str(), id as u32, *score)))?;
        Ok(Unigram { pieces, ids, trie, min_score, unk_id, byte_fallback })
    }

    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.ids.get(token).copied()
    }

    pub fn id_to_token(&self, id: u32) -> Option<&str> {
        self.pieces.get(id as usize).map(|(p, _)| p.as_str())
    }

    pub fn get_vocab(&self) -> HashMap<String, u32> {
        self.ids.clone()
    }

    /// The best segmentation of `word` as byte ranges with their ids, into
    /// `s.path`: the lattice is over chars (a char's id looked up once, the
    /// trie walked a char a step), in HF's order: for each char in turn, the
    /// pieces starting there shortest first, then the unknown piece if no
    /// single-char piece starts there; a node is taken when unset or strictly
    /// better. A word is at most `u32::MAX` bytes (the caller's are far shorter).
    fn best_path(&self, word: &str, s: &mut Scratch) -> Result<()> {
        let size = word.len();
        let Ok(size32) = u32::try_from(size) else {
            return Err(Error::Tokenize(format!("a word of {size} bytes is too long for the Unigram model")));
        };
        let unk_score = self.min_score - UNK_PENALTY;
        let Scratch { best, path, chars, at } = s;
        chars.clear();
        at.clear();
        best.clear();
        // 24 bytes a char at most: a word of hundreds of MB (a text with no
        // space) must be a MemoryError, not an abort
        crate::room::make_room(chars, size, "Unigram chars")?;
        crate::room::make_room(at, size + 1, "Unigram chars")?;
        self.trie.push_char_ids(word, chars, at);
        at.push(size32);
        let n = chars.len();
        crate::room::make_room(best, n + 1, "Unigram lattice")?;
        best.resize(n + 1, Best { node: UNK, start: NONE, score: 0.0 });
        // slices held in registers (through the `Vec`s the loop reloaded their pointers and
        // lengths from memory at every offer)
        let (lattice, ids) = (best.as_mut_slice(), chars.as_slice());
        for start in 0..n {
            let here = lattice.get(start).map_or(0.0, |b| b.score);
            let mut has_single = false;
            self.trie.prefixes(ids.get(start..).unwrap_or_default(), |len, node, score| {
                let candidate = score + here;
                if let Some(b) = lattice.get_mut(start + len) {
                    if b.start == NONE || candidate > b.score {
                        *b = Best { node, start: start as u32, score: candidate };
                    }
                }
                has_single |= len == 1;
            });
            if !has_single {
                let candidate = unk_score + here;
                if let Some(b) = lattice.get_mut(start + 1) {
                    if b.start == NONE || candidate > b.score {
                        self.unk_id.ok_or_else(missing_unk_id)?;
                        *b = Best { node: UNK, start: start as u32, score: candidate };
                    }
                }
            }
        }
        path.clear();
        // the pieces, last first (every char boundary is reached, by a piece
        // or the unknown piece), their char indices made byte offsets; room
        // made fallibly
        let byte_at = |i: usize| at.get(i).map_or(size, |&b| b as usize);
        let unk_id = self.unk_id.unwrap_or(NONE);
        let mut end = n;
        while let Some(b) = best.get(end).filter(|b| end > 0 && b.start != NONE) {
            let id = if b.node == UNK { unk_id } else { self.trie.piece_id(b.node) };
            let start = b.start as usize;
            crate::room::try_push(path, (id, byte_at(start), byte_at(end)), "Unigram path")?;
            end = start;
        }
        path.reverse();
        Ok(())
    }

    pub fn tokenize(&self, word: &str, out: &mut Vec<ModelToken>) -> Result<()> {
        self.tokenize_into(word, out, &mut Scratch::default())
    }

    /// `tokenize` with the caller's buffers (the fused path reuses them).
    fn tokenize_into(&self, word: &str, out: &mut Vec<ModelToken>, scratch: &mut Scratch) -> Result<()> {
        self.best_path(word, scratch)?;
        // a token per piece (a fused unknown run's bytes make their own room)
        crate::room::make_room(out, scratch.path.len(), "Unigram tokens")?;
        let mut run: Option<(usize, usize)> = None;
        for &(id, s, e) in &scratch.path {
            if Some(id) == self.unk_id {
                run = Some(run.map_or((s, e), |(rs, _)| (rs, e)));
                continue;
            }
            if let Some((rs, re)) = run.take() {
                self.push_text(word, rs, re, out)?;
            }
            out.push((id, s, e));
        }
        if let Some((rs, re)) = run {
            self.push_text(word, rs, re, out)?;
        }
        Ok(())
    }

    /// A fused run of unknown pieces: its text's id, its bytes, or unk.
    fn push_text(&self, word: &str, s: usize, e: usize, out: &mut Vec<ModelToken>) -> Result<()> {
        let text = word.get(s..e).unwrap_or_default();
        if let Some(&id) = self.ids.get(text) {
            out.push((id, s, e));
        } else if let Some(bytes) = self.byte_ids(text) {
            crate::room::make_room(out, bytes.len(), "Unigram tokens")?;
            out.extend(bytes.into_iter().map(|id| (id, s, e)));
        } else {
            out.push((self.unk_id.ok_or_else(missing_unk_id)?, s, e));
        }
        Ok(())
    }

    fn byte_ids(&self, text: &str) -> Option<Vec<u32>> {
        if !self.byte_fallback {
            return None;
        }
        text.bytes().map(|b| self.ids.get(&format!("<0x{b:02X}>")).copied()).collect()
    }

    /// The text of a token that is an unknown run kept as its text (HF's
    /// `Token.value` for it), or None for a vocabulary token.
    pub fn unknown_text<'a>(&self, word: &'a str, t: &ModelToken) -> Option<&'a str> {
        let text = word.get(t.1..t.2)?;
        let is_unk = Some(t.0) == self.unk_id && !self.ids.contains_key(text) && self.byte_ids(text).is_none();
        is_unk.then_some(text)
    }
}

#[cfg(test)]
#[path = "viterbi_tests.rs"]
mod viterbi_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn model(pieces: &[(&str, f64)], byte_fallback: bool) -> Unigram {
        Unigram::new(pieces.iter().map(|(p, s)| (p.to_string(), *s)).collect(), Some(0), byte_fallback).unwrap()
    }

    #[test]
    fn hf_doc_example() {
        let m = model(&[("<unk>", 0.0), ("a", 0.0), ("b", 0.0), ("c", 0.0), ("d", 0.0), ("cd", 1.0), ("ab", 2.0), ("abc", 5.0), ("abcd", 10.0)], false);
        let mut out = Vec::new();
        m.tokenize("abcdacdxx", &mut out).unwrap();
        let texts: Vec<&str> = out.iter().map(|t| &"abcdacdxx"[t.1..t.2]).collect();
        assert_eq!(texts, ["abcd", "a", "cd", "xx"]);
        assert_eq!(m.unknown_text("abcdacdxx", &out[3]), Some("xx"));
    }

    #[test]
    fn byte_fallback_spans_the_run() {
        let m = model(&[("<unk>", 0.0), ("a", -1.0), ("<0xC3>", -1.0), ("<0xA9>", -1.0)], true);
        let mut out = Vec::new();
        m.tokenize("aé", &mut out).unwrap();
        assert_eq!(out, vec![(1, 0, 1), (2, 1, 3), (3, 1, 3)]);
    }

    #[test]
    fn malformed_vocabularies_are_errors() {
        assert!(Unigram::new(vec![], None, false).is_err());
        assert!(Unigram::new(vec![("a".into(), 0.0)], Some(1), false).unwrap_err().to_string().contains("model.unk_id"));
        let dup = Unigram::new(vec![("a".into(), 0.0), ("a".into(), 1.0)], None, false).unwrap_err();
        assert!(dup.to_string().contains("model.vocab[1]"), "{dup}");
        let m = Unigram::new(vec![("a".into(), 0.0)], None, false).unwrap();
        assert!(m.tokenize("ab", &mut Vec::new()).is_err());
    }
}
