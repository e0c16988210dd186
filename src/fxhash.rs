//! A small fast hash (the multiply-rotate scheme of rustc's FxHash, with a
//! full finalizer) for the vocabulary's tables: keys are short byte strings
//! from the vocabulary, and SipHash dominated load time.

use std::hash::{BuildHasherDefault, Hasher};

const K: u64 = 0x517C_C1B7_2722_0A95;

#[inline]
fn mix(h: u64, w: u64) -> u64 {
    (h.rotate_left(5) ^ w).wrapping_mul(K)
}

/// Hash of a byte string, eight bytes at a time (little-endian words).
#[inline]
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        h = mix(h, c.iter().rev().fold(0, |w, &b| (w << 8) | b as u64));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        h = mix(h, rest.iter().rev().fold(0, |w, &b| (w << 8) | b as u64));
    }
    finish(h)
}

/// MurmurHash3's 64-bit finalizer: the multiply-rotate rounds leave the low
/// bits depending on the first bytes only, and tables index by the low bits.
#[inline]
fn finish(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
}

/// `std::hash::Hasher` over the same mixing, for `HashMap`s.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.0 = mix(self.0, hash_bytes(bytes));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.0 = mix(self.0, n as u64);
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = mix(self.0, n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.0 = mix(self.0, n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        finish(self.0)
    }
}

pub type FxBuildHasher = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = std::collections::HashMap<K, V, FxBuildHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_differing_late_spread_over_the_low_bits() {
        // Same length and first six bytes: the low bits (what tables index by) must still differ.
        let keys: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b'a', b'b', b'c', b'd', b'e', b'f', b'g', b]).collect();
        let low: std::collections::HashSet<u64> = keys.iter().map(|k| hash_bytes(k) & 0xFFF).collect();
        assert!(low.len() > 200, "{} distinct low-bit patterns of 256", low.len());
    }
}
