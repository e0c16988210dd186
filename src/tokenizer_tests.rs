//! FullTokenizer's pieces, prefixes and errors (tokenizer.rs).

use super::*;

fn cps(s: &str) -> Vec<u32> {
    s.chars().map(|c| c as u32).collect()
}

#[test]
fn full_tokenizer_pieces_and_unk() {
    let vocab = Vocab::parse("[UNK]\nun\n##aff\n##able\n,\n[unused1]\n", Reference::Google);
    let opts = FullOptions { preserve_unused_tokens: true, ..Default::default() };
    let tok = FullTokenizer::new(vocab, opts).unwrap();
    let mut out = Vec::new();
    tok.tokenize(&cps("UNAFFABLE, unx [unused1]"), |t| {
        let mut b = Vec::new();
        tok.piece_bytes(t.piece, &mut b);
        out.push((String::from_utf8(b).unwrap(), t.span, t.word));
    });
    let want = [("un", (0, 2), 0), ("##aff", (2, 5), 0), ("##able", (5, 9), 0), (",", (9, 10), 1),
                ("[UNK]", (11, 14), 2), ("[unused1]", (15, 24), 3)];
    assert_eq!(out, want.map(|(t, s, w)| (t.to_string(), s, w)));
}

#[test]
fn a_prefix_is_the_start_of_the_whole_texts_ids() {
    let vocab = Vocab::parse("[UNK]\nun\n##aff\n##able\n,\nhello\n##s\n\u{4e2d}\n", Reference::Tokenizers);
    let opts = FullOptions { basic: BasicOptions { reference: Reference::Tokenizers, ..Default::default() }, ..Default::default() };
    let tok = FullTokenizer::new(vocab, opts).unwrap();
    let long = format!("{}{}", "UNAFFABLE, hello\thellos\n\u{e9}\u{301} \u{4e2d}x  \u{3a3}A ".repeat(60), "x".repeat(300));
    let mut scratch = Scratch::with_cache();
    for text in [long.as_str(), "un un", "", " \t\n "] {
        let mut all = vec![7];
        tok.encode_into(text.as_bytes(), &mut all, &mut scratch).unwrap();
        for limit in [0, 1, 2, 3, 5, 64, 100, 127, 1000, 100_000] {
            let mut ids = vec![7]; // what was there stays
            tok.encode_prefix_into(text.as_bytes(), limit, &mut ids, &mut scratch).unwrap();
            assert!(ids.len() >= all.len().min(1 + limit) && all.starts_with(&ids), "{limit}");
        }
    }
    // Malformed text after the part encoded is the error encode_into gives; surrogates are not.
    let mut bad = long.clone().into_bytes();
    bad.extend_from_slice(b" \xff");
    assert!(matches!(tok.encode_into(&bad, &mut Vec::new(), &mut scratch), Err(Error::InvalidText)));
    for limit in [0, 5] {
        assert!(matches!(tok.encode_prefix_into(&bad, limit, &mut Vec::new(), &mut scratch), Err(Error::InvalidText)));
    }
    let surrogate = [long.as_bytes(), b" \xed\xa0\x80"].concat();
    assert!(tok.encode_prefix_into(&surrogate, 5, &mut Vec::new(), &mut scratch).is_ok());
}

#[test]
fn missing_unk_is_an_error() {
    let vocab = Vocab::parse("a\n", Reference::Google);
    assert!(matches!(FullTokenizer::new(vocab, FullOptions::default()), Err(Error::MissingUnkToken { .. })));
}
