//! The ids-only loop with AVX-512 (F, BW, DQ, VBMI2): a window of two 64-byte
//! blocks' pieces looked up eight at a time, whole groups only (the rest start
//! the next window). The blocks' piece starts (the masks of
//! [`super::blocks`]) are compressed into a list of positions; for eight
//! pieces at once the keys are permuted out of the window's registers, masked
//! to the pieces' lengths and hashed, and the home buckets read from the word cache's
//! tables (the 1–8-byte table's two slots by one 32-byte load a lane, the 9–16-byte
//! table's one slot gathered), so the eight slot loads are in flight together and no
//! branch depends on a piece's length or kind ([`group`]). A piece the gathers do not answer
//! (three tokens or more, not in its home bucket, over 16 bytes, not cached) takes the scalar lookup
//! ([`Words::tokenize_ids`]) in its place, in order. The same ids and the
//! same cache updates as the scalar loop: only words found in their home
//! bucket as one token or a pair kept in the slot are answered here, and those the scalar loop answers
//! without touching the cache either. Each group is looked up before the one
//! before it is written, a window's first group before the last group of the
//! window before (its loads in flight while that group's misses take their
//! branches). A text's last < 64 bytes take the same
//! way (masked in, spaces past the text's end, the end a piece start:
//! [`super::blocks::tail_starts`]) unless they hold a byte the block scanner
//! leaves to the scalar one.

use super::blocks::{classify_avx512_v, tail_starts, Avx512, Classify};
use super::merge::Words;
use super::scan::{piece_end, AsciiClasses};

#[macro_use]
#[path = "gather_group.rs"]
mod group;
use group::{bucket_words, Group};

/// 0..64: a block's byte positions, compressed down to its piece starts.
static IOTA: [u8; 64] = {
    let mut a = [0u8; 64];
    let mut k = 0;
    while k < 64 {
        a[k] = k as u8;
        k += 1;
    }
    a
};

impl Words<'_> {
    /// [`Words::text_ids`] with the lookups eight pieces at a time.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F, BW, DQ, VBMI and VBMI2, BMI1 and BMI2 (as holding an [`Avx512`] proves).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vbmi,avx512vbmi2,bmi1,bmi2")]
    pub(super) unsafe fn text_ids_gather(&mut self, avx512: Avx512, text: &str, classes: &AsciiClasses, ids: &mut Vec<u32>) -> bool {
        let bytes = text.as_bytes();
        let (ascii, quote_stops, stops) = (classes.table(), classes.quote_stops(), classes.block_stops());
        // the window's piece starts (up to 127); past them: room for reading a group's ends (9 bytes)
        let mut pos = [0u8; 144];
        // the last group of the window before, looked up, its ids not yet written: they are written
        // once this window's first group is looked up, its loads in flight meanwhile
        let mut last: Option<Group> = None;
        let mut i = 0;
        use std::arch::x86_64::*;
        while i < bytes.len() {
            // the window at `i`: its 128 bytes and how many pieces to take, `pos` its starts
            let mut window = None;
            if let (Some(stops), Some(block)) = (stops, bytes.get(i..i + 64)) {
                if let Some(starts) = avx512.piece_starts(block, stops) {
                    // the pieces between the block's starts; the last start's piece may run past it
                    let n = (starts & !1).count_ones() as usize;
                    if n > 0 {
                        // SAFETY: the CPU has the features (the caller's contract); 64 bytes from `i`
                        // are in the text (`window` masks its reads past them to the text's end)
                        window = Some(unsafe {
                            let lo = _mm512_loadu_si512(bytes.as_ptr().add(i).cast());
                            let (hi, total) = self.window(avx512, bytes, i, starts, n, stops, &mut pos);
                            (lo, hi, total)
                        });
                    }
                }
            }
            // the text's last < 64 bytes: masked in from the text (no byte past it read), spaces past it
            let left = bytes.len() - i;
            if let (None, Some(stops), true) = (window, stops, left < 64) {
                // SAFETY: the CPU has the features; the mask covers `left` bytes from `i`, all in the text
                let block = unsafe {
                    let mask = (1u64 << left) - 1;
                    _mm512_mask_loadu_epi8(_mm512_set1_epi8(b' ' as i8), mask, bytes.as_ptr().add(i).cast())
                };
                let starts = tail_starts(classify_avx512_v(block, stops), left as u32);
                let n = (starts & !1).count_ones() as usize;
                if n > 0 {
                    // SAFETY: the CPU has the features; `starts` has bit 0 and `n` more bits (all at or
                    // below `left`): every piece's bytes are the text's, at places below 64 of `block`
                    unsafe { _mm512_storeu_si512(pos.as_mut_ptr().cast(), compress_starts(starts, 0)) };
                    window = Some((block, block, n));
                }
            }
            let Some((lo, hi, n)) = window else {
                if let Some(group) = last.take() {
                    // SAFETY: the CPU has the features; `group` is a lookup of `bytes`
                    unsafe { self.write_group(&group, bytes, ids) };
                }
                let Some(end) = piece_end(text, ascii, quote_stops, i) else { return false };
                self.tokenize_ids(bytes, i, end, ids);
                i = end;
                continue;
            };
            // SAFETY: the CPU has the features; the window's starts `pos[..=n]` (n > 0) rise, below 128 (64
            // for a tail) and within the text from `i`; `last` is a lookup of `bytes`
            i += unsafe {
                let mut first = lookup_group!(self, lo, hi, &pos, n, i, 0);
                if let Some(group) = last.take() {
                    if write_group!(self, &group, bytes, ids) {
                        first = lookup_group!(self, lo, hi, &pos, n, i, 0);
                    }
                }
                let (group, next) = self.block_pieces(lo, hi, bytes, i, n, &pos, first, ids);
                last = Some(group);
                next
            };
        }
        if let Some(group) = last.take() {
            // SAFETY: the CPU has the features; `group` is a lookup of `bytes`
            unsafe { self.write_group(&group, bytes, ids) };
        }
        true
    }

    /// The ids of the groups but the last of the `n` pieces between the
    /// starts `pos[..=n]` (byte `i + pos[k]` starts a piece; `pos[0]` is 0)
    /// of the window at `i` (its 128 bytes in `lo`, `hi`: the text's, or a
    /// tail's 64 padded with spaces, `hi` then unused) appended to `ids`,
    /// `first` the first group's lookups; each group's written with the
    /// next's looked up. Returns the last group's lookups, left for the
    /// caller to write after it looks up the next window's first group, and
    /// `pos[n]` (where that window begins).
    ///
    /// # Safety
    /// The CPU must have AVX-512 F, BW, DQ, VBMI and VBMI2, BMI2; `pos[..=n]` rise, below 128 (64
    /// for a tail) and at most `bytes.len() - i`; `first` is group 0's lookup.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vbmi,avx512vbmi2,bmi1,bmi2")]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn block_pieces(&mut self, lo: std::arch::x86_64::__m512i, hi: std::arch::x86_64::__m512i, bytes: &[u8], i: usize, n: usize, pos: &[u8; 144], first: Group, ids: &mut Vec<u32>) -> (Group, usize) {
        use std::arch::x86_64::*;
        // SAFETY: the CPU has the features; each group's 9 positions from `g` <= 120 end by byte 129
        // of `pos`; the window's bytes are the text's (the caller's contract)
        unsafe {
            let mut group = first;
            let mut g = 0;
            while g + 8 < n {
                let next = lookup_group!(self, lo, hi, pos, n, i, g + 8);
                group = match write_group!(self, &group, bytes, ids) {
                    // the cache started over: the next group's lookups again
                    true => lookup_group!(self, lo, hi, pos, n, i, g + 8),
                    false => next,
                };
                g += 8;
            }
            (group, pos[n] as usize)
        }
    }
}

impl Words<'_> {
    /// The window from `i` (a piece start; the block there has the starts
    /// `starts`, `n` past bit 0) into `pos`: where the block from its last
    /// start classifies too (or is the text's last < 64 bytes), both blocks'
    /// starts, and only whole groups of eight taken unless the text ends
    /// there (the rest start the next window: a group costs about the same
    /// with one lane as with eight); else the first block's. Returns the
    /// window's second 64 bytes (spaces past the text) and how many pieces
    /// to take.
    ///
    /// # Safety
    /// As [`Words::text_ids_gather`]; 64 bytes from `i` are in `bytes`, `starts` has bit 0 and `n` > 0
    /// more bits.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vbmi,avx512vbmi2,bmi1,bmi2")]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn window(&self, avx512: Avx512, bytes: &[u8], i: usize, starts: u64, n: usize, stops: [u8; 4], pos: &mut [u8; 144]) -> (std::arch::x86_64::__m512i, usize) {
        use std::arch::x86_64::*;
        // SAFETY: the CPU has the features; `pos` is 144 bytes, written at 0..64 and n + 1 <= 64
        // plus 64; the loads from the text are masked to its end (spaces past it)
        unsafe {
            _mm512_storeu_si512(pos.as_mut_ptr().cast(), compress_starts(starts, 0));
            let last = 63 - starts.leading_zeros() as usize;
            let (left, j) = (bytes.len() - i, i + last);
            let spaces = _mm512_set1_epi8(b' ' as i8);
            let hi = match left >= 128 {
                true => _mm512_loadu_si512(bytes.as_ptr().add(i + 64).cast()),
                false => _mm512_mask_loadu_epi8(spaces, (1u64 << (left - 64)) - 1, bytes.as_ptr().add(i + 64).cast()),
            };
            // the second block's starts; from the text's last < 64 bytes, its end a start
            let (starts2, end) = match bytes.get(j..j + 64) {
                Some(second) => match avx512.piece_starts(second, stops) {
                    Some(s) => (s, false),
                    None => return (hi, n),
                },
                None => {
                    let left2 = bytes.len() - j;
                    let block = _mm512_mask_loadu_epi8(spaces, (1u64 << left2) - 1, bytes.as_ptr().add(j).cast());
                    let s = tail_starts(classify_avx512_v(block, stops), left2 as u32);
                    (s, s >> left2 & 1 != 0)
                }
            };
            let total = n + (starts2 & !1).count_ones() as usize;
            if !end && total < 8 {
                return (hi, n);
            }
            _mm512_storeu_si512(pos.as_mut_ptr().add(n + 1).cast(), compress_starts(starts2 & !1, last as u8));
            // the text's end: all its pieces; else whole groups
            (hi, if end { total } else { total & !7 })
        }
    }
}

/// The places of `starts`' bits (plus `add`), in order, in the register's low bytes.
///
/// # Safety
/// The CPU must have AVX-512 F, VBMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
#[inline]
unsafe fn compress_starts(starts: u64, add: u8) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::*;
    // SAFETY: `IOTA` is 64 bytes
    unsafe {
        let iota = _mm512_add_epi8(_mm512_loadu_si512(IOTA.as_ptr().cast()), _mm512_set1_epi8(add as i8));
        _mm512_maskz_compress_epi8(starts, iota)
    }
}

#[cfg(test)]
#[path = "gather_tests.rs"]
mod tests;
