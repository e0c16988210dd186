//! The word cutter of the ids-only Metaspace path (words split, every word
//! the replacement char then a tail): the text's word boundaries (each space
//! and each replacement char past byte 0) found 64 bytes at a time with SIMD
//! compares ([`eq_masks`], the byte-level BPE scanner's helper) and handed
//! out bit by bit. A `memchr2` call per word (English words are ~5 bytes),
//! its confirm of the replacement char and the run skip were ~40% of a warm
//! pass; here a block costs a few compares and a word a `tzcnt`.

use crate::fast_bytelevel::blocks::eq_masks;

/// Where words may start: every space and every replacement char after byte 0.
pub(super) struct Boundaries<'t> {
    bytes: &'t [u8],
    /// The replacement char's bytes.
    r: &'t [u8],
    /// Where the next block to scan starts.
    next_block: usize,
    /// The current block's start and its boundaries not handed out yet (bit k: byte `base + k`).
    base: usize,
    pending: u64,
}

impl<'t> Boundaries<'t> {
    pub(super) fn new(bytes: &'t [u8], r: &'t [u8]) -> Boundaries<'t> {
        Boundaries { bytes, r, next_block: 0, base: 0, pending: 0 }
    }

    /// The next boundary (in order), or the text's length once there are no more.
    #[inline(always)]
    pub(super) fn next_cut(&mut self) -> usize {
        loop {
            if self.pending != 0 {
                let k = self.pending.trailing_zeros() as usize;
                self.pending &= self.pending - 1;
                return self.base + k;
            }
            if self.next_block >= self.bytes.len() {
                return self.bytes.len();
            }
            self.scan();
        }
    }

    /// The boundaries in the 64 bytes from `next_block` (fewer at the end).
    #[inline]
    fn scan(&mut self) {
        let (bytes, at) = (self.bytes, self.next_block);
        let lead = self.r.first().copied().unwrap_or(b' ');
        let block = |from: usize| bytes.get(from..from + 64).and_then(|b| <&[u8; 64]>::try_from(b).ok());
        let (space, leads) = match block(at) {
            Some(b) => eq_masks(b, b' ', lead),
            // the last block: the text's last 64 bytes shifted down (nothing above the end), or a zero-padded copy
            None => match bytes.len().checked_sub(64).and_then(|from| Some((block(from)?, at - from))) {
                Some((b, shift)) => {
                    let (s, l) = eq_masks(b, b' ', lead);
                    (s >> shift, l >> shift)
                }
                None => {
                    let mut pad = [0u8; 64];
                    let rest = bytes.get(at..).unwrap_or_default();
                    pad.iter_mut().zip(rest).for_each(|(p, &b)| *p = b);
                    let (s, l) = eq_masks(&pad, b' ', lead);
                    // (a zero lead byte would match the padding)
                    let real = if rest.len() >= 64 { u64::MAX } else { (1u64 << rest.len()) - 1 };
                    (s & real, l & real)
                }
            },
        };
        // a lead byte is a boundary only where the whole replacement char is (rare but for it:
        // other chars share its lead byte, e.g. E2 for curly quotes and dashes beside `▁`)
        let mut confirmed = leads & !space;
        let mut rest = confirmed;
        while rest != 0 {
            let k = rest.trailing_zeros() as usize;
            if !bytes.get(at + k..).is_some_and(|b| b.starts_with(self.r)) {
                confirmed &= !(1u64 << k);
            }
            rest &= rest - 1;
        }
        let mut mask = space | confirmed;
        if at == 0 {
            mask &= !1; // byte 0 starts the first word; it is no boundary
        }
        (self.base, self.pending, self.next_block) = (at, mask, at + 64);
    }
}

/// The tails (byte ranges, the word's leading space or replacement char off)
/// of a text's words, for [`super::fused_ids`]'s prefixed path: word `k`
/// runs from boundary `k` to boundary `k + 1`; the first word is the
/// prepended replacement then the text up to the first boundary
/// (`prepend`), or starts at the text's own space or replacement char.
/// `collapse`: a run of spaces counts as one (`Replace(" {2,}", "▁")` before
/// Metaspace): the words made of one space before another space are dropped,
/// so the run's last space starts the next word.
pub(super) struct Tails<'t> {
    cuts: Boundaries<'t>,
    start: usize,
    prepend: bool,
    collapse: bool,
}

impl<'t> Tails<'t> {
    pub(super) fn new(bytes: &'t [u8], r: &'t [u8], prepend: bool, collapse: bool) -> Tails<'t> {
        Tails { cuts: Boundaries::new(bytes, r), start: 0, prepend, collapse }
    }
}

impl Iterator for Tails<'_> {
    type Item = (usize, usize);

    #[inline(always)]
    fn next(&mut self) -> Option<(usize, usize)> {
        let (bytes, r) = (self.cuts.bytes, self.cuts.r);
        loop {
            let s = self.start;
            if s >= bytes.len() {
                return None;
            }
            let e = self.cuts.next_cut();
            self.start = e;
            let space = bytes.get(s) == Some(&b' ');
            if self.collapse && space && e == s + 1 && bytes.get(e) == Some(&b' ') {
                continue;
            }
            let from = match (s == 0 && self.prepend, space) {
                (true, _) => s,
                (false, true) => s + 1,
                (false, false) if bytes.get(s..).is_some_and(|b| b.starts_with(r)) => s + r.len(),
                (false, false) => s,
            };
            return Some((from.min(e), e));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The boundaries as the scalar cutter found them: each space or
    /// replacement char after byte 0 (`memchr2` then a confirm).
    fn scalar(bytes: &[u8], r: &[u8]) -> Vec<usize> {
        (1..bytes.len()).filter(|&i| bytes[i] == b' ' || bytes[i..].starts_with(r)).collect()
    }

    fn blocked(bytes: &[u8], r: &[u8]) -> Vec<usize> {
        let mut b = Boundaries::new(bytes, r);
        let mut out = Vec::new();
        loop {
            let at = b.next_cut();
            if at == bytes.len() {
                assert_eq!(b.next_cut(), bytes.len(), "stays at the end");
                return out;
            }
            out.push(at);
        }
    }

    /// Every length around the block size (0/1/15/16/17/63/64/65... up to
    /// three blocks), boundaries at every position, the replacement char cut
    /// by a block's end, its lead byte alone (curly quotes share it), runs
    /// of spaces, a one-byte replacement and a NUL one.
    #[test]
    fn blocks_find_what_the_scalar_cutter_finds() {
        let pieces: [&[u8]; 7] = [b" ", "▁".as_bytes(), b"a", "“".as_bytes(), b"\xE2", "é".as_bytes(), b"  "];
        let mut seed = 0x9E37_79B9u32;
        for len in 0..=200 {
            for round in 0..12 {
                let mut text = Vec::new();
                while text.len() < len {
                    seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    let p = pieces[(seed >> 24) as usize % pieces.len()];
                    // mostly letters, so that words are several bytes long
                    text.extend_from_slice(if round % 3 == 0 || seed % 5 == 0 { p } else { b"xy" });
                }
                text.truncate(len);
                for r in ["▁".as_bytes(), b"_", b"\0", "é".as_bytes()] {
                    assert_eq!(blocked(&text, r), scalar(&text, r), "{len} {r:?} {text:?}");
                }
            }
        }
        // the replacement char across a block's end, at each offset
        for at in 60..=66 {
            let mut text = vec![b'a'; 130];
            text.splice(at..at + 3, "▁".bytes());
            assert_eq!(blocked(&text, "▁".as_bytes()), vec![at]);
        }
    }
}
