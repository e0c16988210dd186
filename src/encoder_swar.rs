//! Eight bytes at a time: which bytes of a little-endian word are ASCII
//! letters or digits, and which are capitals (for the ASCII lane's word runs).

/// The high bit of each byte of `w` that is not an ASCII letter or digit
/// (SWAR: per-byte range tests whose sums never carry into the next byte).
#[inline]
pub(super) fn not_alnum(w: u64) -> u64 {
    let x = w & !HIGH;
    let digit = within(x, b'0', b'9');
    let letter = within(x | (0x20 * ONES), b'a', b'z');
    (!(digit | letter) & HIGH) | (w & HIGH)
}

/// The high bit of each byte of `w` that is an ASCII capital letter.
#[inline]
pub(super) fn ascii_upper(w: u64) -> u64 {
    within(w & !HIGH, b'A', b'Z') & !w
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` (all bytes < 0x80) in `lo..=hi`.
#[inline]
fn within(x: u64, lo: u8, hi: u8) -> u64 {
    (x + (0x80 - lo as u64) * ONES) & !(x + (0x7F - hi as u64) * ONES) & HIGH
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn swar_tests_match_the_byte_predicates() {
        let mut seed = 7u64;
        for _ in 0..20_000 {
            let w = rng(&mut seed) & if rng(&mut seed) % 2 == 0 { !HIGH } else { !0 };
            let bytes = w.to_le_bytes();
            for (k, &b) in bytes.iter().enumerate() {
                assert_eq!(not_alnum(w) >> (8 * k) & 0x80 != 0, !b.is_ascii_alphanumeric(), "{b:#x}");
                assert_eq!(ascii_upper(w) >> (8 * k) & 0x80 != 0, b.is_ascii_uppercase(), "{b:#x}");
            }
        }
    }
}
