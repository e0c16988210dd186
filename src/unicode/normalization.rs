//! Canonical decomposition (NFD) and composition (NFC), with spans kept
//! through them for offsets.

use super::{has, props, Tables, PYTHON};
use crate::aligned::Aligned;
use crate::unicode_tables as t;

// Hangul syllable (de)composition is algorithmic (Unicode ch. 3.12).
const S_BASE: u32 = 0xAC00;
const L_BASE: u32 = 0x1100;
const V_BASE: u32 = 0x1161;
const T_BASE: u32 = 0x11A7;
const L_COUNT: u32 = 19;
const V_COUNT: u32 = 21;
const T_COUNT: u32 = 28;
const N_COUNT: u32 = V_COUNT * T_COUNT;
const S_COUNT: u32 = L_COUNT * N_COUNT;

impl Tables {
    /// Appends the full canonical decomposition of `cp` (unordered) to `out`.
    fn decompose_into(&self, cp: u32, out: &mut Vec<u32>) {
        if !self.has(cp, t::DECOMPOSES) {
            out.push(cp);
        } else if (S_BASE..S_BASE + S_COUNT).contains(&cp) {
            let s = cp - S_BASE;
            out.push(L_BASE + s / N_COUNT);
            out.push(V_BASE + (s % N_COUNT) / T_COUNT);
            if !s.is_multiple_of(T_COUNT) {
                out.push(T_BASE + s % T_COUNT);
            }
        } else {
            match self.decomp.binary_search_by_key(&cp, |e| e.0) {
                Ok(k) => {
                    let (_, start, len) = self.decomp[k];
                    let start = start as usize;
                    out.extend_from_slice(&self.decomp_data[start..start + len as usize]);
                }
                Err(_) => out.push(cp),
            }
        }
    }

    /// NFD of `text` as edits (see `aligned.rs`): each code point's first
    /// decomposed char replaces it (0), the others are inserted (1); then each
    /// run of non-starters is stably sorted by combining class, the change
    /// travelling with its char (as unicode-normalization-alignments does).
    pub fn nfd_edits(&self, text: &[u32], out: &mut Vec<(u32, i32)>) {
        let from = out.len();
        let mut buf = Vec::with_capacity(4);
        for &cp in text {
            buf.clear();
            self.decompose_into(cp, &mut buf);
            out.extend(buf.iter().enumerate().map(|(i, &c)| (c, (i > 0) as i32)));
        }
        let s = &mut out[from..];
        let mut i = 0;
        while i < s.len() {
            if self.props(s[i].0).ccc == 0 {
                i += 1;
                continue;
            }
            let start = i;
            while i < s.len() && self.props(s[i].0).ccc != 0 {
                i += 1;
            }
            s[start..i].sort_by_key(|e| self.props(e.0).ccc);
        }
    }

    /// NFD of `text`, appended to `out`.
    pub fn nfd_into(&self, text: &[u32], out: &mut Vec<u32>) {
        let mut edits = Vec::with_capacity(text.len());
        self.nfd_edits(text, &mut edits);
        out.extend(edits.iter().map(|e| e.0));
    }
}

/// NFD of `text` (pinned Python data), appended to `out`.
pub fn nfd_into(text: &[u32], out: &mut Vec<u32>) {
    PYTHON.nfd_into(text, out)
}

fn compose_pair(a: u32, b: u32) -> Option<u32> {
    if (L_BASE..L_BASE + L_COUNT).contains(&a) && (V_BASE..V_BASE + V_COUNT).contains(&b) {
        return Some(S_BASE + ((a - L_BASE) * V_COUNT + (b - V_BASE)) * T_COUNT);
    }
    if (S_BASE..S_BASE + S_COUNT).contains(&a) && (a - S_BASE).is_multiple_of(T_COUNT) && (T_BASE + 1..T_BASE + T_COUNT).contains(&b) {
        return Some(a + (b - T_BASE));
    }
    if !has(b, t::COMPOSES) {
        return None;
    }
    t::COMPOSE
        .binary_search_by(|e| (e.0, e.1).cmp(&(a, b)))
        .ok()
        .map(|k| t::COMPOSE[k].2)
}

/// NFC of `text` (canonical decomposition, then canonical composition).
pub fn nfc(text: &[u32]) -> Vec<u32> {
    nfc_aligned(&Aligned::original(text)).chars
}

/// NFC keeping spans: a composed code point spans all the code points it was made of.
pub fn nfc_aligned(text: &Aligned) -> Aligned {
    let mut edits = Vec::with_capacity(text.len());
    PYTHON.nfd_edits(&text.chars, &mut edits);
    let d = Aligned::transform((&text.chars, &text.spans), &edits);
    let mut out = Aligned::with_capacity(d.len());
    let mut starter: Option<usize> = None; // index in `out` of the last starter
    let mut last_ccc: Option<u8> = None; // ccc of the last char appended after the starter
    for (&cp, &span) in d.chars.iter().zip(&d.spans) {
        let ccc = props(cp).ccc;
        if let Some(si) = starter {
            // Blocked when a char between the starter and `cp` has ccc 0 or >= ccc(cp).
            let blocked = matches!(last_ccc, Some(l) if l == 0 || l >= ccc);
            if !blocked {
                if let Some(c) = compose_pair(out.chars[si], cp) {
                    out.chars[si] = c;
                    let s = &mut out.spans[si];
                    *s = (s.0.min(span.0), s.1.max(span.1));
                    continue;
                }
            }
        }
        if ccc == 0 {
            starter = Some(out.len());
            last_ccc = None;
        } else {
            last_ccc = Some(ccc);
        }
        out.push(cp, span);
    }
    out
}

/// Whether NFC leaves `cp` as it is whatever surrounds it: a starter (ccc 0)
/// that NFC keeps (quick check "Yes") and that never composes with what
/// precedes it. Text made only of such code points is its own NFC.
pub fn is_nfc_inert(cp: u32) -> bool {
    let p = props(cp);
    if p.ccc != 0 || p.has(t::COMPOSES) || (V_BASE..V_BASE + V_COUNT).contains(&cp) || (T_BASE + 1..T_BASE + T_COUNT).contains(&cp) {
        return false;
    }
    if !p.has(t::DECOMPOSES) || (S_BASE..S_BASE + S_COUNT).contains(&cp) {
        return true;
    }
    nfc_changes_alone().binary_search(&cp).is_err()
}

/// Code points that NFC changes even on their own (singletons, composition
/// exclusions, non-starter decompositions), found once from the
/// decomposition table (sorted by code point; Hangul syllables, which are not
/// in it, recompose to themselves).
fn nfc_changes_alone() -> &'static [u32] {
    static SET: std::sync::OnceLock<Vec<u32>> = std::sync::OnceLock::new();
    SET.get_or_init(|| t::DECOMP.iter().map(|e| e.0).filter(|&c| nfc(&[c]) != [c]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cps(s: &str) -> Vec<u32> {
        s.chars().map(|c| c as u32).collect()
    }

    #[test]
    fn nfd_and_nfc_round_trip_common_cases() {
        let mut d = Vec::new();
        nfd_into(&cps("é\u{1E69}각"), &mut d);
        assert_eq!(d, cps("e\u{301}s\u{323}\u{307}\u{1100}\u{1161}\u{11A8}"));
        assert_eq!(nfc(&d), cps("é\u{1E69}각"));
        // Singletons and exclusions never recompose.
        assert_eq!(nfc(&cps("\u{212B}")), cps("\u{C5}"));
        assert_eq!(nfc(&cps("\u{0958}")), cps("\u{915}\u{93C}"));
        // Canonical reordering: dot below (220) sorts before acute (230).
        let mut d = Vec::new();
        nfd_into(&cps("a\u{301}\u{323}"), &mut d);
        assert_eq!(d, cps("a\u{323}\u{301}"));
    }

    #[test]
    fn nfc_inert_code_points_are_their_own_nfc_in_any_company() {
        assert!(is_nfc_inert('a' as u32) && is_nfc_inert(0xE9) && is_nfc_inert(0xAC00) && is_nfc_inert(0x4E2D));
        // Combining marks, second halves (Hangul jamo too) and singletons are not.
        for cp in [0x301, 0x1161, 0x11A8, 0x212B, 0x0958, 0x0CD5] {
            assert!(!is_nfc_inert(cp), "{cp:X}");
        }
    }

    #[test]
    fn nfc_changes_alone_is_every_such_code_point() {
        let scan: Vec<u32> = (0..0x11_0000).filter(|&c| has(c, t::DECOMPOSES) && nfc(&[c]) != [c]).collect();
        assert_eq!(nfc_changes_alone(), scan);
    }
}
