//! The fused Metaspace + Unigram path against the general composition (fused.rs).

use crate::pipeline::{Input, Settings, Tokenizer};

fn file(pre_tokenizer: &str) -> String {
    format!(
        r#"{{"added_tokens": [{{"id": 7, "content": "<m>", "single_word": false, "lstrip": true, "rstrip": false,
                             "normalized": false, "special": true}}],
           "pre_tokenizer": {pre_tokenizer},
           "model": {{"type": "Unigram", "unk_id": 0, "byte_fallback": false,
                      "vocab": [["<unk>", 0.0], ["▁", -2.0], ["a", -1.0], ["b", -1.0], ["▁a", -1.5], ["ab", -1.0], ["▁ab", -2.5]]}}}}"#
    )
}

/// The fused path gives what the general path gives (ids, tokens, offsets, words).
#[test]
fn fused_equals_general() {
    let meta = r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true}"#;
    let shapes = [meta.to_string(), format!(r#"{{"type": "Sequence", "pretokenizers": [{{"type": "WhitespaceSplit"}}, {meta}]}}"#)];
    for pre in shapes {
        let fused = Tokenizer::from_json(&file(&pre)).unwrap();
        assert_eq!(fused.fast_path(), Some("metaspace_unigram"));
        let general = Tokenizer::from_json(&file(&pre)).unwrap().without_fast_paths();
        for text in ["ab a  b", " <m>ab xé", "", "▁a▁", "<m>", "xx ab"] {
            let s = Settings::default();
            let (f, g) = (fused.encode(&Input::Raw(text), None, false, &s).unwrap(), general.encode(&Input::Raw(text), None, false, &s).unwrap());
            assert_eq!((&f.ids, &f.tokens, &f.offsets, &f.words), (&g.ids, &g.tokens, &g.offsets, &g.words), "{text:?}");
        }
    }
    let whitespace = Tokenizer::from_json(&file(r#"{"type": "Whitespace"}"#)).unwrap();
    assert_eq!(whitespace.fast_path(), None);
}

/// Two files used alternately from the same threads, past both sharing points (64 and 256
/// words under test): each one's bulk rows are its general path's, 1 and 2 threads, either order.
#[test]
fn shared_tables_stay_with_their_tokenizer() {
    use crate::pipeline_batch::encode_flat;
    let meta = r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true}"#;
    let a = file(meta);
    let b = a.replace(r#"["ab", -1.0]"#, r#"["ab", -9.0]"#).replace(r#"["▁a", -1.5]"#, r#"["▁a", -0.5]"#);
    let words: Vec<String> = (2..2048u32).map(|k| format!("{k:b}").replace('1', "a").replace('0', "b")).collect();
    let texts: Vec<String> = words.chunks(7).map(|c| c.join(" ")).collect();
    let backwards: Vec<&str> = texts.iter().rev().map(String::as_str).collect();
    let forwards: Vec<&str> = texts.iter().map(String::as_str).collect();
    let toks = [Tokenizer::from_json(&a).unwrap(), Tokenizer::from_json(&b).unwrap()];
    let want: Vec<Vec<Vec<u32>>> = [&a, &b]
        .iter()
        .map(|f| {
            let general = Tokenizer::from_json(f).unwrap().without_fast_paths();
            forwards.iter().map(|t| general.encode(&Input::Raw(t), None, false, &Settings::default()).unwrap().ids).collect()
        })
        .collect();
    assert_ne!(want[0], want[1]);
    for threads in [1, 2, 2, 1, 2] {
        for (k, tok) in toks.iter().enumerate() {
            for (texts, backward) in [(&forwards, false), (&backwards, true)] {
                let out = encode_flat(tok, texts, false, None, false, threads).unwrap();
                let got: Vec<&[u32]> = out.row_splits.windows(2).map(|w| &out.ids[w[0] as usize..w[1] as usize]).collect();
                let mut expected: Vec<&[u32]> = want[k].iter().map(Vec::as_slice).collect();
                if backward {
                    expected.reverse();
                }
                assert_eq!(got, expected, "file {k}, {threads} threads, backward {backward}");
            }
        }
    }
}
