//! Generalized UTF-8: UTF-8 that may also hold lone surrogates (Python's
//! "surrogatepass"), decoded to and encoded from code points.

/// Decodes generalized UTF-8 (UTF-8 that may also encode lone surrogates, as
/// Python's "surrogatepass" produces). `None` on malformed input.
pub fn decode(bytes: &[u8]) -> Option<Vec<u32>> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let (cp, n) = decode_one(&bytes[i..])?;
        out.push(cp);
        i += n;
    }
    Some(out)
}

/// Whether `bytes` is generalized UTF-8 (what [`decode`] accepts), without decoding it.
pub fn is_generalized_utf8(bytes: &[u8]) -> bool {
    let mut i = 0;
    while i < bytes.len() {
        match decode_one(&bytes[i..]) {
            Some((_, n)) => i += n,
            None => return false,
        }
    }
    true
}

/// The length in bytes of the char whose UTF-8 starts with `lead` (1 for a
/// continuation byte, which never starts a char of valid UTF-8).
#[inline(always)]
pub fn char_len(lead: u8) -> usize {
    match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

/// The code point and length of the char starting at `bytes[i]`, for text
/// known to be valid UTF-8 (a `str`'s bytes, `i` a char boundary): no
/// validation, so the hot loops over such text (the Unigram char walk, the
/// Precompiled check) pay a load and a shift a byte. None at a continuation
/// byte or past the end.
#[inline(always)]
pub fn decode_valid_at(bytes: &[u8], i: usize) -> Option<(u32, usize)> {
    let tail = |k: usize| bytes.get(i + k).map_or(0, |&b| u32::from(b) & 0x3F);
    let b = u32::from(*bytes.get(i)?);
    match b {
        0x00..=0x7F => Some((b, 1)),
        0x80..=0xBF => None,
        0xC0..=0xDF => Some(((b & 0x1F) << 6 | tail(1), 2)),
        0xE0..=0xEF => Some(((b & 0x0F) << 12 | tail(1) << 6 | tail(2), 3)),
        _ => Some(((b & 0x07) << 18 | tail(1) << 12 | tail(2) << 6 | tail(3), 4)),
    }
}

/// The first code point of non-empty generalized UTF-8 and its length in bytes.
#[inline]
pub fn decode_one(bytes: &[u8]) -> Option<(u32, usize)> {
    let b0 = *bytes.first()? as u32;
    if b0 < 0x80 {
        return Some((b0, 1));
    }
    let n = match b0 {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    let tail = bytes.get(1..n)?;
    let mut cp = b0 & (0x7F >> n);
    for &b in tail {
        if b & 0xC0 != 0x80 {
            return None;
        }
        cp = (cp << 6) | (b as u32 & 0x3F);
    }
    let min = [0, 0, 0x80, 0x800, 0x1_0000][n];
    (min..=0x10_FFFF).contains(&cp).then_some((cp, n))
}

/// Encodes code points as generalized UTF-8 (surrogates as 3-byte sequences).
pub fn encode_into(cps: &[u32], out: &mut Vec<u8>) {
    for &cp in cps {
        push_utf8(cp, out);
    }
}

#[inline]
pub fn push_utf8(cp: u32, out: &mut Vec<u8>) {
    if cp < 0x80 {
        out.push(cp as u8);
    } else if cp < 0x800 {
        out.extend_from_slice(&[0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8]);
    } else if cp < 0x1_0000 {
        out.extend_from_slice(&[0xE0 | (cp >> 12) as u8, 0x80 | ((cp >> 6) & 0x3F) as u8, 0x80 | (cp & 0x3F) as u8]);
    } else {
        out.extend_from_slice(&[
            0xF0 | (cp >> 18) as u8,
            0x80 | ((cp >> 12) & 0x3F) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generalized_utf8_round_trips_surrogates() {
        let mut bytes = Vec::new();
        let text = [0x61, 0xD800, 0x1F600, 0xDFFF, 0x7FF, 0xFFFF];
        encode_into(&text, &mut bytes);
        assert_eq!(decode(&bytes).as_deref(), Some(&text[..]));
        assert_eq!(decode(b"\xC0\x80"), None);
        assert_eq!(decode(b"\xE2\x82"), None);
        assert_eq!(decode(b"\xF4\x90\x80\x80"), None);
    }

    #[test]
    fn valid_utf8_decodes_as_chars_at_every_code_point() {
        let text: String = (0..=0x10_FFFFu32).filter_map(char::from_u32).collect();
        let bytes = text.as_bytes();
        let mut i = 0;
        for c in text.chars() {
            assert_eq!(decode_valid_at(bytes, i), Some((c as u32, c.len_utf8())), "{c:?}");
            assert_eq!(char_len(bytes[i]), c.len_utf8(), "{c:?}");
            if c.len_utf8() > 1 {
                assert_eq!(decode_valid_at(bytes, i + 1), None, "a continuation byte of {c:?}");
            }
            i += c.len_utf8();
        }
        assert_eq!(decode_valid_at(bytes, i), None);
    }
}
