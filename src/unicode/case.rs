//! Python's `str.lower()`: full case mappings, and capital sigma in the
//! Final_Sigma context.

use super::{has, Tables, PYTHON};
use crate::unicode_tables as t;

impl Tables {
    /// The context-free full lowercase mapping of `cp`, appended to `out`.
    #[inline]
    pub fn lower_char_into(&self, cp: u32, out: &mut Vec<u32>) {
        if cp < 0x80 {
            out.push(if (b'A' as u32..=b'Z' as u32).contains(&cp) { cp + 32 } else { cp });
        } else if self.has(cp, t::HAS_LOWER) {
            match self.lower.binary_search_by_key(&cp, |e| e.0) {
                Ok(k) => out.extend(self.lower[k].1.iter().copied().take_while(|&c| c != 0)),
                Err(_) => out.push(cp),
            }
        } else {
            out.push(cp);
        }
    }

    /// Context-free lowercase of each code point as edits (first char 0, others inserted).
    pub fn lower_edits(&self, text: &[u32], out: &mut Vec<(u32, i32)>) {
        let mut buf = Vec::with_capacity(3);
        for &cp in text {
            buf.clear();
            self.lower_char_into(cp, &mut buf);
            out.extend(buf.iter().enumerate().map(|(i, &c)| (c, (i > 0) as i32)));
        }
    }
}

pub const CAPITAL_SIGMA: u32 = 0x03A3;
const SMALL_SIGMA: u32 = 0x03C3;
const FINAL_SIGMA: u32 = 0x03C2;

/// Python `str.lower()` of `word`, appended to `out`: full case mappings, and
/// capital sigma in CPython's Final_Sigma context (`handle_capital_sigma`)
/// becomes final sigma. The context is `word` itself.
pub fn lower_into(word: &[u32], out: &mut Vec<u32>) {
    let mut edits = Vec::with_capacity(word.len());
    lower_edits(word, &mut edits);
    out.extend(edits.iter().map(|e| e.0));
}

/// [`lower_into`] as edits (see `aligned.rs`).
pub fn lower_edits(word: &[u32], out: &mut Vec<(u32, i32)>) {
    for (i, &cp) in word.iter().enumerate() {
        if cp == CAPITAL_SIGMA {
            out.push((if is_final_sigma(word, i) { FINAL_SIGMA } else { SMALL_SIGMA }, 0));
        } else {
            PYTHON.lower_edits(std::slice::from_ref(&cp), out);
        }
    }
}

/// CPython: \p{cased} \p{case-ignorable}* U+03A3 !(\p{case-ignorable}* \p{cased}).
fn is_final_sigma(word: &[u32], i: usize) -> bool {
    let before = word[..i].iter().rev().find(|&&c| !has(c, t::IGNORABLE));
    if !before.is_some_and(|&c| has(c, t::CASED)) {
        return false;
    }
    let after = word[i + 1..].iter().find(|&&c| !has(c, t::IGNORABLE));
    !after.is_some_and(|&c| has(c, t::CASED))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cps(s: &str) -> Vec<u32> {
        s.chars().map(|c| c as u32).collect()
    }

    fn lower(s: &str) -> Vec<u32> {
        let mut out = Vec::new();
        lower_into(&cps(s), &mut out);
        out
    }

    #[test]
    fn lowercase_uses_full_mappings_and_final_sigma() {
        assert_eq!(lower("ABC"), cps("abc"));
        assert_eq!(lower("\u{130}"), cps("i\u{307}"));
        assert_eq!(lower("ΟΔΟΣ"), cps("οδος"));
        assert_eq!(lower("Σ"), cps("σ"));
        assert_eq!(lower("ΑΣ\u{301}Α"), cps("ασ\u{301}α"));
        assert_eq!(lower("Α\u{301}Σ"), cps("α\u{301}ς"));
    }
}
