//! The block scanner against the scalar one: from every piece start of many
//! texts, the starts the block reports are exactly the scalar pieces' starts
//! up to its last one, with and without stop bytes.

use super::*;
use crate::fast_bytelevel::scan::{split_gpt2_until, AsciiClasses};

/// A small deterministic generator (no dependency).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

fn check(text: &str, classes: &AsciiClasses) -> usize {
    let mut starts = Vec::new();
    let complete = split_gpt2_until(text, classes, |a, _| starts.push(a));
    let scanned_to = if complete { text.len() } else { starts.last().copied().unwrap_or(0) };
    let stops = classes.block_stops().unwrap_or([0; 4]);
    let mut checked = 0;
    for &i in &starts {
        let Some(block) = text.as_bytes().get(i..i + 64) else { continue };
        let Some(got) = Sse2.piece_starts(block, stops) else { continue };
        // the AVX2 classifier where the CPU has it: the same starts
        if let Some(avx2) = Avx2::detect() {
            assert_eq!(avx2.piece_starts(block, stops), Some(got), "{text:?} from {i}: AVX2 against SSE2");
        }
        if let Some(avx512) = Avx512::detect() {
            assert_eq!(avx512.piece_starts(block, stops), Some(got), "{text:?} from {i}: AVX-512 against SSE2");
        }
        if got == 0 {
            continue;
        }
        let last = 63 - got.leading_zeros() as usize;
        assert!(i + last <= scanned_to, "{text:?} at {i}: a start past the scalar scan's stop");
        let want = starts.iter().filter(|&&s| s >= i && s <= i + last).fold(0u64, |m, &s| m | 1 << (s - i));
        assert_eq!(got, want, "{text:?} from {i}: {got:064b} against {want:064b}");
        checked += 1;
    }
    checked
}

#[test]
fn block_starts_are_the_scalar_pieces_starts() {
    let plain = AsciiClasses::plain();
    let stops = AsciiClasses::with_stops([b'<', b'['].into_iter()).unwrap();
    let pieces = [
        "a", "Z", "the", " the", " x", "  ", "   ", " ", "7", "1999", " 42", ".", ",", "!?", " (", "--", "'", "'s", "'ll", "'S",
        "\t", "\n", "\r\n", "\x0b", "\x00", "\x7f", "é", " é", "日", "<", "[", "|", "~", "_", "don't", "ab12cd", "x  y", "a   b",
        // U+2010..=U+2027 (the block takes them as punctuation) and their neighbours (it does not)
        "“", "”", " “", ".”", "‘", "’", "—", "–", "…", "•", "\u{2010}", "\u{2027}", "\u{200f}", "\u{2028}", "\u{2029}",
        "\u{2030}", "\u{2007}", "\u{202f}", "\u{2080}", "\u{2090}", "â", "’s", "”\n",
    ];
    let mut rng = Lcg(25);
    let mut checked = 0;
    for _ in 0..3000 {
        let text: String = (0..40 + rng.next(60)).map(|_| pieces[rng.next(pieces.len())]).collect();
        checked += check(&text, plain);
        checked += check(&text, &stops);
    }
    // runs of one kind of byte through whole blocks, and every ASCII byte after a run of spaces and letters
    for fill in ["a", " ", ".", "7", " a", "ab ", "a  ", "  a"] {
        checked += check(&fill.repeat(100), plain);
    }
    for b in 0..0x80u8 {
        let text = format!("{}{}{}", "word  ".repeat(12), b as char, " tail of the text here".repeat(4));
        checked += check(&text, plain);
    }
    // (off x86-64 there is no block scanner: nothing to check)
    assert!(checked > 10_000 || cfg!(not(target_arch = "x86_64")), "{checked} blocks checked");
}

#[test]
fn the_classes_agree_with_the_scanner_table() {
    // every ASCII byte at every place of a block: the masks' classes are the table's where the block trusts them
    let table = AsciiClasses::plain().table();
    for b in 0..=0xFFu8 {
        for at in [0usize, 7, 8, 15, 16, 31, 40, 63] {
            let mut block = [b'a'; 64];
            block[at] = b;
            let Some(m) = Sse2.classify(&block, [0; 4]) else { return };
            if let Some(avx2) = Avx2::detect() {
                assert_eq!(avx2.classify(&block, [0; 4]), Some(m), "byte {b:#04x} at {at}: AVX2 against SSE2");
            }
            if let Some(avx512) = Avx512::detect() {
                assert_eq!(avx512.classify(&block, [0; 4]), Some(m), "byte {b:#04x} at {at}: AVX-512 against SSE2");
            }
            let bit = 1u64 << at;
            let kind = (m.letter & bit != 0, m.digit & bit != 0, m.space & bit != 0, m.special & bit != 0);
            let want = match table.get(b as usize) {
                _ if b == b'\'' || b >= 0x80 => (false, false, false, true),
                Some(CharClass::Letter) => (true, false, false, false),
                Some(CharClass::Number) => (false, true, false, false),
                Some(CharClass::Space) if b == b' ' => (false, false, true, false),
                Some(CharClass::Space) => (false, false, false, true),
                // Other: punctuation (no mask) unless a control the block leaves to the scalar scanner
                _ if b < 0x20 || b == 0x7F => (false, false, false, true),
                _ => (false, false, false, false),
            };
            assert_eq!(kind, want, "byte {b:#04x} at {at}");
        }
    }
}

use crate::fast_bytelevel::scan::CharClass;

#[test]
fn general_punctuation_is_punctuation_where_the_block_holds_all_of_it() {
    for c in '\u{2000}'..='\u{2030}' {
        let mut utf8 = [0u8; 4];
        let ch = c.encode_utf8(&mut utf8).as_bytes();
        let taken = ('\u{2010}'..='\u{2027}').contains(&c);
        for at in 0..=63 {
            let mut block = [b'a'; 64];
            let n = ch.len().min(64 - at);
            block[at..at + n].copy_from_slice(&ch[..n]);
            let Some(m) = Sse2.classify(&block, [0; 4]) else { return };
            if let Some(avx2) = Avx2::detect() {
                assert_eq!(avx2.classify(&block, [0; 4]), Some(m), "{c:?} at {at}: AVX2 against SSE2");
            }
            if let Some(avx512) = Avx512::detect() {
                assert_eq!(avx512.classify(&block, [0; 4]), Some(m), "{c:?} at {at}: AVX-512 against SSE2");
            }
            let bits = ((1u64 << n) - 1) << at;
            let whole = n == ch.len();
            // punctuation: no class mask; special: left to the scalar scanner
            assert_eq!(m.letter & bits | m.digit & bits | m.space & bits, 0, "{c:?} at {at}");
            assert_eq!(m.special & bits, if taken && whole { 0 } else { bits }, "{c:?} at {at}");
        }
    }
}

#[test]
fn avx2_and_avx512_masks_are_sse2_masks() {
    // random blocks of every byte value (runs of one kind too), with and without stops
    let avx512 = Avx512::detect();
    let Some(avx2) = Avx2::detect() else { return };
    let mut rng = Lcg(2);
    let kinds: [&[u8]; 4] = [b"aZ ", b" 7'<", b"\x00\t\x7f\x80\xff[", b"abc def, 123"];
    for round in 0..20_000 {
        let mut block = [0u8; 64];
        for b in block.iter_mut() {
            *b = if round % 2 == 0 { rng.next(256) as u8 } else { let k = kinds[rng.next(4)]; k[rng.next(k.len())] };
        }
        let stops = [[0; 4], [b'<', b'[', 0, 0], [b'<', b'[', b'|', b'~']][round % 3];
        assert_eq!(avx2.classify(&block, stops), Sse2.classify(&block, stops), "{block:?} {stops:?}");
        if let Some(avx512) = avx512 {
            assert_eq!(avx512.classify(&block, stops), Sse2.classify(&block, stops), "AVX-512: {block:?} {stops:?}");
        }
    }
}

/// A text's last < 64 bytes from every piece start, padded with spaces:
/// where the tail holds no byte left to the scalar scanner, its starts are
/// exactly the scalar pieces' starts and the text's end; else the block's.
#[test]
fn tail_starts_are_the_scalar_pieces_starts_and_the_end() {
    let pieces = ["a", "the", " the", " x", "  ", " ", "7", " 42", ".", ",", "!?", " (", "'s", "\n", "é", "“", ".”", "—", "  a", "a  "];
    let mut rng = Lcg(10);
    let mut whole = 0;
    for _ in 0..4000 {
        let text: String = (0..1 + rng.next(30)).map(|_| pieces[rng.next(pieces.len())]).collect();
        let mut scalar = Vec::new();
        split_gpt2_until(&text, AsciiClasses::plain(), |a, _| scalar.push(a));
        for &i in &scalar {
            let left = text.len() - i;
            if left >= 64 {
                continue;
            }
            let mut block = [b' '; 64];
            block[..left].copy_from_slice(&text.as_bytes()[i..]);
            let Some(m) = Sse2.classify(&block, [0; 4]) else { return };
            let got = tail_starts(m, left as u32);
            if m.special & ((1u64 << left) - 1) != 0 {
                assert_eq!(got, starts(m), "{text:?} from {i}");
                continue;
            }
            let want = scalar.iter().filter(|&&s| s >= i).fold(1u64 << left, |w, &s| w | 1 << (s - i));
            assert_eq!(got, want, "{text:?} from {i}: {got:064b} against {want:064b}");
            whole += 1;
        }
    }
    assert!(whole > 5000, "{whole}");
}
