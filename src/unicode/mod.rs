//! Unicode primitives over code points, backed by the generated tables.
//!
//! Text is handled as `u32` code points rather than `char` because Python
//! strings may hold lone surrogates (U+D800..U+DFFF), which the references
//! process like any other character; `char` cannot represent them.

use crate::hf_tables as hf;
use crate::unicode_tables as t;
pub use crate::unicode_tables::UNICODE_VERSION;

mod case;
mod normalization;
mod utf8;

pub use case::{lower_edits, lower_into, CAPITAL_SIGMA};
pub use normalization::{is_nfc_inert, nfc, nfc_aligned, nfd_into};
pub use utf8::{char_len, decode, decode_one, decode_valid_at, encode_into, is_generalized_utf8, push_utf8};

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

#[cfg(test)]
mod tests {
    use super::*;

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
