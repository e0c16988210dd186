//! A JSON number serde_json reads as exactly a given f64: serialization.py's
//! `serde_exact_literal` search (the same candidates, in u128 arithmetic where
//! they fit), each checked by serde_json's own reading. `None`: a candidate
//! did not fit, and Python's search (big integers) decides.

/// `x` = `m` * 2**`e` exactly, `m` an integer (x finite, nonzero).
fn parts(x: f64) -> (u64, i32) {
    let bits = x.abs().to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if exp == 0 { (frac, -1074) } else { (frac | (1u64 << 52), exp - 1075) }
}

fn pow10(k: u32) -> Option<u128> {
    10u128.checked_pow(k)
}

/// `m * 10**k / 2**s` as (quotient rounded to nearest, half to even) and the exact product; None past u128.
fn scaled(m: u64, e: i32, k: i32) -> Option<(u128, u128)> {
    if k < 0 || e > 0 {
        return None; // |x| >= 2**53 or a negative power of ten: Python's integers decide
    }
    let product = (m as u128).checked_mul(pow10(k as u32)?)?;
    let s = (-e) as u32;
    if s >= 127 {
        return None;
    }
    let (q, r, half) = (product >> s, product & ((1u128 << s) - 1), if s == 0 { 0 } else { 1u128 << (s - 1) });
    let q = if s > 0 && (r > half || (r == half && q & 1 == 1)) { q + 1 } else { q };
    Some((q, product))
}

fn reads_as(literal: &str, x: f64) -> bool {
    serde_json::from_str::<f64>(literal).map(f64::to_bits).ok() == Some(x.to_bits())
}

/// The first-loop search below without a string per candidate: serde_json
/// reads `s e-k` (`s` < 2**64, 0 <= k <= 308) as `s as f64 / 1e k`; a hit is
/// checked by serde_json's own reading, and a miss leaves the full search to run.
fn first_candidates_quickly(x: f64, m: u64, e: i32, exp10: i32) -> Option<String> {
    let target = x.abs();
    for digits in [17, 18, 19] {
        let k = digits - 1 - exp10;
        if !(0..=308).contains(&k) {
            return None;
        }
        let pow: f64 = format!("1e{k}").parse().ok()?;
        let (start, _) = scaled(m, e, k)?;
        for d in 0..=64u128 {
            for s in [start.checked_sub(d), if d == 0 { None } else { start.checked_add(d) }].into_iter().flatten() {
                if s > 0 && s < (1u128 << 64) && (s as u64 as f64) / pow == target {
                    let literal = format!("{s}e{}", -k);
                    if reads_as(&literal, target) {
                        return Some(literal);
                    }
                }
            }
        }
    }
    None
}

/// Some(Some(literal)) found; Some(None): no candidate reads as `x` (Python's
/// search finds none either: the same candidates); None: not all fit.
pub fn exact_literal(x: f64) -> Option<Option<String>> {
    if !x.is_finite() || x == 0.0 {
        return None;
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let (m, e) = parts(x);
    let exp10 = x.abs().log10().floor() as i32; // as Python's math.log10 of the value
    if let Some(found) = first_candidates_quickly(x, m, e, exp10) {
        return Some(Some(format!("{sign}{found}")));
    }
    for digits in [17, 18, 19] {
        let k = digits - 1 - exp10;
        let (start, _) = scaled(m, e, k)?;
        let start = i128::try_from(start).ok()?;
        for d in 0..=64i128 {
            for delta in if d == 0 { vec![0] } else { vec![-d, d] } {
                if start + delta > 0 {
                    let literal = format!("{sign}{}e{}", start + delta, -k);
                    if reads_as(&literal, x) {
                        return Some(Some(literal));
                    }
                }
            }
        }
    }
    for k in (-exp10 - 1)..(-exp10 + 21) {
        if k < 0 {
            // |x| / 10**j (|x| >= 1): 10**j is an exact f64 for j <= 22, so one IEEE division is
            // Python's float() of the exact quotient, and `|x| >= 10**j` its `1 <= scaled` exactly.
            let j = k.unsigned_abs();
            let p = pow10(j).filter(|_| j <= 22)? as f64;
            if x.abs() < p {
                continue; // Python: 1 <= scaled (and |x| < 2**53, checked above: < 2**64)
            }
            if let Some(found) = integer_candidate(x.abs() / p, sign, k, x) {
                return Some(Some(found));
            }
            continue;
        }
        let (_, product) = scaled(m, e, k)?;
        let s = -e;
        // float(x * 10**k): the product rounded once (u128 -> f64), then scaled by 2**-s exactly.
        let near = product as f64 / 2f64.powi(s);
        if !(near.is_finite() && 2f64.powi(s).is_finite()) {
            return None;
        }
        let exact = (product >> s as u32, product & ((1u128 << s as u32) - 1));
        if exact.0 == 0 || exact.0 >> 64 != 0 {
            continue; // Python: 1 <= scaled < 2**64
        }
        if let Some(found) = integer_candidate(near, sign, k, x) {
            return Some(Some(found));
        }
    }
    Some(None)
}

/// Python's `for f in (near, nextafter(near, 0), nextafter(near, inf))`: an integer `f` < 2**64
/// whose `f e-k` serde_json reads as `x`.
fn integer_candidate(near: f64, sign: &str, k: i32, x: f64) -> Option<String> {
    for f in [near, near.next_down(), near.next_up()] {
        if f.fract() == 0.0 && f < 18446744073709551616.0 {
            let literal = format!("{sign}{}e{}", f as u64, -k);
            if reads_as(&literal, x) {
                return Some(literal);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_literal_serde_reads_exactly() {
        let x = -12.595208168029785f64;
        assert!(!reads_as("-12.595208168029785", x));
        let found = exact_literal(x).unwrap().unwrap();
        assert!(reads_as(&found, x), "{found}");
        assert_eq!(exact_literal(0.0), None);
        assert_eq!(exact_literal(1e300), None); // past u128: Python decides
    }

    #[test]
    fn runs_the_negative_powers_of_ten_for_scores_of_one_and_more() {
        // Python's search (serialization.py) gives these; the core used to hand them to it.
        let found = exact_literal(-15.327174186706543).unwrap().unwrap();
        assert_eq!(found, "-15327174186706542592e-18");
        assert_eq!(exact_literal(-14.782562255859375), Some(None)); // no literal reads as it
    }
}
