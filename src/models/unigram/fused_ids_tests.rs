//! Tests of [`super`]: the ids-only entry against the general path.

use crate::pipeline::{Input, Settings, Tokenizer};

/// A vocabulary of every 1- to 3-char substring of `lines` (plus the
/// replacement char before each word), scores from a fixed hash.
fn unigram_json(lines: &[&str], pre_tokenizer: &str, normalizer: &str, byte_fallback: bool) -> String {
    let mut pieces: Vec<String> = vec!["<unk>".into()];
    let mut seen = std::collections::HashSet::new();
    for line in lines {
        let text: Vec<char> = line.replace(' ', "▁").chars().collect();
        for n in 1..=3 {
            for w in text.windows(n) {
                let p: String = w.iter().collect();
                if (p.len() % 5 != 3 || n == 1) && seen.insert(p.clone()) {
                    pieces.push(p);
                }
            }
        }
    }
    if byte_fallback {
        pieces.extend((0..=255u8).map(|b| format!("<0x{b:02X}>")));
    }
    let vocab: Vec<serde_json::Value> = pieces
        .iter()
        .enumerate()
        .filter(|(i, p)| !byte_fallback || p.chars().count() > 1 || i % 7 != 0 || p.starts_with('<'))
        .map(|(i, p)| serde_json::json!([p, -(((i * 2_654_435_761) % 1000) as f64) / 97.0 - 1.0]))
        .collect();
    format!(
        r#"{{"normalizer": {normalizer}, "pre_tokenizer": {pre_tokenizer},
            "model": {{"type": "Unigram", "unk_id": 0, "byte_fallback": {byte_fallback}, "vocab": {}}}}}"#,
        serde_json::Value::Array(vocab)
    )
}

fn ud_lines() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let mut lines = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if name.starts_with("ud-") && name.ends_with(".txt") {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            lines.extend(text.lines().step_by(40).map(str::to_string));
        }
    }
    lines.sort();
    lines.extend(["", " ", "  a  b  ", "▁x", "a▁▁b", "x\u{301}y", "\u{0}z", "😀 emoji 👍🏽", "\t\n tab", "  ", "é", "Ab\u{301}A\u{301} \tA", "x  ", "a  b",
        "“A” said ‘b’ – café £5  ok ", "x\u{2019}\u{301} y", "\u{a0}a\u{2026} A\u{203c}", "  “ ”  ", "\u{2028}z\u{ad}",
        "a  ▁b", "   ▁  x", "▁  ▁", " ▁ ", "a   ", "A\t\tb", "\t  A", "b \t x", "AA  A",
        // WhitespaceSplit's other whitespace, a space before `▁`, whitespace at the ends
        "x ▁a", "\u{3000}a\u{85}b\u{2028}", "a \u{a0}▁b ▁", "▁ a\u{1680}", " \t"].map(String::from));
    lines
}

const RUNS: &str = r#"{"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "▁"}"#;
const STRIP_REPLACE: &str = r#"{"type": "Strip", "strip_left": false, "strip_right": true}, {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "▁"}"#;

/// A darts charsmap (base64) mapping "A" to "a" and a tab to a space: the
/// root's children at 256 ^ byte, each leaf's value next to it.
fn tiny_charsmap() -> String {
    let mut units = vec![0u32; 512];
    units[0] = 256 << 10;
    for (byte, blob_offset) in [(b'A' as usize, 0u32), (b'\t' as usize, 2)] {
        let pos = 256 ^ byte;
        units[pos] = byte as u32 | 1 << 8 | 1 << 10;
        units[pos ^ 1] = blob_offset;
    }
    let mut bytes = ((units.len() * 4) as u32).to_le_bytes().to_vec();
    units.iter().for_each(|u| bytes.extend(u.to_le_bytes()));
    bytes.extend(b"a\0 \0");
    base64::encode(bytes)
}

/// `encode_ids` gives the ids and offsets of `encode` on the general path, for every shape.
#[test]
fn encode_ids_equals_the_general_path() {
    let lines = ud_lines();
    let sample: Vec<&str> = lines.iter().step_by(2).map(String::as_str).collect();
    let meta = |scheme: &str, split: bool| format!(r#"{{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "{scheme}", "split": {split}}}"#);
    let shapes = [
        (meta("always", true), "null".to_string(), false),
        (meta("first", true), "null".to_string(), true),
        (meta("never", false), "null".to_string(), false),
        (format!(r#"{{"type": "Sequence", "pretokenizers": [{{"type": "WhitespaceSplit"}}, {}]}}"#, meta("always", true)), "null".into(), false),
        // WhitespaceSplit after a charsmap that makes a tab a space (transformers 5's XLM-R / T5 shape); `first` and
        // unsplit (the general path's)
        (format!(r#"{{"type": "Sequence", "pretokenizers": [{{"type": "WhitespaceSplit"}}, {}]}}"#, meta("always", true)),
         format!(r#"{{"type": "Precompiled", "precompiled_charsmap": "{}"}}"#, tiny_charsmap()), true),
        (format!(r#"{{"type": "Sequence", "pretokenizers": [{{"type": "WhitespaceSplit"}}, {}]}}"#, meta("first", true)), "null".into(), false),
        (format!(r#"{{"type": "Sequence", "pretokenizers": [{{"type": "WhitespaceSplit"}}, {}]}}"#, meta("always", false)), "null".into(), false),
        (meta("always", true), r#"{"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Strip", "strip_left": false, "strip_right": true}, {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "▁"}]}"#.into(), false),
        (meta("always", true), format!(r#"{{"type": "Sequence", "normalizers": [{{"type": "Precompiled", "precompiled_charsmap": "{}"}}, {}]}}"#, tiny_charsmap(), STRIP_REPLACE), false),
        (meta("always", true), format!(r#"{{"type": "Sequence", "normalizers": [{}]}}"#, STRIP_REPLACE), true),
        // the space-run Replace last without a Strip, not last, or into a space (not the replacement)
        (meta("first", true), format!(r#"{{"type": "Sequence", "normalizers": [{{"type": "Precompiled", "precompiled_charsmap": "{}"}}, {RUNS}]}}"#, tiny_charsmap()), false),
        (meta("always", true), format!(r#"{{"type": "Sequence", "normalizers": [{RUNS}, {{"type": "Precompiled", "precompiled_charsmap": "{}"}}]}}"#, tiny_charsmap()), false),
        (meta("always", true), format!(r#"{{"type": "Sequence", "normalizers": [{}]}}"#, RUNS.replace('▁', " ")), false),
        (meta("always", false), format!(r#"{{"type": "Sequence", "normalizers": [{RUNS}]}}"#), false),
        // NFKC alone (the bench's shape): ASCII texts are kept as they are
        (meta("first", true), r#"{"type": "NFKC"}"#.into(), false),
    ];
    for (pre, normalizer, byte_fallback) in shapes {
        let json = unigram_json(&sample, &pre, &normalizer, byte_fallback);
        let fused = Tokenizer::from_json(&json).unwrap();
        let general = Tokenizer::from_json(&json).unwrap().without_fast_paths();
        let view = fused.fused_unigram().unwrap();
        let (mut ids, mut offsets, mut ids_only) = (Vec::new(), Vec::new(), Vec::new());
        for text in &lines {
            let g = general.encode(&Input::Raw(text), None, false, &Settings::default()).unwrap();
            ids.clear();
            offsets.clear();
            ids_only.clear();
            view.encode_ids(text, &mut ids, Some(&mut offsets)).unwrap();
            view.encode_ids(text, &mut ids_only, None).unwrap();
            let spans: Vec<[u32; 2]> = g.offsets.iter().map(|&(s, e)| [s as u32, e as u32]).collect();
            assert_eq!((&ids, &offsets), (&g.ids, &spans), "{pre} {normalizer} {text:?}");
            assert_eq!(ids_only, g.ids);
            // the per-text encoding (cut from the text's bytes where the normalizer keeps it), as a pair's second too
            let f = fused.encode(&Input::Raw(text), None, false, &Settings::default()).unwrap();
            assert_eq!((&f.ids, &f.tokens, &f.offsets, &f.words), (&g.ids, &g.tokens, &g.offsets, &g.words), "{pre} {normalizer} {text:?}");
            let [f, g] = [&fused, &general].map(|t| t.encode(&Input::Raw("a b"), Some(&Input::Raw(text)), true, &Settings::default()).unwrap());
            assert_eq!((&f.ids, &f.tokens, &f.offsets, &f.words, &f.type_ids), (&g.ids, &g.tokens, &g.offsets, &g.words, &g.type_ids), "pair {text:?}");
        }
    }
}
