//! HF's `NormalizedString::split`: a pattern marks the stretches of a piece as
//! match / non-match (covering it in order), then a [`Behavior`] says what
//! becomes of the matches. Empty pieces are dropped, as HF's
//! `PreTokenizedString::split` drops them after every pre-tokenizer.

use crate::normalized_string::NormalizedString;
use crate::room::{chars_text, make_room, try_push, zeroed};
use crate::Result;
use regex::Regex;
use std::ops::Range;

/// HF's `SplitDelimiterBehavior`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behavior {
    Removed,
    Isolated,
    MergedWithPrevious,
    MergedWithNext,
    Contiguous,
}

/// Stretches of `chars` in order, each marked match or not (HF's
/// `find_matches` for a char predicate: every matching char is its own match).
pub fn char_matches(chars: &[char], is_match: impl Fn(char) -> bool) -> Result<Vec<(Range<usize>, bool)>> {
    let mut out = Vec::new();
    let mut last = 0;
    for (i, &c) in chars.iter().enumerate() {
        if is_match(c) {
            if last < i {
                try_push(&mut out, (last..i, false), WHAT)?;
            }
            try_push(&mut out, (i..i + 1, true), WHAT)?;
            last = i + 1;
        }
    }
    if last < chars.len() {
        try_push(&mut out, (last..chars.len(), false), WHAT)?;
    }
    Ok(out)
}

/// Stretches of `chars` in order, marked match or not, for a regex's
/// leftmost non-overlapping matches (HF's `find_matches` for a regex; an
/// empty match is a match of its own). `invert` flips the marks (HF's `Invert`).
pub fn regex_matches(chars: &[char], re: &Regex, invert: bool) -> Result<Vec<(Range<usize>, bool)>> {
    let text = chars_text(chars, WHAT)?;
    // byte offset -> char index (only char boundaries are ever looked up).
    let mut char_at = zeroed::<usize>(text.len() + 1, WHAT)?;
    for (ci, (bi, _)) in text.char_indices().enumerate() {
        char_at[bi] = ci;
    }
    char_at[text.len()] = chars.len();
    let mut out = Vec::new();
    let mut prev = 0;
    for m in re.find_iter(&text) {
        if prev != m.start() {
            try_push(&mut out, (char_at[prev]..char_at[m.start()], invert), WHAT)?;
        }
        try_push(&mut out, (char_at[m.start()]..char_at[m.end()], !invert), WHAT)?;
        prev = m.end();
    }
    if prev != text.len() {
        try_push(&mut out, (char_at[prev]..chars.len(), invert), WHAT)?;
    }
    Ok(out)
}

/// What a failed allocation of a pre-tokenizer names.
pub(super) const WHAT: &str = "pre-tokenized text";

/// Applies `behavior` to `matches` (HF's folds, verbatim in meaning) and
/// pushes the kept, non-empty stretches of `s` to `out`.
pub fn split(s: &NormalizedString, matches: Vec<(Range<usize>, bool)>, behavior: Behavior, out: &mut Vec<NormalizedString>) -> Result<()> {
    let mut kept: Vec<(Range<usize>, bool)> = Vec::new();
    make_room(&mut kept, matches.len(), WHAT)?;
    // `remove` is true only for Removed's matches.
    let mut previous_match = false;
    match behavior {
        Behavior::Removed => kept = matches,
        Behavior::Isolated => kept.extend(matches.into_iter().map(|(r, _)| (r, false))),
        Behavior::Contiguous | Behavior::MergedWithPrevious => {
            for (r, is_match) in matches {
                let merge = match behavior {
                    Behavior::Contiguous => is_match == previous_match,
                    _ => is_match && !previous_match,
                };
                match kept.last_mut() {
                    Some((last, _)) if merge => last.end = r.end,
                    _ => kept.push((r, false)),
                }
                previous_match = is_match;
            }
        }
        Behavior::MergedWithNext => {
            for (r, is_match) in matches.into_iter().rev() {
                match kept.last_mut() {
                    Some((last, _)) if is_match && !previous_match => last.start = r.start,
                    _ => kept.push((r, false)),
                }
                previous_match = is_match;
            }
            kept.reverse();
        }
    }
    for (r, remove) in kept {
        if !remove && r.start < r.end {
            try_push(out, s.slice(r)?, WHAT)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, behavior: Behavior) -> Vec<(String, (usize, usize))> {
        let s = NormalizedString::new(text, 0).unwrap();
        let mut out = Vec::new();
        split(&s, char_matches(&s.chars, |c| c == '-').unwrap(), behavior, &mut out).unwrap();
        out.iter().map(|p| (p.text().unwrap(), p.original_span(0..p.len()).unwrap_or((0, 0)))).collect()
    }

    fn texts(text: &str, behavior: Behavior) -> Vec<String> {
        run(text, behavior).into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn behaviors_on_runs_of_delimiters() {
        // Expected values measured with tokenizers 0.23.3
        // (pre_tokenizers.Split("-", behavior).pre_tokenize_str("-a--b-")).
        let t = "-a--b-";
        assert_eq!(texts(t, Behavior::Removed), ["a", "b"]);
        assert_eq!(texts(t, Behavior::Isolated), ["-", "a", "-", "-", "b", "-"]);
        assert_eq!(texts(t, Behavior::MergedWithPrevious), ["-", "a-", "-", "b-"]);
        assert_eq!(texts(t, Behavior::MergedWithNext), ["-a", "-", "-b", "-"]);
        assert_eq!(texts(t, Behavior::Contiguous), ["-", "a", "--", "b", "-"]);
        assert_eq!(run("a--b", Behavior::Contiguous)[1], ("--".to_string(), (1, 3)));
    }

    #[test]
    fn empty_and_matchless_pieces() {
        assert!(texts("", Behavior::Isolated).is_empty());
        assert_eq!(texts("ab", Behavior::Removed), ["ab"]);
        assert!(texts("---", Behavior::Removed).is_empty());
    }
}
