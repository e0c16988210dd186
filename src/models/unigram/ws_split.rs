//! `Sequence([WhitespaceSplit, Metaspace])` with the `always` scheme and `split` (how transformers 5
//! converts XLM-R's, T5's and most sentencepiece Unigram models), ids only, made into a text the plain
//! Metaspace word cutter reads in collapse mode (a run of spaces counts as one space). WhitespaceSplit's
//! tokens each get a leading replacement char unless they start with one, then split before each
//! replacement char: the same words the cutter makes of the tokens joined by spaces, when no space is
//! at either end (the cutter would prepend nothing at the start, and make a lone replacement char of a
//! trailing space) and none comes before a token that starts with the replacement char (the cutter
//! would make that space a word of its own; joined without it, the token still starts a word).

use crate::pre_tokenizer::is_hf_space;
use crate::room::ensure_text_room;
use crate::unicode::decode_one;
use crate::Result;
use std::borrow::Cow;

/// The joined tokens of (normalized) `text` for replacement char `r`: `text` trimmed of spaces when
/// it holds no other whitespace and no space before `r` (most lines: no copy), else a copy with every
/// run of whitespace one space, none at the ends or before `r`.
pub(super) fn joined_tokens(text: Cow<'_, str>, r: char) -> Result<Cow<'_, str>> {
    let mut buf = [0u8; 4];
    let rb = r.encode_utf8(&mut buf).as_bytes();
    let trimmed = text.trim_matches(' ');
    if !needs_copy(trimmed.as_bytes(), rb) {
        return Ok(match text {
            Cow::Borrowed(t) => Cow::Borrowed(t.trim_matches(' ')),
            Cow::Owned(mut t) => {
                // trimmed in place: the end first (a text of spaces only is then empty)
                t.truncate(t.trim_end_matches(' ').len());
                let start = t.len() - t.trim_start_matches(' ').len();
                t.drain(..start);
                Cow::Owned(t)
            }
        });
    }
    let mut out = String::new();
    // each whitespace char (1-3 bytes) becomes at most one space: the copy is never longer
    ensure_text_room(&mut out, trimmed.len(), "WhitespaceSplit tokens")?;
    let mut space = false;
    for c in trimmed.chars() {
        if is_hf_space(c as u32) {
            space = !out.is_empty();
            continue;
        }
        if space && c != r {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    Ok(Cow::Owned(out))
}

/// Whether `b` holds whitespace other than a space, or a space before `r`'s bytes. Whitespace
/// (WhitespaceSplit's, `is_hf_space`) is the ASCII bytes 9-13 and 32 and, above ASCII, chars whose
/// UTF-8 starts with one of [`SPACE_LEADS`]; a test checks both sets against every code point.
fn needs_copy(b: &[u8], rb: &[u8]) -> bool {
    // 16 bytes at a time (each with the two after it), a branch-free test the compiler vectorizes:
    // does any byte start what the rule may fire on? Only such a block is checked byte by byte.
    // Japanese lines (kana are E3 81-83, CJK punctuation E3 80 8x) and English ones pass at once.
    let r0 = rb.first().copied().unwrap_or(b' ');
    let mut from = 0usize;
    while let Some(w) = b.get(from..from + 18).and_then(|w| <&[u8; 18]>::try_from(w).ok()) {
        let mut any = false;
        for k in 0..16 {
            any |= may_fire(w[k], w[k + 1], w[k + 2], r0);
        }
        if any && (from..from + 16).any(|i| fires(b, i, rb)) {
            return true;
        }
        from += 16;
    }
    // the last 0-17 bytes through the same test, padded with a byte it never fires on (not the
    // replacement's first byte): a byte-by-byte `fires` over them was a mispredicted jump a byte
    let tail = b.get(from..).unwrap_or_default();
    let pad = if r0 == b'a' { b'b' } else { b'a' };
    let mut w = [pad; 34];
    if let Some(head) = w.get_mut(..tail.len()) {
        head.copy_from_slice(tail);
    }
    let mut any = false;
    for k in 0..32 {
        any |= may_fire(w[k], w[k + 1], w[k + 2], r0);
    }
    any && (from..b.len()).any(|i| fires(b, i, rb))
}

/// Whether the rule may fire on a byte `c` followed by `n1`, `n2` (`r0`: the replacement's first
/// byte): a control byte, a space before `r0`, or the first two (three for E3) bytes of a non-ASCII
/// whitespace char (U+0085, U+00A0, U+1680, U+2000-U+205F, U+3000).
#[inline(always)]
fn may_fire(c: u8, n1: u8, n2: u8, r0: u8) -> bool {
    (c < 0x20)
        | (c == b' ') & (n1 == r0)
        | (c == 0xC2) & ((n1 == 0x85) | (n1 == 0xA0))
        | (c == 0xE1) & (n1 == 0x9A)
        | (c == 0xE2) & (n1 & 0xFE == 0x80)
        | (c == 0xE3) & (n1 == 0x80) & (n2 == 0x80)
}

/// The rule at byte `i`: whitespace other than a space starts there, or a space before `rb`.
#[inline]
fn fires(b: &[u8], i: usize, rb: &[u8]) -> bool {
    match b.get(i).copied().unwrap_or(0) {
        b' ' => b.get(i + 1..).is_some_and(|rest| rest.starts_with(rb)),
        b'\t'..=b'\r' => true,
        // the second byte first: most chars with these lead bytes (kana, CJK punctuation) are not spaces
        0xC2 => space_at(b, i),
        0xE1 => b.get(i + 1) == Some(&0x9A) && space_at(b, i),
        0xE2 => matches!(b.get(i + 1), Some(0x80 | 0x81)) && space_at(b, i),
        0xE3 => b.get(i + 1) == Some(&0x80) && space_at(b, i),
        _ => false,
    }
}

/// Lead bytes of the non-ASCII whitespace chars (U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028,
/// U+2029, U+202F, U+205F, U+3000).
#[cfg(test)]
const SPACE_LEADS: [u8; 4] = [0xC2, 0xE1, 0xE2, 0xE3];

/// Whether the char starting at `b[i]` (a lead byte of valid UTF-8) is whitespace.
fn space_at(b: &[u8], i: usize) -> bool {
    b.get(i..).and_then(decode_one).is_some_and(|(cp, _)| is_hf_space(cp))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-level check finds exactly the whitespace `is_hf_space` names, at every code point.
    #[test]
    fn whitespace_bytes_are_is_hf_space() {
        for cp in (0..0x11_0000u32).filter(|&cp| cp != u32::from(b' ')) {
            let Some(c) = char::from_u32(cp) else { continue };
            let text = format!("a{c}b");
            assert_eq!(needs_copy(text.as_bytes(), "▁".as_bytes()), is_hf_space(cp), "U+{cp:04X}");
            // in the blocks tested 16 bytes at a time, at the end of one and inside one
            for pad in [15, 20] {
                let long = format!("{}{c}{}", "x".repeat(pad), "y".repeat(40));
                assert_eq!(needs_copy(long.as_bytes(), "▁".as_bytes()), is_hf_space(cp), "U+{cp:04X} at {pad}");
            }
            if is_hf_space(cp) && cp >= 0x80 {
                assert!(SPACE_LEADS.contains(&text.as_bytes()[1]), "U+{cp:04X}");
            }
        }
    }

    /// `needs_copy` with its 16-byte blocks equals its per-char rule with a tab, a non-ASCII space,
    /// a space before `▁`, a lone `▁`, `é` or `、` at every position of texts of 0 to 49 bytes.
    #[test]
    fn needs_copy_skips_blocks_as_its_char_rule() {
        let rule = |t: &str| t.contains(" ▁") || t.chars().any(|c| c != ' ' && is_hf_space(c as u32));
        for len in 0..50 {
            for marker in ["\t", "\u{3000}", " ▁", "▁", "é", "~", " ", "、", "\u{2028}", "\u{a0}", "\u{85}", "\u{1680}"] {
                for at in 0..=len {
                    let text: String = (0..len).map(|i| if i % 5 == 4 { ' ' } else { 'x' }).collect();
                    let text = format!("{}{marker}{}", &text[..at], &text[at..]);
                    assert_eq!(needs_copy(text.as_bytes(), "▁".as_bytes()), rule(&text), "{text:?}");
                    let spaced = text.replace('▁', " ▁");
                    assert_eq!(needs_copy(spaced.as_bytes(), "▁".as_bytes()), rule(&spaced), "{spaced:?}");
                }
            }
        }
        // a replacement that is the tail's padding byte, or the other one: a space before it ends the text
        for r in ["a", "b"] {
            for len in 0..40 {
                for text in [format!("{} {r}", "x".repeat(len)), format!("{}{r} ", "x".repeat(len)), format!("{} ", "ab".repeat(len))] {
                    let want = text.contains(&format!(" {r}"));
                    assert_eq!(needs_copy(text.as_bytes(), r.as_bytes()), want, "{text:?} {r:?}");
                }
            }
        }
    }

    /// The joined text, by the rule in its own words: tokens (split on `is_hf_space`) joined by a
    /// space, or by nothing before a token that starts with the replacement char (runs of spaces,
    /// left as they are where no copy is made, counted as one, as the cutter counts them).
    #[test]
    fn joined_tokens_by_the_rule() {
        let texts = ["", " ", "a", " a b ", "a  b", "\ta\u{3000}b\u{85}", "x ▁a", " ▁a", "a \u{2028} ▁b ", "a▁ b", "▁",
            "a\u{a0}\u{a0}▁\u{a0}", "  a\t\tb  ", "é\u{1680}ü", "a ▁ ▁", "“a” ‘b’"];
        for text in texts {
            let mut want = String::new();
            for token in text.split(|c: char| is_hf_space(c as u32)).filter(|t| !t.is_empty()) {
                if !want.is_empty() && !token.starts_with('▁') {
                    want.push(' ');
                }
                want.push_str(token);
            }
            let runs_as_one = |t: Cow<str>| t.split(' ').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ");
            assert_eq!(runs_as_one(joined_tokens(Cow::Borrowed(text), '▁').unwrap()), want, "{text:?}");
            assert_eq!(runs_as_one(joined_tokens(Cow::Owned(text.to_string()), '▁').unwrap()), want, "{text:?}");
        }
    }
}
