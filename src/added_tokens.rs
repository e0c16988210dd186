//! Added tokens as HF tokenizers' `AddedVocabulary` handles them: tokens with
//! `normalized: false` are found in the raw text first, then the normalizer
//! runs on what lies between them and tokens with `normalized: true` are
//! found in its output. Matching is leftmost-longest and non-overlapping;
//! `single_word` needs no word char (`\w`) on either side, `lstrip`/`rstrip`
//! take the whitespace (`\s`) before/after into the token.

use crate::normalized_string::NormalizedString;
use crate::room::try_push;
use crate::Result;
use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddedToken {
    pub content: String,
    pub single_word: bool,
    pub lstrip: bool,
    pub rstrip: bool,
    pub normalized: bool,
    pub special: bool,
}

/// The first bytes of a set of added tokens: a text holding none of them
/// holds none of the tokens (as written), so the fast paths skip the split.
#[derive(Clone, Debug)]
pub struct FirstBytes {
    any: [bool; 256],
    /// The same bytes as a list, when there are 3 or fewer (then `memchr` looks for them).
    few: Option<Vec<u8>>,
}

impl Default for FirstBytes {
    fn default() -> Self {
        FirstBytes { any: [false; 256], few: Some(Vec::new()) }
    }
}

impl FirstBytes {
    pub fn new<'a>(contents: impl Iterator<Item = &'a str>) -> FirstBytes {
        let mut any = [false; 256];
        for content in contents {
            if let Some(&b) = content.as_bytes().first() {
                any[b as usize] = true;
            }
        }
        let few: Vec<u8> = (0..=255u8).filter(|&b| any[b as usize]).collect();
        FirstBytes { any, few: (few.len() <= 3).then_some(few) }
    }

    /// Every byte: each text may hold a token.
    pub fn every_byte() -> FirstBytes {
        FirstBytes { any: [true; 256], few: None }
    }

    /// The first bytes, in increasing order.
    pub fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        (0..=255u8).filter(|&b| self.any[b as usize])
    }

    /// False when none of the first bytes occurs in `text`.
    pub fn may_occur_in(&self, text: &str) -> bool {
        let t = text.as_bytes();
        match self.few.as_deref() {
            Some([]) => false,
            Some(&[a]) => memchr::memchr(a, t).is_some(),
            Some(&[a, b]) => memchr::memchr2(a, b, t).is_some(),
            Some(&[a, b, c]) => memchr::memchr3(a, b, c, t).is_some(),
            _ => t.iter().any(|&b| self.any[b as usize]),
        }
    }
}

/// One set of patterns matched leftmost-longest (HF uses a daachorse automaton).
#[derive(Clone, Debug, Default)]
pub struct Matcher {
    /// First char -> (pattern chars, token id), longest first.
    by_first: HashMap<char, Vec<(Vec<char>, u32)>>,
    /// A pattern that is the empty string (a normalized token whose normalized form is empty, e.g.
    /// U+0301 under accent stripping, NUL under BERT's cleaning): HF's automaton matches it at every
    /// byte where no other pattern matches, splitting the text into bytes (the lowest such id).
    empty: Option<u32>,
}

impl Matcher {
    pub fn new(patterns: impl IntoIterator<Item = (String, u32)>) -> Matcher {
        let mut by_first: HashMap<char, Vec<(Vec<char>, u32)>> = HashMap::new();
        let mut empty: Option<u32> = None;
        for (p, id) in patterns {
            let chars: Vec<char> = p.chars().collect();
            match chars.first() {
                Some(&c) => by_first.entry(c).or_default().push((chars, id)),
                None => empty = Some(empty.map_or(id, |e| e.min(id))),
            }
        }
        for v in by_first.values_mut() {
            v.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        }
        Matcher { by_first, empty }
    }

    pub fn is_empty(&self) -> bool {
        self.by_first.is_empty() && self.empty.is_none()
    }

    /// True when the empty pattern is among them (every text then holds a match).
    pub fn matches_everywhere(&self) -> bool {
        self.empty.is_some()
    }

    /// The leftmost-longest match at or after `from`: (start, end, id); the empty pattern where no
    /// other one starts.
    fn find(&self, text: &[char], from: usize) -> Option<(usize, usize, u32)> {
        (from..text.len()).find_map(|i| {
            let found = self.by_first.get(&text[i]).and_then(|cands| cands.iter().find(|(p, _)| text[i..].starts_with(p)));
            match found {
                Some((p, id)) => Some((i, i + p.len(), *id)),
                None => self.empty.map(|id| (i, i, id)),
            }
        })
    }
}

fn is_word_char(c: char) -> bool {
    // Rust regex's Unicode `\w`: Alphabetic, Mark, Decimal_Number, Connector_Punctuation, Join_Control.
    static WORD: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"^\w$").unwrap_or_else(|e| panic!("constant pattern: {e}")));
    let mut buf = [0u8; 4];
    WORD.is_match(c.encode_utf8(&mut buf))
}

/// Splits `text` around the tokens `matcher` finds: (chars range, Some(id) for a token).
/// `skip_special`: HF's `encode_special_tokens` — a special token's match is dropped
/// (its text stays plain text), after the automaton found it, as HF drops it.
pub fn find_matches(
    text: &[char],
    matcher: &Matcher,
    tokens: &HashMap<u32, AddedToken>,
    skip_special: bool,
) -> Result<Vec<(std::ops::Range<usize>, Option<u32>)>> {
    if text.is_empty() || matcher.is_empty() {
        return Ok(vec![(0..text.len(), None)]);
    }
    let mut out = Vec::new();
    let (mut start_offset, mut from) = (0usize, 0usize);
    while let Some((mut start, mut stop, id)) = matcher.find(text, from) {
        // (an empty match: the next search starts one char on, as the automaton's does)
        from = if stop == start { stop + 1 } else { stop };
        let Some(t) = tokens.get(&id) else { continue };
        if skip_special && t.special {
            continue;
        }
        if start == stop {
            // HF's empty matches fall at every byte: inside a multi-byte char its split panics
            // ("AddedVocabulary bad split"); with lstrip/rstrip/single_word they also take in the
            // text around them, which is not reproduced here
            if t.single_word || t.lstrip || t.rstrip {
                return Err(crate::Error::Unsupported(format!(
                    "added token {:?} normalizes to an empty string and has single_word, lstrip or rstrip: not supported",
                    t.content
                )));
            }
            if !text[start].is_ascii() {
                return Err(crate::Error::Tokenize(format!(
                    "added token {:?} normalizes to an empty string, which splits the normalized text at every byte: \
                     tokenizers panics on the non-ASCII char {:?} (\"AddedVocabulary bad split\")",
                    t.content, text[start]
                )));
            }
        }
        if t.single_word {
            let start_space = start == 0 || !is_word_char(text[start - 1]);
            let stop_space = stop == text.len() || !is_word_char(text[stop]);
            if !start_space || !stop_space {
                continue;
            }
        }
        if t.lstrip {
            let mut s = start;
            while s > 0 && text[s - 1].is_whitespace() {
                s -= 1;
            }
            start = s.max(start_offset);
        }
        if t.rstrip {
            while stop < text.len() && text[stop].is_whitespace() {
                stop += 1;
            }
        }
        if start_offset < start {
            try_push(&mut out, (start_offset..start, None), WHAT)?;
        }
        try_push(&mut out, (start..stop, Some(id)), WHAT)?;
        // HF goes on from the match's own end, not from where rstrip stopped.
        start_offset = stop;
    }
    if start_offset != text.len() {
        try_push(&mut out, (start_offset..text.len(), None), WHAT)?;
    }
    Ok(out)
}

/// What a failed allocation names.
const WHAT: &str = "added-token splits";

/// One piece of the input after added-token extraction: text still to
/// pre-tokenize, or an added token already decided.
pub enum Split {
    Text(NormalizedString),
    Token(NormalizedString, u32),
}

/// Splits `s` with `matcher`, turning the gaps into [`Split::Text`] (after
/// `then` has run on each of them).
pub fn split_pieces(
    s: &NormalizedString,
    matcher: &Matcher,
    tokens: &HashMap<u32, AddedToken>,
    skip_special: bool,
    out: &mut Vec<Split>,
    mut then: impl FnMut(NormalizedString, &mut Vec<Split>) -> Result<()>,
) -> Result<()> {
    for (r, id) in find_matches(&s.chars, matcher, tokens, skip_special)? {
        if r.is_empty() {
            continue;
        }
        let piece = s.slice(r)?;
        match id {
            Some(id) => try_push(out, Split::Token(piece, id), WHAT)?,
            None => then(piece, out)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(content: &str, lstrip: bool, rstrip: bool, single_word: bool) -> AddedToken {
        AddedToken { content: content.into(), single_word, lstrip, rstrip, normalized: false, special: true }
    }

    #[test]
    fn leftmost_longest_with_strips() {
        let tokens: HashMap<u32, AddedToken> =
            [(0, tok("<m>", true, false, false)), (1, tok("<m>x", false, false, false))].into_iter().collect();
        let m = Matcher::new(tokens.iter().map(|(&id, t)| (t.content.clone(), id)));
        let text: Vec<char> = "a  <m> <m>x".chars().collect();
        let got = find_matches(&text, &m, &tokens, false).unwrap();
        assert_eq!(got, vec![(0..1, None), (1..6, Some(0)), (6..7, None), (7..11, Some(1))]);
    }

    #[test]
    fn single_word_needs_boundaries() {
        let tokens: HashMap<u32, AddedToken> = [(0, tok("ab", false, false, true))].into_iter().collect();
        let m = Matcher::new([("ab".to_string(), 0)]);
        let text: Vec<char> = "xab ab".chars().collect();
        assert_eq!(find_matches(&text, &m, &tokens, false).unwrap(), vec![(0..4, None), (4..6, Some(0))]);
    }
}
