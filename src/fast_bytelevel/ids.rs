//! The ids-only loop over one text (the bulk call's common case): where 64
//! bytes are left, the pieces come from the block scanner ([`super::blocks`])
//! several at a time, each looked up as it comes (with AVX-512: eight looked
//! up at once, [`super::gather`]); the piece at a byte the
//! block scanner leaves (and the text's last 63 bytes) from the scalar one.
//! The same splitter ([`split_blocks`]) serves the per-text `Encoding` entry.

use super::blocks::{Avx2, Avx512, Classify, Sse2};
use super::merge::Words;
use super::scan::{piece_end, AsciiClasses};

impl Words<'_> {
    /// The ids of `text`'s GPT-2 pieces (with `classes`) appended to `ids`,
    /// up to the first Stop byte: false if there is one (what was appended
    /// before it is the caller's to drop).
    pub fn text_ids(&mut self, text: &str, classes: &AsciiClasses, ids: &mut Vec<u32>) -> bool {
        #[cfg(target_arch = "x86_64")]
        if let Some(avx512) = Avx512::detect() {
            // SAFETY: `avx512` proves the CPU has AVX-512 F, BW, DQ, VBMI and VBMI2, BMI1 and BMI2
            return unsafe { self.text_ids_gather(avx512, text, classes, ids) };
        }
        match Avx2::detect() {
            // SAFETY: `avx2` proves the CPU has AVX2
            Some(avx2) => unsafe { self.text_ids_avx2(avx2, text, classes, ids) },
            None => self.text_ids_with(Sse2, text, classes, ids),
        }
    }

    /// [`Words::text_ids`] compiled for AVX2 (the whole loop, so that the
    /// classifier inlines into it).
    ///
    /// # Safety
    /// The CPU must have AVX2 (as holding an [`Avx2`] proves).
    #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2"))]
    unsafe fn text_ids_avx2(&mut self, avx2: Avx2, text: &str, classes: &AsciiClasses, ids: &mut Vec<u32>) -> bool {
        self.text_ids_with(avx2, text, classes, ids)
    }

    /// [`Words::text_ids`] with the block classifier `classifier`.
    #[inline(always)]
    pub(super) fn text_ids_with(&mut self, classifier: impl Classify, text: &str, classes: &AsciiClasses, ids: &mut Vec<u32>) -> bool {
        let mut sink = IdsSink { words: self, bytes: text.as_bytes(), ids };
        split_blocks_with(classifier, text, classes, &mut sink)
    }
}

/// Where [`split_blocks`] puts each piece `start..end` of the text.
pub trait PieceSink {
    fn piece(&mut self, start: usize, end: usize);
}

/// Any closure (the per-text `Encoding` entry's callback; LLVM may keep it out of line).
impl<F: FnMut(usize, usize)> PieceSink for F {
    #[inline(always)]
    fn piece(&mut self, start: usize, end: usize) {
        self(start, end)
    }
}

/// The ids-only loop's sink: a struct rather than a closure so that the
/// lookup is inlined into the loop (LLVM kept the closure, called from two
/// places, out of line: one call per piece).
struct IdsSink<'w, 'a, 'b> {
    words: &'w mut Words<'a>,
    bytes: &'b [u8],
    ids: &'b mut Vec<u32>,
}

impl PieceSink for IdsSink<'_, '_, '_> {
    #[inline(always)]
    fn piece(&mut self, start: usize, end: usize) {
        self.words.tokenize_ids(self.bytes, start, end, self.ids)
    }
}

/// GPT-2's pieces of `text` (with `classes`) as `out(start, end)`, in order, up to the first
/// Stop byte (false if there is one): the same pieces as [`super::scan::split_gpt2_until`],
/// found 64 bytes at a time where 64 are left (the per-text `Encoding` entry's splitter).
pub fn split_blocks(text: &str, classes: &AsciiClasses, mut out: impl PieceSink) -> bool {
    if let Some(avx512) = Avx512::detect() {
        // SAFETY: `avx512` proves the CPU has AVX-512 F, BW, DQ, VBMI and VBMI2, BMI1 and BMI2
        return unsafe { split_blocks_avx512(avx512, text, classes, out) };
    }
    match Avx2::detect() {
        // SAFETY: `avx2` proves the CPU has AVX2
        Some(avx2) => unsafe { split_blocks_avx2(avx2, text, classes, out) },
        None => split_blocks_with(Sse2, text, classes, &mut out),
    }
}

/// [`split_blocks`] compiled for AVX2 (with `out` inlined into it).
///
/// # Safety
/// The CPU must have AVX2 (as holding an [`Avx2`] proves).
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2"))]
unsafe fn split_blocks_avx2(avx2: Avx2, text: &str, classes: &AsciiClasses, mut out: impl PieceSink) -> bool {
    split_blocks_with(avx2, text, classes, &mut out)
}

/// [`split_blocks`] compiled for AVX-512 (with `out` inlined into it).
///
/// # Safety
/// The CPU must have AVX-512 F, BW, DQ, VBMI and VBMI2, BMI1 and BMI2 (as holding an [`Avx512`] proves).
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx512f,avx512bw,bmi1,bmi2"))]
unsafe fn split_blocks_avx512(avx512: Avx512, text: &str, classes: &AsciiClasses, mut out: impl PieceSink) -> bool {
    split_blocks_with(avx512, text, classes, &mut out)
}

/// [`split_blocks`] with the block classifier `classifier`: the pieces between a block's
/// starts from the masks, the piece at a byte the block scanner leaves (and the text's
/// last 63 bytes) from the scalar scanner.
#[inline(always)]
fn split_blocks_with(classifier: impl Classify, text: &str, classes: &AsciiClasses, out: &mut impl PieceSink) -> bool {
    let bytes = text.as_bytes();
    let (ascii, quote_stops, stops) = (classes.table(), classes.quote_stops(), classes.block_stops());
    let mut i = 0;
    while i < bytes.len() {
        if let (Some(stops), Some(block)) = (stops, bytes.get(i..i + 64)) {
            if let Some(starts) = classifier.piece_starts(block, stops) {
                // the pieces between the block's starts; the last start's piece may run past it
                let mut rest = starts & !1;
                let mut at = 0;
                while rest != 0 {
                    let next = rest.trailing_zeros() as usize;
                    out.piece(i + at, i + next);
                    at = next;
                    rest &= rest - 1;
                }
                if at > 0 {
                    i += at;
                    continue;
                }
            }
        }
        let Some(end) = piece_end(text, ascii, quote_stops, i) else { return false };
        out.piece(i, end);
        i = end;
    }
    true
}

#[cfg(test)]
#[path = "ids_tests.rs"]
mod tests;
