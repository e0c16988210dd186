//! One non-ASCII code point the class tables leave open, mapped with the
//! generated tables (lowercase, accents) and split as the references split.

use super::{Buffers, Encoder};
use crate::normalizer::{is_control, Reference};
use crate::unicode::{self, push_utf8, CAPITAL_SIGMA};
use crate::unicode_tables as t;

impl Encoder {
    /// One non-ASCII code point of a chunk; false when the chunk needs the general path.
    #[inline]
    pub(super) fn code_point(&self, cp: u32, s: &mut Buffers, word: &mut impl FnMut(&[u8], usize)) -> bool {
        let r = self.reference;
        if cp == 0xFFFD || is_control(cp, r) {
            return true;
        }
        if Self::ends_word(r, cp) {
            flush(s, word);
            return true;
        }
        if r == Reference::Transformers && !unicode::is_nfc_inert(cp) {
            return false;
        }
        let cjk = self.chinese && r.is_cjk(cp);
        if cjk {
            flush(s, word);
        }
        if !self.map(cp, s) {
            return false;
        }
        for k in 0..s.mapped.len() {
            let c = s.mapped[k];
            if r.is_split_space(c) {
                flush(s, word);
            } else if self.split_punc && r.is_punctuation(c) {
                flush(s, word);
                let mark = s.word.len();
                push_utf8(c, &mut s.word);
                word(&s.word[mark..], 1);
                s.word.truncate(mark);
            } else {
                push_utf8(c, &mut s.word);
                s.chars += 1;
            }
        }
        if cjk {
            flush(s, word);
        }
        true
    }

    /// `cp` lowercased and/or stripped of accents, into `s.mapped`, in the
    /// reference's order (Python: lower, then NFD; HF: NFD, then lower).
    /// False if the result could depend on the neighbours: capital sigma
    /// (Final_Sigma), or a combining mark NFD would keep, whose order among
    /// its neighbours' marks canonical reordering decides.
    #[inline]
    fn map(&self, cp: u32, s: &mut Buffers) -> bool {
        s.mapped.clear();
        let tables = self.tables();
        let hf = self.reference == Reference::Tokenizers;
        if self.case.lowercase && !hf {
            if cp == CAPITAL_SIGMA {
                return false;
            }
            tables.lower_char_into(cp, &mut s.mapped);
        } else {
            s.mapped.push(cp);
        }
        if self.case.strip_accents {
            s.tmp.clear();
            tables.nfd_into(&s.mapped, &mut s.tmp);
            s.mapped.clear();
            for &c in &s.tmp {
                let p = tables.props(c);
                if p.has(t::MN) {
                    continue;
                }
                if p.ccc != 0 {
                    return false;
                }
                s.mapped.push(c);
            }
        }
        if self.case.lowercase && hf {
            std::mem::swap(&mut s.mapped, &mut s.tmp);
            s.mapped.clear();
            for k in 0..s.tmp.len() {
                tables.lower_char_into(s.tmp[k], &mut s.mapped);
            }
        }
        true
    }
}

#[inline]
pub(super) fn flush(s: &mut Buffers, word: &mut impl FnMut(&[u8], usize)) {
    if !s.word.is_empty() {
        word(&s.word, s.chars);
        s.word.clear();
        s.chars = 0;
    }
}
