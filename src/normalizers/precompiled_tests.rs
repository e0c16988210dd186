//! Tests of [`super`]: the Precompiled charsmap normalizer.

use super::*;

/// A trie of the given units (little-endian) and blob.
fn charsmap(units: &[u32], blob: &str) -> Vec<u8> {
    let mut b = ((units.len() * 4) as u32).to_le_bytes().to_vec();
    units.iter().for_each(|u| b.extend(u.to_le_bytes()));
    b.extend(blob.as_bytes());
    b
}

#[test]
fn malformed_charsmaps_are_errors_not_panics() {
    assert!(Precompiled::from_bytes(b"").unwrap_err().contains("4-byte"));
    assert!(Precompiled::from_bytes(&8u32.to_le_bytes()).unwrap_err().contains("trie size"));
    assert!(Precompiled::from_bytes(&charsmap(&[], "")).unwrap_err().contains("empty"));
    // A root whose children would lie past the end.
    assert!(Precompiled::from_bytes(&charsmap(&[1 << 10], "")).unwrap_err().contains("out of bounds"));
    assert!(Precompiled::from_bytes(&[4, 0, 0, 0, 0, 0, 0, 0, 0xFF]).unwrap_err().contains("UTF-8"));
}

/// A charsmap mapping each of `from` (ASCII bytes) to "a": the root's
/// children at 256 ^ byte, each leaf's value beside it.
fn ascii_map(from: &[u8]) -> Precompiled {
    let mut units = vec![0u32; 512];
    units[0] = 256 << 10;
    for &b in from {
        let pos = 256 ^ b as usize;
        units[pos] = b as u32 | 1 << 8 | 1 << 10;
        units[pos ^ 1] = 0;
    }
    Precompiled::from_bytes(&charsmap(&units, "a\0")).unwrap()
}

/// A charsmap mapping each of `keys` to "a": a 512-unit block per trie node,
/// a node's children at its block + byte, the leaf's value at the block's start.
fn map_of(keys: &[&str]) -> Precompiled {
    let mut units = vec![0u32; 1024];
    let root = 512;
    units[0] = (root as u32) << 10;
    let mut child = std::collections::HashMap::new();
    for key in keys {
        let mut block = root;
        for (k, &b) in key.as_bytes().iter().enumerate() {
            let pos = block ^ b as usize;
            let next = *child.entry((block, b)).or_insert_with(|| {
                units.resize(units.len() + 512, 0);
                units.len() - 512
            });
            let leaf = if k + 1 == key.len() { 1 << 8 } else { units[pos] & (1 << 8) };
            units[pos] = b as u32 | leaf | ((pos ^ next) as u32) << 10;
            block = next;
        }
    }
    Precompiled::from_bytes(&charsmap(&units, "a\0")).unwrap()
}

/// `keeps` with its 16-bytes-at-a-time skip of printable ASCII equals its
/// per-char rule, with a changed or unkept char at every position of texts
/// of 0 to 49 bytes, for charsmaps that keep all printable ASCII and not.
#[test]
fn keeps_skips_blocks_as_its_char_rule() {
    for (map, printable) in [(ascii_map(b"\t"), true), (ascii_map(b"A\t"), false), (ascii_map(b"~"), false)] {
        assert_eq!(map.printable_alone, printable);
        let rule = |t: &str| {
            t.chars().all(|c| match c.is_ascii() {
                true => map.ascii_alone[c as usize],
                false => other_index(c).and_then(|i| map.other_kept.get(i)) == Some(&true),
            })
        };
        for len in 0..50 {
            for marker in ["A", "\t", "\r", "~", "é", "\u{2026}", "x", "\u{7f}"] {
                for at in 0..=len {
                    let text: String = (0..len).map(|i| if i % 3 == 2 { ' ' } else { 'x' }).collect();
                    let text = format!("{}{marker}{}", &text[..at], &text[at..]);
                    assert_eq!(map.keeps(&text), rule(&text), "{text:?}");
                }
            }
        }
    }
}

/// `keeps` (its own UTF-8 decoding, a bit per code point) equals its per-char
/// rule for every char of the BMP and every 89th above it, between ASCII
/// letters, doubled and after a printable ASCII run of 16 bytes.
#[test]
fn keeps_every_char_as_its_char_rule() {
    for map in [ascii_map(b"\t"), ascii_map(b"A~")] {
        let rule = |t: &str| {
            t.chars().all(|c| match c.is_ascii() {
                true => map.ascii_alone[c as usize],
                false => other_index(c).and_then(|i| map.other_kept.get(i)) == Some(&true),
            })
        };
        let chars = (0..0x1_0000).chain((0x1_0000..0x11_0000).step_by(89)).chain([0x10_FFFF]).filter_map(char::from_u32);
        for c in chars {
            for text in [format!("x{c}y"), format!("{c}{c}"), format!("0123456789abcdef{c}")] {
                assert_eq!(map.keeps(&text), rule(&text), "{text:?}");
            }
        }
    }
}

/// `each_chunk` (runs of staying ASCII and of staying non-ASCII chars cut
/// out without the grapheme walk) gives, char by char, HF's walk: every
/// grapheme looked up whole, else each of its chars. Texts of chars that
/// join (combining marks, SpacingMark, Prepend, ZWJ, emoji, Hangul jamo,
/// CR LF) next to kana, CJK, Latin-1 and full-width chars, for a charsmap
/// with entries for graphemes that start with a kept char (so a kept char
/// looked up alone where HF looks up its grapheme gives another text).
#[test]
fn each_chunk_is_the_grapheme_walk() {
    // (HF looks a grapheme up whole when it is under 6 bytes)
    let map = map_of(&["A", "é\u{301}", "é\u{200d}", "é\u{903}", "\u{600}é", "“\u{301}", "Ａ"]);
    assert!(map.transform("é").is_none() && map.transform("é\u{301}").is_some() && map.transform("\u{600}é").is_some());
    let alphabet = ["の", "か", "、", "ア", "中", "é", "“", "Ａ", "A", "a", " ", "\r", "\n", "\u{301}", "\u{903}", "\u{600}", "\u{200d}", "👨", "\u{1100}", "\u{1161}", "\u{3099}", "©", "🇫"];
    let by_char = |chunks: Vec<(&str, Option<String>)>| -> Vec<(String, Option<String>)> {
        chunks.into_iter().flat_map(|(old, new)| match new {
            Some(n) => vec![(old.to_string(), Some(n))],
            None => old.chars().map(|c| (c.to_string(), None)).collect(),
        }).collect()
    };
    let mut got = Vec::new();
    map.each_chunk("の、é\u{301}", |old, new| got.push((old.to_string(), new.map(String::from))));
    assert_eq!(got, [("の、".to_string(), None), ("é\u{301}".to_string(), Some("a".to_string()))]);
    got.clear();
    map.each_chunk("の\u{600}é", |old, new| got.push((old.to_string(), new.map(String::from))));
    assert_eq!(got, [("の".to_string(), None), ("\u{600}é".to_string(), Some("a".to_string()))]);
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as usize
    };
    for _ in 0..20_000 {
        let len = next() % 9;
        let text: String = (0..len).map(|_| alphabet[next() % alphabet.len()]).collect();
        let mut got = Vec::new();
        map.each_chunk(&text, |old, new| got.push((old, new.map(String::from))));
        let mut want = Vec::new();
        map.each_grapheme_chunk(&text, &mut |old, new| want.push((old, new.map(String::from))));
        assert_eq!(by_char(got), by_char(want), "{text:?}");
    }
}

/// Every char `keeps` may accept is a grapheme of its own between any two
/// of them (so it is looked up alone, as `keeps` assumes): every pair of
/// ASCII, Latin-1, General Punctuation and every 61st of the CJK ranges'
/// chars; and each CJK char between `a`s and doubled, which no Extend,
/// SpacingMark, ZWJ, Prepend, Hangul jamo or regional indicator passes
/// (so no two of them can join).
#[test]
fn kept_chars_are_graphemes_of_their_own() {
    let ascii = (0..128u8).map(char::from).filter(|&c| c != '\r' && c != '\n');
    let other: Vec<char> = OTHER_CHARS.iter().cloned().flatten().filter_map(char::from_u32).filter(|&c| other_index(c).is_some()).collect();
    assert_eq!(other.len(), OTHER_LEN - 4);
    assert_eq!(OTHER_CHARS.iter().map(|r| r.clone().count()).sum::<usize>(), OTHER_LEN);
    let places: Vec<usize> = other.iter().filter_map(|&c| other_index(c)).collect();
    assert!(places.windows(2).all(|w| w[0] < w[1]) && places.last() < Some(&OTHER_LEN));
    let mut s = String::new();
    for &c in other.iter().filter(|&&c| c >= '\u{3000}') {
        for text in [format!("a{c}a"), format!("{c}{c}")] {
            assert_eq!(text.graphemes(true).count(), text.chars().count(), "{text:?}");
        }
    }
    let sample = other.iter().enumerate().filter(|&(i, &c)| c < '\u{3000}' || i % 61 == 0).map(|(_, &c)| c);
    let chars: Vec<char> = ascii.chain(sample).collect();
    for &a in &chars {
        for &b in &chars {
            s.clear();
            s.extend([a, b, a]);
            assert_eq!(s.graphemes(true).count(), 3, "{a:?} {b:?}");
        }
    }
}

#[test]
fn replace_accounts_removals_on_the_previous_edit() {
    let mut e = vec![];
    replace(&mut e, "™", "TM");
    replace(&mut e, "\u{1e}", "");
    e.push(('g', 0));
    assert_eq!(e, vec![('T', 0), ('M', 0), ('g', 0)]);
    let mut s = NormalizedString::new("™\u{1e}g", 0).unwrap();
    s.transform(e).unwrap();
    assert_eq!((s.text().unwrap(), s.spans.clone()), ("TMg".to_string(), vec![(0, 1), (1, 2), (2, 3)]));
}
