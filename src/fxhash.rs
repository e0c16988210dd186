//! A small fast hash (the multiply-rotate scheme of rustc's FxHash) for the
//! vocabulary's tables: keys are short byte strings, not attacker-chosen in a
//! way that matters here, and SipHash dominated load time.

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
    h ^ (h >> 29)
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
        self.0
    }
}

pub type FxBuildHasher = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = std::collections::HashMap<K, V, FxBuildHasher>;
