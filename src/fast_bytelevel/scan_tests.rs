//! The scalar GPT-2 scanner against the regex splitter and the regex crate's classes.

use super::*;
use crate::pre_tokenizers::byte_level::split_gpt2_str;

fn both(text: &str) -> (Vec<&str>, Vec<&str>) {
    let mut fast = Vec::new();
    split_gpt2(text, |a, b| fast.push(&text[a..b]));
    let mut regex = Vec::new();
    split_gpt2_str(text, |p| regex.push(p));
    (fast, regex)
}

#[test]
fn agrees_with_the_regex_splitter() {
    for text in [
        "Hello my friend, how's it?",
        "a   b",
        "a\t\tb  ",
        " 123 x",
        "I'll've 'RE 're' 'x ''s",
        "  \u{3000}日本語 ١٢٣ x\u{0301}y  é!!?\n\n a",
        "\u{a0}a \u{85} \u{2028}b",
        "'",
        " ",
        "x ",
        "!'s 'll",
    ] {
        let (fast, regex) = both(text);
        assert_eq!(fast, regex, "{text:?}");
    }
}

#[test]
fn word_runs_eight_bytes_at_a_time_agree_with_the_table() {
    // every byte value at every position of an 8-byte window, after letter/digit runs of each length
    let ascii = &ASCII.classes;
    for class in [CharClass::Letter, CharClass::Number] {
        let fill = if class == CharClass::Letter { "aZ" } else { "09" };
        for run in 0..12 {
            let nexts = (0..0x80u8).map(|b| (b as char).to_string()).chain(["é", "…", "١", "日", "\u{a0}", "ǅ"].map(String::from));
            for next in nexts {
                let text = format!("{}{next}aaé 00", fill.chars().cycle().take(run).collect::<String>());
                let text = text.as_str();
                let want = {
                    let mut i = 0;
                    while let Some((c, l)) = text.get(i..).and_then(|r| r.chars().next()).map(|c| (lookup(c as u32), c.len_utf8())) {
                        if c != class {
                            break;
                        }
                        i += l;
                    }
                    i
                };
                assert_eq!(run_end(text, ascii, 0, class), want, "{text:?} {class:?}");
            }
        }
    }
}

/// Every string of up to 4 chars over an alphabet of stops (`<`, `'`),
/// other punctuation, spaces, letters, digits and non-ASCII chars: the scan
/// with stops says false exactly when a stop is in the text, and otherwise
/// gives the plain scan's pieces.
#[test]
fn the_scan_with_stops_stops_exactly_at_them() {
    let stops = AsciiClasses::with_stops([b'<', b'\''].into_iter()).unwrap_or_else(|| panic!("punctuation stops"));
    let alphabet = ["<", "'", "!", " ", "\n", "s", "ll", "7", "é", "١", "\u{3000}"];
    let mut texts = vec![String::new()];
    for _ in 0..4 {
        let longer: Vec<String> = texts.iter().flat_map(|t| alphabet.iter().map(move |a| format!("{t}{a}"))).collect();
        texts.extend(longer);
    }
    texts.push(format!("{}<", "abcdefghijklmnopqrstuvwxyz ".repeat(3)));
    for text in &texts {
        let mut plain = Vec::new();
        split_gpt2(text, |a, b| plain.push((a, b)));
        let mut got = Vec::new();
        let done = split_gpt2_until(text, &stops, |a, b| got.push((a, b)));
        assert_eq!(done, !text.contains(['<', '\'']), "{text:?}");
        if done {
            assert_eq!(got, plain, "{text:?}");
        } else {
            // before the first stop: pieces back to back from 0, the plain scan's but the last (cut at the stop)
            let stop = text.find(['<', '\'']).unwrap_or(text.len());
            let end = got.iter().try_fold(0, |at, &(a, b)| (a == at).then_some(b));
            assert!(end.is_some_and(|e| e <= stop), "{text:?} {got:?}");
            let n = got.len().saturating_sub(1);
            assert_eq!(got[..n], plain[..n], "{text:?}");
        }
    }
}

#[test]
fn stops_are_only_ascii_punctuation() {
    for b in [b'a', b'Z', b'0', b' ', b'\n', 0x80, 0xE6] {
        assert!(AsciiClasses::with_stops([b'<', b].into_iter()).is_none(), "{b}");
    }
    for b in [b'<', b'[', b'\'', b'|', 0, 0x7F] {
        assert!(AsciiClasses::with_stops([b].into_iter()).is_some(), "{b}");
    }
}

#[test]
fn the_bmp_table_is_the_binary_search() {
    for cp in 0..0x1_0000u32 {
        assert_eq!(BMP.get(cp as usize).copied(), Some(lookup(cp)), "U+{cp:04X}");
    }
}

#[test]
fn classes_match_regex_crate() {
    let re = |p: &str| regex::Regex::new(p).unwrap_or_else(|e| panic!("{e}"));
    let (l, n, s) = (re(r"^\p{L}$"), re(r"^\p{N}$"), re(r"^\s$"));
    for cp in (0..0x3100u32).chain(0xFF00..0xFF70).chain(0x1F600..0x1F610) {
        let Some(c) = char::from_u32(cp) else { continue };
        let t = c.to_string();
        let want = if l.is_match(&t) {
            CharClass::Letter
        } else if n.is_match(&t) {
            CharClass::Number
        } else if s.is_match(&t) {
            CharClass::Space
        } else {
            CharClass::Other
        };
        assert_eq!(lookup(cp), want, "U+{cp:04X}");
    }
}
