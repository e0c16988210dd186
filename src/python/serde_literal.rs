//! `serde_exact_literal`: a JSON literal that serde_json — the reader the
//! core compiles tokenizer.json with — reads as exactly a given f64. The
//! Python search (tokenizers_api/serialization.py) asks here first: a trained
//! Unigram model's 32,000 scores took it seconds through its pure-Python
//! reading of each candidate; this reads them with serde_json itself.

use pyo3::prelude::*;

fn reads_as(literal: &str, x: f64) -> bool {
    serde_json::from_str::<f64>(literal).is_ok_and(|v| v.to_bits() == x.to_bits())
}

/// `repr` (Python's repr of `x`) if serde_json reads it as `x`; else a literal
/// `digits e-k` of 17, 18 or 19 significant digits within 64 units of the
/// last digit of `x`'s exact value, nearest first, that it reads as `x`;
/// None where none of those does (the caller searches on).
#[pyfunction]
pub(super) fn serde_exact_literal(x: f64, repr: &str) -> Option<String> {
    if !x.is_finite() || x == 0.0 {
        return reads_as(repr, x).then(|| repr.to_string());
    }
    if reads_as(repr, x) {
        return Some(repr.to_string());
    }
    let sign = if x < 0.0 { "-" } else { "" };
    for digits in 17..=19usize {
        // x's exact value rounded to `digits` significant digits: d.ddd…e±E
        let text = format!("{:.*e}", digits - 1, x.abs());
        let (mantissa, exp) = text.split_once('e')?;
        let start: i128 = mantissa.replace('.', "").parse().ok()?;
        let exp: i64 = exp.parse().ok()?;
        let k = digits as i64 - 1 - exp;
        for step in 0..=128i128 {
            // 0, -1, 1, -2, 2, … as the Python search goes
            let delta = if step % 2 == 1 { -(step + 1) / 2 } else { step / 2 };
            let candidate = start + delta;
            if candidate <= 0 {
                continue;
            }
            let literal = format!("{sign}{candidate}e{}", -k);
            if reads_as(&literal, x) {
                return Some(literal);
            }
        }
    }
    None
}
