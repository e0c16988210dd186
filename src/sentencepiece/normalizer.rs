//! sentencepiece's `Normalizer` (normalizer.cc): at each position the longest
//! user-defined symbol passes through unchanged, else the LONGEST charsmap rule
//! matching there (among the first 32 matches, as its fixed result array holds)
//! replaces its bytes, else one char is copied. Spaces are collapsed, trimmed,
//! escaped to `▁` and a dummy `▁` is added, as the spec's flags say.
//! HF's Precompiled (src/normalizers/precompiled.rs) differs: it matches per
//! grapheme, shortest rule first.

use crate::models::unigram::trie::Trie;
use crate::{Error, Result};

use super::model_proto::NormalizerSpec;

pub const SPACE_SYMBOL: &str = "\u{2581}";
/// normalizer.h's kMaxTrieResultsSize.
const MAX_TRIE_RESULTS: usize = 32;

fn has_leaf(u: u32) -> bool {
    (u >> 8) & 1 == 1
}
fn value(u: u32) -> usize {
    (u & 0x7FFF_FFFF) as usize
}
fn label(u: u32) -> u32 {
    u & ((1 << 31) | 0xFF)
}
fn offset(u: u32) -> usize {
    ((u >> 10) << ((u & (1 << 9)) >> 6)) as usize
}

/// A darts-clone double array over UTF-8 bytes whose values index NUL-ended
/// replacement strings.
#[derive(Clone, Debug)]
struct CharsMap {
    units: Vec<u32>,
    normalized: Vec<u8>,
}

impl CharsMap {
    /// `[u32 trie bytes][trie][replacements]`, checked so no lookup can leave it.
    fn parse(blob: &[u8], field: &str) -> Result<CharsMap> {
        let bad = |why: String| Error::Config(format!("invalid sentencepiece model: {field}.precompiled_charsmap: {why}"));
        if blob.len() <= 4 {
            return Err(bad(format!("{} bytes, too short for its header", blob.len())));
        }
        let size = u32::from_le_bytes([blob[0], blob[1], blob[2], blob[3]]) as usize;
        // sentencepiece checks only `size < blob.len()` and would read up to 3 bytes past the end.
        let (Some(trie), Some(strings)) = (blob.get(4..4 + size), blob.get(4 + size..)) else {
            return Err(bad(format!("its trie size {size} exceeds the blob ({} bytes)", blob.len())));
        };
        let units = trie.chunks_exact(4).map(|u| u32::from_le_bytes([u[0], u[1], u[2], u[3]])).collect();
        let map = CharsMap { units, normalized: strings.to_vec() };
        map.check().map_err(bad)?;
        Ok(map)
    }

    /// Visits every unit a byte string can reach and checks its indices and
    /// that each replacement is in the blob, NUL-ended and UTF-8.
    fn check(&self) -> std::result::Result<(), String> {
        let oob = |i: usize| format!("trie index {i} is out of bounds ({} units)", self.units.len());
        let root = *self.units.first().ok_or("its trie is empty")?;
        let mut seen = vec![false; self.units.len()];
        let mut stack = vec![offset(root)];
        while let Some(base) = stack.pop() {
            for c in 0..=255u32 {
                let pos = base ^ c as usize;
                let unit = *self.units.get(pos).ok_or_else(|| oob(pos))?;
                if label(unit) != c || std::mem::replace(&mut seen[pos], true) {
                    continue;
                }
                let next = pos ^ offset(unit);
                if has_leaf(unit) {
                    let leaf = *self.units.get(next).ok_or_else(|| oob(next))?;
                    self.replacement(value(leaf))?;
                }
                stack.push(next);
            }
        }
        Ok(())
    }

    fn replacement(&self, start: usize) -> std::result::Result<&str, String> {
        let rest = self.normalized.get(start..).filter(|r| !r.is_empty());
        let rest = rest.ok_or_else(|| format!("replacement offset {start} is outside its strings ({} bytes)", self.normalized.len()))?;
        let end = memchr::memchr(0, rest).ok_or_else(|| format!("the replacement at offset {start} has no NUL end"))?;
        std::str::from_utf8(&rest[..end]).map_err(|_| format!("the replacement at offset {start} is not UTF-8"))
    }

    /// (length, replacement) of the longest rule matching a prefix of `input`.
    fn longest(&self, input: &[u8]) -> Option<(usize, &str)> {
        let mut id = offset(*self.units.first()?);
        let (mut best, mut found) = (None, 0);
        for (i, &b) in input.iter().enumerate() {
            id ^= b as usize;
            let unit = *self.units.get(id)?;
            if label(unit) != b as u32 {
                break;
            }
            id ^= offset(unit);
            if has_leaf(unit) {
                if found < MAX_TRIE_RESULTS {
                    best = Some((i + 1, value(*self.units.get(id)?)));
                }
                found += 1;
            }
        }
        let (len, start) = best?;
        Some((len, self.replacement(start).ok()?))
    }

    /// Whether the ASCII byte `b` is copied as it is when an ASCII byte (or the
    /// end) follows: no rule is `b` alone or continues it with an ASCII byte
    /// (nmt_nfkc's rules from letters go on only with combining marks).
    fn copies_before_ascii(&self, b: u8) -> bool {
        let Some(&root) = self.units.first() else { return true };
        let id = offset(root) ^ b as usize;
        let Some(&unit) = self.units.get(id).filter(|&&u| label(u) == b as u32) else { return true };
        let next = id ^ offset(unit);
        !has_leaf(unit) && (0..0x80u32).all(|c| self.units.get(next ^ c as usize).is_none_or(|&u| label(u) != c))
    }
}

#[derive(Clone, Debug)]
pub struct Normalizer {
    charsmap: Option<CharsMap>,
    add_dummy_prefix: bool,
    remove_extra_whitespaces: bool,
    escape_whitespaces: bool,
    treat_whitespace_as_suffix: bool,
    /// ASCII bytes other than the space, starting no user-defined symbol, that
    /// are copied as they are when an ASCII byte follows: runs of them are
    /// copied at once.
    copied: [bool; 256],
    /// The space is copied as it is when an ASCII byte (or the end) follows
    /// (no rule and no user-defined symbol starts with it there).
    plain_space: bool,
}

impl Normalizer {
    pub fn new(spec: &NormalizerSpec, field: &str, treat_whitespace_as_suffix: bool) -> Result<Normalizer> {
        let charsmap = match spec.precompiled_charsmap.is_empty() {
            true => None,
            false => Some(CharsMap::parse(&spec.precompiled_charsmap, field)?),
        };
        let copied = std::array::from_fn(|b| b < 0x80 && b != b' ' as usize && charsmap.as_ref().is_none_or(|m| m.copies_before_ascii(b as u8)));
        let plain_space = charsmap.as_ref().is_none_or(|m| m.copies_before_ascii(b' '));
        Ok(Normalizer {
            copied,
            plain_space,
            charsmap,
            add_dummy_prefix: spec.add_dummy_prefix,
            remove_extra_whitespaces: spec.remove_extra_whitespaces,
            escape_whitespaces: spec.escape_whitespaces,
            treat_whitespace_as_suffix,
        })
    }

    /// Marks the first bytes of the user-defined symbols (matched before the charsmap) as not copied.
    pub fn exclude_first_bytes(&mut self, bytes: impl IntoIterator<Item = u8>) {
        for b in bytes {
            self.plain_space &= b != b' ';
            self.copied[b as usize] = false;
        }
    }

    /// (bytes consumed, replacement) at the start of `input` (NormalizePrefix).
    fn prefix<'a>(&'a self, input: &'a [u8], user: Option<&Trie>) -> (usize, &'a str) {
        if let Some(trie) = user {
            let mut longest = 0;
            trie.prefixes(input, |len, _, _| longest = len);
            if longest > 0 {
                if let Ok(s) = std::str::from_utf8(&input[..longest]) {
                    return (longest, s);
                }
            }
        }
        if let Some((len, rep)) = self.charsmap.as_ref().and_then(|m| m.longest(input)) {
            return (len, rep);
        }
        // One char; a rule ending inside a char leaves a stray byte: U+FFFD for it, as sentencepiece.
        let len = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4][(input[0] >> 4) as usize].min(input.len());
        match std::str::from_utf8(&input[..len]) {
            Ok(s) => (len, s),
            Err(_) => (1, "\u{FFFD}"),
        }
    }

    /// The normalized text (Normalizer::Normalize).
    pub fn normalize(&self, text: &str, user: Option<&Trie>) -> crate::Result<String> {
        let mut out = String::new();
        self.normalize_into(text, user, &mut out)?;
        Ok(out)
    }

    /// [`Self::normalize`] into `out` (emptied first; a batch reuses one buffer).
    pub fn normalize_into(&self, text: &str, user: Option<&Trie>, out: &mut String) -> crate::Result<()> {
        // The text grows fallibly: before each push, room for it (a no-op check while there is room).
        let room = |out: &mut String, n: usize| crate::room::ensure_text_room(out, n, "normalized text");
        out.clear();
        let mut input = text.as_bytes();
        if self.remove_extra_whitespaces {
            while !input.is_empty() {
                let (len, rep) = self.prefix(input, user);
                if rep != " " {
                    break;
                }
                input = &input[len..];
            }
        }
        room(out, input.len() * 3 / 2 + 4)?;
        if input.is_empty() {
            return Ok(());
        }
        let space = if self.escape_whitespaces { SPACE_SYMBOL } else { " " };
        if !self.treat_whitespace_as_suffix && self.add_dummy_prefix {
            out.push_str(space);
        }
        let mut prev_space = self.remove_extra_whitespaces;
        while !input.is_empty() {
            if self.copied[input[0] as usize] && input.get(1).is_none_or(|&b| b < 0x80) {
                let mut run = 1;
                while run < input.len() && input[run] < 0x80 && self.copied[input[run] as usize] {
                    run += 1;
                }
                // The run's last byte is copied only if an ASCII byte or the end follows it.
                if input.get(run).is_some_and(|&b| b >= 0x80) {
                    run -= 1;
                }
                // ASCII bytes: both ends are char boundaries.
                let at = text.len() - input.len();
                room(out, run)?;
                out.push_str(text.get(at..at + run).unwrap_or_default());
                prev_space = false;
                input = &input[run..];
                continue;
            }
            if input[0] == b' ' && self.plain_space && input.get(1).is_none_or(|&b| b < 0x80) {
                // What the general path below does with the replacement " ".
                if !prev_space {
                    room(out, space.len())?;
                    out.push_str(space);
                }
                prev_space = self.remove_extra_whitespaces;
                input = &input[1..];
                continue;
            }
            let (len, mut rep) = self.prefix(input, user);
            if prev_space {
                rep = rep.trim_start_matches(' ');
            }
            if !rep.is_empty() {
                // each space of the replacement may become the 3-byte symbol
                room(out, rep.len() * 3)?;
                if self.escape_whitespaces {
                    for (i, part) in rep.split(' ').enumerate() {
                        if i > 0 {
                            out.push_str(SPACE_SYMBOL);
                        }
                        out.push_str(part);
                    }
                } else {
                    out.push_str(rep);
                }
                prev_space = rep.ends_with(' ');
            }
            input = &input[len..];
            if !self.remove_extra_whitespaces {
                prev_space = false;
            }
        }
        if self.remove_extra_whitespaces {
            while out.ends_with(space) {
                out.truncate(out.len() - space.len());
            }
        }
        if self.treat_whitespace_as_suffix && self.add_dummy_prefix {
            room(out, space.len())?;
            out.push_str(space);
        }
        Ok(())
    }
}
