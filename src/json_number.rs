//! serde_json's reading of a JSON float literal (1.0.154 without its
//! `float_roundtrip` feature, as the core and tokenizers build it), for the
//! literals where that reading is plain arithmetic: at most 19 digits (each
//! then fits its u64 significand exactly) and an exponent of at most 9 digits.
//! Its result is `significand as f64` times or over a power of ten (two
//! roundings: not always the nearest f64 to the text). The text passes
//! (json_text.rs) read every score of a vocabulary; through
//! `serde_json::from_str` that was a sixth of their time. Anything else
//! (more digits, invalid text) is None: the caller asks serde_json itself.

use std::sync::OnceLock;

/// serde_json's `POW10`: 1e0 ..= 1e308, each the nearest f64 (as Rust parses them).
fn pow10() -> &'static [f64; 309] {
    static TABLE: OnceLock<[f64; 309]> = OnceLock::new();
    TABLE.get_or_init(|| std::array::from_fn(|k| format!("1e{k}").parse().unwrap_or(f64::INFINITY)))
}

fn digits(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    i
}

/// `significand` followed by the decimal `digits` (all ASCII digits; the
/// result fits in a u64): eight at a time where it can (SWAR), one by one after.
fn accumulate(mut significand: u64, digits: &[u8]) -> u64 {
    let mut chunks = digits.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        // 8 ASCII digits, first digit in the low byte -> their value (Lemire's method)
        let mut v = u64::from_le_bytes(word).wrapping_sub(0x3030_3030_3030_3030);
        v = v.wrapping_mul(10).wrapping_add(v >> 8);
        v = ((v & 0x0000_00FF_0000_00FF).wrapping_mul(100 + (1_000_000 << 32))
            .wrapping_add(((v >> 16) & 0x0000_00FF_0000_00FF).wrapping_mul(1 + (10_000 << 32))))
            >> 32;
        significand = significand * 100_000_000 + v;
    }
    for &c in chunks.remainder() {
        significand = significand * 10 + u64::from(c - b'0');
    }
    significand
}

/// The f64 serde_json reads from `literal` (a JSON number with a fraction or
/// an exponent), where it is plain arithmetic; None otherwise (also for text
/// that is not a JSON number, and for a value serde_json finds out of range).
pub(crate) fn serde_f64(literal: &[u8]) -> Option<f64> {
    let negative = literal.first() == Some(&b'-');
    let start = usize::from(negative);
    let int_end = digits(literal, start);
    // JSON's integer part: "0" or a digit 1-9 and more digits
    if int_end == start || (literal[start] == b'0' && int_end > start + 1) {
        return None;
    }
    let mut i = int_end;
    let mut frac_len = 0;
    if literal.get(i) == Some(&b'.') {
        let frac_end = digits(literal, i + 1);
        frac_len = frac_end - i - 1;
        if frac_len == 0 {
            return None;
        }
        i = frac_end;
    }
    if int_end - start + frac_len > 19 {
        return None;
    }
    let mut exponent = -(frac_len as i32);
    if matches!(literal.get(i), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(literal.get(i + 1), Some(b'+' | b'-')));
        let exp_end = digits(literal, i + 1 + sign);
        let exp_len = exp_end - (i + 1 + sign);
        if exp_len == 0 || exp_len > 9 {
            return None;
        }
        let mut exp: i32 = 0;
        for &c in &literal[i + 1 + sign..exp_end] {
            exp = exp * 10 + i32::from(c - b'0');
        }
        exponent += if sign == 1 && literal[i + 1] == b'-' { -exp } else { exp };
        i = exp_end;
    }
    if i != literal.len() {
        return None;
    }
    let fraction = if frac_len > 0 { &literal[int_end + 1..int_end + 1 + frac_len] } else { &[][..] };
    let significand = accumulate(accumulate(0, &literal[start..int_end]), fraction);
    // serde_json's f64_from_parts
    let table = pow10();
    let mut f = significand as f64;
    loop {
        match table.get(exponent.unsigned_abs() as usize) {
            Some(&pow) => {
                if exponent >= 0 {
                    f *= pow;
                    if f.is_infinite() {
                        return None;
                    }
                } else {
                    f /= pow;
                }
                break;
            }
            None => {
                if f == 0.0 {
                    break;
                }
                if exponent >= 0 {
                    return None;
                }
                f /= 1e308;
                exponent += 308;
            }
        }
    }
    Some(if negative { -f } else { f })
}

#[cfg(test)]
mod tests {
    use super::serde_f64;

    fn serde(literal: &str) -> Option<f64> {
        serde_json::from_str::<f64>(literal).ok()
    }

    #[test]
    fn reads_as_serde_json_reads() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut literals: Vec<String> = [
            "0.0", "-0.0", "1.5", "1.50", "0.1", "1e5", "1E+5", "1e-5", "-7.3246283531188965", "2.5e-300", "1e308",
            "1e309", "1.7976931348623157e308", "5e-324", "4e-325", "1e-400", "0e999999999", "12345678901234567890.5",
            "1234567890123456789.5", "9999999999999999999e-5", "00.5", "01.5", "1.", ".5", "1e", "1e+", "-", "--1",
            "1.5e5.5", "1.5.5", "+1.5", "1e0000000005", "1ee5", "-1.5e-5", "0.000015",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for _ in 0..200_000 {
            let r = next();
            let x = f64::from_bits(r);
            if x.is_finite() {
                literals.push(serde_json::to_string(&x).unwrap_or_default());
                literals.push(format!("{x:e}"));
            }
            let digits = (r % 22) as usize + 1;
            let mantissa: String = (0..digits).map(|k| char::from(b'0' + ((r >> (k * 2)) % 10) as u8)).collect();
            let point = (r >> 50) as usize % (digits + 1);
            let exp = ((r >> 40) % 700) as i64 - 350;
            let (int, frac) = mantissa.split_at(point.max(1));
            literals.push(format!("{int}.{frac}0e{exp}"));
            literals.push(format!("-{}.{}5", &mantissa[..1], &mantissa[1..]));
        }
        let mut fast = 0;
        for literal in &literals {
            let ours = serde_f64(literal.as_bytes());
            if let Some(x) = ours {
                fast += 1;
                assert_eq!(Some(x.to_bits()), serde(literal).map(f64::to_bits), "{literal}");
            }
        }
        assert!(fast > literals.len() / 2, "{fast} of {}", literals.len()); // most take the plain path
        for literal in ["-7.3246283531188965", "0.000015", "1.5", "2.5e-300", "-0.0", "1e-400"] {
            assert!(serde_f64(literal.as_bytes()).is_some(), "{literal}");
        }
    }
}
