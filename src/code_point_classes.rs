//! What each BMP code point does in the one-pass encoder, for one set of
//! options: a 64K-entry table so that a non-ASCII code point of running text
//! costs one load instead of the five to ten table lookups of the per-code-point
//! path (cleaning, whitespace, NFC check, CJK, lowercase, NFD, punctuation).
//!
//! The table is not written by hand and repeats no predicate: each entry is
//! found by running the per-code-point path itself on the code point alone
//! (see `Encoder::classify`) and recording what it did. That path's effect
//! never depends on the neighbours when it succeeds, so replaying the record
//! is exact; code points whose handling is anything else stay `SLOW` and keep
//! taking that path. One table per set of options, built on first use and
//! shared by every tokenizer and thread of the process, block by block.

use std::sync::OnceLock;

/// Classes (the low 3 bits of an entry).
/// The per-code-point path decides (supplementary planes are never in the table).
pub const SLOW: u32 = 0;
/// Removed (cleaning, or an accent stripped away).
pub const DROP: u32 = 1;
/// Ends the current word.
pub const SPACE: u32 = 2;
/// Part of a word, unchanged.
pub const WORD: u32 = 3;
/// Part of a word, replaced by other word characters (lowercase, accents stripped).
pub const MAPPED: u32 = 4;
/// A word of its own, unchanged (punctuation, CJK ideographs).
pub const OWN: u32 = 5;

/// Most bytes a MAPPED replacement may have.
pub const MAX_MAPPED: usize = 15;

/// One entry: the class; for MAPPED also the replacement's length (bits
/// 3..7), its code points (bits 7..11) and its offset in `mapped` (bits 11..).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry(u32);

impl Entry {
    pub const SLOW: Entry = Entry(SLOW);

    #[inline]
    pub fn class(self) -> u32 {
        self.0 & 7
    }

    /// Code points of a MAPPED replacement.
    #[inline]
    pub fn chars(self) -> usize {
        (self.0 >> 7 & 15) as usize
    }
}

/// One block of 256 code points: their entries and the MAPPED replacements.
pub struct Block {
    entries: [u32; 256],
    mapped: Vec<u8>,
}

/// What the per-code-point path did with one code point.
#[derive(Debug, PartialEq, Eq)]
pub enum Effect {
    Slow,
    Drop,
    Space,
    Word,
    Mapped(Vec<u8>, usize),
    Own,
}

impl Block {
    /// Block `hi` (code points `hi << 8 ..`) from `classify`.
    fn build(hi: u32, mut classify: impl FnMut(u32) -> Effect) -> Self {
        let mut block = Block { entries: [SLOW; 256], mapped: Vec::new() };
        for lo in 0..256u32 {
            let cp = hi << 8 | lo;
            if cp < 0x80 {
                continue; // ASCII is the encoder's own byte table
            }
            block.entries[lo as usize] = match classify(cp) {
                Effect::Slow => SLOW,
                Effect::Drop => DROP,
                Effect::Space => SPACE,
                Effect::Word => WORD,
                Effect::Own => OWN,
                Effect::Mapped(bytes, chars) if (1..=MAX_MAPPED).contains(&bytes.len()) && chars <= 15 => {
                    let at = block.mapped.len() as u32;
                    block.mapped.extend_from_slice(&bytes);
                    MAPPED | (bytes.len() as u32) << 3 | (chars as u32) << 7 | at << 11
                }
                Effect::Mapped(..) => SLOW,
            };
        }
        block
    }

    /// The entry of code point `cp` of this block.
    #[inline(always)]
    pub fn get(&self, cp: u32) -> Entry {
        Entry(self.entries[(cp & 255) as usize])
    }

    /// The replacement bytes of a MAPPED entry of this block.
    #[inline(always)]
    pub fn replacement(&self, e: Entry) -> &[u8] {
        let (at, len) = ((e.0 >> 11) as usize, (e.0 >> 3 & 15) as usize);
        self.mapped.get(at..at + len).unwrap_or(&[])
    }
}

/// The BMP's 256 blocks for one set of options, each built when first needed
/// (a text touches a few: its script's, punctuation's).
pub struct CodePointClasses {
    blocks: [OnceLock<Box<Block>>; 256],
}

impl CodePointClasses {
    /// The shared classes for options number `key` (< `KEYS`).
    pub fn shared(key: usize) -> &'static Self {
        static TABLES: [CodePointClasses; KEYS] = [const { CodePointClasses { blocks: [const { OnceLock::new() }; 256] } }; KEYS];
        &TABLES[key % KEYS]
    }

    /// The block of BMP code point `cp`, built by `classify` on first use.
    #[inline(always)]
    pub fn block(&'static self, cp: u32, classify: impl FnMut(u32) -> Effect) -> &'static Block {
        let hi = (cp >> 8) & 255;
        self.blocks[hi as usize].get_or_init(|| Box::new(Block::build(hi, classify)))
    }
}

/// Distinct option sets: reference (3) × lowercase × strip accents × CJK × punctuation split.
pub const KEYS: usize = 3 * 2 * 2 * 2 * 2;
