//! The WordPiece decoder with its `cleanup` (also used by CTC), the CTC
//! decoder and ByteFallback, as HF tokenizers' `decoders`.

/// HF's `wordpiece::cleanup`: spaces before punctuation and contractions removed.
pub fn cleanup(s: &str) -> String {
    s.replace(" .", ".")
        .replace(" ?", "?")
        .replace(" !", "!")
        .replace(" ,", ",")
        .replace(" ' ", "'")
        .replace(" n't", "n't")
        .replace(" 'm", "'m")
        .replace(" do not", " don't")
        .replace(" 's", "'s")
        .replace(" 've", "'ve")
        .replace(" 're", "'re")
}

/// After the first token: the prefix is dropped, or a space goes in front.
pub fn decode_chain(tokens: Vec<String>, prefix: &str, clean: bool) -> Vec<String> {
    tokens
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            let t = match (i, t.strip_prefix(prefix)) {
                (0, _) => t,
                (_, Some(rest)) => rest.to_string(),
                (_, None) => format!(" {t}"),
            };
            if clean { cleanup(&t) } else { t }
        })
        .collect()
}

/// Repeated tokens collapsed, the pad token removed, then (with `clean`) the
/// cleanup and the word delimiter as a space; empty results dropped.
pub fn ctc(mut tokens: Vec<String>, pad: &str, delimiter: &str, clean: bool) -> Vec<String> {
    tokens.dedup();
    tokens
        .into_iter()
        .filter_map(|t| {
            let mut t = t.replace(pad, "");
            if clean {
                t = cleanup(&t).replace(delimiter, " ");
            }
            (!t.is_empty()).then_some(t)
        })
        .collect()
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
pub fn byte_fallback(tokens: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut bytes = Vec::new();
    let flush = |bytes: &mut Vec<u8>, out: &mut Vec<String>| {
        if bytes.is_empty() {
            return;
        }
        match String::from_utf8(std::mem::take(bytes)) {
            Ok(s) => out.push(s),
            Err(e) => out.extend(std::iter::repeat_n("\u{FFFD}".to_string(), e.as_bytes().len())),
        }
    };
    for t in tokens {
        match byte_of(&t) {
            Some(b) => bytes.push(b),
            None => {
                flush(&mut bytes, &mut out);
                out.push(t);
            }
        }
    }
    flush(&mut bytes, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn wordpiece_and_ctc_as_hf() {
        assert_eq!(decode_chain(strings(&["##a", "b", "##c", " do not", "."]), "##", true).concat(), "##a bc  don't.");
        let toks = strings(&["<pad>", "h", "h", "e", "<pad>", "l", "l", "<pad>", "l", "o", "|", "w"]);
        assert_eq!(ctc(toks, "<pad>", "|", true).concat(), "hello w");
    }

    #[test]
    fn byte_runs() {
        let toks = strings(&["<0xE2>", "<0x82>", "a", "<0xE2>", "<0x82>", "<0xAC>", "<0x4g>", "<0xff>"]);
        assert_eq!(byte_fallback(toks).concat(), "\u{FFFD}\u{FFFD}a€<0x4g>\u{FFFD}");
    }
}
