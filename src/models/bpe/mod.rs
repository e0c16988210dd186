//! The BPE model as HF tokenizers runs it (`models/bpe`): each char of a word
//! looked up (with `continuing_subword_prefix` after the first and
//! `end_of_word_suffix` on the last), unknown chars as `<0xXX>` byte tokens
//! (`byte_fallback`) or the unk token (fused runs with `fuse_unk`), then merges
//! by rank ([`word`]). `ignore_merges` looks the whole word up first.

mod memo;
pub mod word;

use super::ModelToken;
use crate::{Error, Result};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
pub use word::{Merges, Word};

static NEXT_MEMO_KEY: AtomicU64 = AtomicU64::new(1);

#[derive(Clone, Debug, Default)]
pub struct Bpe {
    pub vocab: HashMap<String, u32>,
    pub vocab_r: HashMap<u32, String>,
    pub merges: Merges,
    pub unk_token: Option<String>,
    pub continuing_subword_prefix: Option<String>,
    pub end_of_word_suffix: Option<String>,
    pub fuse_unk: bool,
    pub byte_fallback: bool,
    pub ignore_merges: bool,
    /// This model's words in the thread's memo ([`memo`]): given by [`Bpe::new`], 0 (no memo) otherwise.
    pub(crate) memo_key: u64,
}

impl Bpe {
    /// Builds the model; `merges` are (left, right) in rank order. A later
    /// duplicate of a pair replaces the earlier one, as in HF.
    pub fn new(vocab: HashMap<String, u32>, merges: &[(String, String)], opts: Bpe) -> Result<Bpe> {
        let vocab_r = super::reverse_vocab(&vocab)?;
        let prefix_len = opts.continuing_subword_prefix.as_ref().map_or(0, String::len);
        let mut merge_map = Merges::with_capacity(merges.len());
        for (rank, (a, b)) in merges.iter().enumerate() {
            let id = |t: &str| {
                vocab.get(t).copied().ok_or_else(|| {
                    Error::Config(format!("model.merges[{rank}]: token {t:?} is not in model.vocab"))
                })
            };
            // HF drops the prefix's length from the right side whatever it holds (and panics if it cannot).
            let rest = b.get(prefix_len..).ok_or_else(|| {
                Error::Config(format!(
                    "model.merges[{rank}]: cannot drop continuing_subword_prefix ({prefix_len} bytes) from {b:?}"
                ))
            })?;
            let (a_id, b_id, new_id) = (id(a)?, id(b)?, id(&format!("{a}{rest}"))?);
            merge_map.insert((a_id, b_id), (rank as u32, new_id));
        }
        Ok(Bpe { vocab, vocab_r, merges: merge_map, memo_key: NEXT_MEMO_KEY.fetch_add(1, Ordering::Relaxed), ..opts })
    }

    /// Tokens of one word (`word` is non-empty in the pipeline).
    pub fn tokenize(&self, word: &str, out: &mut Vec<ModelToken>) -> Result<()> {
        if word.is_empty() {
            return Ok(());
        }
        if self.ignore_merges {
            if let Some(&id) = self.vocab.get(word) {
                out.push((id, 0, word.len()));
                return Ok(());
            }
        }
        memo::tokenize(self.memo_key, word, out, |out| self.merge_word(word, out))
    }

    /// [`Bpe::tokenize`] without the memo: the word's chars as tokens, then merged.
    fn merge_word(&self, word: &str, out: &mut Vec<ModelToken>) -> Result<()> {
        let mut w = Word::with_capacity(word.len())?;
        // (unk id, bytes it covers so far)
        let mut unk: Option<(u32, usize)> = None;
        let mut s = String::new();
        let n_chars = word.chars().count();
        for (i, c) in word.chars().enumerate() {
            let byte_len = c.len_utf8();
            s.clear();
            if i > 0 {
                s.extend(self.continuing_subword_prefix.as_deref());
            }
            s.push(c);
            if i + 1 == n_chars {
                s.extend(self.end_of_word_suffix.as_deref());
            }
            if let Some(&id) = self.vocab.get(&s) {
                if let Some((uid, ulen)) = unk.take() {
                    w.add(uid, ulen);
                }
                w.add(id, byte_len);
                continue;
            }
            if self.byte_fallback {
                let ids: Option<Vec<u32>> =
                    s.bytes().map(|b| self.vocab.get(&format!("<{b:#04X}>")).copied()).collect();
                if let Some(ids) = ids {
                    // As in HF, a pending unk run is not flushed here: it lands after these bytes.
                    ids.into_iter().for_each(|id| w.add(id, 1));
                    continue;
                }
            }
            if let Some(unk_token) = &self.unk_token {
                let uid = *self
                    .vocab
                    .get(unk_token)
                    .ok_or_else(|| Error::Tokenize(format!("unk_token {unk_token:?} is not in the vocabulary")))?;
                unk = match unk {
                    Some((id, ulen)) if self.fuse_unk => Some((id, ulen + byte_len)),
                    Some((id, ulen)) => {
                        w.add(id, ulen);
                        Some((uid, byte_len))
                    }
                    None => Some((uid, byte_len)),
                };
            }
        }
        if let Some((uid, ulen)) = unk {
            w.add(uid, ulen);
        }
        w.merge_all(&self.merges)?;
        out.extend(w.tokens());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(opts: Bpe) -> Bpe {
        let vocab: HashMap<String, u32> =
            ["<unk>", "a", "b", "ab", "<0x63>"].iter().enumerate().map(|(i, t)| (t.to_string(), i as u32)).collect();
        Bpe::new(vocab, &[("a".into(), "b".into())], opts).unwrap()
    }

    #[test]
    fn merges_and_unk_fusing() {
        let m = model(Bpe { unk_token: Some("<unk>".into()), fuse_unk: true, ..Bpe::default() });
        let mut out = Vec::new();
        m.tokenize("abxya", &mut out).unwrap();
        assert_eq!(out, vec![(3, 0, 2), (0, 2, 4), (1, 4, 5)]);
    }

    #[test]
    fn byte_fallback_and_dropped_unknowns() {
        let m = model(Bpe { byte_fallback: true, ..Bpe::default() });
        let mut out = Vec::new();
        m.tokenize("cza", &mut out).unwrap();
        // As in HF, offsets run on from the symbols kept: the dropped 'z' shifts 'a'.
        assert_eq!(out, vec![(4, 0, 1), (1, 1, 2)]);
    }

    #[test]
    fn the_memo_gives_the_merged_tokens_and_keeps_models_apart() {
        // two models whose "ab" differ, alternating on one thread: each word as merged without the memo
        let m = model(Bpe { unk_token: Some("<unk>".into()), ..Bpe::default() });
        let vocab: HashMap<String, u32> = [("a", 0), ("b", 1), ("ab", 2), ("ba", 3), ("<unk>", 4)].iter().map(|&(t, i)| (t.to_string(), i)).collect();
        let other = Bpe::new(vocab, &[("b".into(), "a".into()), ("a".into(), "b".into())], Bpe { unk_token: Some("<unk>".into()), ..Bpe::default() }).unwrap();
        assert_ne!(m.memo_key, other.memo_key);
        memo::forget();
        for _ in 0..3 {
            for model in [&m, &other, &m.clone()] {
                for w in ["ab", "bab", "abxab", "a", "ab", &"ab".repeat(40)] {
                    let (mut got, mut want) = (vec![(9, 9, 9)], vec![(9, 9, 9)]); // appended after what is there
                    model.tokenize(w, &mut got).unwrap();
                    model.merge_word(w, &mut want).unwrap();
                    assert_eq!(got, want, "{w}");
                }
            }
        }
        // built field by field (no Bpe::new): no memo key, merged every time
        assert_eq!(Bpe::default().memo_key, 0);
    }

    #[test]
    fn bad_merges_name_the_field() {
        let vocab: HashMap<String, u32> = [("a".to_string(), 0)].into_iter().collect();
        let e = Bpe::new(vocab, &[("a".into(), "q".into())], Bpe::default()).unwrap_err();
        assert!(e.to_string().contains("model.merges[0]"), "{e}");
    }
}
