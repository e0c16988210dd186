//! The one-pass encoder against the general path (`FullTokenizer::tokenize`)
//! for every option set, and the code point classes against what the
//! per-code-point path does.

use crate::encoder::Scratch;
use crate::normalizer::Reference;
use crate::tokenizer::{BasicOptions, FullOptions, FullTokenizer};
use crate::unicode::encode_into;
use crate::vocab::Vocab;

/// Code points that exercise every shortcut and every reason to fall back.
const TRICKY: &[u32] = &[
    0x61, 0x42, 0x20, 0x09, 0x0B, 0x1C, 0x00, 0x21, 0x23, 0x7F, 0x85, 0x3A3, 0x3C2, 0x130, 0xE9, 0x65, 0x301,
    0x323, 0x345, 0x3000, 0x2028, 0x200B, 0xFFFD, 0x4E2D, 0xF900, 0x2B820, 0xFF0C, 0x958, 0x1100, 0x1161,
    0x11A8, 0xAC00, 0x212B, 0x1E9E, 0x1C5, 0xFB00, 0xF73, 0x1D165, 0x1D16D, 0xCD5, 0x2160, 0xD800, 0xE000, 0x10FFFF,
];

fn rng(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

fn vocab(seed: &mut u64) -> Vocab {
    let mut lines = vec!["[UNK]".to_string()];
    let letters = ["a", "b", "e", "é", "i", "σ", "ς", "中", "豈", "가", "ß", "!", "，", "#", "ab", "ae", "ss", "\u{1D165}", "\u{1D16D}"];
    for l in letters {
        lines.push(l.into());
        if rng(seed) % 3 != 0 {
            lines.push(format!("##{l}"));
        }
    }
    Vocab::parse(&(lines.join("\n") + "\n"), Reference::Google)
}

/// Every combination of the basic options (the tests of the other lanes use it too).
pub(crate) fn options() -> Vec<BasicOptions> {
    let mut all = Vec::new();
    for reference in [Reference::Google, Reference::Transformers, Reference::Tokenizers] {
        for do_lower_case in [true, false] {
            for strip_accents in [None, Some(true), Some(false)] {
                for tokenize_chinese_chars in [true, false] {
                    for do_split_on_punc in [true, false] {
                        if reference == Reference::Tokenizers && !do_split_on_punc {
                            continue;
                        }
                        all.push(BasicOptions { do_lower_case, strip_accents, tokenize_chinese_chars, do_split_on_punc, reference, never_split: vec![] });
                    }
                }
            }
        }
    }
    all
}

#[test]
fn one_pass_equals_the_general_path() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    for basic in options() {
        let tok = FullTokenizer::new(vocab(&mut seed), FullOptions { basic: basic.clone(), max_input_chars_per_word: Some(6), ..Default::default() }).unwrap();
        assert!(tok.is_one_pass());
        // Without and with the word memo (one scratch space for all texts, so the memo hits).
        let (mut scratch, mut memo) = (Scratch::default(), Scratch::with_cache());
        for _ in 0..3000 {
            let len = rng(&mut seed) % 10;
            let text: Vec<u32> = (0..len).map(|_| TRICKY[(rng(&mut seed) % TRICKY.len() as u64) as usize]).collect();
            let mut bytes = Vec::new();
            encode_into(&text, &mut bytes);
            let mut want = Vec::new();
            let mut raw = Vec::new();
            tok.tokenize(&text, |t| want.push(tok.piece_id(t.piece, &mut raw).unwrap()));
            let mut got = Vec::new();
            tok.encode_into(&bytes, &mut got, &mut scratch).unwrap();
            assert_eq!(got, want, "{basic:?} text {text:X?}");
            got.clear();
            tok.encode_into(&bytes, &mut got, &mut memo).unwrap();
            assert_eq!(got, want, "memo, {basic:?} text {text:X?}");
        }
    }
}

/// Long ASCII-heavy texts, so that the eight-bytes-at-a-time scans run
/// (runs longer than eight bytes, every ASCII byte, lead bytes) and
/// chunks pass between the ASCII lane and the per-byte path, with and
/// without lowercasing and punctuation splitting.
#[test]
fn word_runs_eight_bytes_at_a_time_equal_the_general_path() {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut lines = vec!["[UNK]".to_string()];
    for w in ["ab", "abc", "abcdefgh", "abcdefghij", "a1", "z9z", "the", "a-b", "x", "y"] {
        lines.push(w.into());
        lines.push(format!("##{w}"));
    }
    let vocab = Vocab::parse(&(lines.join("\n") + "\n"), Reference::Google);
    let alphabet: Vec<u32> = (0..128).chain([0xE9, 0xC9, 0x3A3, 0x4E2D, 0x2028]).collect();
    for (do_lower_case, do_split_on_punc) in [(true, true), (false, true), (true, false)] {
        let basic = BasicOptions { do_lower_case, do_split_on_punc, ..Default::default() };
        let tok = FullTokenizer::new(vocab.clone(), FullOptions { basic, ..Default::default() }).unwrap();
        let mut memo = Scratch::with_cache();
        for _ in 0..2000 {
            let len = rng(&mut seed) % 60;
            let text: Vec<u32> = (0..len)
                .map(|_| match rng(&mut seed) % 6 {
                    0 => alphabet[(rng(&mut seed) % alphabet.len() as u64) as usize],
                    1 => b"ABCDEFGHIJabcdefghij"[(rng(&mut seed) % 20) as usize] as u32,
                    // Spaces and non-ASCII often enough that chunks go from the lane to the per-byte path and back.
                    2 if rng(&mut seed) % 2 == 0 => [0x20, 0xE9, 0x4E2D][(rng(&mut seed) % 3) as usize],
                    _ => b"abcdefghij0123456789XYZ"[(rng(&mut seed) % 23) as usize] as u32,
                })
                .collect();
            let mut bytes = Vec::new();
            encode_into(&text, &mut bytes);
            let (mut want, mut raw) = (Vec::new(), Vec::new());
            tok.tokenize(&text, |t| want.push(tok.piece_id(t.piece, &mut raw).unwrap()));
            let mut got = Vec::new();
            tok.encode_into(&bytes, &mut got, &mut memo).unwrap();
            assert_eq!(got, want, "lower {do_lower_case} punc {do_split_on_punc} text {text:X?}");
        }
    }
}

/// Short ASCII words go to the memo packed into one integer, lowercased
/// eight bytes at a time: words of 1 to 10 bytes (across that bound), in
/// every case, mid-text and at the very end (fewer than eight bytes left),
/// under a lowercasing and a cased tokenizer taking turns on one scratch
/// space, each word seen many times (memo hits), equal the general path.
#[test]
fn short_ascii_words_through_the_memo_equal_the_general_path() {
    let words = ["a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghij", "z9", "q"];
    let mut lines = vec!["[UNK]".to_string()];
    for w in &words[..8] {
        lines.push(w.to_string());
        lines.push(format!("##{w}"));
        lines.push(w.to_uppercase());
    }
    let vocab = Vocab::parse(&(lines.join("\n") + "\n"), Reference::Google);
    let toks: Vec<FullTokenizer> = [true, false]
        .map(|do_lower_case| {
            let basic = BasicOptions { do_lower_case, ..Default::default() };
            FullTokenizer::new(vocab.clone(), FullOptions { basic, ..Default::default() }).unwrap()
        })
        .into();
    let mut memo = Scratch::with_cache();
    let mut seed = 0x5DEE_CE66_D1CE_4E5Du64;
    for _ in 0..600 {
        let mut text = String::new();
        for _ in 0..(rng(&mut seed) % 6) {
            let w = words[(rng(&mut seed) % words.len() as u64) as usize];
            let w: String = w.chars().map(|c| if rng(&mut seed) % 3 == 0 { c.to_ascii_uppercase() } else { c }).collect();
            text.push_str(&w);
            text.push_str([" ", "!", ", ", " ", "-"][(rng(&mut seed) % 5) as usize]);
        }
        text.truncate(text.trim_end_matches([' ', ',', '!', '-']).len()); // often a word at the very end
        let cps: Vec<u32> = text.chars().map(|c| c as u32).collect();
        for tok in &toks {
            let (mut want, mut raw) = (Vec::new(), Vec::new());
            tok.tokenize(&cps, |t| want.push(tok.piece_id(t.piece, &mut raw).unwrap()));
            let mut got = Vec::new();
            tok.encode_into(text.as_bytes(), &mut got, &mut memo).unwrap();
            assert_eq!(got, want, "lower {} text {text:?}", tok.basic().options().do_lower_case);
        }
    }
}

#[test]
fn one_scratch_space_serves_several_tokenizers() {
    // The word memo belongs to one tokenizer: another one's ids are never served from it.
    let a = FullTokenizer::new(Vocab::parse("[UNK]\nword\nother\n", Reference::Google), FullOptions::default()).unwrap();
    let b = FullTokenizer::new(Vocab::parse("[UNK]\nother\nword\n", Reference::Google), FullOptions::default()).unwrap();
    let mut memo = Scratch::with_cache();
    for _ in 0..3 {
        for (tok, want) in [(&a, [1, 2]), (&b, [2, 1])] {
            let mut got = Vec::new();
            tok.encode_into(b"word other", &mut got, &mut memo).unwrap();
            assert_eq!(got, want);
        }
    }
}

#[test]
fn code_point_classes_record_what_the_per_code_point_path_does() {
    use crate::code_point_classes::Effect::{self, *};
    use crate::normalizer::WordCase;
    let check = |r, lower, cases: &[(u32, Effect)]| {
        let enc = crate::encoder::Encoder::new(r, WordCase::new(lower, None), true, true);
        for (cp, want) in cases {
            assert_eq!(&enc.classify(*cp), want, "U+{cp:04X} {r:?} lower {lower}");
        }
    };
    let mapped = |s: &str| Mapped(s.as_bytes().to_vec(), s.chars().count());
    check(Reference::Google, true, &[
        (0xE9, mapped("e")),      // é: lowercase, NFD, drop the accent
        (0x416, mapped("ж")),     // Ж
        (0x130, mapped("i")),     // İ: str.lower() gives i + U+0307, which is stripped
        (0x3A3, Slow),            // Σ: final sigma depends on the next letters
        (0x4E2D, Own),            // 中: spaced as a CJK ideograph
        (0xFF0C, Own),            // fullwidth comma: punctuation
        (0x3000, Space),          // ideographic space (Zs)
        (0x200B, Drop),           // zero width space (Cf)
        (0x301, Drop),            // a combining accent on its own is stripped
    ]);
    check(Reference::Google, false, &[(0x416, Word), (0xE9, Word), (0x301, Word), (0x3A3, Word)]);
}

#[test]
fn malformed_utf8_is_an_error() {
    let tok = FullTokenizer::new(Vocab::parse("[UNK]\n", Reference::Google), FullOptions::default()).unwrap();
    let mut out = Vec::new();
    assert!(tok.encode_into(b"ok \xFF", &mut out, &mut Scratch::default()).is_err());
}

/// The lane's 64-byte windows (AVX-512 BW and AVX2, where present) against the
/// word-at-a-time lane and the general path, on texts of up to 500 bytes
/// (many windows): words of 1 to 70 bytes (some past a window's end, some
/// longer than one), capitals, punctuation, runs of whitespace, and
/// controls and non-ASCII code points that send chunks to the per-byte path.
#[test]
fn lane_windows_equal_the_word_at_a_time_lane_and_the_general_path() {
    let mut seed = 0x1405_7B7E_F767_814Fu64;
    let mut lines = vec!["[UNK]".to_string()];
    for w in ["a", "b", "e", "ab", "abc", "the", "aaaaaaaa", "x1", "é", "中"] {
        lines.push(w.into());
        lines.push(format!("##{w}"));
    }
    let vocab = Vocab::parse(&(lines.join("\n") + "\n"), Reference::Google);
    let letters = b"aabbeexAB1Z9";
    let odd = ["é", "É", "中", "Σ", "\u{2028}", "\u{0}", "\u{7F}", "\u{1C}", "\u{85}", "\u{3000}"];
    let windows_here = std::arch::is_x86_feature_detected!("avx2");
    let avx512_here = std::arch::is_x86_feature_detected!("avx512bw");
    for basic in options().into_iter().filter(|b| b.do_split_on_punc && b.tokenize_chinese_chars) {
        let tok = FullTokenizer::new(vocab.clone(), FullOptions { basic: basic.clone(), ..Default::default() }).unwrap();
        let mut narrow = tok.clone();
        narrow.encoder = tok.encoder.as_ref().map(|e| e.without_windows());
        let mut avx2 = tok.clone();
        avx2.encoder = tok.encoder.as_ref().map(|e| e.with_avx2_windows());
        assert_eq!(tok.encoder.as_ref().and_then(|e| e.windows()), windows_here.then_some(avx512_here));
        assert_eq!(avx2.encoder.as_ref().and_then(|e| e.windows()), windows_here.then_some(false));
        let (mut memo, mut narrow_memo, mut avx2_memo) = (Scratch::with_cache(), Scratch::with_cache(), Scratch::with_cache());
        for _ in 0..300 {
            let mut text = String::new();
            let len = rng(&mut seed) % 500;
            while (text.len() as u64) < len {
                match rng(&mut seed) % 16 {
                    0..=8 => {
                        let n = if rng(&mut seed) % 8 == 0 { rng(&mut seed) % 70 + 1 } else { rng(&mut seed) % 12 + 1 };
                        text.extend((0..n).map(|_| letters[(rng(&mut seed) % letters.len() as u64) as usize] as char));
                    }
                    9..=11 => text.push_str([" ", " ", "  ", "\t", "\n", "   "][(rng(&mut seed) % 6) as usize]),
                    12..=14 => text.push(b"!,.-'()#"[(rng(&mut seed) % 8) as usize] as char),
                    _ if rng(&mut seed) % 3 == 0 => text.push_str(odd[(rng(&mut seed) % odd.len() as u64) as usize]),
                    _ => text.push(' '),
                }
            }
            let cps: Vec<u32> = text.chars().map(|c| c as u32).collect();
            let (mut want, mut raw) = (Vec::new(), Vec::new());
            tok.tokenize(&cps, |t| want.push(tok.piece_id(t.piece, &mut raw).unwrap()));
            let (mut got, mut got_narrow, mut got_avx2) = (Vec::new(), Vec::new(), Vec::new());
            tok.encode_into(text.as_bytes(), &mut got, &mut memo).unwrap();
            narrow.encode_into(text.as_bytes(), &mut got_narrow, &mut narrow_memo).unwrap();
            avx2.encode_into(text.as_bytes(), &mut got_avx2, &mut avx2_memo).unwrap();
            assert_eq!(got_narrow, want, "word at a time, {basic:?} text {text:?}");
            assert_eq!(got_avx2, want, "AVX2 windows, {basic:?} text {text:?}");
            assert_eq!(got, want, "windows (AVX-512 where present), {basic:?} text {text:?}");
        }
    }
}
