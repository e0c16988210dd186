//! GPT-2's split 64 bytes at a time for the ids-only bulk loop: the bytes'
//! classes as bit masks (AVX-512BW compares into mask registers, or AVX2,
//! where the CPU has them, found at run time; else SSE2, x86-64's baseline), the pieces'
//! first bytes computed from the masks with shifts, and the pieces taken
//! out of the mask bit by bit, so a word costs no data-dependent branch of
//! its own in the scan. Only the plain case: a block's bytes are ASCII
//! letters, digits, spaces (0x20) and punctuation, and the punctuation chars
//! U+2010 to U+2027 (curly quotes, dashes); the first byte of any
//! other kind (a quote, which may start a contraction; another whitespace or
//! control; another non-ASCII byte; an added token's first byte) ends the block's
//! trusted part, and the scalar scanner ([`super::scan::piece_end`]) takes
//! the piece there.

/// How a block's bytes are classified: SSE2 (x86-64's baseline, 16 bytes a
/// compare) or AVX2 (32), which the CPU must be found to have at run time.
pub trait Classify: Copy {
    /// The block's classes, None off x86-64 or with fewer than 64 bytes.
    fn classify(self, block: &[u8], stops: [u8; 4]) -> Option<Masks>;

    /// The piece starts of the 64 bytes from a piece start (bit k: byte k
    /// starts a piece), the bits at or past the trusted part's end cleared (a
    /// piece from the last start may run past it); None off x86-64 or with
    /// fewer than 64 bytes left.
    #[inline(always)]
    fn piece_starts(self, block: &[u8], stops: [u8; 4]) -> Option<u64> {
        Some(starts(self.classify(block, stops)?))
    }
}

/// SSE2 compares (every x86-64 CPU).
#[derive(Clone, Copy, Debug)]
pub struct Sse2;

/// AVX2 compares: made only by [`Avx2::detect`], so holding one proves the CPU has AVX2.
#[derive(Clone, Copy, Debug)]
pub struct Avx2(());

impl Avx2 {
    /// Some on a CPU with AVX2 (checked at run time, cached by std).
    #[inline]
    pub fn detect() -> Option<Avx2> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Some(Avx2(()));
        }
        None
    }
}

/// AVX-512 F and BW compares (the whole block in one register, each class a
/// compare straight into a mask register), with DQ, VBMI, VBMI2, BMI1 and BMI2 for
/// the loops compiled with it (`super::gather`): made only by
/// [`Avx512::detect`], so holding one proves the CPU has all of them.
#[derive(Clone, Copy, Debug)]
pub struct Avx512(());

impl Avx512 {
    /// Some on a CPU with AVX-512 F, BW, DQ, VBMI and VBMI2, BMI1 and BMI2 (checked at run time, cached by std).
    #[inline]
    pub fn detect() -> Option<Avx512> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
            && std::arch::is_x86_feature_detected!("avx512vbmi2")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
        {
            return Some(Avx512(()));
        }
        None
    }
}

/// Byte classes of a block as bit masks: letters, digits, spaces (0x20),
/// and the bytes the block scanner leaves to the scalar one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Masks {
    pub letter: u64,
    pub digit: u64,
    pub space: u64,
    pub special: u64,
}

#[cfg(target_arch = "x86_64")]
impl Classify for Sse2 {
    #[inline(always)]
    fn classify(self, block: &[u8], stops: [u8; 4]) -> Option<Masks> {
        let block: &[u8; 64] = block.get(..64)?.try_into().ok()?;
        // SAFETY: `classify_sse2` needs only SSE2, which is part of x86-64 itself (every
        // x86-64 CPU has it, and the target enables it for all code).
        Some(unsafe { classify_sse2(block, stops) })
    }
}

#[cfg(target_arch = "x86_64")]
impl Classify for Avx2 {
    #[inline(always)]
    fn classify(self, block: &[u8], stops: [u8; 4]) -> Option<Masks> {
        let block: &[u8; 64] = block.get(..64)?.try_into().ok()?;
        // SAFETY: an `Avx2` exists only where `Avx2::detect` found the CPU to have AVX2.
        Some(unsafe { classify_avx2(block, stops) })
    }
}

#[cfg(target_arch = "x86_64")]
impl Classify for Avx512 {
    #[inline(always)]
    fn classify(self, block: &[u8], stops: [u8; 4]) -> Option<Masks> {
        let block: &[u8; 64] = block.get(..64)?.try_into().ok()?;
        // SAFETY: an `Avx512` exists only where `Avx512::detect` found the CPU to have AVX-512 F and BW.
        Some(unsafe { classify_avx512(block, stops) })
    }
}

#[cfg(not(target_arch = "x86_64"))]
impl Classify for Avx512 {
    #[inline(always)]
    fn classify(self, _block: &[u8], _stops: [u8; 4]) -> Option<Masks> {
        None
    }
}

#[cfg(not(target_arch = "x86_64"))]
impl Classify for Sse2 {
    #[inline(always)]
    fn classify(self, _block: &[u8], _stops: [u8; 4]) -> Option<Masks> {
        None
    }
}

#[cfg(not(target_arch = "x86_64"))]
impl Classify for Avx2 {
    #[inline(always)]
    fn classify(self, _block: &[u8], _stops: [u8; 4]) -> Option<Masks> {
        None
    }
}

/// # Safety
/// The CPU must have SSE2 (every x86-64 CPU has). An `unsafe fn` rather
/// than a safe `#[target_feature]` one, which needs Rust 1.86 (the crate's
/// rust-version is 1.85).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
unsafe fn classify_sse2(block: &[u8; 64], stops: [u8; 4]) -> Masks {
    use std::arch::x86_64::*;
    let mut m = Masks::default();
    let (mut e2, mut x80, mut tail) = (0u64, 0u64, 0u64);
    for k in 0..4 {
        let v = _mm_set_epi64x(word(block, 16 * k + 8) as i64, word(block, 16 * k) as i64);
        // signed compares: a non-ASCII byte is negative, below every bound here
        let lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
        let letter = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8((b'a' - 1) as i8)), _mm_cmplt_epi8(lower, _mm_set1_epi8((b'z' + 1) as i8)));
        let digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8((b'0' - 1) as i8)), _mm_cmplt_epi8(v, _mm_set1_epi8((b'9' + 1) as i8)));
        let space = _mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8));
        // controls and whitespace other than 0x20 (below 0x20), non-ASCII (negative), DEL, the quote, the stops
        let mut special = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7F)));
        special = _mm_or_si128(special, _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\'' as i8)));
        for s in stops {
            special = _mm_or_si128(special, _mm_cmpeq_epi8(v, _mm_set1_epi8(s as i8)));
        }
        let shift = 16 * k;
        m.letter |= (_mm_movemask_epi8(letter) as u32 as u64) << shift;
        m.digit |= (_mm_movemask_epi8(digit) as u32 as u64) << shift;
        m.space |= (_mm_movemask_epi8(space) as u32 as u64) << shift;
        m.special |= (_mm_movemask_epi8(special) as u32 as u64) << shift;
        // E2, 80 and 90..=A7 (signed: -112..=-89) for `general_punctuation`
        e2 |= (_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(0xE2u8 as i8))) as u32 as u64) << shift;
        x80 |= (_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x80u8 as i8))) as u32 as u64) << shift;
        let t = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x8Fu8 as i8)), _mm_cmplt_epi8(v, _mm_set1_epi8(0xA8u8 as i8)));
        tail |= (_mm_movemask_epi8(t) as u32 as u64) << shift;
    }
    m.special &= !general_punctuation(e2, x80, tail);
    m
}

/// [`classify_sse2`] 32 bytes a compare.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn classify_avx2(block: &[u8; 64], stops: [u8; 4]) -> Masks {
    use std::arch::x86_64::*;
    let mut m = Masks::default();
    let (mut e2, mut x80, mut tail) = (0u64, 0u64, 0u64);
    for k in 0..2 {
        let at = 32 * k;
        let v = _mm256_set_epi64x(word(block, at + 24) as i64, word(block, at + 16) as i64, word(block, at + 8) as i64, word(block, at) as i64);
        // signed compares: a non-ASCII byte is negative, below every bound here (`a < b` as `b > a`)
        let lower = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
        let letter = _mm256_and_si256(
            _mm256_cmpgt_epi8(lower, _mm256_set1_epi8((b'a' - 1) as i8)),
            _mm256_cmpgt_epi8(_mm256_set1_epi8((b'z' + 1) as i8), lower),
        );
        let digit = _mm256_and_si256(
            _mm256_cmpgt_epi8(v, _mm256_set1_epi8((b'0' - 1) as i8)),
            _mm256_cmpgt_epi8(_mm256_set1_epi8((b'9' + 1) as i8), v),
        );
        let space = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b' ' as i8));
        let mut special = _mm256_or_si256(_mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), v), _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0x7F)));
        special = _mm256_or_si256(special, _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\'' as i8)));
        for s in stops {
            special = _mm256_or_si256(special, _mm256_cmpeq_epi8(v, _mm256_set1_epi8(s as i8)));
        }
        let shift = at;
        m.letter |= (_mm256_movemask_epi8(letter) as u32 as u64) << shift;
        m.digit |= (_mm256_movemask_epi8(digit) as u32 as u64) << shift;
        m.space |= (_mm256_movemask_epi8(space) as u32 as u64) << shift;
        m.special |= (_mm256_movemask_epi8(special) as u32 as u64) << shift;
        // E2, 80 and 90..=A7 (signed: -112..=-89) for `general_punctuation`
        e2 |= (_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(0xE2u8 as i8))) as u32 as u64) << shift;
        x80 |= (_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(0x80u8 as i8))) as u32 as u64) << shift;
        let t = _mm256_and_si256(
            _mm256_cmpgt_epi8(v, _mm256_set1_epi8(0x8Fu8 as i8)),
            _mm256_cmpgt_epi8(_mm256_set1_epi8(0xA8u8 as i8), v),
        );
        tail |= (_mm256_movemask_epi8(t) as u32 as u64) << shift;
    }
    m.special &= !general_punctuation(e2, x80, tail);
    m
}

/// [`classify_sse2`] 64 bytes a compare, each class's bits straight into a
/// mask register (no movemask, no halves to shift together); ranges as one
/// unsigned compare of the byte less the range's first.
///
/// # Safety
/// The CPU must have AVX-512 F and BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn classify_avx512(block: &[u8; 64], stops: [u8; 4]) -> Masks {
    use std::arch::x86_64::*;
    // SAFETY: `block` is 64 bytes, all that an unaligned 512-bit load reads.
    let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
    classify_avx512_v(v, stops)
}

/// [`classify_avx512`] of a block already in a register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
pub(super) fn classify_avx512_v(v: std::arch::x86_64::__m512i, stops: [u8; 4]) -> Masks {
    use std::arch::x86_64::*;
    let lower = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
    // a non-ASCII byte (0x80 and up) is past every range's end after the subtraction
    let letter = _mm512_cmple_epu8_mask(_mm512_sub_epi8(lower, _mm512_set1_epi8(b'a' as i8)), _mm512_set1_epi8(25));
    let digit = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8(b'0' as i8)), _mm512_set1_epi8(9));
    let space = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b' ' as i8));
    // controls and whitespace other than 0x20 and non-ASCII (signed: below 0x20), DEL, the quote, the stops
    let mut special = _mm512_cmplt_epi8_mask(v, _mm512_set1_epi8(0x20))
        | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(0x7F))
        | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\'' as i8));
    for s in stops {
        special |= _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(s as i8));
    }
    let e2 = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(0xE2u8 as i8));
    let x80 = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(0x80u8 as i8));
    let tail = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8(0x90u8 as i8)), _mm512_set1_epi8((0xA7 - 0x90) as i8));
    Masks { letter, digit, space, special: special & !general_punctuation(e2, x80, tail) }
}

/// The bytes of the chars U+2010 to U+2027 (UTF-8 E2 80 90..=A7: dashes,
/// curly quotes, bullets, the ellipsis) wholly inside the block, from the
/// masks of bytes E2, 80 and 90..=A7: for GPT-2's split they are
/// punctuation (not `\s`, `\p{L}` or `\p{N}`), like ASCII punctuation, so the
/// block scanner takes them rather than stopping there (English text has a
/// curly quote every ~250 bytes). A char cut by the block's end stays special.
#[inline(always)]
fn general_punctuation(e2: u64, x80: u64, tail: u64) -> u64 {
    let first = e2 & (x80 >> 1) & (tail >> 2);
    first | first << 1 | first << 2
}

/// Two bytes' positions in a block as bit masks (bit k: byte k is `a`; is `b`),
/// 16 bytes a compare with SSE2 (x86-64's baseline): for scanners that look
/// for one or two byte values only (Unigram's word cutter: spaces and the
/// replacement char's first byte).
#[inline(always)]
pub(crate) fn eq_masks(block: &[u8; 64], a: u8, b: u8) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `eq_masks_sse2` needs only SSE2, which every x86-64 CPU has (the target enables it for all code).
    return unsafe { eq_masks_sse2(block, a, b) };
    #[cfg(not(target_arch = "x86_64"))]
    {
        let bits = |v: u8| block.iter().enumerate().fold(0u64, |m, (k, &x)| m | ((x == v) as u64) << k);
        (bits(a), bits(b))
    }
}

/// # Safety
/// The CPU must have SSE2 (every x86-64 CPU has).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
unsafe fn eq_masks_sse2(block: &[u8; 64], a: u8, b: u8) -> (u64, u64) {
    use std::arch::x86_64::*;
    let (va, vb) = (_mm_set1_epi8(a as i8), _mm_set1_epi8(b as i8));
    let (mut ma, mut mb) = (0u64, 0u64);
    for k in 0..4 {
        let v = _mm_set_epi64x(word(block, 16 * k + 8) as i64, word(block, 16 * k) as i64);
        ma |= (_mm_movemask_epi8(_mm_cmpeq_epi8(v, va)) as u32 as u64) << (16 * k);
        mb |= (_mm_movemask_epi8(_mm_cmpeq_epi8(v, vb)) as u32 as u64) << (16 * k);
    }
    (ma, mb)
}

/// Bytes `at..at + 8` of the block as a little-endian u64 (`at` <= 56).
#[inline(always)]
fn word(block: &[u8; 64], at: usize) -> u64 {
    let mut w = [0u8; 8];
    if let Some(b) = block.get(at..at + 8) {
        w.copy_from_slice(b);
    }
    u64::from_le_bytes(w)
}

/// The piece starts of a block whose byte 0 starts a piece (see [`Classify::piece_starts`]).
///
/// GPT-2's split over these four classes: a letter, digit or punctuation
/// byte starts a piece when the byte before it is of another class and not a
/// space (` ?\p{L}+`: a space joins the run after it); a space starts one
/// when the byte before it is not a space, or when it is the last of a run
/// of spaces that a non-space follows (`\s+(?!\S)` leaves that one to the
/// next piece).
#[inline(always)]
pub fn starts(m: Masks) -> u64 {
    let punct = !(m.letter | m.digit | m.space | m.special);
    let after_space = m.space << 1;
    let run_start = |c: u64| c & !(c << 1) & !after_space;
    let space_start = (m.space & !after_space) | (m.space & after_space & !(m.space >> 1));
    let all = run_start(m.letter) | run_start(m.digit) | run_start(punct) | space_start | 1;
    // trusted: below the first special byte, less one (a start there reads the byte after it)
    let limit = m.special.trailing_zeros().min(63).saturating_sub(1);
    all & ((1u64 << limit) - 1)
}

/// The piece starts of a text's last `len` (< 64) bytes from a piece start,
/// classified with the places past the text's end read as spaces (so a
/// space run at the end stays one piece, and no piece runs into them), with
/// the text's end as one more start: every piece of the tail, the last one
/// ending at the text's end; as [`starts`] (the end not taken) when a byte
/// of the tail is one the block scanner leaves to the scalar one.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub fn tail_starts(m: Masks, len: u32) -> u64 {
    let text = (1u64 << len) - 1;
    if m.special & text != 0 {
        return starts(m);
    }
    let punct = !(m.letter | m.digit | m.space | m.special);
    let after_space = m.space << 1;
    let run_start = |c: u64| c & !(c << 1) & !after_space;
    let space_start = (m.space & !after_space) | (m.space & after_space & !(m.space >> 1));
    let all = run_start(m.letter) | run_start(m.digit) | run_start(punct) | space_start | 1;
    (all & text) | 1 << len
}

#[cfg(test)]
#[path = "blocks_tests.rs"]
mod tests;
