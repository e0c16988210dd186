//! `encode_offsets_into` against `tokenize` (the general path, stage by
//! stage): the same (id, span, word) triples for every option set.

use crate::aligned::Span;
use crate::encoder::tests::options;
use crate::encoder::Scratch;
use crate::normalizer::Reference;
use crate::tokenizer::{BasicOptions, FullOptions, FullTokenizer};
use crate::vocab::Vocab;

/// Pieces of text: ASCII words (cased, multi-piece, over the length limit),
/// every kind of ASCII punctuation, whitespace and controls, and non-ASCII
/// text that changes under lowercasing, accent stripping, NFC, CJK spacing.
const FRAGMENTS: &[&str] = &[
    "un", "aff", "able", "UNAFFABLE", "Able", "unaffable", "a", "b", "ab", "abab", "abababababab", "x", "X1", "9", "b9b",
    "!", ",", "#", "##", "-", "[UNK]", "[", "]", "~", "`", "$", "^", "_", "+", "<", "|", ".", "'", "\"", "@",
    " ", " ", " ", "\t", "\n", "\r", "  ", "\x00", "\x01", "\x0b", "\x0c", "\x1c", "\x1f", "\x7f",
    "é", "É", "e\u{301}", "\u{301}", "\u{323}\u{301}", "\u{345}", "中", "文", "Σ", "ς", "İ", "\u{3000}", "\u{2028}", "\u{200b}",
    "\u{85}", "\u{a0}", "ß", "\u{fb00}", "，", "\u{1d165}", "가", "\u{ad}", "\u{e000}", "\u{2b820}", "\u{ffff}",
];

const TOKENS: &[&str] = &[
    "a", "b", "ab", "un", "aff", "able", "x", "1", "9", "!", ",", "#", "-", "[", "]", "[UNK]", "e", "é", "中", "文", "σ",
    "ς", "i", "ß", "ss", "，", "UN", "AFF", "X", "Able", "abab",
];

fn rng(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

/// A random vocabulary: "[UNK]", each token, often its "##" twin. Kind 0:
/// ids are line numbers; 1: ids reversed and shifted (not the entry indexes); 2: two
/// entries of different lengths share an id (offsets then take the general path).
fn vocab(seed: &mut u64, kind: u64) -> Vocab {
    let mut lines = vec!["[UNK]".to_string()];
    for t in TOKENS {
        lines.push(t.to_string());
        if rng(seed) % 4 != 0 {
            lines.push(format!("##{t}"));
        }
    }
    let n = lines.len() as u32;
    let pairs = lines.into_iter().enumerate().map(|(i, l)| {
        let id = match kind {
            0 => i as u32,
            1 => n - 1 - i as u32 + 100,
            _ if i as u32 == n - 1 => 1, // "abab" or "##abab" takes the id of "a"
            _ => i as u32,
        };
        (l.into_bytes(), id)
    });
    Vocab::from_pairs(pairs.collect::<Vec<_>>())
}

fn text(seed: &mut u64, fragments: u64) -> String {
    let len = rng(seed) % fragments;
    (0..len).map(|_| FRAGMENTS[(rng(seed) % FRAGMENTS.len() as u64) as usize]).collect()
}

type Triples = Vec<(u32, Span, u32)>;

fn general(tok: &FullTokenizer, text: &str) -> Triples {
    let cps: Vec<u32> = text.chars().map(|c| c as u32).collect();
    let (mut out, mut raw) = (Vec::new(), Vec::new());
    tok.tokenize(&cps, |t| out.push((tok.piece_id(t.piece, &mut raw).unwrap_or(tok.unk_id()), t.span, t.word)));
    out
}

fn fast(tok: &FullTokenizer, text: &str, scratch: &mut Scratch) -> Triples {
    let (mut ids, mut spans, mut words) = (Vec::new(), Vec::new(), Vec::new());
    tok.encode_offsets_into(text.as_bytes(), &mut ids, &mut spans, Some(&mut words), scratch).unwrap();
    assert_eq!((ids.len(), words.len()), (spans.len(), spans.len()));
    // Without word indices: the same ids and spans.
    let (mut ids2, mut spans2) = (Vec::new(), Vec::new());
    tok.encode_offsets_into(text.as_bytes(), &mut ids2, &mut spans2, None, scratch).unwrap();
    assert_eq!((&ids2, &spans2), (&ids, &spans));
    ids.into_iter().zip(spans).zip(words).map(|((i, s), w)| (i, s, w)).collect()
}

#[test]
fn offsets_equal_the_general_path_for_every_option_set() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    for basic in options() {
        for (kind, max) in [(0, Some(6)), (1, None), (2, Some(8))] {
            let opts = FullOptions { basic: basic.clone(), max_input_chars_per_word: max, ..Default::default() };
            let tok = FullTokenizer::new(vocab(&mut seed, kind), opts).unwrap();
            assert!(tok.is_one_pass());
            assert_eq!(tok.piece_chars.is_some(), kind != 2, "kind {kind}");
            // Without and with the word memo (one scratch space for all texts, so the memo hits).
            let (mut plain, mut memo) = (Scratch::default(), Scratch::with_cache());
            for _ in 0..150 {
                let text = text(&mut seed, 24);
                let want = general(&tok, &text);
                assert_eq!(fast(&tok, &text, &mut plain), want, "{basic:?} max {max:?} text {text:?}");
                assert_eq!(fast(&tok, &text, &mut memo), want, "memo, {basic:?} max {max:?} text {text:?}");
            }
        }
    }
}

/// Texts long enough to turn the word memo on by themselves, mostly ASCII
/// lines with some non-ASCII chunks: words and code points keep counting
/// across many chunks of both kinds.
#[test]
fn long_texts_of_many_chunks_equal_the_general_path() {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for (reference, do_lower_case) in [(Reference::Google, true), (Reference::Transformers, false), (Reference::Tokenizers, true)] {
        let basic = BasicOptions { reference, do_lower_case, ..Default::default() };
        let tok = FullTokenizer::new(vocab(&mut seed, 0), FullOptions { basic, ..Default::default() }).unwrap();
        let mut text = String::new();
        while text.len() < crate::tokenizer::MEMO_MIN_TEXT + 1000 {
            text += &self::text(&mut seed, 12);
            text.push(if rng(&mut seed) % 8 == 0 { '\n' } else { ' ' });
        }
        assert_eq!(fast(&tok, &text, &mut Scratch::default()), general(&tok, &text), "{reference:?}");
    }
}

/// never_split and preserved tokens: the general path for the whole text
/// (protected tokens keep their own span and word).
#[test]
fn protected_tokens_take_the_general_path() {
    let mut seed = 0x51_7CC1_B727_220Au64;
    let mut lines: Vec<String> = ["[UNK]", "un", "##aff", "[unused1]", "ab"].map(String::from).to_vec();
    lines.extend(TOKENS.iter().map(|t| t.to_string()));
    let vocab = Vocab::parse(&(lines.join("\n") + "\n"), Reference::Google);
    let never = |s: &str| s.chars().map(|c| c as u32).collect::<Vec<u32>>();
    for (reference, never_split, preserve) in [(Reference::Google, vec![], true), (Reference::Transformers, vec![never("[UNK]"), never("ab!")], false)] {
        let basic = BasicOptions { reference, never_split, ..Default::default() };
        let tok = FullTokenizer::new(vocab.clone(), FullOptions { basic, preserve_unused_tokens: preserve, ..Default::default() }).unwrap();
        assert!(!tok.is_one_pass());
        for _ in 0..300 {
            let text = text(&mut seed, 16) + " [unused1] [UNK] ab! " + &self::text(&mut seed, 8);
            assert_eq!(fast(&tok, &text, &mut Scratch::default()), general(&tok, &text), "{reference:?} {text:?}");
        }
    }
}

#[test]
fn pieces_span_their_own_code_points() {
    let vocab = Vocab::parse("[UNK]\nun\n##aff\n##able\n,\né\n", Reference::Google);
    let basic = BasicOptions { reference: Reference::Tokenizers, ..Default::default() };
    let tok = FullTokenizer::new(vocab, FullOptions { basic, ..Default::default() }).unwrap();
    let got = fast(&tok, "é UNAFFABLE, unx\tÉ", &mut Scratch::default());
    // é and É lowercase and lose their accent: "e", not in the vocabulary.
    let want = [(0, (0, 1), 0), (1, (2, 4), 1), (2, (4, 7), 1), (3, (7, 11), 1), (4, (11, 12), 2), (0, (13, 16), 3), (0, (17, 18), 4)];
    assert_eq!(got, want);
}

#[test]
fn malformed_utf8_is_an_error() {
    let tok = FullTokenizer::new(Vocab::parse("[UNK]\nok\n", Reference::Google), FullOptions::default()).unwrap();
    let (mut ids, mut spans) = (Vec::new(), Vec::new());
    assert!(tok.encode_offsets_into(b"ok ok \xFF ok", &mut ids, &mut spans, None, &mut Scratch::default()).is_err());
}

/// Texts of several segments (`room::segments`): ids, spans and word indices
/// keep counting across the cuts, on every path (ASCII lane, code point lane,
/// general path for protected tokens and for a shared-id vocabulary).
#[test]
fn texts_of_several_segments_equal_the_general_path() {
    let mut seed = 0x1234_5678_9ABC_DEF1u64;
    let mut text = String::new();
    while text.len() < 2 * crate::room::SEGMENT + 5000 {
        text += &self::text(&mut seed, 12);
        text.push(if rng(&mut seed) % 8 == 0 { '\n' } else { ' ' });
    }
    for (reference, kind, never_split) in [(Reference::Google, 0, vec![]), (Reference::Tokenizers, 1, vec![]),
                                           (Reference::Transformers, 2, vec![]), (Reference::Transformers, 0, vec![vec![0x5B, 0x55, 0x4E, 0x4B, 0x5D]])] {
        let basic = BasicOptions { reference, never_split, ..Default::default() };
        let tok = FullTokenizer::new(vocab(&mut seed, kind), FullOptions { basic, ..Default::default() }).unwrap();
        let want = general(&tok, &text);
        assert_eq!(fast(&tok, &text, &mut Scratch::default()), want, "{reference:?} kind {kind}");
        let mut ids = Vec::new();
        tok.encode_into(text.as_bytes(), &mut ids, &mut Scratch::default()).unwrap();
        assert_eq!(ids, want.iter().map(|t| t.0).collect::<Vec<u32>>(), "{reference:?} kind {kind}");
    }
}
