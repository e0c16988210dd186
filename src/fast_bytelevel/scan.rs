//! GPT-2's split (`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`)
//! scanned by hand over the text's bytes: the same pieces as
//! [`crate::pre_tokenizers::byte_level::split_gpt2_str`] (the regex crate
//! plus the lookahead done by hand), without the regex engine. ASCII is
//! classified by a table; other chars by the regex crate's own Unicode
//! classes (`\p{L}`, `\p{N}`, `\s`), read once from regex-syntax, so both
//! splitters agree char for char. [`split_gpt2_until`] also stops at the
//! first byte of an added token, so the bulk path needs no pass of its own
//! to look for one.

use regex_syntax::hir::{Class, HirKind};
use std::sync::LazyLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CharClass {
    Letter,
    Number,
    Space,
    Other,
    /// An ASCII byte of class Other that starts an added token (only in an
    /// [`AsciiClasses`] made for them): [`split_gpt2_until`] stops there.
    Stop,
}

/// The classes of the 128 ASCII bytes as the scanner reads them.
#[derive(Clone, Debug)]
pub struct AsciiClasses {
    classes: [CharClass; 128],
    /// The Stop bytes for the 64-byte block scanner (unused places 0, a
    /// control the block scanner leaves to this one anyway); None when there
    /// are more than four.
    block_stops: Option<[u8; 4]>,
}

impl AsciiClasses {
    /// GPT-2's classes with the bytes `stops` marked Stop; None when one of
    /// them is not ASCII of class Other (a letter, digit, space or non-ASCII
    /// byte can sit inside a run the scanner skips without a table read).
    pub fn with_stops(stops: impl Iterator<Item = u8>) -> Option<AsciiClasses> {
        let mut a = ASCII.classes;
        for b in stops {
            let slot = a.get_mut(b as usize)?;
            if *slot != CharClass::Other && *slot != CharClass::Stop {
                return None;
            }
            *slot = CharClass::Stop;
        }
        Some(AsciiClasses { classes: a, block_stops: block_stops(&a) })
    }

    /// GPT-2's classes, no stops.
    pub fn plain() -> &'static AsciiClasses {
        &ASCII
    }
}

/// The code point ranges of one regex class (e.g. `\p{L}`), as regex-syntax defines it.
fn ranges(pattern: &str) -> Vec<(u32, u32)> {
    let hir = regex_syntax::parse(pattern).unwrap_or_else(|e| panic!("constant pattern {pattern}: {e}"));
    match hir.kind() {
        HirKind::Class(Class::Unicode(c)) => c.ranges().iter().map(|r| (r.start() as u32, r.end() as u32)).collect(),
        // A constant pattern: anything else is a bug in this file, not bad input.
        other => panic!("{pattern} is not a Unicode class: {other:?}"),
    }
}

/// (first, last, class) for every non-Other range, sorted; Letter/Number/Space are disjoint.
static TABLE: LazyLock<Vec<(u32, u32, CharClass)>> = LazyLock::new(|| {
    let mut t = Vec::new();
    for (pattern, class) in [(r"\p{L}", CharClass::Letter), (r"\p{N}", CharClass::Number), (r"\s", CharClass::Space)] {
        t.extend(ranges(pattern).into_iter().map(|(a, b)| (a, b, class)));
    }
    t.sort_unstable_by_key(|r| r.0);
    t
});

static ASCII: LazyLock<AsciiClasses> = LazyLock::new(|| {
    let mut a = [CharClass::Other; 128];
    for (b, slot) in a.iter_mut().enumerate() {
        *slot = lookup(b as u32);
    }
    AsciiClasses { classes: a, block_stops: block_stops(&a) }
});

/// The Stop bytes of `classes` as [`AsciiClasses::block_stops`] keeps them.
fn block_stops(classes: &[CharClass; 128]) -> Option<[u8; 4]> {
    let mut stops = [0u8; 4];
    let mut n = 0;
    for (b, &c) in classes.iter().enumerate() {
        if c == CharClass::Stop {
            *stops.get_mut(n)? = b as u8;
            n += 1;
        }
    }
    Some(stops)
}

fn lookup(cp: u32) -> CharClass {
    let t = &*TABLE;
    let i = t.partition_point(|r| r.0 <= cp);
    match i.checked_sub(1).and_then(|i| t.get(i)) {
        Some(&(_, last, class)) if cp <= last => class,
        _ => CharClass::Other,
    }
}

/// The class of the char at byte `i` of `text` (a char boundary) and its
/// length in bytes: ASCII inline (called twice a word), the rest out of line.
#[inline(always)]
fn class_at(text: &str, ascii: &[CharClass; 128], i: usize) -> (CharClass, usize) {
    match text.as_bytes().get(i) {
        Some(&b) if b < 0x80 => (ascii[b as usize], 1),
        _ => class_of_char_at(text, i),
    }
}

/// The classes of the Basic Multilingual Plane by code point (64 KiB, made
/// on first use from [`lookup`]): one load per non-ASCII char instead of a
/// binary search over [`TABLE`].
static BMP: LazyLock<Box<[CharClass]>> = LazyLock::new(|| (0..0x1_0000u32).map(lookup).collect());

#[inline(never)]
fn class_of_char_at(text: &str, i: usize) -> (CharClass, usize) {
    match text.get(i..).and_then(|s| s.chars().next()) {
        Some(c) => (BMP.get(c as usize).copied().unwrap_or_else(|| lookup(c as u32)), c.len_utf8()),
        None => (CharClass::Other, 1), // unreachable: `i` is always a char boundary
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `w` (little-endian) set where that byte is
/// ASCII and in `lo..=hi` (1 <= lo <= hi < 0x80). Exact for every byte up to
/// and including the first non-ASCII one: only a non-ASCII byte's sum
/// carries, and only into the bytes after it.
#[inline(always)]
fn ascii_in_range(w: u64, lo: u8, hi: u8) -> u64 {
    let at_least_lo = w.wrapping_add(ONES * u64::from(0x80 - lo));
    let above_hi = w.wrapping_add(ONES * u64::from(0x7F - hi));
    at_least_lo & !above_hi & !w & HIGH
}

/// End of the run of `class` chars starting at byte `i`.
#[inline]
fn run_end(text: &str, ascii: &[CharClass; 128], mut i: usize, class: CharClass) -> usize {
    let bytes = text.as_bytes();
    // ASCII letters and digits 8 bytes at a time: the run's end is the first
    // byte outside it, found without a branch per byte (whose exit at every
    // word's end the CPU mispredicts); the byte loop below decides there (a
    // stop before a non-ASCII letter or digit only hands it the rest).
    if matches!(class, CharClass::Letter | CharClass::Number) {
        while let Some(w) = bytes.get(i..i + 8).and_then(|s| s.try_into().ok()).map(u64::from_le_bytes) {
            let member = match class {
                CharClass::Letter => ascii_in_range(w | (ONES * 0x20), b'a', b'z'),
                _ => ascii_in_range(w, b'0', b'9'),
            };
            let stop = !member & HIGH;
            if stop != 0 {
                i += (stop.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
    }
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            if ascii[b as usize] != class {
                break;
            }
            i += 1;
        } else {
            let (c, len) = class_at(text, ascii, i);
            if c != class {
                break;
            }
            i += len;
        }
    }
    i
}

/// Calls `out(start, end)` for every GPT-2 piece of `text` (byte ranges, in
/// order, covering all of it).
pub fn split_gpt2(text: &str, out: impl FnMut(usize, usize)) {
    split_gpt2_until(text, &ASCII, out);
}

/// [`split_gpt2`] with the ASCII classes `ascii`, up to the first Stop byte:
/// false when `text` holds one (then the pieces given so far are the text's
/// up to somewhere before it, and the rest is not scanned). Every byte is
/// either a piece's first byte, read through `class_at`, or inside a run of
/// one class that is not Stop, so no Stop byte is passed over.
pub fn split_gpt2_until(text: &str, ascii: &AsciiClasses, mut out: impl FnMut(usize, usize)) -> bool {
    let quote_stops = ascii.quote_stops();
    let ascii = &ascii.classes;
    let mut i = 0;
    while i < text.len() {
        let Some(end) = piece_end(text, ascii, quote_stops, i) else { return false };
        out(i, end);
        i = end;
    }
    true
}

impl AsciiClasses {
    /// True when an added token starts with an apostrophe: then no
    /// contraction is taken before the table's say (the quote is a Stop).
    #[inline]
    pub fn quote_stops(&self) -> bool {
        self.classes[b'\'' as usize] == CharClass::Stop
    }

    /// The Stop bytes for the block scanner (see the field).
    #[inline]
    pub fn block_stops(&self) -> Option<[u8; 4]> {
        self.block_stops
    }

    /// The 128 classes, for [`piece_end`].
    #[inline]
    pub fn table(&self) -> &[CharClass; 128] {
        &self.classes
    }
}

/// The end of the GPT-2 piece starting at byte `i` (< `text.len()`, a
/// piece's start), or None at a Stop byte.
#[inline(always)]
pub fn piece_end(text: &str, ascii: &[CharClass; 128], quote_stops: bool, i: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let Some(&b) = bytes.get(i) else { return Some(n) };
    if b == b'\'' && !quote_stops {
        let next = |k: usize| bytes.get(i + k).copied();
        let len = match (next(1), next(2)) {
            (Some(b's' | b't' | b'm' | b'd'), _) => 2,
            (Some(b'r' | b'v'), Some(b'e')) | (Some(b'l'), Some(b'l')) => 3,
            _ => 0,
        };
        if len > 0 {
            return Some(i + len);
        }
    }
    if b == b' ' && i + 1 < n {
        // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: the space joins a following non-space run.
        let (class, _) = class_at(text, ascii, i + 1);
        if class == CharClass::Stop {
            return None;
        }
        if class != CharClass::Space {
            return Some(run_end(text, ascii, i + 1, class));
        }
    }
    let (class, len) = class_at(text, ascii, i);
    if class == CharClass::Stop {
        return None;
    }
    if class != CharClass::Space {
        return Some(run_end(text, ascii, i + len, class));
    }
    // `\s+(?!\S)` then `\s+`: a run of two or more whitespace chars that a
    // non-space follows leaves its last char to the next piece.
    let (mut end, mut last_start) = (i + len, i);
    while end < n {
        let (c, l) = class_at(text, ascii, end);
        if c != CharClass::Space {
            break;
        }
        last_start = end;
        end += l;
    }
    if end < n && last_start > i {
        end = last_start;
    }
    Some(end)
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
