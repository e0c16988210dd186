//! A word packed into little-endian words for the memo's tables, and its set.

/// A word packed for a table: comparing keys compares words.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Key<const W: usize> {
    pub(super) words: [u64; W],
    pub(super) len: u8,
}

impl<const W: usize> Key<W> {
    /// `word` must be 1..=8·W bytes. Whole 16-byte pieces, then the rest
    /// loaded as overlapping pieces rather than a byte loop.
    #[inline]
    pub fn new(word: &[u8]) -> Self {
        debug_assert!((1..=8 * W).contains(&word.len()));
        let mut words = [0u64; W];
        let (mut rest, mut k) = (word, 0);
        while rest.len() > 16 && k + 2 < W {
            words[k] = le8(rest, 0);
            words[k + 1] = le8(rest, 8);
            (rest, k) = (&rest[16..], k + 2);
        }
        let [a, b] = pack16(rest);
        words[k] = a;
        if k + 1 < W {
            words[k + 1] = b;
        }
        Key { words, len: word.len() as u8 }
    }

    /// The key of a word of `len` (1..=8) bytes given as `packed` (byte k
    /// in bits 8k..8k+8, zero above the word): what [`new`](Self::new) makes
    /// of those bytes.
    #[inline(always)]
    pub fn packed8(packed: u64, len: usize) -> Self {
        debug_assert!((1..=8).contains(&len) && (len == 8 || packed >> (8 * len) == 0));
        let mut words = [0u64; W];
        words[0] = packed;
        Key { words, len: len as u8 }
    }

    /// The set of this key in a table of `sets` sets (a power of two): the
    /// top bits of a sum of products, one odd multiplier per word (the top
    /// bits of a product depend on all bits of the word).
    #[inline(always)]
    pub(super) fn set(&self, sets: usize) -> usize {
        const MUL: [u64; 4] = [0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x27D4_EB2F_1656_67C5];
        let mut h = (self.len as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        for (k, w) in self.words.iter().enumerate() {
            h = h.wrapping_add(w.wrapping_mul(MUL[k % 4]));
        }
        (h >> (64 - sets.trailing_zeros())) as usize
    }
}

#[inline]
fn le8(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]))
}

/// 1..=16 bytes as two words, byte `i` at position `i`, zero padded.
#[inline]
fn pack16(word: &[u8]) -> [u64; 2] {
    let n = word.len();
    let le4 = |at: usize| u32::from_le_bytes(word[at..at + 4].try_into().unwrap_or([0; 4])) as u64;
    if n > 8 {
        // Bytes n-8..n, moved down to positions 8..n of the second word.
        [le8(word, 0), le8(word, n - 8) >> (8 * (16 - n))]
    } else if n == 8 {
        [le8(word, 0), 0]
    } else if n >= 4 {
        [le4(0) | le4(n - 4) << (8 * (n - 4)), 0]
    } else if n > 0 {
        let (a, b, c) = (word[0] as u64, word[n / 2] as u64, word[n - 1] as u64);
        [a | b << (8 * (n / 2)) | c << (8 * (n - 1)), 0]
    } else {
        [0, 0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_words_of_up_to_eight_bytes_are_their_keys() {
        for len in 1..=8 {
            for seed in 0..50u64 {
                let word: Vec<u8> = (0..len as u64).map(|k| (seed * 31 + k * 7) as u8 | 1).collect();
                let mut packed = [0u8; 8];
                packed[..len].copy_from_slice(&word);
                let packed = u64::from_le_bytes(packed);
                assert!(Key::<2>::packed8(packed, len) == Key::<2>::new(&word), "{word:?}");
                assert!(Key::<1>::packed8(packed, len) == Key::<1>::new(&word), "{word:?}"); // the tiny table's keys
                assert_eq!(Key::<2>::packed8(packed, len).set(16384), Key::<2>::new(&word).set(16384));
            }
        }
    }

    #[test]
    fn keys_are_the_words() {
        // Every length, and words differing in one byte at every position, pack differently.
        let mut seen = std::collections::HashSet::new();
        for n in 1..=crate::word_cache::MAX_BYTES {
            let base: Vec<u8> = (0..n as u8).map(|i| b'a' + i).collect();
            let key = |w: &[u8]| Key::<4>::new(w).words;
            assert!(seen.insert((key(&base), n)));
            for at in 0..n {
                let mut w = base.clone();
                w[at] = b'Z';
                assert!(seen.insert((key(&w), n)), "{:?}", String::from_utf8_lossy(&w));
                // The byte lands at its own position.
                assert_eq!((key(&w)[at / 8] >> (8 * (at % 8))) as u8, b'Z');
                if n <= 16 {
                    assert_eq!(Key::<2>::new(&w).words, key(&w)[..2]);
                }
            }
        }
        // Zero padding does not confuse "a" with "a\0": lengths differ.
        assert!(Key::<2>::new(b"a") != Key::<2>::new(b"a\0"));
    }
}
