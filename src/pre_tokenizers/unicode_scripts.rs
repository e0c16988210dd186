//! HF's `UnicodeScripts` pre-tokenizer: a piece is cut before each char
//! whose script differs from the last char's that was not `Any`. `Any` chars
//! (" " and chars HF's table does not list) never cut and join the piece
//! before them; any leading before the first cut are dropped, as HF's
//! windows over its cut offsets start at the first cut (measured: " abc" ->
//! ["abc"], "   " -> []). The script classes are tokenizers 0.23.3's own
//! (Hiragana, Katakana and U+30FC count as Han), measured on every code
//! point into [`unicode_scripts_table`](super::unicode_scripts_table).

use super::unicode_scripts_table::SCRIPT_CLASSES;
use crate::normalized_string::NormalizedString;
use crate::room::try_push;
use crate::Result;

/// `Any`'s class.
const ANY: u16 = 0;

/// The script class of `c` (0 for `Any`).
pub fn script_class(c: char) -> u16 {
    let cp = c as u32;
    match SCRIPT_CLASSES.binary_search_by(|&(first, last, _)| {
        if last < cp {
            std::cmp::Ordering::Less
        } else if first > cp {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    }) {
        Ok(i) => SCRIPT_CLASSES.get(i).map_or(ANY, |&(_, _, class)| class),
        Err(_) => ANY,
    }
}

pub fn pre_tokenize(s: NormalizedString, out: &mut Vec<NormalizedString>) -> Result<()> {
    let mut cuts = Vec::new();
    let mut last = None;
    for (i, &c) in s.chars.iter().enumerate() {
        let class = script_class(c);
        if class != ANY {
            if last != Some(class) {
                try_push(&mut cuts, i, "pre-tokenized text")?;
            }
            last = Some(class);
        }
    }
    try_push(&mut cuts, s.len(), "pre-tokenized text")?;
    for w in cuts.windows(2) {
        if let [start, end] = *w {
            if start < end {
                try_push(out, s.slice(start..end)?, "pre-tokenized text")?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str) -> Vec<(String, (usize, usize))> {
        let mut out = Vec::new();
        pre_tokenize(NormalizedString::new(text, 0).unwrap(), &mut out).unwrap();
        out.iter().map(|p| (p.text().unwrap(), p.original_span(0..p.len()).unwrap_or((0, 0)))).collect()
    }

    #[test]
    fn cuts_where_the_script_changes_and_drops_leading_any() {
        // Measured: pre_tokenizers.UnicodeScripts().pre_tokenize_str(...) on tokenizers 0.23.3.
        let got = pieces("a αb");
        assert_eq!(got, [("a ".to_string(), (0, 2)), ("α".to_string(), (2, 3)), ("b".to_string(), (3, 4))]);
        assert_eq!(pieces(" abc"), [("abc".to_string(), (1, 4))]);
        assert!(pieces("   ").is_empty());
        let got = pieces("どこで生れ。Yes");
        let texts: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(texts, ["どこで生れ", "。", "Yes"]);
    }

    #[test]
    fn kana_and_han_are_one_class() {
        assert_eq!(script_class('い'), script_class('京'));
        assert_eq!(script_class('グ'), script_class('京'));
        assert_eq!(script_class('\u{30FC}'), script_class('京'));
        assert_eq!(script_class(' '), ANY);
        assert_ne!(script_class('a'), script_class('α'));
    }
}
