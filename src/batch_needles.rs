//! The search of a batch's rows for added tokens: the rows holding one
//! are flagged for the caller to encode another way.

/// Whether `text` holds one of `needles` (the search each row of a batch gets).
#[cfg_attr(not(feature = "python"), allow(dead_code))] // (the one-text serving path's)
pub(crate) fn holds_any(needles: &[&[u8]], text: &[u8]) -> bool {
    Needles::new(needles).found_in(text)
}

/// The strings whose rows the caller encodes another way (added tokens).
/// Searching UTF-8 for UTF-8 finds exactly the code-point matches.
pub(crate) struct Needles<'a> {
    needles: Vec<&'a [u8]>,
    /// The first byte of every needle, when they share one (special tokens all start with "[").
    first: Option<u8>,
    starts: [bool; 256],
}

impl<'a> Needles<'a> {
    pub(crate) fn new(needles: &[&'a [u8]]) -> Self {
        let needles: Vec<&[u8]> = needles.iter().copied().filter(|n| !n.is_empty()).collect();
        let mut starts = [false; 256];
        for n in &needles {
            starts[n[0] as usize] = true;
        }
        let first = needles.first().map(|n| n[0]).filter(|&b| needles.iter().all(|n| n[0] == b));
        Needles { needles, first, starts }
    }

    /// Whether `text` holds one of the needles.
    pub(crate) fn found_in(&self, text: &[u8]) -> bool {
        let at = |i: usize| self.needles.iter().any(|n| text[i..].starts_with(n));
        match self.first {
            _ if self.needles.is_empty() => false,
            Some(b) => {
                let mut from = 0;
                while let Some(k) = find_byte(&text[from..], b) {
                    if at(from + k) {
                        return true;
                    }
                    from += k + 1;
                }
                false
            }
            None => (0..text.len()).any(|i| self.starts[text[i] as usize] && at(i)),
        }
    }
}

/// Texts shorter than this are searched inline ([`find_byte_short`]), longer ones by `memchr`.
const SHORT_TEXT: usize = 256;

/// The first position of `b` in `hay` (SIMD: every row of a batch is
/// scanned for added tokens, so this runs over all the text). A serving
/// batch's texts are short, where `memchr`'s call (through its CPU dispatch)
/// and set-up cost more than the scan itself.
#[inline]
fn find_byte(hay: &[u8], b: u8) -> Option<usize> {
    if hay.len() < SHORT_TEXT {
        find_byte_short(hay, b)
    } else {
        memchr::memchr(b, hay)
    }
}

/// [`find_byte`] 16 bytes at a time (SSE2, part of x86_64), the last 16
/// bytes of the text loaded again when its length is not a multiple of 16;
/// byte by byte below 16 bytes (and on other CPUs).
#[inline]
fn find_byte_short(hay: &[u8], b: u8) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if hay.len() >= 16 {
        use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
        // the positions of `b` in the 16 bytes from `at` (at + 16 <= hay.len()), as bits
        let hits = |at: usize| -> u32 {
            let bytes = &hay[at..at + 16];
            // SAFETY: SSE2 is in every x86_64 CPU; the load reads the 16 bytes of `bytes` (unaligned).
            unsafe {
                let v = _mm_loadu_si128(bytes.as_ptr().cast::<__m128i>());
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8))) as u32
            }
        };
        let mut at = 0;
        while at + 16 <= hay.len() {
            let m = hits(at);
            if m != 0 {
                return Some(at + m.trailing_zeros() as usize);
            }
            at += 16;
        }
        if at < hay.len() {
            // the last 16 bytes, those before `at` (already searched) shifted out
            let last = hay.len() - 16;
            let m = hits(last) >> (at - last);
            if m != 0 {
                return Some(at + m.trailing_zeros() as usize);
            }
        }
        return None;
    }
    hay.iter().position(|&c| c == b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sixteen_byte_search_finds_every_special_token() {
        // One first byte ("[") takes the SWAR search: compare with a plain scan
        // at every position and length, with "[" runs that cause borrows.
        let needles: [&[u8]; 2] = [b"[SEP]", b"[CLS]"];
        let search = Needles::new(&needles);
        let mut seed = 11u64;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let pieces: [&[u8]; 8] = [b"[", b"[SEP]", b"[CLS", b"x", b"\x00", b"[[", b"]", b"\x01"];
            let text: Vec<u8> = (0..seed % 14).flat_map(|k| pieces[((seed >> (4 * k)) % 8) as usize].iter().copied()).collect();
            let want = needles.iter().any(|n| text.windows(n.len()).any(|w| w == *n));
            assert_eq!(search.found_in(&text), want, "{text:?}");
            for b in [b'[', b'x', 0, 1] {
                assert_eq!(find_byte(&text, b), text.iter().position(|&c| c == b), "{b} in {text:?}");
            }
        }
    }

    #[test]
    fn the_inline_search_finds_the_first_byte_at_every_place_and_length() {
        // Every length across the 16-byte steps, the overlapping last load and the
        // switch to `memchr`, with the byte at every position (and twice, and absent):
        // the first position, as a plain scan gives it.
        for len in 0..SHORT_TEXT + 40 {
            let base: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            assert_eq!(find_byte(&base, b'['), None, "{len}");
            assert_eq!(find_byte_short(&base, b'['), None, "{len}");
            for at in 0..len {
                let mut text = base.clone();
                text[at] = b'[';
                if at + 7 < len {
                    text[at + 7] = b'[';
                }
                assert_eq!(find_byte(&text, b'['), Some(at), "{len} {at}");
                assert_eq!(find_byte_short(&text, b'['), Some(at), "{len} {at}");
                assert_eq!(memchr::memchr(b'[', &text), Some(at));
            }
        }
        // a needle in the last bytes of texts of every length: the row is flagged
        let needles: [&[u8]; 2] = [b"[MASK]", b"[SEP]"];
        let search = Needles::new(&needles);
        for len in 6..SHORT_TEXT + 40 {
            let mut text: Vec<u8> = (0..len - 6).map(|i| b"ab [ ]"[i % 6]).collect();
            text.extend_from_slice(b"[MASK]");
            assert!(search.found_in(&text), "{len}");
            text[len - 1] = b'K';
            assert!(!search.found_in(&text), "{len}");
        }
    }
}
