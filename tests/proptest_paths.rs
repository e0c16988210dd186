//! Property tests (proptest) of the fast paths against the plain ones they
//! must equal:
//!
//! - the one-pass encoder (`FullTokenizer::encode_into`: fused stages, ASCII
//!   lanes, code point classes, word memo) against the general path
//!   (`tokenize` stage by stage, then ids), for every option set and random
//!   vocabularies and texts;
//! - the offsets path (`FullTokenizer::encode_offsets_into`: ASCII lane,
//!   chunks shifted) against `tokenize`'s (id, span, word) triples;
//! - LinMaxMatch (`WordPiece`: trie + failure links, whole-word probe) against
//!   greedy longest-match-first as Google's `WordpieceTokenizer` writes it.
//!
//! Case count: PROPTEST_CASES (proptest's own variable; default 256 per property).

use std::collections::HashMap;

use bertpiece::encoder::Scratch;
use bertpiece::unicode::encode_into;
use bertpiece::{BasicOptions, FullOptions, FullTokenizer, Reference, Vocab, WordPiece};
use proptest::prelude::*;

/// Code points that take every branch somewhere: ASCII of each class, case
/// context (sigma, dotted I), marks, CJK and its edges, spaces and controls,
/// surrogates (generalized UTF-8), noncharacters, the last code point.
const TRICKY: &[u32] = &[
    0x61, 0x62, 0x65, 0x42, 0x5A, 0x30, 0x20, 0x09, 0x0A, 0x0B, 0x0D, 0x1C, 0x00, 0x21, 0x23, 0x2C, 0x7F, 0x85, 0xA0,
    0xAD, 0x3A3, 0x3C3, 0x3C2, 0x130, 0x131, 0xE9, 0xC9, 0xDF, 0x1E9E, 0x301, 0x308, 0x323, 0x345, 0x897, 0x3000,
    0x2028, 0x200B, 0x200D, 0xFEFF, 0xFFFD, 0x4E2D, 0x6587, 0xF900, 0x2B820, 0x2B81F, 0xFF0C, 0x958, 0x1100, 0x1161,
    0x11A8, 0xAC00, 0x212B, 0x1C5, 0xFB01, 0xF73, 0x1D165, 0x1D16D, 0x2160, 0xD800, 0xDFFF, 0xE000, 0xFDD0, 0x10FFFF,
];
const PIECES: &[&str] = &["a", "b", "e", "é", "ab", "ae", "ba", "bab", "σ", "ς", "中", "文", "豈", "가", "ß", "ss", "!", "，", "#", "0", "00"];

fn text() -> impl Strategy<Value = Vec<u32>> {
    let cp = prop_oneof![
        6 => proptest::sample::select(TRICKY),
        2 => proptest::sample::select(&[0x61u32, 0x62, 0x65, 0x20][..]),
        1 => 0u32..0x11_0000,
    ];
    proptest::collection::vec(cp, 0..40)
}

/// Mostly ASCII words and punctuation between spaces (the offsets path's
/// ASCII lane), with the tricky code points now and then.
fn ascii_heavy_text() -> impl Strategy<Value = Vec<u32>> {
    let cp = prop_oneof![
        2 => proptest::sample::select(TRICKY),
        6 => proptest::sample::select(&[0x61u32, 0x62, 0x65, 0x41, 0x42, 0x73, 0x30, 0x23, 0x21, 0x2C][..]),
        2 => proptest::sample::select(&[0x20u32, 0x0A, 0x09][..]),
    ];
    proptest::collection::vec(cp, 0..60)
}

fn vocab_lines() -> impl Strategy<Value = Vec<String>> {
    let entry = (proptest::sample::select(PIECES), any::<bool>()).prop_map(|(p, cont)| if cont { format!("##{p}") } else { p.to_string() });
    proptest::collection::vec(entry, 0..30).prop_map(|mut v| {
        v.insert(0, "[UNK]".to_string());
        let mut seen = std::collections::HashSet::new();
        v.retain(|t| seen.insert(t.clone()));
        v
    })
}

fn basic_options() -> impl Strategy<Value = BasicOptions> {
    let reference = proptest::sample::select(&[Reference::Google, Reference::Transformers, Reference::Tokenizers][..]);
    let strip = proptest::sample::select(&[None, Some(true), Some(false)][..]);
    (reference, any::<bool>(), strip, any::<bool>(), any::<bool>()).prop_map(|(reference, do_lower_case, strip_accents, tokenize_chinese_chars, split)| BasicOptions {
        do_lower_case,
        strip_accents,
        tokenize_chinese_chars,
        // HF tokenizers always splits punctuation (the option is refused there).
        do_split_on_punc: split || reference == Reference::Tokenizers,
        reference,
        never_split: vec![],
    })
}

fn general_ids(tok: &FullTokenizer, text: &[u32]) -> Vec<u32> {
    let mut ids = Vec::new();
    let mut raw = Vec::new();
    tok.tokenize(text, |t| ids.push(tok.piece_id(t.piece, &mut raw).unwrap_or(tok.unk_id())));
    ids
}

/// Google's WordpieceTokenizer: the longest prefix in the vocabulary, then the
/// longest "##" continuation, and so on; the whole word is unknown when a
/// remainder has no match or the word is longer than `max`. Token indexes.
fn greedy(tokens: &HashMap<Vec<u32>, u32>, word: &[u32], max: i64) -> Option<Vec<u32>> {
    if word.len() as i64 > max {
        return None;
    }
    let mut out = Vec::new();
    let mut start = 0;
    while start < word.len() {
        let mut end = word.len();
        let found = loop {
            if end == start {
                break None;
            }
            let mut piece = if start > 0 { vec!['#' as u32, '#' as u32] } else { vec![] };
            piece.extend_from_slice(&word[start..end]);
            if let Some(&i) = tokens.get(&piece) {
                break Some(i);
            }
            end -= 1;
        };
        out.push(found?);
        start = end;
    }
    Some(out)
}

proptest! {
    #[test]
    fn one_pass_encoder_equals_the_general_path(lines in vocab_lines(), basic in basic_options(),
                                                max in 1i64..12, texts in proptest::collection::vec(text(), 1..6)) {
        let vocab = Vocab::parse(&(lines.join("\n") + "\n"), basic.reference);
        let opts = FullOptions { basic: basic.clone(), max_input_chars_per_word: Some(max), ..Default::default() };
        let tok = FullTokenizer::new(vocab, opts).unwrap();
        prop_assert!(tok.is_one_pass());
        // One scratch space across the texts, without and with the word memo (so it hits).
        let (mut plain, mut memo) = (Scratch::default(), Scratch::with_cache());
        for text in &texts {
            let want = general_ids(&tok, text);
            let mut bytes = Vec::new();
            encode_into(text, &mut bytes);
            for scratch in [&mut plain, &mut memo] {
                let mut got = Vec::new();
                tok.encode_into(&bytes, &mut got, scratch).unwrap();
                prop_assert_eq!(&got, &want, "{:?} text {:X?}", basic, text);
            }
        }
    }

    #[test]
    fn offsets_path_equals_the_general_path(lines in vocab_lines(), basic in basic_options(), max in 1i64..12,
                                            texts in proptest::collection::vec(ascii_heavy_text(), 1..6)) {
        let vocab = Vocab::parse(&(lines.join("\n") + "\n"), basic.reference);
        let opts = FullOptions { basic: basic.clone(), max_input_chars_per_word: Some(max), ..Default::default() };
        let tok = FullTokenizer::new(vocab, opts).unwrap();
        let (mut plain, mut memo) = (Scratch::default(), Scratch::with_cache());
        for text in &texts {
            let mut want = Vec::new();
            let mut raw = Vec::new();
            tok.tokenize(text, |t| want.push((tok.piece_id(t.piece, &mut raw).unwrap_or(tok.unk_id()), t.span, t.word)));
            let mut bytes = Vec::new();
            encode_into(text, &mut bytes);
            for scratch in [&mut plain, &mut memo] {
                let (mut ids, mut spans, mut words) = (Vec::new(), Vec::new(), Vec::new());
                tok.encode_offsets_into(&bytes, &mut ids, &mut spans, Some(&mut words), scratch).unwrap();
                let got: Vec<_> = ids.into_iter().zip(spans).zip(words).map(|((i, s), w)| (i, s, w)).collect();
                prop_assert_eq!(&got, &want, "{:?} text {:X?}", basic, text);
            }
        }
    }

    #[test]
    fn lin_max_match_equals_greedy_longest_match(lines in vocab_lines(), max in 1i64..14,
            words in proptest::collection::vec(proptest::collection::vec(proptest::sample::select(
                &[0x61u32, 0x62, 0x65, 0xE9, 0x3C3, 0x3C2, 0x4E2D, 0x6587, 0xDF, 0x73, 0x23, 0x30, 0x21][..]), 1..14), 1..8)) {
        let tokens: Vec<&[u8]> = lines.iter().map(|l| l.as_bytes()).collect();
        let wp = WordPiece::new(&tokens, max);
        let index: HashMap<Vec<u32>, u32> = lines.iter().enumerate()
            .map(|(i, l)| (l.chars().map(|c| c as u32).collect(), i as u32)).collect();
        for word in &words {
            let want = greedy(&index, word, max);
            let mut pieces = Vec::new();
            let known = wp.tokenize_word(word, &mut pieces);
            prop_assert_eq!(known.then(|| pieces.iter().map(|p| p.0).collect::<Vec<_>>()), want.clone(), "word {:X?}", word);
            if known {  // the end positions tile the word
                prop_assert_eq!(pieces.last().map(|p| p.1 as usize), Some(word.len()));
            }
            let mut bytes = Vec::new();
            encode_into(word, &mut bytes);
            for unseen in [false, true] {
                let mut ids = Vec::new();
                let ok = if unseen {
                    wp.encode_unseen_word(&bytes, word.len(), |id| ids.push(id))
                } else {
                    wp.encode_word(&bytes, word.len(), |id| ids.push(id))
                };
                prop_assert_eq!(ok.then_some(ids), want.clone(), "bytes of {:X?} (unseen: {})", word, unseen);
            }
        }
    }
}
