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

/// The first position of `b` in `hay` (SIMD, via `memchr`: every row of a
/// batch is scanned for added tokens, so this runs over all the text).
fn find_byte(hay: &[u8], b: u8) -> Option<usize> {
    memchr::memchr(b, hay)
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
}
