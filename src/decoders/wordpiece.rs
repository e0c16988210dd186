//! The WordPiece decoder with its `cleanup` (also used by CTC), the CTC
//! decoder and ByteFallback, as HF tokenizers' `decoders`.

use super::tokens::{replaced, Tokens};
use crate::Result;
use std::borrow::Cow;

/// HF's `wordpiece::cleanup`, in its order: spaces before punctuation and contractions removed.
const CLEANUP: [(&str, &str); 11] = [
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" do not", " don't"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
];

/// HF's `wordpiece::cleanup` (borrowed when nothing changes).
pub fn cleanup(s: &str) -> Result<Cow<'_, str>> {
    let mut out = Cow::Borrowed(s);
    for (pattern, with) in CLEANUP {
        let changed = match replaced(&out, pattern, with)? {
            Cow::Owned(o) => Some(o),
            Cow::Borrowed(_) => None,
        };
        if let Some(o) = changed {
            out = Cow::Owned(o);
        }
    }
    Ok(out)
}

/// After the first token: the prefix is dropped, or a space goes in front.
pub fn decode_chain(tokens: &Tokens, prefix: &str, clean: bool) -> Result<Tokens> {
    let mut out = Tokens::default();
    for (i, t) in tokens.iter().enumerate() {
        match (i, t.strip_prefix(prefix)) {
            (0, _) => out.push_str(t)?,
            (_, Some(rest)) => out.push_str(rest)?,
            (_, None) => {
                out.push_char(' ')?;
                out.push_str(t)?;
            }
        }
        if clean {
            out.edit_open_token(cleanup)?;
        }
        out.end()?;
    }
    Ok(out)
}

/// Repeated tokens collapsed, the pad token removed, then (with `clean`) the
/// cleanup and the word delimiter as a space; empty results dropped.
pub fn ctc(tokens: &Tokens, pad: &str, delimiter: &str, clean: bool) -> Result<Tokens> {
    let mut out = Tokens::default();
    let mut previous = None;
    for t in tokens.iter() {
        if previous == Some(t) {
            continue;
        }
        previous = Some(t);
        out.push_replaced(t, pad, "")?;
        if clean {
            out.edit_open_token(cleanup)?;
            out.edit_open_token(|t| replaced(t, delimiter, " "))?;
        }
        match out.open_token().is_empty() {
            true => out.drop_open_token(),
            false => out.end()?,
        }
    }
    Ok(out)
}

/// The byte of a `<0xNN>` token (parsed as HF parses it, `from_str_radix`).
fn byte_of(t: &str) -> Option<u8> {
    if t.len() == 6 && t.starts_with("<0x") && t.ends_with('>') {
        t.get(3..5).and_then(|h| u8::from_str_radix(h, 16).ok())
    } else {
        None
    }
}

/// Runs of byte tokens become their UTF-8 text, or one U+FFFD per byte if
/// the run is not valid UTF-8.
pub fn byte_fallback(tokens: &Tokens) -> Result<Tokens> {
    let mut out = Tokens::default();
    let mut bytes = Vec::new();
    let flush = |bytes: &mut Vec<u8>, out: &mut Tokens| -> Result<()> {
        match std::str::from_utf8(bytes) {
            Ok(s) if !s.is_empty() => out.push(s)?,
            Ok(_) => {}
            Err(_) => {
                for _ in 0..bytes.len() {
                    out.push("\u{FFFD}")?;
                }
            }
        }
        bytes.clear();
        Ok(())
    };
    for t in tokens.iter() {
        match byte_of(t) {
            // at most one byte a token: never more room than the tokens' own text
            Some(b) => crate::room::try_push(&mut bytes, b, "decoded text")?,
            None => {
                flush(&mut bytes, &mut out)?;
                out.push(t)?;
            }
        }
    }
    flush(&mut bytes, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(t: &[&str]) -> Tokens {
        Tokens::from_strs(t).unwrap()
    }

    #[test]
    fn wordpiece_and_ctc_as_hf() {
        let toks = tokens(&["##a", "b", "##c", " do not", "."]);
        assert_eq!(decode_chain(&toks, "##", true).unwrap().into_text(), "##a bc  don't.");
        let toks = tokens(&["<pad>", "h", "h", "e", "<pad>", "l", "l", "<pad>", "l", "o", "|", "w"]);
        assert_eq!(ctc(&toks, "<pad>", "|", true).unwrap().into_text(), "hello w");
        // empty results dropped: a token of pads alone leaves nothing, the next one is not merged
        let got = ctc(&tokens(&["<pad>", "a", "<pad><pad>", "a"]), "<pad>", "|", false).unwrap();
        assert_eq!(got.iter().collect::<Vec<_>>(), ["a", "a"]);
    }

    #[test]
    fn cleanup_is_the_chain_of_replacements() {
        for s in ["a . b ' c do not d 's", "nothing", "", " do not 're 've !?"] {
            let mut want = s.to_string();
            for (p, w) in CLEANUP {
                want = want.replace(p, w);
            }
            assert_eq!(cleanup(s).unwrap(), want, "{s:?}");
        }
        assert!(matches!(cleanup("nothing").unwrap(), Cow::Borrowed(_)));
    }

    #[test]
    fn byte_runs() {
        let toks = tokens(&["<0xE2>", "<0x82>", "a", "<0xE2>", "<0x82>", "<0xAC>", "<0x4g>", "<0xff>"]);
        assert_eq!(byte_fallback(&toks).unwrap().into_text(), "\u{FFFD}\u{FFFD}a€<0x4g>\u{FFFD}");
        let got = byte_fallback(&tokens(&["<0x61>", "<0x62>", "c"])).unwrap();
        assert_eq!(got.iter().collect::<Vec<_>>(), ["ab", "c"]);
    }
}
