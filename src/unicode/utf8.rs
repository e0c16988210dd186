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
}
