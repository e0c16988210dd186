//! GPT-2's byte-level pre-tokenizer as HF tokenizers runs it: an optional
//! prefix space, the GPT-2 split regex, then every UTF-8 byte mapped to a
//! printable char (GPT-2's `bytes_to_unicode`). A byte of a multi-byte char
//! keeps that whole char's span, so a token holding part of a char reports
//! the whole char, as HF does.

use crate::normalized_string::NormalizedString;
use crate::room::{make_room, try_push};
use crate::Result;
use regex::Regex;
use std::sync::LazyLock;

/// HF's Oniguruma pattern is
/// `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`.
/// The regex crate has no lookahead, so `\s+(?!\S)` is done by hand in
/// [`split_gpt2`]: a whitespace run followed by a non-space char gives up its
/// last char (which is what backtracking into the lookahead yields).
static GPT2_SPLIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+").unwrap_or_else(|e| {
        // A constant pattern: failing here is a bug in this file, not bad input.
        panic!("GPT-2 split pattern does not compile: {e}")
    })
});

/// GPT-2's byte -> char table: printable Latin-1 bytes map to themselves, the
/// other 68 to U+0100.. in byte order.
pub static BYTES_CHAR: LazyLock<[char; 256]> = LazyLock::new(|| {
    let printable = |b: u8| matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
    let mut table = ['\0'; 256];
    let mut next = 256u32;
    for b in 0..=255u8 {
        table[b as usize] = if printable(b) {
            char::from(b)
        } else {
            next += 1;
            char::from_u32(next - 1).unwrap_or('\0')
        };
    }
    table
});

/// The inverse of [`BYTES_CHAR`] (for the ByteLevel decoder).
pub fn char_byte(c: char) -> Option<u8> {
    let cp = c as u32;
    match cp {
        0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF => Some(cp as u8),
        0x100..=0x143 => BYTES_CHAR.iter().position(|&t| t == c).map(|b| b as u8),
        _ => None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteLevel {
    pub add_prefix_space: bool,
    pub trim_offsets: bool,
    pub use_regex: bool,
}

impl ByteLevel {
    /// Splits one piece of text (a stretch between added tokens) into words,
    /// each mapped to byte-level chars.
    pub fn pre_tokenize(&self, mut s: NormalizedString, out: &mut Vec<NormalizedString>) -> Result<()> {
        if self.add_prefix_space && s.chars.first() != Some(&' ') {
            s.prepend(' ')?;
        }
        let from = out.len();
        if self.use_regex {
            for r in split_gpt2(&s.chars)? {
                try_push(out, s.slice(r)?, "pre-tokenized text")?;
            }
        } else if !s.is_empty() {
            try_push(out, s, "pre-tokenized text")?;
        }
        out[from..].iter_mut().try_for_each(to_byte_chars)
    }
}

/// Maps each char to its UTF-8 bytes' chars; the first byte replaces the
/// char, the others are inserted after it (so all carry its span).
pub fn to_byte_chars(s: &mut NormalizedString) -> Result<()> {
    let mut edits = Vec::new();
    make_room(&mut edits, s.chars.iter().map(|c| c.len_utf8()).sum(), "normalized text")?;
    let mut buf = [0u8; 4];
    for &c in &s.chars {
        for (i, &b) in c.encode_utf8(&mut buf).as_bytes().iter().enumerate() {
            edits.push((BYTES_CHAR[b as usize], isize::from(i > 0)));
        }
    }
    s.transform(edits)
}

/// GPT-2's split of `text`: its pieces in order, covering all of it (HF's
/// pattern matches every char). A whitespace run of two or more chars that a
/// non-space follows leaves its last char to the next piece (`\s+(?!\S)`).
/// The BPE trainer counts these pieces; [`split_gpt2`] gives them as char ranges.
pub fn split_gpt2_str<'t>(text: &'t str, mut out: impl FnMut(&'t str)) {
    let (mut pos, mut last_end) = (0usize, 0usize);
    while pos < text.len() {
        let Some(m) = GPT2_SPLIT.find_at(text, pos) else { break };
        let (start, mut end) = (m.start(), m.end());
        let all_space = m.as_str().chars().all(char::is_whitespace);
        if all_space && end < text.len() && m.as_str().chars().nth(1).is_some() {
            end -= m.as_str().chars().next_back().map_or(0, char::len_utf8);
        }
        if start > last_end {
            out(&text[last_end..start]); // (never: kept so a gap could not drop text)
        }
        out(&text[start..end]);
        (pos, last_end) = (end, end);
    }
    if last_end < text.len() {
        out(&text[last_end..]);
    }
}

/// The GPT-2 split of `chars` as char ranges covering all of it, in order.
pub fn split_gpt2(chars: &[char]) -> Result<Vec<std::ops::Range<usize>>> {
    let text = crate::room::chars_text(chars, "pre-tokenized text")?;
    let (mut ranges, mut room) = (Vec::new(), Ok(()));
    let (mut start_char, mut start_byte) = (0usize, 0usize);
    split_gpt2_str(&text, |piece| {
        let n = piece.chars().count();
        debug_assert_eq!(piece.as_ptr() as usize - text.as_ptr() as usize, start_byte);
        if room.is_ok() {
            room = try_push(&mut ranges, start_char..start_char + n, "pre-tokenized text");
        }
        start_char += n;
        start_byte += piece.len();
    });
    room.map(|_| ranges)
}

/// The byte-level char of byte `b` as a code point (GPT-2's `bytes_to_unicode`).
pub fn byte_char(b: u8) -> u32 {
    BYTES_CHAR[b as usize] as u32
}

/// The 256 chars of the byte-level alphabet (HF's `ByteLevel.alphabet()`), in byte order.
pub fn alphabet() -> Vec<char> {
    BYTES_CHAR.to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        split_gpt2(&chars).unwrap().into_iter().map(|r| chars[r].iter().collect()).collect()
    }

    #[test]
    fn gpt2_split_examples() {
        assert_eq!(words("Hello my friend, how's it?"), ["Hello", " my", " friend", ",", " how", "'s", " it", "?"]);
        assert_eq!(words("a   b"), ["a", "  ", " b"]);
        assert_eq!(words("a\t\tb  "), ["a", "\t", "\t", "b", "  "]);
        assert_eq!(words(" 123 x"), [" 123", " x"]);
    }

    #[test]
    fn byte_table_is_gpt2s() {
        assert_eq!(BYTES_CHAR[b' ' as usize], 'Ġ');
        assert_eq!(BYTES_CHAR[b'\n' as usize], 'Ċ');
        assert_eq!(BYTES_CHAR[b'a' as usize], 'a');
        for b in 0..=255u8 {
            assert_eq!(char_byte(BYTES_CHAR[b as usize]), Some(b));
        }
    }

    #[test]
    fn multibyte_chars_keep_their_span() {
        let bl = ByteLevel { add_prefix_space: true, trim_offsets: true, use_regex: true };
        let mut out = Vec::new();
        bl.pre_tokenize(NormalizedString::new("é", 0).unwrap(), &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].text().unwrap(), "ĠÃ©");
        assert_eq!(out[0].spans, vec![(0, 1); 3]);
    }
}
