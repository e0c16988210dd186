//! One group of eight pieces of a window ([`super`]): its lookups in the
//! word cache's tables (`lookup_group!`) and its ids written
//! ([`Words::write_group`]), apart so that a group's loads are in flight
//! while the group before it is written, whether that group is of the same
//! window or the last of the window before.

use super::super::merge::Words;
use std::arch::x86_64::*;

/// A group's lookups: made by `lookup_group!`, used by [`Words::write_group`].
#[derive(Clone, Copy)]
pub(super) struct Group {
    /// How many pieces (1 to 8), as lanes.
    pub count: usize,
    pub valid: u8,
    /// Each lane's home bucket's `value | meta << 32` where one of its slots holds the lane's word.
    pub found: __m512i,
    /// The lanes found there; of those, the words of one token and the pairs kept in the slot.
    pub home: u8,
    pub good: u8,
    pub two: u8,
    /// Where the group's window starts in the text, and its pieces' starts from the group's first
    /// (the first 9 of them used; the window's positions may be overwritten by the next one's
    /// before the group is written).
    pub at: usize,
    pub pos: [u8; 16],
}

/// Group `$g`'s lookups (a [`Group`]) in the window at `$i` of `$n` pieces
/// whose starts are `$pos` and whose 128 bytes are in `$lo`, `$hi`: the
/// keys permuted out of the registers, masked to the pieces' lengths and
/// hashed, the home buckets read from the word cache's tables (the 1–8-byte
/// table's two slots by one 32-byte load a lane, the 9–16-byte table's one
/// slot gathered). A macro: the loads must be issued where it stands, not
/// behind a call.
///
/// Safety (the caller's): the CPU has AVX-512 F, BW, DQ, VBMI; `$g` < `$n`, a multiple of 8 below
/// 128; `$pos[..=$n]` rise, are below 128 (64 for a tail) and at most the text's bytes from `$i`.
macro_rules! lookup_group {
    ($words:expr, $lo:expr, $hi:expr, $pos:expr, $n:expr, $i:expr, $g:expr) => {{
        let g: usize = $g;
        // each 64-bit lane's low byte spread over the lane
        let spread = _mm512_mask_blend_epi64(0b0101_0101, _mm512_set1_epi64(0x0808_0808_0808_0808_u64 as i64), _mm512_setzero_si512());
        let count = ($n - g).min(8);
        let valid = ((1u32 << count) - 1) as u8;
        let start = _mm512_cvtepu8_epi64(_mm_loadl_epi64($pos.as_ptr().add(g).cast()));
        let end = _mm512_cvtepu8_epi64(_mm_loadl_epi64($pos.as_ptr().add(g + 1).cast()));
        let len = _mm512_sub_epi64(end, start);
        // the 8 bytes from each piece's start, taken from the window in its registers (a byte
        // index past 127 wraps, one past a tail's 63 reads `hi`: only bytes past the piece's end,
        // masked off below)
        let at = _mm512_add_epi8(_mm512_shuffle_epi8(start, spread), _mm512_set1_epi64(0x0706_0504_0302_0100));
        let key = _mm512_permutex2var_epi8($lo, at, $hi);
        let (short, mid) = $words.raw_tables();
        // the home bucket's `value | meta << 32` where one of its slots holds the word
        let mut found = _mm512_setzero_si512();
        let mut home = 0u8;
        // 1 to 8 bytes: the short table, key masked to the length (one-byte words are put
        // there by the first miss: `learn_byte`)
        let short_lane = valid & _mm512_cmple_epi64_mask(len, _mm512_set1_epi64(8));
        if let Some(t) = short {
            let mask = _mm512_srlv_epi64(_mm512_set1_epi64(-1), _mm512_sub_epi64(_mm512_set1_epi64(64), _mm512_slli_epi64::<3>(len)));
            let k = _mm512_and_si512(key, mask);
            let h = _mm512_mullo_epi64(_mm512_xor_si512(k, len), _mm512_set1_epi64(0x9E37_79B9_7F4A_7C15u64 as i64));
            let bucket = _mm512_and_si512(_mm512_srli_epi64::<32>(h), _mm512_set1_epi64(t.mask as i64));
            // each lane's whole bucket (two slots) by one 32-byte load (every lane's index is in the table)
            let [k0, v0, k1, v1] = bucket_words(t.slots, _mm512_slli_epi64::<5>(bucket));
            let len_of = |v| _mm512_and_si512(_mm512_srli_epi64::<32>(v), _mm512_set1_epi64(0xFF));
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
            let second = _mm512_permutex2var_epi8($lo, _mm512_add_epi8(at, _mm512_set1_epi8(8)), $hi);
            let mask = _mm512_srlv_epi64(_mm512_set1_epi64(-1), _mm512_sub_epi64(_mm512_set1_epi64(128), _mm512_slli_epi64::<3>(len)));
            let k1 = _mm512_and_si512(second, mask);
            let h = _mm512_xor_si512(_mm512_xor_si512(_mm512_mullo_epi64(key, _mm512_set1_epi64(0x9E37_79B9_7F4A_7C15u64 as i64)), k1), len);
            let h = _mm512_mullo_epi64(h, _mm512_set1_epi64(0xD6E8_FEB8_6659_FD93u64 as i64));
            let slot = _mm512_and_si512(_mm512_srli_epi64::<32>(h), _mm512_set1_epi64(t.mask as i64));
            let at = _mm512_add_epi64(_mm512_slli_epi64::<4>(slot), _mm512_slli_epi64::<3>(slot)); // 24 bytes a slot
            // (gathers: one or two lanes of a group are words of 9-16 bytes, loads for all 8
            // of them and the shuffles measured no faster)
            let s0 = _mm512_mask_i64gather_epi64::<1>(_mm512_setzero_si512(), mid_lane, at, t.slots.cast());
            let s1 = _mm512_mask_i64gather_epi64::<1>(_mm512_setzero_si512(), mid_lane, at, t.slots.add(8).cast());
            let sv = _mm512_mask_i64gather_epi64::<1>(_mm512_setzero_si512(), mid_lane, at, t.slots.add(16).cast());
            let meta = _mm512_srli_epi64::<32>(sv);
            let held = _mm512_mask_cmpeq_epi64_mask(mid_lane, s0, key)
                & _mm512_cmpeq_epi64_mask(s1, k1)
                & _mm512_cmpeq_epi64_mask(_mm512_and_si512(meta, _mm512_set1_epi64(0xFF)), len);
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
        // the group's starts copied out: 16 from `g` <= 120 end by byte 136 of `$pos` (144)
        let mut pos = [0u8; 16];
        _mm_storeu_si128(pos.as_mut_ptr().cast(), _mm_loadu_si128($pos.as_ptr().add(g).cast()));
        Group { count, valid, found, home, good, two, at: $i, pos }
    }};
}

/// `write_group!(words, grp, bytes, ids)`: the ids of the group `grp` appended to `ids`: those the
/// lookups answered (one token, or a pair kept in the slot) compressed out of the lanes up to each
/// lane left to the scalar lookup (`Words::tokenize_ids`, in order; a word of three tokens or more
/// in its home bucket: its pieces). True when the cache started over meanwhile: then lookups made
/// before it are stale (they may name pieces no longer there), and the caller makes the next
/// group's again. Any other change of the cache leaves their answers right (a word's value never
/// changes, a word moved out of its bucket answered as found is still right, a table that grows was
/// read before it was freed). A macro where the groups are written one after another (a call there
/// measured slower); [`Words::write_group`] elsewhere.
///
/// Safety (the caller's): the CPU has AVX-512 F, BW, DQ, VBMI2 and BMI2; `grp` is a lookup of `bytes`;
/// 16 u32s are stored where `reserve(16)` made room, and the length grows by the ids compressed into
/// their front (at most 16, of lanes < `count`).
macro_rules! write_group {
    ($words:expr, $grp:expr, $bytes:expr, $ids:expr) => {{
        let Group { count, valid, found, mut home, good, two, .. } = *$grp;
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
        let clears = $words.clears();
        loop {
            let k = if bad == 0 { count } else { bad.trailing_zeros() as usize };
            let run = each & (_pdep_u32((1u32 << k) - (1u32 << done), 0x5555) * 3) as u16;
            $ids.reserve(16);
            _mm512_storeu_si512($ids.as_mut_ptr().add($ids.len()).cast(), _mm512_maskz_compress_epi32(run, words));
            $ids.set_len($ids.len() + run.count_ones() as usize);
            if bad == 0 {
                break;
            }
            let (a, b) = ($grp.at + $grp.pos[k] as usize, $grp.at + $grp.pos[k + 1] as usize);
            if home >> k & 1 != 0 {
                let slot = slots[k];
                $words.push_pieces(slot as u32, (slot >> 40) as u32, $bytes, a, b, $ids);
            } else {
                $words.tokenize_ids($bytes, a, b, $ids);
                if b - a == 1 {
                    $words.learn_byte($bytes, a);
                }
            }
            if $words.clears() != clears {
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
        $words.clears() != clears
    }};
}

impl Words<'_> {
    /// `write_group!` out of line (a window's last group before a piece of the scalar lookup).
    ///
    /// # Safety
    /// The CPU must have AVX-512 F, BW, DQ, VBMI2 and BMI2; `grp` is a lookup of `bytes`.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vbmi,avx512vbmi2,bmi1,bmi2")]
    #[inline(never)]
    pub(super) unsafe fn write_group(&mut self, grp: &Group, bytes: &[u8], ids: &mut Vec<u32>) -> bool {
        // SAFETY: the CPU has the features, `grp` is a lookup of `bytes` (the caller's contract)
        unsafe { write_group!(self, grp, bytes, ids) }
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
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) unsafe fn bucket_words(base: *const u8, at: __m512i) -> [__m512i; 4] {
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
