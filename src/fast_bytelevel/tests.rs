//! The fast path against the general path on the same tokenizer.json.

use crate::pipeline::{Input, Settings, Tokenizer};

pub(crate) fn json(pre_tokenizer: &str, added: &str) -> String {
    let mut vocab: Vec<String> = crate::pre_tokenizers::byte_level::alphabet().iter().map(|c| format!("{:?}", c.to_string())).collect();
    for t in ["ab", "Ġa", "Ġab", "Ã©"] {
        vocab.push(format!("{t:?}"));
    }
    let vocab: Vec<String> = vocab.iter().enumerate().map(|(i, t)| format!("{t}: {i}")).collect();
    format!(
        r#"{{"added_tokens": [{added}], "pre_tokenizer": {pre_tokenizer},
        "post_processor": {{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true}},
        "model": {{"type": "BPE", "vocab": {{{}}}, "merges": ["a b", "Ġ a", "Ġa b", "Ã ©"]}}}}"#,
        vocab.join(", ")
    )
}

pub(crate) const ADDED: &str = r#"{"id": 260, "content": "<s>", "single_word": false, "lstrip": true, "rstrip": false, "normalized": false, "special": true},
    {"id": 261, "content": "ab c", "single_word": false, "lstrip": false, "rstrip": false, "normalized": true, "special": false}"#;

/// Added tokens that all start with ASCII punctuation: the bulk scan itself stops at their first bytes
/// (a contraction's quote too: `'s` is a token here, not the contraction).
pub(crate) const ADDED_PUNCTUATION: &str = r#"{"id": 260, "content": "<s>", "single_word": false, "lstrip": true, "rstrip": false, "normalized": false, "special": true},
    {"id": 261, "content": "'s", "single_word": false, "lstrip": false, "rstrip": true, "normalized": true, "special": false}"#;

#[test]
fn same_encodings_as_the_general_path() {
    for prefix in [false, true] {
        for added in ["", ADDED] {
            let pre = format!(r#"{{"type": "ByteLevel", "add_prefix_space": {prefix}, "trim_offsets": true}}"#);
            let text = json(&pre, added);
            let fast = Tokenizer::from_json(&text).unwrap();
            assert_eq!(fast.fast_path(), Some("byte_level_bpe"));
            let general = Tokenizer::from_json(&text).unwrap().without_fast_paths();
            for s in ["ab ab", " ab  é<s>ab c x", "é", "", "   ", "日本 ab\u{301}c<s> <s>", "x<s>"] {
                let (a, b) = (Input::Raw(s), Input::PreTokenized(vec![s, "ab", " é"]));
                for (input, pair) in [(&a, None), (&a, Some(&b)), (&b, Some(&a))] {
                    let got = fast.encode(input, pair, true, &Settings::default()).unwrap();
                    let want = general.encode(input, pair, true, &Settings::default()).unwrap();
                    assert_eq!(got, want, "{s:?} prefix={prefix} added={}", !added.is_empty());
                }
            }
        }
    }
}

/// TikTokenConverter's shape for GPT-2's pattern: that regex in a Split, then ByteLevel without its own.
fn split_then_bytes(behavior: &str, prefix: bool, use_regex: bool) -> String {
    let pattern = r#"'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"#;
    format!(
        r#"{{"type": "Sequence", "pretokenizers": [{{"type": "Split", "pattern": {{"Regex": "{pattern}"}}, "behavior": "{behavior}", "invert": false}},
        {{"type": "ByteLevel", "add_prefix_space": {prefix}, "trim_offsets": true, "use_regex": {use_regex}}}]}}"#
    )
}

#[test]
fn split_then_bytes_takes_the_fast_path_with_the_same_encodings() {
    for added in ["", ADDED] {
        let text = json(&split_then_bytes("Isolated", false, false), added);
        let fast = Tokenizer::from_json(&text).unwrap();
        assert_eq!(fast.fast_path(), Some("byte_level_bpe"));
        let general = Tokenizer::from_json(&text).unwrap().without_fast_paths();
        for s in ["ab ab", " ab  é<s>ab c x", "é", "", "   ", "日本 ab\u{301}c<s> <s>", "x<s>", "it's 'll  \n\n x"] {
            let (a, b) = (Input::Raw(s), Input::PreTokenized(vec![s, "ab", " é"]));
            for (input, pair) in [(&a, None), (&a, Some(&b)), (&b, Some(&a))] {
                let got = fast.encode(input, pair, true, &Settings::default()).unwrap();
                let want = general.encode(input, pair, true, &Settings::default()).unwrap();
                assert_eq!(got, want, "{s:?} added={}", !added.is_empty());
            }
        }
    }
    // a prefix space before every piece, pieces merged, or ByteLevel's regex again: the general path
    for (behavior, prefix, use_regex) in [("Isolated", true, false), ("MergedWithPrevious", false, false), ("Isolated", false, true)] {
        let text = json(&split_then_bytes(behavior, prefix, use_regex), "");
        assert_eq!(Tokenizer::from_json(&text).unwrap().fast_path(), None, "{behavior} {prefix} {use_regex}");
    }
}

#[test]
fn other_shapes_take_the_general_path() {
    let no_regex = json(r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}"#, "");
    assert_eq!(Tokenizer::from_json(&no_regex).unwrap().fast_path(), None);
    let whitespace = json(r#"{"type": "Whitespace"}"#, "");
    assert_eq!(Tokenizer::from_json(&whitespace).unwrap().fast_path(), Some("plain_words"));
}

#[test]
fn ids_only_path_gives_encodes_ids_and_offsets() {
    use crate::pipeline::IdsOnly;
    use crate::processors::truncation::{Direction, Strategy, TruncationParams};
    for (prefix, added) in [(false, ADDED), (true, ADDED), (false, ADDED_PUNCTUATION), (true, ADDED_PUNCTUATION), (false, "")] {
        let pre = format!(r#"{{"type": "ByteLevel", "add_prefix_space": {prefix}, "trim_offsets": true}}"#);
        let tok = Tokenizer::from_json(&json(&pre, added)).unwrap();
        let mut truncations = vec![None];
        for (max_length, direction) in [(0, Direction::Left), (1, Direction::Right), (2, Direction::Left), (3, Direction::Right)] {
            truncations.push(Some(TruncationParams { max_length, stride: 0, strategy: Strategy::LongestFirst, direction }));
        }
        for s in ["ab ab", " ab  é<s>ab c x", "é", "", "   ", "日本 ab\u{301}c<s> <s>", "x<s>", "a'ab 'ab's <", "it's <<s>", "it's", "<", "'"] {
            for truncation in &truncations {
                for add in [false, true] {
                    let settings = Settings { truncation: *truncation, padding: None };
                    let want = tok.encode(&Input::Raw(s), None, add, &settings).unwrap();
                    let (mut ids, mut offsets) = (vec![7], vec![[7, 7]]); // appended after what is there
                    let done = tok.encode_ids_into(s, add, truncation.as_ref(), &mut ids, Some(&mut offsets)).unwrap();
                    assert_eq!(done, IdsOnly::Done { truncated: !want.overflowing.is_empty() }, "{s:?}");
                    let spans: Vec<[u32; 2]> = want.offsets.iter().map(|&(a, b)| [a as u32, b as u32]).collect();
                    assert_eq!((&ids[1..], &offsets[1..]), (&want.ids[..], &spans[..]), "{s:?} {truncation:?} add={add}");
                }
            }
        }
    }
    let general = Tokenizer::from_json(&json(r#"{"type": "Whitespace"}"#, "")).unwrap();
    assert_eq!(general.encode_ids_into("ab", true, None, &mut Vec::new(), None).unwrap(), IdsOnly::Declined);
}
