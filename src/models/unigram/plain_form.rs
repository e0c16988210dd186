//! Whether a normalizer provably leaves a text as it is (or, ids only, what
//! simple text it makes of it): then the fused Metaspace + Unigram entries
//! cut words from the text's bytes, with no `NormalizedString`.

use crate::normalizers::Normalizer;
use crate::pre_tokenizer::is_hf_space;
use std::borrow::Cow;

/// What `n` does to `text` when it is one of these simple cases.
enum Step {
    Same,
    /// Only stripped: the normalized text is `text[start..end]`.
    Trimmed(usize, usize),
    /// Replaced in, or normalized by the charsmap (ids only: no spans).
    Replaced(String),
}

/// `text` as `n` normalizes it, where that is sure to be `text` itself or
/// (`ids_only`: no spans wanted) a stripped, replaced or charsmap-normalized
/// copy of it; None: maybe something else, or not known (the general path
/// then normalizes). With `collapse_into`, a last `Replace(" {2,}", c)` is
/// left to the word cutter (the flag returned says so).
pub(super) fn plain_form<'t>(n: &Normalizer, text: &'t str, ids_only: bool, collapse_into: Option<char>) -> Option<(Cow<'t, str>, bool)> {
    let mut out = Cow::Borrowed(text);
    let items = match n {
        Normalizer::Sequence(items) => items.as_slice(),
        n => std::slice::from_ref(n),
    };
    // Each item sees the text the ones before it made.
    for (k, item) in items.iter().enumerate() {
        if let (Some(c), Normalizer::Replace(r), true) = (collapse_into, item, k + 1 == items.len()) {
            if r.space_runs && r.content.chars().eq([c]) {
                return Some((out, true));
            }
        }
        match step(item, &out, ids_only)? {
            Step::Same => {}
            Step::Trimmed(a, b) => {
                out = match out {
                    Cow::Borrowed(t) => Cow::Borrowed(t.get(a..b).unwrap_or_default()),
                    Cow::Owned(t) => Cow::Owned(t.get(a..b).unwrap_or_default().to_string()),
                }
            }
            Step::Replaced(t) => out = Cow::Owned(t),
        }
    }
    Some((out, false))
}

fn step(n: &Normalizer, text: &str, ids_only: bool) -> Option<Step> {
    let space = |c: char| is_hf_space(c as u32);
    match n {
        // a failed allocation leaves the text to the general path, which says so
        Normalizer::Precompiled(p) if ids_only => match p.normalize_text(text).ok()? {
            Cow::Borrowed(_) => Some(Step::Same),
            Cow::Owned(t) => Some(Step::Replaced(t)),
        },
        Normalizer::Precompiled(p) => p.keeps(text).then_some(Step::Same),
        Normalizer::Strip { left, right } => {
            let start = if *left { text.len() - text.trim_start_matches(space).len() } else { 0 };
            let end = if *right { start + text.get(start..)?.trim_end_matches(space).len() } else { text.len() };
            match (start, end) == (0, text.len()) {
                true => Some(Step::Same),
                false => ids_only.then_some(Step::Trimmed(start, end)),
            }
        }
        Normalizer::Replace(r) => match r.replace_text(text).ok()? {
            Cow::Borrowed(_) => Some(Step::Same),
            Cow::Owned(t) => ids_only.then_some(Step::Replaced(t)),
        },
        // no ASCII char has a decomposition or a composition: all four forms keep ASCII text
        Normalizer::Nfc | Normalizer::Nfd | Normalizer::Nfkc | Normalizer::Nfkd if text.is_ascii() => Some(Step::Same),
        _ => None,
    }
}
