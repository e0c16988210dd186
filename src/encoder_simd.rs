//! The ASCII lane 64 bytes at a time, where the CPU has AVX2 (detected once,
//! when the encoder is built): the window's bytes classified into bit masks
//! (word bytes, whitespace, punctuation, capitals) with two table lookups
//! per class, and its words walked by trailing-zero counts, so whitespace
//! costs no step of its own. Whatever the window cannot finish (a word
//! running past it, a word of 64 bytes or more, a byte of another class)
//! goes to the word-at-a-time lane (`encoder_chunks.rs`) from the same
//! position, which stays the path this one is tested against.

use super::swar::ascii_upper;
use super::{Encoder, Words, PUNCT, SPACE, WORD};

/// A window's classes: bit k is byte k of the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Masks {
    word: u64,
    space: u64,
    punct: u64,
    upper: u64,
}

/// The classes of the ASCII bytes as nibble tables: for each of word,
/// whitespace, punctuation and capital, `sets[c][b & 15]` has bit `b >> 4`
/// set when byte `b` is in the class (bytes >= 0x80 are in none).
#[derive(Clone, Debug)]
pub(crate) struct Wide {
    sets: [[u8; 16]; 4],
}

impl Wide {
    /// The tables for these byte classes, or None where the CPU lacks AVX2.
    pub(super) fn new(class: &[u8; 256]) -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Some(Self::tables(class));
        }
        let _ = class;
        None
    }

    pub(super) fn tables(class: &[u8; 256]) -> Self {
        let mut sets = [[0u8; 16]; 4];
        for b in 0..128u8 {
            let member = [class[b as usize] == WORD, class[b as usize] == SPACE, class[b as usize] == PUNCT, b.is_ascii_uppercase()];
            for (set, _) in sets.iter_mut().zip(member).filter(|(_, m)| *m) {
                set[(b & 15) as usize] |= 1 << (b >> 4);
            }
        }
        Wide { sets }
    }

    /// The classes of the 64 bytes of `window`.
    #[inline]
    pub(super) fn masks(&self, window: &[u8; 64]) -> Masks {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Wide` is only made (by `new`) where AVX2 was detected.
        return unsafe { self.masks_avx2(window) };
        #[cfg(not(target_arch = "x86_64"))]
        self.masks_scalar(window)
    }

    /// [`masks`](Self::masks) a byte at a time (the definition the AVX2 version is tested against).
    #[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
    pub(super) fn masks_scalar(&self, window: &[u8; 64]) -> Masks {
        let mut m = [0u64; 4];
        for (k, &b) in window.iter().enumerate() {
            for (mask, set) in m.iter_mut().zip(&self.sets) {
                if b < 0x80 && set[(b & 15) as usize] >> (b >> 4) & 1 != 0 {
                    *mask |= 1 << k;
                }
            }
        }
        Masks { word: m[0], space: m[1], punct: m[2], upper: m[3] }
    }

    /// Per 32 bytes: each byte's low nibble picks a table row, its high
    /// nibble a bit of the row (a shuffle each; bytes >= 0x80 pick no bit).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn masks_avx2(&self, window: &[u8; 64]) -> Masks {
        use std::arch::x86_64::*;
        let row = |t: &[u8; 16]| _mm256_broadcastsi128_si256(_mm_loadu_si128(t.as_ptr().cast()));
        let tables = [row(&self.sets[0]), row(&self.sets[1]), row(&self.sets[2]), row(&self.sets[3])];
        let bits = row(&[1, 2, 4, 8, 16, 32, 64, 128, 0, 0, 0, 0, 0, 0, 0, 0]);
        let (nibble, zero) = (_mm256_set1_epi8(0x0F), _mm256_setzero_si256());
        let mut m = [0u64; 4];
        for half in 0..2 {
            let v = _mm256_loadu_si256(window[32 * half..].as_ptr().cast());
            let lo = _mm256_and_si256(v, nibble);
            let bit = _mm256_shuffle_epi8(bits, _mm256_and_si256(_mm256_srli_epi16::<4>(v), nibble));
            for (mask, table) in m.iter_mut().zip(&tables) {
                let none = _mm256_cmpeq_epi8(_mm256_and_si256(_mm256_shuffle_epi8(*table, lo), bit), zero);
                *mask |= (!(_mm256_movemask_epi8(none) as u32) as u64) << (32 * half);
            }
        }
        Masks { word: m[0], space: m[1], punct: m[2], upper: m[3] }
    }
}

impl Encoder {
    /// The words of `text[i..i + 64]` (classes `m`) that end inside it, as
    /// the word-at-a-time lane emits them; `chunk`: the lane's (start of the
    /// current chunk, ids before it), moved past each run of whitespace.
    /// Returns where the lane goes on (`i + 64`, or the first word or byte
    /// the window leaves) and whether the word-at-a-time lane takes the
    /// step from there: for a word running past the window a new window
    /// starts at the word, for anything else (which the word-at-a-time lane
    /// hands to the per-byte path) none is tried in vain.
    #[inline(always)]
    pub(super) fn window(&self, text: &[u8], i: usize, m: Masks, chunk: &mut (usize, usize), out: &mut Vec<u32>, word: &mut impl Words) -> (usize, bool) {
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
            if m.punct & at != 0 {
                word.ascii8(text[i + q as usize] as u64, 1, out);
                p = q + 1;
                if p == 64 {
                    return (i + 64, false);
                }
                continue;
            }
            let end = (!m.word & (!0u64 << q)).trailing_zeros();
            // Not a word, a word running past the window (or as long as
            // one), or one followed by a byte of another class.
            if m.word & at == 0 || end == 64 || other >> end & 1 != 0 {
                return (i + q as usize, m.word & at == 0 || end < 64 || q == 0);
            }
            let (start, len) = (i + q as usize, (end - q) as usize);
            let lower = self.case.lowercase && m.upper & (!0u64 << q) & !(!0u64 << end) != 0;
            if len <= 8 {
                if let Some(bytes) = text.get(start..start + 8) {
                    let mut packed = u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8])) & (u64::MAX >> (8 * (8 - len)));
                    if lower {
                        packed |= ascii_upper(packed) >> 2; // 'A'..='Z' | 0x20
                    }
                    word.ascii8(packed, len, out);
                    p = end;
                    continue;
                }
            }
            let run = &text[start..start + len];
            if lower {
                let mut lowered = [0u8; 64];
                for (d, c) in lowered.iter_mut().zip(run) {
                    *d = c.to_ascii_lowercase();
                }
                word.word(&lowered[..len], len, out);
            } else {
                word.word(run, len, out);
            }
            p = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalizer::{Reference, WordCase};

    #[test]
    fn wide_masks_equal_the_byte_classes() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for reference in [Reference::Google, Reference::Transformers, Reference::Tokenizers] {
            let e = Encoder::new(reference, WordCase { lowercase: true, strip_accents: true }, true, true);
            let wide = Wide::tables(&e.class);
            for _ in 0..5000 {
                let mut window = [0u8; 64];
                for b in window.iter_mut() {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    *b = if seed % 4 == 0 { seed as u8 >> 1 } else { (seed >> 8) as u8 };
                }
                let m = wide.masks_scalar(&window);
                for (k, &b) in window.iter().enumerate() {
                    let c = e.class[b as usize];
                    assert_eq!(m.word >> k & 1 != 0, c == WORD, "{b:#x}");
                    assert_eq!(m.space >> k & 1 != 0, c == SPACE, "{b:#x}");
                    assert_eq!(m.punct >> k & 1 != 0, c == PUNCT, "{b:#x}");
                    assert_eq!(m.upper >> k & 1 != 0, b.is_ascii_uppercase(), "{b:#x}");
                }
                if let Some(w) = Wide::new(&e.class) {
                    assert_eq!(w.masks(&window), m);
                }
            }
        }
    }
}
