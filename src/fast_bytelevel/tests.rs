//! The fast path against the general path on the same tokenizer.json.

use crate::pipeline::{Input, Settings, Tokenizer};

fn json(pre_tokenizer: &str, added: &str) -> String {
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

const ADDED: &str = r#"{"id": 260, "content": "<s>", "single_word": false, "lstrip": true, "rstrip": false, "normalized": false, "special": true},
    {"id": 261, "content": "ab c", "single_word": false, "lstrip": false, "rstrip": false, "normalized": true, "special": false}"#;

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

#[test]
fn other_shapes_take_the_general_path() {
    let no_regex = json(r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}"#, "");
    assert_eq!(Tokenizer::from_json(&no_regex).unwrap().fast_path(), None);
    let whitespace = json(r#"{"type": "Whitespace"}"#, "");
    assert_eq!(Tokenizer::from_json(&whitespace).unwrap().fast_path(), None);
}
