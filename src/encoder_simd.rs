//! The ASCII lane 64 bytes at a time, where the CPU has AVX2 (detected once,
//! when the encoder is built): the window's bytes classified into bit masks
//! (word bytes, whitespace, punctuation, capitals to lowercase) with two table
//! lookups per class (one 64-byte step with AVX-512 BW, two 32-byte ones with
//! AVX2), the window copied lowercased where asked into a buffer the words are
//! read from, and its words walked by trailing-zero counts, so whitespace
//! costs no step of its own and no word is lowercased on its own. Whatever the window cannot finish (a word
//! running past it, a word of 64 bytes or more, a byte of another class)
//! goes to the word-at-a-time lane (`encoder_chunks.rs`) from the same
//! position, which stays the path this one is tested against. A text's last
//! < 64 bytes take a window too, spaces after them.

use super::{Encoder, Words, PUNCT, SPACE, WORD};

/// A window's classes: bit k is byte k of the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Masks {
    word: u64,
    space: u64,
    punct: u64,
    upper: u64,
}

/// A window's bytes as the words are read from them (lowercased where
/// asked), and 8 more so that any word of up to 8 bytes starting in the
/// window can be loaded as one `u64` (the bytes past its end masked off).
pub(super) type Lowered = [u8; 72];

/// The classes of the ASCII bytes as nibble tables: for each of word,
/// whitespace, punctuation and capital to lowercase (none when the encoder
/// keeps case), `sets[c][b & 15]` has bit `b >> 4` set when byte `b` is in
/// the class (bytes >= 0x80 are in none).
#[derive(Clone, Debug)]
pub(crate) struct Wide {
    sets: [[u8; 16]; 4],
    /// AVX-512 BW was detected: the window in one 64-byte step.
    avx512: bool,
}

/// Bit `k` of a nibble table's row is byte `k << 4 | row` (high nibbles 8..15: no bit).
const BITS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 0, 0, 0, 0, 0, 0, 0, 0];

impl Wide {
    /// The tables for these byte classes, or None where the CPU lacks AVX2.
    pub(super) fn new(class: &[u8; 256], lowercase: bool) -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            let avx512 = std::arch::is_x86_feature_detected!("avx512bw");
            return Some(Wide { avx512, ..Self::tables(class, lowercase) });
        }
        let _ = (class, lowercase);
        None
    }

    /// The same windows with AVX2 only (for the tests that compare both).
    #[cfg(test)]
    pub(super) fn avx2_only(&self) -> Self {
        Wide { avx512: false, ..self.clone() }
    }

    /// Whether windows take the AVX-512 step.
    #[cfg(test)]
    pub(super) fn is_avx512(&self) -> bool {
        self.avx512
    }

    pub(super) fn tables(class: &[u8; 256], lowercase: bool) -> Self {
        let mut sets = [[0u8; 16]; 4];
        for b in 0..128u8 {
            let member = [class[b as usize] == WORD, class[b as usize] == SPACE, class[b as usize] == PUNCT, lowercase && b.is_ascii_uppercase()];
            for (set, _) in sets.iter_mut().zip(member).filter(|(_, m)| *m) {
                set[(b & 15) as usize] |= 1 << (b >> 4);
            }
        }
        Wide { sets, avx512: false }
    }

    /// The classes of the 64 bytes of `window`, which go into `lowered[..64]`
    /// with the capitals of the fourth class lowercased.
    #[inline]
    pub(super) fn masks(&self, window: &[u8; 64], lowered: &mut Lowered) -> Masks {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Wide` is only made (by `new`) where AVX2 was detected,
        // and with `avx512` set only where AVX-512 BW was.
        return unsafe {
            if self.avx512 {
                self.masks_avx512(window, lowered)
            } else {
                self.masks_avx2(window, lowered)
            }
        };
        #[cfg(not(target_arch = "x86_64"))]
        self.masks_scalar(window, lowered)
    }

    /// [`masks`](Self::masks) of a text's last `rest.len()` < 64 bytes, the
    /// window's bytes past them taken as spaces (the class of `b' '` in every
    /// reference), so that the text's last words go through a window too.
    /// AVX-512 loads only those bytes (a masked load); otherwise they are
    /// copied into a window of spaces first.
    #[inline]
    pub(super) fn masks_tail(&self, rest: &[u8], lowered: &mut Lowered) -> Masks {
        #[cfg(target_arch = "x86_64")]
        if self.avx512 && rest.len() < 64 {
            // SAFETY: `avx512` is set only where AVX-512 BW was detected; the
            // load reads `rest.len()` bytes, all within `rest`.
            return unsafe { self.tail_avx512(rest, lowered) };
        }
        let mut window = [b' '; 64];
        let n = rest.len().min(64);
        window[..n].copy_from_slice(&rest[..n]);
        self.masks(&window, lowered)
    }

    /// [`masks`](Self::masks) a byte at a time (the definition the vector versions are tested against).
    #[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
    pub(super) fn masks_scalar(&self, window: &[u8; 64], lowered: &mut Lowered) -> Masks {
        let mut m = [0u64; 4];
        for (k, &b) in window.iter().enumerate() {
            for (mask, set) in m.iter_mut().zip(&self.sets) {
                if b < 0x80 && set[(b & 15) as usize] >> (b >> 4) & 1 != 0 {
                    *mask |= 1 << k;
                }
            }
            lowered[k] = if m[3] >> k & 1 != 0 { b | 0x20 } else { b };
        }
        Masks { word: m[0], space: m[1], punct: m[2], upper: m[3] }
    }

    /// Per 32 bytes: each byte's low nibble picks a table row, its high
    /// nibble a bit of the row (a shuffle each; bytes >= 0x80 pick no bit).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn masks_avx2(&self, window: &[u8; 64], lowered: &mut Lowered) -> Masks {
        use std::arch::x86_64::*;
        let row = |t: &[u8; 16]| _mm256_broadcastsi128_si256(_mm_loadu_si128(t.as_ptr().cast()));
        let tables = [row(&self.sets[0]), row(&self.sets[1]), row(&self.sets[2]), row(&self.sets[3])];
        let bits = row(&BITS);
        let (nibble, zero, case) = (_mm256_set1_epi8(0x0F), _mm256_setzero_si256(), _mm256_set1_epi8(0x20));
        let mut m = [0u64; 4];
        for half in 0..2 {
            let v = _mm256_loadu_si256(window[32 * half..].as_ptr().cast());
            let lo = _mm256_and_si256(v, nibble);
            let bit = _mm256_shuffle_epi8(bits, _mm256_and_si256(_mm256_srli_epi16::<4>(v), nibble));
            let none = tables.map(|table| _mm256_cmpeq_epi8(_mm256_and_si256(_mm256_shuffle_epi8(table, lo), bit), zero));
            for (mask, none) in m.iter_mut().zip(none) {
                *mask |= (!(_mm256_movemask_epi8(none) as u32) as u64) << (32 * half);
            }
            // The last class: the capitals to lowercase.
            let low = _mm256_or_si256(v, _mm256_andnot_si256(none[3], case));
            _mm256_storeu_si256(lowered[32 * half..].as_mut_ptr().cast(), low);
        }
        Masks { word: m[0], space: m[1], punct: m[2], upper: m[3] }
    }

    /// The same in one 64-byte step, each class's test straight into a bit mask.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512bw")]
    unsafe fn masks_avx512(&self, window: &[u8; 64], lowered: &mut Lowered) -> Masks {
        self.classes_avx512(std::arch::x86_64::_mm512_loadu_si512(window.as_ptr().cast()), lowered)
    }

    /// The window of `rest` (< 64 bytes) and spaces after it, with a masked load.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512bw")]
    unsafe fn tail_avx512(&self, rest: &[u8], lowered: &mut Lowered) -> Masks {
        use std::arch::x86_64::*;
        let v = _mm512_mask_loadu_epi8(_mm512_set1_epi8(b' ' as i8), (1u64 << rest.len()) - 1, rest.as_ptr().cast());
        self.classes_avx512(v, lowered)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512bw")]
    #[inline]
    unsafe fn classes_avx512(&self, v: std::arch::x86_64::__m512i, lowered: &mut Lowered) -> Masks {
        use std::arch::x86_64::*;
        let row = |t: &[u8; 16]| _mm512_broadcast_i32x4(_mm_loadu_si128(t.as_ptr().cast()));
        let nibble = _mm512_set1_epi8(0x0F);
        let lo = _mm512_and_si512(v, nibble);
        let bit = _mm512_shuffle_epi8(row(&BITS), _mm512_and_si512(_mm512_srli_epi16::<4>(v), nibble));
        let class = |t: &[u8; 16]| _mm512_test_epi8_mask(_mm512_shuffle_epi8(row(t), lo), bit);
        let m = Masks { word: class(&self.sets[0]), space: class(&self.sets[1]), punct: class(&self.sets[2]), upper: class(&self.sets[3]) };
        _mm512_storeu_si512(lowered.as_mut_ptr().cast(), _mm512_or_si512(v, _mm512_maskz_mov_epi8(m.upper, _mm512_set1_epi8(0x20))));
        m
    }
}

impl Encoder {
    /// The words of the window at `i` (classes `m`, bytes as the words are
    /// read in `bytes`) that end inside it, as the word-at-a-time lane emits
    /// them; `chunk`: the lane's (start of the current chunk, ids before it),
    /// moved past each run of whitespace.
    /// Returns where the lane goes on (`i + 64`, or the first word or byte
    /// the window leaves) and whether the word-at-a-time lane takes the
    /// step from there: for a word running past the window a new window
    /// starts at the word, for anything else (which the word-at-a-time lane
    /// hands to the per-byte path) none is tried in vain.
    #[inline(always)]
    pub(super) fn window(&self, i: usize, m: Masks, bytes: &Lowered, chunk: &mut (usize, usize), out: &mut Vec<u32>, word: &mut impl Words) -> (usize, bool) {
        let other = !(m.word | m.space | m.punct);
        let mut p = 0; // the window's bytes before p are done
        loop {
            let q = (!m.space & (!0u64 << p)).trailing_zeros();
            if q != p {
                *chunk = (i + q as usize, out.len());
            }
            if q == 64 {
                return (i + 64, false);
            }
            let at = 1u64 << q;
            let q = q as usize;
            if m.punct & at != 0 {
                word.ascii8(bytes[q] as u64, 1, out);
                p = q as u32 + 1;
                if p == 64 {
                    return (i + 64, false);
                }
                continue;
            }
            let end = (!m.word & (!0u64 << q)).trailing_zeros();
            // Not a word, a word running past the window (or as long as
            // one), or one followed by a byte of another class.
            if m.word & at == 0 || end == 64 || other >> end & 1 != 0 {
                return (i + q, m.word & at == 0 || end < 64 || q == 0);
            }
            let len = end as usize - q;
            if len <= 8 {
                if let Some(b) = bytes.get(q..q + 8) {
                    let packed = u64::from_le_bytes(b.try_into().unwrap_or([0; 8])) & (u64::MAX >> (8 * (8 - len)));
                    word.ascii8(packed, len, out);
                    p = end;
                    continue;
                }
            }
            word.word(&bytes[q..end as usize], len, out);
            p = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalizer::{Reference, WordCase};

    /// The classes and the lowered copy, byte by byte, against the encoder's
    /// class table; the AVX2 and AVX-512 steps (where the CPU has them)
    /// against that definition, with and without lowercasing.
    #[test]
    fn wide_masks_equal_the_byte_classes() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for reference in [Reference::Google, Reference::Transformers, Reference::Tokenizers] {
            for lowercase in [true, false] {
                let e = Encoder::new(reference, WordCase { lowercase, strip_accents: true }, true, true);
                let wide = Wide::tables(&e.class, lowercase);
                let vector = Wide::new(&e.class, lowercase);
                #[cfg(target_arch = "x86_64")]
                assert_eq!(vector.as_ref().map(|w| w.avx512), std::arch::is_x86_feature_detected!("avx2").then(|| std::arch::is_x86_feature_detected!("avx512bw")));
                for _ in 0..5000 {
                    let mut window = [0u8; 64];
                    for b in window.iter_mut() {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        *b = if seed % 4 == 0 { seed as u8 >> 1 } else { (seed >> 8) as u8 };
                    }
                    let mut lowered = [0u8; 72];
                    let m = wide.masks_scalar(&window, &mut lowered);
                    for (k, &b) in window.iter().enumerate() {
                        let c = e.class[b as usize];
                        assert_eq!(m.word >> k & 1 != 0, c == WORD, "{b:#x}");
                        assert_eq!(m.space >> k & 1 != 0, c == SPACE, "{b:#x}");
                        assert_eq!(m.punct >> k & 1 != 0, c == PUNCT, "{b:#x}");
                        assert_eq!(m.upper >> k & 1 != 0, lowercase && b.is_ascii_uppercase(), "{b:#x}");
                        assert_eq!(lowered[k], if lowercase { b.to_ascii_lowercase() } else { b }, "{b:#x}");
                    }
                    // A text's tail: its bytes, then spaces.
                    let cut = (seed >> 40) as usize % 64;
                    let mut padded = [b' '; 64];
                    padded[..cut].copy_from_slice(&window[..cut]);
                    let mut tail_lowered = [0u8; 72];
                    let tail = wide.masks_scalar(&padded, &mut tail_lowered);
                    for w in vector.iter().flat_map(|w| [w.clone(), w.avx2_only()]) {
                        let mut got = [0xA5u8; 72];
                        assert_eq!(w.masks(&window, &mut got), m, "avx512: {}", w.avx512);
                        assert_eq!(got[..64], lowered[..64], "avx512: {}", w.avx512);
                        assert_eq!(w.masks_tail(&window[..cut], &mut got), tail, "avx512: {}, {cut} bytes", w.avx512);
                        assert_eq!(got[..64], tail_lowered[..64], "avx512: {}, {cut} bytes", w.avx512);
                    }
                }
            }
        }
    }
}
