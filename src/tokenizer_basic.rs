//! Google's `BasicTokenizer` (transformers' with its options): cleaning,
//! normalization and the whitespace and punctuation splits, word by word.

use crate::aligned::Span;
use crate::normalizer::{hf_case, normalize_text, Reference, WordCase};
use crate::pre_tokenizer::{is_hf_punctuation, is_hf_space, is_punctuation, split_on, split_punctuation_by, split_whitespace};
use crate::unicode::{self, has};
use crate::unicode_tables as t;
use crate::vocab::Vocab;
use crate::{Error, Result};
use std::collections::HashSet;

/// transformers' `BasicTokenizer` options; the defaults are Google's behaviour.
#[derive(Clone, Debug)]
pub struct BasicOptions {
    pub do_lower_case: bool,
    pub strip_accents: Option<bool>,
    pub tokenize_chinese_chars: bool,
    pub do_split_on_punc: bool,
    pub reference: Reference,
    /// Whitespace tokens passed through untouched (transformers' `never_split`).
    pub never_split: Vec<Vec<u32>>,
}

impl Default for BasicOptions {
    fn default() -> Self {
        BasicOptions {
            do_lower_case: true,
            strip_accents: None,
            tokenize_chinese_chars: true,
            do_split_on_punc: true,
            reference: Reference::Google,
            never_split: Vec::new(),
        }
    }
}

/// Set of code-point strings, looked up by slice.
pub type TokenSet = HashSet<Vec<u32>>;

#[derive(Clone, Debug)]
pub struct BasicTokenizer {
    opts: BasicOptions,
    pub(super) case: WordCase,
    pub(super) never_split: TokenSet,
    /// Google's preserved `[unusedN]` vocabulary entries.
    pub(super) preserved: TokenSet,
}

impl BasicTokenizer {
    pub fn new(opts: BasicOptions) -> Result<Self> {
        if opts.reference == Reference::Tokenizers {
            if !opts.never_split.is_empty() {
                return Err(Error::UnsupportedOption("never_split"));
            }
            if !opts.do_split_on_punc {
                return Err(Error::UnsupportedOption("do_split_on_punc=False"));
            }
        }
        let case = WordCase::new(opts.do_lower_case, opts.strip_accents);
        let never_split = opts.never_split.iter().cloned().collect();
        Ok(BasicTokenizer { opts, case, never_split, preserved: TokenSet::new() })
    }

    /// Google's `preserve_unused_tokens`: vocabulary entries matching
    /// `^\[unused\d+\]$` (with `re`'s Unicode `\d`) are never split.
    pub fn preserve_unused_tokens(mut self, vocab: &Vocab) -> Self {
        for (token, _) in vocab.entries() {
            let Some(cps) = unicode::decode(token) else { continue };
            if is_unused_token(&cps) {
                self.preserved.insert(cps);
            }
        }
        self
    }

    pub fn options(&self) -> &BasicOptions {
        &self.opts
    }

    /// HF BertNormalizer's output for `text` (reference "tokenizers" only, else None):
    /// the string HF tokenizers shows, and matches, for a normalized added token.
    pub fn hf_normalize(&self, text: &[u32]) -> Option<Vec<u32>> {
        if self.opts.reference != Reference::Tokenizers {
            return None;
        }
        Some(hf_case(normalize_text(text, self.opts.reference, self.opts.tokenize_chinese_chars), self.case).chars)
    }

    /// Runs the basic tokenizer over `text`, calling `emit(token, spans,
    /// protected)` for each output token, where `spans` gives each code
    /// point's range in `text`. `extra` adds per-call `never_split` tokens.
    ///
    /// `protected` marks tokens that skip WordPiece: Google's preserved
    /// `[unusedN]` tokens, and (as transformers' `BertTokenizer._tokenize`
    /// checks) any output token that is in `never_split`.
    pub fn tokenize(&self, text: &[u32], extra: Option<&TokenSet>, mut emit: impl FnMut(&[u32], &[Span], bool)) {
        let never_split = |t: &[u32]| self.never_split.contains(t) || extra.is_some_and(|e| e.contains(t));
        let text = normalize_text(text, self.opts.reference, self.opts.tokenize_chinese_chars);
        if self.opts.reference == Reference::Tokenizers {
            // HF: case and accents over the whole text, then BertPreTokenizer.
            let text = hf_case(text, self.case);
            for w in split_on(&text.chars, is_hf_space) {
                for p in split_punctuation_by(&text.chars[w.clone()], is_hf_punctuation) {
                    let r = w.start + p.start..w.start + p.end;
                    emit(&text.chars[r.clone()], &text.spans[r], false);
                }
            }
            return;
        }
        for range in split_whitespace(&text.chars) {
            let (token, spans) = (&text.chars[range.clone()], &text.spans[range]);
            if self.preserved.contains(token) || never_split(token) {
                emit(token, spans, true);
                continue;
            }
            let word = self.case.apply((token, spans));
            let (chars, spans) = (&word.chars[..], &word.spans[..]);
            // transformers checks never_split again after lowercasing, before the
            // punctuation split. The final `whitespace_tokenize(" ".join(...))`
            // re-splits each piece on str.isspace() and drops empty ones.
            let split = self.opts.do_split_on_punc && !never_split(chars);
            for p in split_punctuation_by(chars, if split { is_punctuation } else { |_| false }) {
                for w in split_whitespace(&chars[p.clone()]) {
                    let r = p.start + w.start..p.start + w.end;
                    emit(&chars[r.clone()], &spans[r.clone()], never_split(&chars[r]));
                }
            }
        }
    }
}

fn is_unused_token(cps: &[u32]) -> bool {
    const PREFIX: &[u8] = b"[unused";
    cps.len() > PREFIX.len() + 1
        && cps.iter().zip(PREFIX).all(|(&c, &b)| c == b as u32)
        && cps.last() == Some(&(b']' as u32))
        && cps[PREFIX.len()..cps.len() - 1].iter().all(|&c| has(c, t::DECIMAL))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cps(s: &str) -> Vec<u32> {
        s.chars().map(|c| c as u32).collect()
    }

    fn basic(opts: BasicOptions, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        BasicTokenizer::new(opts).unwrap().tokenize(&cps(text), None, |t, _, _| {
            out.push(t.iter().map(|&c| char::from_u32(c).unwrap()).collect())
        });
        out
    }

    #[test]
    fn google_basic_tokenizer() {
        let got = basic(BasicOptions::default(), " \tHeLLo!how  \n Are yoU?  Ça 中文 ");
        assert_eq!(got, ["hello", "!", "how", "are", "you", "?", "ca", "中", "文"]);
    }

    #[test]
    fn cased_keeps_accents_and_never_split_is_untouched() {
        let opts = BasicOptions { do_lower_case: false, never_split: vec![cps("[UNK]")], ..Default::default() };
        assert_eq!(basic(opts, "Ça [UNK] [X]"), ["Ça", "[UNK]", "[", "X", "]"]);
    }

    #[test]
    fn never_split_is_checked_after_lowercasing_and_on_pieces() {
        let opts = BasicOptions { never_split: vec![cps("[unk]"), cps("!")], ..Default::default() };
        let tok = BasicTokenizer::new(opts).unwrap();
        let mut out = Vec::new();
        tok.tokenize(&cps("[UNK] a!b"), None, |t, _, p| out.push((t.to_vec(), p)));
        let want = [(cps("[unk]"), true), (cps("a"), false), (cps("!"), true), (cps("b"), false)];
        assert_eq!(out, want);
    }
}
