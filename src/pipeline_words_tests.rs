//! The plain-words path against the general path on the same tokenizer.json.

use crate::pipeline::{Input, Settings, Tokenizer};
use crate::processors::padding::PaddingParams;
use crate::processors::truncation::{Direction, Strategy, TruncationParams};

const ADDED: &str = r#"{"id": 90, "content": "<s>", "single_word": false, "lstrip": true, "rstrip": false, "normalized": false, "special": true},
    {"id": 91, "content": "b c", "single_word": false, "lstrip": false, "rstrip": true, "normalized": true, "special": false},
    {"id": 92, "content": "é!", "single_word": true, "lstrip": false, "rstrip": false, "normalized": true, "special": false}"#;

fn vocab(extra: &[&str]) -> String {
    let mut tokens: Vec<String> = ["[UNK]", "[CLS]", "[SEP]", "a", "b", "c", "ab", "abc", "é", "日", "本", "日本", "!", "?", "_", "x", "ab!"]
        .iter()
        .map(|t| t.to_string())
        .collect();
    tokens.extend(extra.iter().map(|t| t.to_string()));
    let entries: Vec<String> = tokens.iter().enumerate().map(|(i, t)| format!("{t:?}: {i}")).collect();
    entries.join(", ")
}

fn file(pre: &str, model: &str, added: &str) -> String {
    let model = match model {
        "WordLevel" => format!(r#"{{"type": "WordLevel", "vocab": {{{}}}, "unk_token": "[UNK]"}}"#, vocab(&["x!", "é!", "!?"])),
        "BPE" => format!(
            r#"{{"type": "BPE", "vocab": {{{}}}, "unk_token": "[UNK]", "merges": ["a b", "ab c", "日 本", "ab !"]}}"#,
            vocab(&[])
        ),
        _ => format!(
            r###"{{"type": "BPE", "vocab": {{{}}}, "unk_token": "[UNK]", "fuse_unk": true, "continuing_subword_prefix": "##",
              "merges": ["a ##b", "ab ##c"]}}"###,
            vocab(&["##a", "##b", "##c", "##bc", "##!", "##é"])
        ),
    };
    format!(
        r#"{{"added_tokens": [{added}], "pre_tokenizer": {{"type": "{pre}"}}, "model": {model},
        "post_processor": {{"type": "TemplateProcessing", "single": [{{"SpecialToken": {{"id": "[CLS]", "type_id": 0}}}}, {{"Sequence": {{"id": "A", "type_id": 0}}}}, {{"SpecialToken": {{"id": "[SEP]", "type_id": 0}}}}],
          "pair": [{{"Sequence": {{"id": "A", "type_id": 0}}}}, {{"SpecialToken": {{"id": "[SEP]", "type_id": 0}}}}, {{"Sequence": {{"id": "B", "type_id": 1}}}}],
          "special_tokens": {{"[CLS]": {{"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}}, "[SEP]": {{"id": "[SEP]", "ids": [2], "tokens": ["[SEP]"]}}}}}}}}"#
    )
}

const TEXTS: [&str; 12] = [
    "ab abc a_b",
    "  abc!? x! ab!  ",
    "日本 é! 日本語 éab",
    "",
    "   ",
    "a\u{301}b\tc\u{3000}x\u{85}y\u{a0}z",
    "<s>ab<s> b c  b cé! é!x",
    "zzz qq!? __ 1²3",
    "abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc abc",
    "x<s>",
    "b c",
    "日本<s>éé!",
];

fn settings() -> Vec<Settings> {
    let mut out = vec![Settings::default()];
    for (max_length, stride, direction) in [(3, 0, Direction::Right), (5, 1, Direction::Left), (7, 2, Direction::Right)] {
        out.push(Settings { truncation: Some(TruncationParams { max_length, stride, strategy: Strategy::LongestFirst, direction }), padding: None });
    }
    let padding = PaddingParams { length: Some(12), direction: Direction::Left, pad_to_multiple_of: None, pad_id: 0, pad_type_id: 0, pad_token: "[PAD]".into() };
    out.push(Settings { truncation: None, padding: Some(padding) });
    out
}

#[test]
fn same_encodings_as_the_general_path() {
    for pre in ["Whitespace", "WhitespaceSplit"] {
        for model in ["WordLevel", "BPE", "BPE-prefix"] {
            for added in ["", ADDED] {
                let json = file(pre, model, added);
                let fast = Tokenizer::from_json(&json).unwrap();
                assert_eq!(fast.fast_path(), Some("plain_words"), "{pre} {model}");
                let general = Tokenizer::from_json(&json).unwrap().without_fast_paths();
                assert_eq!(general.fast_path(), None);
                // twice: the second time BPE's words come from the memo
                for round in 0..2 {
                    for s in TEXTS {
                        let (a, b) = (Input::Raw(s), Input::PreTokenized(vec![s, "ab", " é!x"]));
                        for (input, pair) in [(&a, None), (&a, Some(&b)), (&b, None), (&b, Some(&a))] {
                            for settings in settings() {
                                for add in [true, false] {
                                    let got = fast.encode(input, pair, add, &settings).map_err(|e| e.to_string());
                                    let want = general.encode(input, pair, add, &settings).map_err(|e| e.to_string());
                                    assert_eq!(got, want, "{s:?} {pre} {model} added={} round={round}", !added.is_empty());
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn tokenizers_taking_turns_on_a_thread_keep_their_own_words() {
    // same words, other merges: the memo must not answer one model with the other's tokens
    let one = Tokenizer::from_json(&file("Whitespace", "BPE", "")).unwrap();
    let other = Tokenizer::from_json(&file("Whitespace", "BPE", "").replace(r#""a b", "ab c", "#, "")).unwrap();
    let s = Settings::default();
    let ids = |t: &Tokenizer| t.encode(&Input::Raw("abc ab"), None, false, &s).unwrap().ids;
    let (first, second) = (ids(&one), ids(&other));
    assert_ne!(first, second);
    for _ in 0..2 {
        assert_eq!((ids(&one), ids(&other)), (first.clone(), second.clone()));
    }
}

#[test]
fn other_shapes_take_other_paths() {
    let with_normalizer = file("Whitespace", "WordLevel", "").replacen('{', r#"{"normalizer": {"type": "Lowercase"}, "#, 1);
    assert_eq!(Tokenizer::from_json(&with_normalizer).unwrap().fast_path(), None);
    let bert_pre = file("BertPreTokenizer", "WordLevel", "");
    assert_eq!(Tokenizer::from_json(&bert_pre).unwrap().fast_path(), None);
}

#[test]
fn an_unknown_word_without_unk_token_is_the_same_error() {
    let json = file("Whitespace", "WordLevel", "").replace(r#""unk_token": "[UNK]""#, r#""unk_token": "<nope>""#);
    let (fast, general) = (Tokenizer::from_json(&json).unwrap(), Tokenizer::from_json(&json).unwrap().without_fast_paths());
    let s = Settings::default();
    let (a, b) = (fast.encode(&Input::Raw("ab zz"), None, true, &s), general.encode(&Input::Raw("ab zz"), None, true, &s));
    assert_eq!(a.unwrap_err().to_string(), b.unwrap_err().to_string());
}

#[test]
fn the_ascii_scan_finds_the_regex_matches() {
    // every pair of ASCII chars, around a word and a space
    let all: Vec<char> = (0u8..128).map(char::from).collect();
    for &a in &all {
        let text: String = all.iter().flat_map(|&b| [a, b, 'x', b, ' ']).collect();
        let want: Vec<(usize, usize)> = crate::pre_tokenizers::char_class::whitespace_words(&text).collect();
        assert_eq!(super::ascii_whitespace_words(text.as_bytes()).collect::<Vec<_>>(), want, "{a:?}");
    }
}

#[test]
fn the_memo_starts_over_when_full_and_stays_exact() {
    // more distinct words than the memo holds (words of a, b, c: base 3 numbers)
    let json = file("Whitespace", "BPE", "");
    let (fast, general) = (Tokenizer::from_json(&json).unwrap(), Tokenizer::from_json(&json).unwrap().without_fast_paths());
    let word = |mut n: usize| {
        let mut w = String::from("c");
        while n > 0 {
            w.push(['a', 'b', 'c'][n % 3]);
            n /= 3;
        }
        w
    };
    let words: Vec<String> = (0..super::MEMO_WORDS + 5000).map(word).collect();
    let s = Settings::default();
    for chunk in [&words[..], &words[..100]] {
        let text = chunk.join(" ");
        let (a, b) = (fast.encode(&Input::Raw(&text), None, false, &s).unwrap(), general.encode(&Input::Raw(&text), None, false, &s).unwrap());
        assert_eq!(a, b);
    }
}
