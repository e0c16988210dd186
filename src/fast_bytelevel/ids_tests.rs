//! The ids-only loop compiled with each block classifier (SSE2, the
//! fallback, and AVX2 and AVX-512 where this CPU has them) against the scalar split and
//! the cached tokenizer on the same texts: texts across 64-byte blocks, with
//! quotes, non-ASCII, digits and space runs at and around the blocks' edges.

use super::*;
use crate::fast_bytelevel::blocks::{Avx2, Avx512};
use crate::fast_bytelevel::merge::ByteBpe;
use crate::models::bpe::Bpe;
use crate::pre_tokenizers::byte_level::BYTES_CHAR;
use std::collections::HashMap;

fn model() -> ByteBpe {
    let merges = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("a", "b"), ("Ġ", "a"), ("Ġa", "b"), ("1", "2"), ("'", "s"), ("Ġ", "Ġ")];
    let mut vocab: HashMap<String, u32> = BYTES_CHAR.iter().enumerate().map(|(i, c)| (c.to_string(), i as u32)).collect();
    for (a, b) in merges {
        let n = vocab.len() as u32;
        vocab.entry(format!("{a}{b}")).or_insert(n);
    }
    let merges: Vec<(String, String)> = merges.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    ByteBpe::new(&Bpe::new(vocab, &merges, Bpe::default()).unwrap()).unwrap()
}

/// The ids-only loop's ids of `text` with each classifier (SSE2, and AVX2 where this CPU has it) are the
/// scalar split's, each piece tokenized by the model.
fn assert_ids_as_scalar(bpe: &ByteBpe, plain: &AsciiClasses, text: &str) {
    let want = bpe.scalar_text_ids(text);
    bpe.with_cache(|words| {
        let mut got = Vec::new();
        assert!(words.text_ids_with(Sse2, text, plain, &mut got));
        assert_eq!(got, want, "SSE2: {text:?}");
        if let Some(avx2) = Avx2::detect() {
            got.clear();
            // SAFETY: `avx2` proves the CPU has AVX2
            assert!(unsafe { words.text_ids_avx2(avx2, text, plain, &mut got) });
            assert_eq!(got, want, "AVX2: {text:?}");
        }
        if let Some(avx512) = Avx512::detect() {
            got.clear();
            // SAFETY: `avx512` proves the CPU has AVX-512 F, BW, DQ, VBMI and VBMI2, BMI1 and BMI2
            assert!(unsafe { words.text_ids_gather(avx512, text, plain, &mut got) });
            assert_eq!(got, want, "AVX-512 gathers: {text:?}");
        }
    }).unwrap();
}

#[test]
fn each_classifier_gives_the_scalar_splits_ids() {
    let bpe = model();
    let plain = AsciiClasses::plain();
    let pieces = ["the", " the", "ab", " ab", " ", "  ", "12", " 12", ".", ",", "'s", "'", "é", " é", "\t", "\n", "x  y", "ab12", "日", "“", ".”", " ‘", "’s", "—", "\u{2029}"];
    let mut state = 64u64;
    let mut next = |n: usize| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % n
    };
    for _ in 0..4000 {
        let text: String = (0..next(90)).map(|_| pieces[next(pieces.len())]).collect();
        assert_ids_as_scalar(&bpe, plain, &text);
    }
}

/// Texts of exact lengths around the 64-byte block (0, 1, 63, 64, 65, 127,
/// 128, 129 bytes and a few blocks), each of one repeated unit (letters
/// after spaces, space runs, digits, contractions, non-ASCII), and the same
/// with one word that is new to the cache at its end.
#[test]
fn texts_around_the_block_length_give_the_scalar_splits_ids() {
    let bpe = model();
    let plain = AsciiClasses::plain();
    for len in [0, 1, 2, 63, 64, 65, 127, 128, 129, 200, 256, 257] {
        for unit in [" a", "a ", "  ", "ab", "1 ", "é", "'s", "x'll ", " the", "“a”", ".” "] {
            let base: String = unit.repeat(len).chars().take(len).collect();
            let new_word = format!("{base} zq{len}");
            for text in [base, new_word] {
                assert_ids_as_scalar(&bpe, plain, &text);
            }
        }
    }
}

/// The per-text splitter ([`split_blocks`], each classifier) gives the scalar
/// scanner's pieces as byte ranges, and stops where it stops (with an added
/// token's first bytes as Stop): random texts across the blocks' edges and
/// texts of 0, 1, 63, 64, 65... bytes.
#[test]
fn the_block_splitter_gives_the_scalar_pieces_and_stops() {
    use crate::fast_bytelevel::scan::split_gpt2_until;
    let pieces = ["the", " the", "ab", " ab", " ", "  ", "12", " 12", ".", ",", "'s", "'", "é", " é", "\t", "\n", "x  y", "<", "日", "“", ".”", "—<", "\u{2028}"];
    let mut state = 7u64;
    let mut next = |n: usize| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % n
    };
    let mut texts: Vec<String> = (0..3000).map(|_| (0..next(90)).map(|_| pieces[next(pieces.len())]).collect()).collect();
    for len in [0, 1, 63, 64, 65, 127, 128, 129] {
        for unit in [" a", "  ", "é", "'s", "a<"] {
            texts.push(unit.repeat(len).chars().take(len).collect());
        }
    }
    let with_stops = AsciiClasses::with_stops([b'<', b'\''].into_iter()).unwrap();
    for classes in [AsciiClasses::plain(), &with_stops] {
        for text in &texts {
            let mut want = Vec::new();
            let want_done = split_gpt2_until(text, classes, |a, b| want.push((a, b)));
            let mut got = Vec::new();
            assert_eq!(split_blocks_with(Sse2, text, classes, &mut |a, b| got.push((a, b))), want_done, "SSE2: {text:?}");
            assert_eq!(got, want, "SSE2: {text:?}");
            if let Some(avx2) = Avx2::detect() {
                got.clear();
                // SAFETY: `avx2` proves the CPU has AVX2
                assert_eq!(unsafe { split_blocks_avx2(avx2, text, classes, |a, b| got.push((a, b))) }, want_done, "AVX2: {text:?}");
                assert_eq!(got, want, "AVX2: {text:?}");
            }
            if let Some(avx512) = Avx512::detect() {
                got.clear();
                // SAFETY: `avx512` proves the CPU has AVX-512 F, BW, DQ, VBMI and VBMI2, BMI1 and BMI2
                assert_eq!(unsafe { split_blocks_avx512(avx512, text, classes, |a, b| got.push((a, b))) }, want_done, "AVX-512: {text:?}");
                assert_eq!(got, want, "AVX-512: {text:?}");
            }
            got.clear();
            assert_eq!(split_blocks(text, classes, |a, b| got.push((a, b))), want_done);
            assert_eq!(got, want);
        }
    }
}
