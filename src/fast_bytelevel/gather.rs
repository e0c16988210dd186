//! The ids-only loop with AVX-512 (F, BW, DQ, VBMI2): a window of two 64-byte
//! blocks' pieces looked up eight at a time, whole groups only (the rest start
//! the next window). The blocks' piece starts (the masks of
//! [`super::blocks`]) are compressed into a list of positions; for eight
//! pieces at once the keys are permuted out of the window's registers, masked
//! to the pieces' lengths and hashed, and the home buckets read from the word cache's
//! tables (the 1–8-byte table's two slots by one 32-byte load a lane, the 9–16-byte
//! table's one slot gathered), so the eight slot loads are in flight together and no
//! branch depends on a piece's length or kind. A piece the gathers do not answer
//! (several tokens, not in its home bucket, over 16 bytes, not cached) takes the scalar lookup
//! ([`Words::tokenize_ids`]) in its place, in order. The same ids and the
//! same cache updates as the scalar loop: only words found in their home
//! bucket as one token are answered here, and those the scalar loop answers
//! without touching the cache either. A text's last < 64 bytes take the same
//! way (masked in, spaces past the text's end, the end a piece start:
//! [`super::blocks::tail_starts`]) unless they hold a byte the block scanner
//! leaves to the scalar one.

use super::blocks::{classify_avx512_v, tail_starts, Avx512, Classify};
use super::merge::Words;
use super::scan::{piece_end, AsciiClasses};

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
        let mut i = 0;
        use std::arch::x86_64::*;
        while i < bytes.len() {
            if let (Some(stops), Some(block)) = (stops, bytes.get(i..i + 64)) {
                if let Some(starts) = avx512.piece_starts(block, stops) {
                    // the pieces between the block's starts; the last start's piece may run past it
                    let n = (starts & !1).count_ones() as usize;
                    if n > 0 {
                        // SAFETY: the CPU has the features (the caller's contract); 64 bytes from `i`
                        // are in the text (`window` masks its reads past them to the text's end); the
                        // window's starts are below 128, `total` of them past the first, in `pos`
                        i += unsafe {
                            let lo = _mm512_loadu_si512(bytes.as_ptr().add(i).cast());
                            let (hi, total) = self.window(avx512, bytes, i, starts, n, stops, &mut pos);
                            self.block_pieces(lo, hi, bytes, i, total, &pos, ids)
                        };
                        continue;
                    }
                }
            }
            // the text's last < 64 bytes: masked in from the text (no byte past it read), spaces past it
            let left = bytes.len() - i;
            if let (Some(stops), true) = (stops, left < 64) {
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
                    i += unsafe {
                        _mm512_storeu_si512(pos.as_mut_ptr().cast(), compress_starts(starts, 0));
                        self.block_pieces(block, block, bytes, i, n, &pos, ids)
                    };
                    continue;
                }
            }
            let Some(end) = piece_end(text, ascii, quote_stops, i) else { return false };
            self.tokenize_ids(bytes, i, end, ids);
            i = end;
        }
        true
    }

    /// The ids of the `n` pieces between the starts `pos[..=n]` (byte
    /// `i + pos[k]` starts a piece; `pos[0]` is 0) of the window at `i` (its
    /// 128 bytes in `lo`, `hi`: the text's, or a tail's 64 padded with spaces,
    /// `hi` then unused) appended to `ids`; returns `pos[n]` (where the next
    /// window begins).
    ///
    /// # Safety
    /// The CPU must have AVX-512 F, BW, DQ, VBMI and VBMI2; `pos[..=n]` rise, below 128 (64
    /// for a tail) and at most `bytes.len() - i`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vbmi,avx512vbmi2,bmi1,bmi2")]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn block_pieces(&mut self, lo: std::arch::x86_64::__m512i, hi: std::arch::x86_64::__m512i, bytes: &[u8], i: usize, n: usize, pos: &[u8; 144], ids: &mut Vec<u32>) -> usize {
        use std::arch::x86_64::*;
        // SAFETY (every raw access below): `pos` is 144 bytes; a group's 9
        // positions from `g` <= 120 end by byte 129 of `pos`; the window's bytes are the text's; the
        // slots' reads are of lanes whose slot index is masked to the table's size, at offsets
        // inside the slot (`Slot` is `repr(C)`); 16 u32s are stored where `reserve(16)` made room, and
        // the length grows by the ids compressed into their front (at most 16, of lanes < `count`).
        unsafe {
            // each 64-bit lane's low byte spread over the lane, plus 0, 1, .. 7: the lane's piece's bytes
            let spread = _mm512_set1_epi64(0x0808_0808_0808_0808_u64 as i64);
            let spread = _mm512_mask_blend_epi64(0b0101_0101, spread, _mm512_setzero_si512());
            let byte_steps = _mm512_set1_epi64(0x0706_0504_0302_0100);
            let zero = _mm512_setzero_si512();
            let all = _mm512_set1_epi64(-1);
            let byte = _mm512_set1_epi64(0xFF);
            // group `g`'s lookups: its lanes, the home buckets' `value | meta << 32`, the lanes found there,
            // those of one token
            macro_rules! lookup {
                ($g:expr) => {{
                let g = $g;
                let count = (n - g).min(8);
                let valid = ((1u32 << count) - 1) as u8;
                let start = _mm512_cvtepu8_epi64(_mm_loadl_epi64(pos.as_ptr().add(g).cast()));
                let end = _mm512_cvtepu8_epi64(_mm_loadl_epi64(pos.as_ptr().add(g + 1).cast()));
                let len = _mm512_sub_epi64(end, start);
                // the 8 bytes from each piece's start, taken from the window in its registers (a byte
                // index past 127 wraps, one past a tail's 63 reads `hi`: only bytes past the piece's end,
                // masked off below)
                let at = _mm512_add_epi8(_mm512_shuffle_epi8(start, spread), byte_steps);
                let key = _mm512_permutex2var_epi8(lo, at, hi);
                let (short, mid) = self.raw_tables();
                // the home bucket's `value | meta << 32` where one of its slots holds the word
                let mut found = _mm512_setzero_si512();
                let mut home = 0u8;
                // 1 to 8 bytes: the short table, key masked to the length (one-byte words are put
                // there by the first miss: `learn_byte`)
                let short_lane = valid & _mm512_cmple_epi64_mask(len, _mm512_set1_epi64(8));
                if let Some(t) = short {
                    let mask = _mm512_srlv_epi64(all, _mm512_sub_epi64(_mm512_set1_epi64(64), _mm512_slli_epi64::<3>(len)));
                    let k = _mm512_and_si512(key, mask);
                    let h = _mm512_mullo_epi64(_mm512_xor_si512(k, len), _mm512_set1_epi64(0x9E37_79B9_7F4A_7C15u64 as i64));
                    let bucket = _mm512_and_si512(_mm512_srli_epi64::<32>(h), _mm512_set1_epi64(t.mask as i64));
                    // each lane's whole bucket (two slots) by one 32-byte load (every lane's index is in the table)
                    let [k0, v0, k1, v1] = bucket_words(t.slots, _mm512_slli_epi64::<5>(bucket));
                    let len_of = |v| _mm512_and_si512(_mm512_srli_epi64::<32>(v), byte);
                    let held0 = _mm512_mask_cmpeq_epi64_mask(short_lane, k0, k) & _mm512_cmpeq_epi64_mask(len_of(v0), len);
                    let held1 = _mm512_mask_cmpeq_epi64_mask(short_lane, k1, k) & _mm512_cmpeq_epi64_mask(len_of(v1), len);
                    found = _mm512_mask_blend_epi64(held1, found, v1);
                    found = _mm512_mask_blend_epi64(held0, found, v0);
                    home |= held0 | held1;
                }
                // 9 to 16 bytes: the mid table, two key words
                let mid_lane = valid
                    & _mm512_cmpge_epi64_mask(len, _mm512_set1_epi64(9))
                    & _mm512_cmple_epi64_mask(len, _mm512_set1_epi64(16));
                if let (Some(t), true) = (mid, mid_lane != 0) {
                    let second = _mm512_permutex2var_epi8(lo, _mm512_add_epi8(at, _mm512_set1_epi8(8)), hi);
                    let mask = _mm512_srlv_epi64(all, _mm512_sub_epi64(_mm512_set1_epi64(128), _mm512_slli_epi64::<3>(len)));
                    let k1 = _mm512_and_si512(second, mask);
                    let h = _mm512_xor_si512(_mm512_xor_si512(_mm512_mullo_epi64(key, _mm512_set1_epi64(0x9E37_79B9_7F4A_7C15u64 as i64)), k1), len);
                    let h = _mm512_mullo_epi64(h, _mm512_set1_epi64(0xD6E8_FEB8_6659_FD93u64 as i64));
                    let slot = _mm512_and_si512(_mm512_srli_epi64::<32>(h), _mm512_set1_epi64(t.mask as i64));
                    let at = _mm512_add_epi64(_mm512_slli_epi64::<4>(slot), _mm512_slli_epi64::<3>(slot)); // 24 bytes a slot
                    // (gathers: one or two lanes of a group are words of 9-16 bytes, loads for all 8
                    // of them and the shuffles measured no faster)
                    let s0 = _mm512_mask_i64gather_epi64::<1>(zero, mid_lane, at, t.slots.cast());
                    let s1 = _mm512_mask_i64gather_epi64::<1>(zero, mid_lane, at, t.slots.add(8).cast());
                    let sv = _mm512_mask_i64gather_epi64::<1>(zero, mid_lane, at, t.slots.add(16).cast());
                    let meta = _mm512_srli_epi64::<32>(sv);
                    let held = _mm512_mask_cmpeq_epi64_mask(mid_lane, s0, key)
                        & _mm512_cmpeq_epi64_mask(s1, k1)
                        & _mm512_cmpeq_epi64_mask(_mm512_and_si512(meta, byte), len);
                    found = _mm512_mask_blend_epi64(held, found, sv);
                    home |= held;
                }
                // one token a word: the slot's meta is 1 << 8 | length; two kept in the slot
                // (`merge::PAIR_IDS`): 2 << 8 | length, the first's length above (never 0)
                let meta = _mm512_srli_epi64::<32>(found);
                let good = home & _mm512_cmpeq_epi64_mask(meta, _mm512_or_si512(_mm512_set1_epi64(1 << 8), len));
                let two = home
                    & _mm512_cmpeq_epi64_mask(_mm512_and_si512(meta, _mm512_set1_epi64(0xFFFF)), _mm512_or_si512(_mm512_set1_epi64(2 << 8), len))
                    & _mm512_test_epi64_mask(meta, _mm512_set1_epi64(0xFFFF_0000));
                (count, valid, found, home, good, two)
                }};
            }
            // the next group is looked up before this one's ids are written: its loads are in flight
            // while this group's words of several tokens and misses take their branches (what those
            // change in the cache leaves its answers right, but for the cache starting over: then again)
            let mut next = lookup!(0);
            let mut g = 0;
            while g < n {
                let (count, valid, found, mut home, good, two) = next;
                if g + 8 < n {
                    next = lookup!(g + 8);
                }
                // each lane's ids as two u32s: (id, -) for one token, (first, second) for a pair
                let low16 = _mm512_set1_epi64(0xFFFF);
                let pair = _mm512_or_si512(_mm512_and_si512(found, low16), _mm512_slli_epi64::<32>(_mm512_and_si512(_mm512_srli_epi64::<16>(found), low16)));
                let words = _mm512_mask_blend_epi64(two, found, pair);
                // which of those u32s are ids: each answered lane's first, a pair's second
                let mut each = (_pdep_u32(u32::from(good | two), 0x5555) | _pdep_u32(u32::from(two), 0xAAAA)) as u16;
                let mut slots = [0u64; 8];
                _mm512_storeu_si512(slots.as_mut_ptr().cast(), found);
                // the answered lanes' ids, compressed, up to each lane left to the scalar lookup (or, a
                // word of three tokens or more in its home bucket, to its pieces)
                let mut bad = valid & !(good | two);
                let mut done = 0;
                let clears = self.clears();
                loop {
                    let k = if bad == 0 { count } else { bad.trailing_zeros() as usize };
                    let run = each & (_pdep_u32((1u32 << k) - (1u32 << done), 0x5555) * 3) as u16;
                    ids.reserve(16);
                    _mm512_storeu_si512(ids.as_mut_ptr().add(ids.len()).cast(), _mm512_maskz_compress_epi32(run, words));
                    ids.set_len(ids.len() + run.count_ones() as usize);
                    if bad == 0 {
                        break;
                    }
                    let (a, b) = (i + pos[g + k] as usize, i + pos[g + k + 1] as usize);
                    if home >> k & 1 != 0 {
                        let slot = slots[k];
                        self.push_pieces(slot as u32, (slot >> 40) as u32, bytes, a, b, ids);
                    } else {
                        self.tokenize_ids(bytes, a, b, ids);
                        if b - a == 1 {
                            self.learn_byte(bytes, a);
                        }
                    }
                    if self.clears() != clears {
                        // the cache started over (it was full): the group's later answers may name pieces
                        // no longer there, so its later lanes are looked up again, one by one
                        let later = valid & !((2u32 << k) - 1) as u8;
                        bad |= later;
                        home &= !later;
                        each &= !(_pdep_u32(u32::from(later), 0x5555) * 3) as u16;
                    }
                    done = k + 1;
                    bad &= bad - 1;
                }
                if g + 8 < n && self.clears() != clears {
                    next = lookup!(g + 8);
                }
                g += 8;
            }
            pos[n] as usize
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

/// Each lane's bucket of the 1–8-byte table at `base + at` (byte offsets,
/// all inside the table, 32-byte aligned): one 32-byte load a lane, then
/// shuffles, as (first slot's key, its `value | meta << 32`, second slot's
/// key, its). On the rounds' host (AMD EPYC, AVX-512) an 8-lane gather costs
/// ~6 cycles of throughput whatever its mask; loads and shuffles measured
/// 3-5% faster on the whole bulk call than gathers (for one-slot buckets).
///
/// # Safety
/// The CPU must have AVX-512 F; the 32 bytes at `base + at` of every lane are readable.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn bucket_words(base: *const u8, at: std::arch::x86_64::__m512i) -> [std::arch::x86_64::__m512i; 4] {
    use std::arch::x86_64::*;
    let mut off = [0u64; 8];
    // SAFETY: `off` holds 8 u64; each lane's 32 bytes are readable (the caller's contract)
    unsafe {
        _mm512_storeu_si512(off.as_mut_ptr().cast(), at);
        let bucket = |k: usize| _mm256_loadu_si256(base.add(off[k] as usize).cast());
        // lanes k and k + 1: k0 v0 k1 v1 of each
        let two = |k: usize| _mm512_inserti64x4::<1>(_mm512_castsi256_si512(bucket(k)), bucket(k + 1));
        let (a, b, c, d) = (two(0), two(2), two(4), two(6));
        // first slots of lanes 0-3 (keys, then values), of 4-7; second slots the same
        let first = _mm512_set_epi64(13, 9, 5, 1, 12, 8, 4, 0);
        let second = _mm512_set_epi64(15, 11, 7, 3, 14, 10, 6, 2);
        let (f03, f47) = (_mm512_permutex2var_epi64(a, first, b), _mm512_permutex2var_epi64(c, first, d));
        let (s03, s47) = (_mm512_permutex2var_epi64(a, second, b), _mm512_permutex2var_epi64(c, second, d));
        [
            _mm512_shuffle_i64x2::<0b01_00_01_00>(f03, f47),
            _mm512_shuffle_i64x2::<0b11_10_11_10>(f03, f47),
            _mm512_shuffle_i64x2::<0b01_00_01_00>(s03, s47),
            _mm512_shuffle_i64x2::<0b11_10_11_10>(s03, s47),
        ]
    }
}

#[cfg(test)]
#[path = "gather_tests.rs"]
mod tests;
