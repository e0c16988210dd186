//! Unicode primitives over code points, backed by the generated tables.
//!
//! Text is handled as `u32` code points rather than `char` because Python
//! strings may hold lone surrogates (U+D800..U+DFFF), which the references
//! process like any other character; `char` cannot represent them.

use crate::aligned::Aligned;
use crate::hf_tables as hf;
use crate::unicode_tables as t;
pub use crate::unicode_tables::UNICODE_VERSION;

/// One code point's properties: flag bits (see `unicode_tables`) and its
/// canonical combining class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Props {
    pub flags: u16,
    pub ccc: u8,
}

impl Props {
    #[inline]
    pub fn has(self, flag: u16) -> bool {
        self.flags & flag != 0
    }
}

/// One set of generated tables: the pinned Python data (`unicode_tables.rs`)
/// or Hugging Face tokenizers' data (`hf_tables.rs`). Same layout, same flags.
pub struct Tables {
    stage1: &'static [u16],
    stage2: &'static [u8],
    props: &'static [(u16, u8)],
    lower: &'static [(u32, [u32; 3])],
    decomp: &'static [(u32, u16, u8)],
    decomp_data: &'static [u32],
}

/// Unicode 17.0.0 as CPython's `unicodedata` and `str` methods see it.
pub static PYTHON: Tables = Tables {
    stage1: &t::STAGE1,
    stage2: &t::STAGE2,
    props: &t::PROPS,
    lower: &t::LOWER,
    decomp: &t::DECOMP,
    decomp_data: &t::DECOMP_DATA,
};

/// What HF tokenizers' BertNormalizer/BertPreTokenizer use (see hf_tables.rs).
pub static HF: Tables = Tables {
    stage1: &hf::STAGE1,
    stage2: &hf::STAGE2,
    props: &hf::PROPS,
    lower: &hf::LOWER,
    decomp: &hf::DECOMP,
    decomp_data: &hf::DECOMP_DATA,
};

impl Tables {
    /// Properties of `cp` (anything past U+10FFFF reads as unassigned).
    #[inline]
    pub fn props(&self, cp: u32) -> Props {
        let cp = if cp < 0x11_0000 { cp } else { 0x10_FFFF };
        let block = self.stage1[(cp >> t::SHIFT) as usize] as usize;
        let idx = self.stage2[(block << t::SHIFT) + (cp & ((1 << t::SHIFT) - 1)) as usize];
        let (flags, ccc) = self.props[idx as usize];
        Props { flags, ccc }
    }

    #[inline]
    pub fn has(&self, cp: u32, flag: u16) -> bool {
        self.props(cp).has(flag)
    }

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

    /// Appends the full canonical decomposition of `cp` (unordered) to `out`.
    fn decompose_into(&self, cp: u32, out: &mut Vec<u32>) {
        if !self.has(cp, t::DECOMPOSES) {
            out.push(cp);
        } else if (S_BASE..S_BASE + S_COUNT).contains(&cp) {
            let s = cp - S_BASE;
            out.push(L_BASE + s / N_COUNT);
            out.push(V_BASE + (s % N_COUNT) / T_COUNT);
            if s % T_COUNT != 0 {
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

/// Properties of `cp` in the pinned Python data.
#[inline]
pub fn props(cp: u32) -> Props {
    PYTHON.props(cp)
}

/// Whether `cp` has `flag` in the pinned Python data.
#[inline]
pub fn has(cp: u32, flag: u16) -> bool {
    PYTHON.has(cp, flag)
}

/// Python `str.isspace()` at the pinned Unicode version (what `str.split()` and `str.strip()` use).
#[inline]
pub fn is_python_space(cp: u32) -> bool {
    has(cp, t::SPACE)
}

/// HF BertPreTokenizer's whitespace: Rust's `char::is_whitespace`.
pub fn is_hf_space(cp: u32) -> bool {
    HF.has(cp, t::SPACE)
}

/// HF BertPreTokenizer's punctuation: ASCII punctuation or P* in unicode_categories' 2016 tables.
pub fn is_hf_punctuation(cp: u32) -> bool {
    HF.has(cp, t::PUNCT)
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

/// NFD of `text` (pinned Python data), appended to `out`.
pub fn nfd_into(text: &[u32], out: &mut Vec<u32>) {
    PYTHON.nfd_into(text, out)
}

fn compose_pair(a: u32, b: u32) -> Option<u32> {
    if (L_BASE..L_BASE + L_COUNT).contains(&a) && (V_BASE..V_BASE + V_COUNT).contains(&b) {
        return Some(S_BASE + ((a - L_BASE) * V_COUNT + (b - V_BASE)) * T_COUNT);
    }
    if (S_BASE..S_BASE + S_COUNT).contains(&a) && (a - S_BASE) % T_COUNT == 0 && (T_BASE + 1..T_BASE + T_COUNT).contains(&b) {
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

/// Decodes generalized UTF-8 (UTF-8 that may also encode lone surrogates, as
/// Python's "surrogatepass" produces). `None` on malformed input.
pub fn decode(bytes: &[u8]) -> Option<Vec<u32>> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let (cp, n) = decode_one(&bytes[i..])?;
        out.push(cp);
        i += n;
    }
    Some(out)
}

/// The first code point of non-empty generalized UTF-8 and its length in bytes.
#[inline]
pub fn decode_one(bytes: &[u8]) -> Option<(u32, usize)> {
    let b0 = *bytes.first()? as u32;
    if b0 < 0x80 {
        return Some((b0, 1));
    }
    let n = match b0 {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    let tail = bytes.get(1..n)?;
    let mut cp = b0 & (0x7F >> n);
    for &b in tail {
        if b & 0xC0 != 0x80 {
            return None;
        }
        cp = (cp << 6) | (b as u32 & 0x3F);
    }
    let min = [0, 0, 0x80, 0x800, 0x1_0000][n];
    (min..=0x10_FFFF).contains(&cp).then_some((cp, n))
}

/// Encodes code points as generalized UTF-8 (surrogates as 3-byte sequences).
pub fn encode_into(cps: &[u32], out: &mut Vec<u8>) {
    for &cp in cps {
        push_utf8(cp, out);
    }
}

#[inline]
pub fn push_utf8(cp: u32, out: &mut Vec<u8>) {
    if cp < 0x80 {
        out.push(cp as u8);
    } else if cp < 0x800 {
        out.extend_from_slice(&[0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8]);
    } else if cp < 0x1_0000 {
        out.extend_from_slice(&[0xE0 | (cp >> 12) as u8, 0x80 | ((cp >> 6) & 0x3F) as u8, 0x80 | (cp & 0x3F) as u8]);
    } else {
        out.extend_from_slice(&[
            0xF0 | (cp >> 18) as u8,
            0x80 | ((cp >> 12) & 0x3F) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ]);
    }
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

    #[test]
    fn generalized_utf8_round_trips_surrogates() {
        let mut bytes = Vec::new();
        let text = [0x61, 0xD800, 0x1F600, 0xDFFF, 0x7FF, 0xFFFF];
        encode_into(&text, &mut bytes);
        assert_eq!(decode(&bytes).as_deref(), Some(&text[..]));
        assert_eq!(decode(b"\xC0\x80"), None);
        assert_eq!(decode(b"\xE2\x82"), None);
        assert_eq!(decode(b"\xF4\x90\x80\x80"), None);
    }

    #[test]
    fn properties_match_known_categories() {
        assert!(has(0x200B, t::CONTROL)); // ZERO WIDTH SPACE is Cf
        assert!(!has(0xE000, t::CONTROL) && has(0xE000, t::OTHER)); // private use: Co
        assert!(has(0xD800, t::OTHER)); // surrogate: Cs
        assert!(has(0x3000, t::ZS));
        assert!(has(0x2028, t::SPACE) && !has(0x2028, t::ZS));
        assert!(has(0x301, t::MN) && props(0x301).ccc == 230);
        assert!(has(b'$' as u32, t::PUNCT) && has(0x201C, t::PUNCT) && !has(b'a' as u32, t::PUNCT));
        assert!(has(0x0661, t::DECIMAL));
    }
}
