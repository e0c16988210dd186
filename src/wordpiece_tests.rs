//! The matcher (LinMaxMatch, the whole-word probe, ids) against Google's
//! greedy loop.

use super::*;

fn wp(tokens: &[&str], max: i64) -> (WordPiece, Vec<String>) {
    let bytes: Vec<&[u8]> = tokens.iter().map(|t| t.as_bytes()).collect();
    (WordPiece::new(&bytes, max), tokens.iter().map(|t| t.to_string()).collect())
}

fn run(w: &(WordPiece, Vec<String>), word: &str) -> Option<Vec<String>> {
    let cps: Vec<u32> = word.chars().map(|c| c as u32).collect();
    let mut out = Vec::new();
    w.0.tokenize_word(&cps, &mut out).then(|| out.iter().map(|&(i, _)| w.1[i as usize].clone()).collect())
}

#[test]
fn greedy_longest_match_first() {
    let w = wp(&["un", "##aff", "##able", "una", "##ff", "a", "##a", ""], 200);
    assert_eq!(run(&w, "unaffable").unwrap(), ["una", "##ff", "##able"]);
    assert_eq!(run(&w, "aaa").unwrap(), ["a", "##a", "##a"]);
    assert_eq!(run(&w, "unx"), None);
    assert_eq!(run(&w, "").unwrap(), Vec::<String>::new());
}

#[test]
fn greedy_does_not_backtrack() {
    // Google's loop takes "ab" and then fails on "c"; it never retries "a" + "##bc".
    let w = wp(&["ab", "a", "##bc"], 200);
    assert_eq!(run(&w, "abc"), None);
}

#[test]
fn length_limit_counts_code_points() {
    let w = wp(&["é", "##é"], 3);
    assert_eq!(run(&w, "ééé").unwrap(), ["é", "##é", "##é"]);
    assert_eq!(run(&w, "éééé"), None);
    assert_eq!(run(&wp(&["a"], -1), "a"), None);
}

/// xorshift: a tiny deterministic generator for the equivalence tests.
fn rng(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

type Pieces = Option<Vec<u32>>;

fn both(w: &WordPiece, word: &[u32]) -> (Pieces, Pieces) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut bytes = Vec::new();
    encode_into(word, &mut bytes);
    let greedy = w.greedy(&bytes, |t| a.push(t)).then_some(a);
    let fast = w.encode_word(&bytes, word.len(), |t| b.push(t)).then_some(b);
    let mut c = Vec::new();
    assert_eq!(w.encode_unseen_word(&bytes, word.len(), |t| c.push(t)).then_some(c), greedy, "unseen, word {word:?}");
    // LinMaxMatch on its own too, without the whole-word shortcut.
    if let (Some(f), Some(r), false) = (&w.failure, w.continuation_root, bytes.starts_with(b"##")) {
        let mut c = Vec::new();
        assert_eq!(w.linear(f, r, &bytes, |t| c.push(t)).then_some(c), greedy, "linear, word {word:?}");
    }
    (greedy, fast)
}

#[test]
fn linear_time_matching_equals_greedy_on_random_vocabularies() {
    let alphabet = ['a', 'b', 'é', '中', '#'];
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..300 {
        let mut tokens: Vec<String> = Vec::new();
        for _ in 0..(rng(&mut seed) % 30) {
            let len = 1 + rng(&mut seed) % 4;
            let t: String = (0..len).map(|_| alphabet[(rng(&mut seed) % 5) as usize]).collect();
            tokens.push(if rng(&mut seed) % 2 == 0 { format!("##{t}") } else { t });
        }
        tokens.push("##".into()); // make sure the continuation root exists
        let bytes: Vec<&[u8]> = tokens.iter().map(|t| t.as_bytes()).collect();
        let w = WordPiece::new(&bytes, 1000);
        for _ in 0..50 {
            let len = rng(&mut seed) % 12;
            let word: Vec<u32> = (0..len).map(|_| alphabet[(rng(&mut seed) % 5) as usize] as u32).collect();
            let (greedy, fast) = both(&w, &word);
            assert_eq!(greedy, fast, "tokens {tokens:?} word {word:?}");
        }
    }
}

#[test]
fn a_large_vocabulary_skips_the_whole_word_probe_for_unseen_words_and_still_equals_greedy() {
    let alphabet = ['a', 'b', 'c', 'é', '中'];
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut tokens = std::collections::BTreeSet::new();
    while tokens.len() < 80_000 {
        let len = 1 + rng(&mut seed) % 8;
        let t: String = (0..len).map(|_| alphabet[(rng(&mut seed) % 5) as usize]).collect();
        tokens.insert(if tokens.len() % 4 == 0 { format!("##{t}") } else { t });
    }
    tokens.insert("##".into());
    let tokens: Vec<String> = tokens.into_iter().collect();
    let bytes: Vec<&[u8]> = tokens.iter().map(|t| t.as_bytes()).collect();
    let w = WordPiece::new(&bytes, 1000);
    assert!(w.whole.slots.len() > SMALL_WHOLE_SLOTS, "the probe is skipped for this vocabulary");
    assert!(!w.by_prefixes && w.continuation.slots.len() == 16, "no prefix probes, no continuation table");
    // Random words (most of several pieces), and the tokens themselves (whole words).
    for k in 0..3000 {
        let word: Vec<u32> = if k % 3 == 0 {
            tokens[(rng(&mut seed) % tokens.len() as u64) as usize].chars().map(|c| c as u32).collect()
        } else {
            (0..rng(&mut seed) % 20).map(|_| alphabet[(rng(&mut seed) % 5) as usize] as u32).collect()
        };
        let (greedy, fast) = both(&w, &word);
        assert_eq!(greedy, fast, "word {word:?}");
    }
}

#[test]
fn linear_time_matching_on_adversarial_words() {
    // Long runs of one letter against a vocabulary of its runs.
    let tokens: Vec<String> = (1..=20).map(|n| "a".repeat(n)).chain((1..=20).map(|n| format!("##{}", "a".repeat(n)))).chain(["##b".into(), "ab".into()]).collect();
    let bytes: Vec<&[u8]> = tokens.iter().map(|t| t.as_bytes()).collect();
    let w = WordPiece::new(&bytes, 20_000);
    for n in [1, 19, 20, 21, 199, 200, 201, 10_000] {
        for tail in ["", "b", "c", "ab"] {
            let word: Vec<u32> = "a".repeat(n).chars().chain(tail.chars()).map(|c| c as u32).collect();
            let (greedy, fast) = both(&w, &word);
            assert_eq!(greedy, fast, "a*{n}+{tail}");
        }
    }
}

#[test]
fn pieces_come_out_as_ids_when_ids_are_not_the_indexes() {
    // Ids as a vocabulary with repeated lines gives them (transformers keeps the last).
    let tokens = ["[UNK]", "un", "##aff", "##able", "una", "##ff", "a", "##a", "##"];
    let bytes: Vec<&[u8]> = tokens.iter().map(|t| t.as_bytes()).collect();
    let ids: Vec<u32> = (0..tokens.len() as u32).map(|i| 100 + 7 * i).collect();
    let w = WordPiece::with_ids(&bytes, ids.clone(), 200);
    assert!(!w.identity);
    for word in ["unaffable", "aaa", "una", "a", "unx"] {
        let mut want = Vec::new();
        let greedy = w.greedy(word.as_bytes(), |t| want.push(ids[t as usize]));
        let mut got = Vec::new();
        let fast = w.encode_word(word.as_bytes(), word.chars().count(), |id| got.push(id));
        assert_eq!(fast, greedy, "{word}");
        let mut walked = Vec::new();
        assert_eq!(w.encode_unseen_word(word.as_bytes(), word.chars().count(), |id| walked.push(id)), greedy, "{word}");
        if greedy {
            assert_eq!(got, want, "{word}");
            assert_eq!(walked, want, "{word}");
        }
    }
    let mut got = Vec::new();
    assert!(w.encode_word(b"unaffable", 9, |id| got.push(id)));
    assert_eq!(got, [ids[4], ids[5], ids[3]]);
}

#[test]
fn bare_prefix_is_not_a_piece() {
    // "##" itself never matches an empty continuation.
    let w = wp(&["a", "##"], 200);
    assert_eq!(run(&w, "ab"), None);
}

/// The prefix probes, called directly, against the greedy loop (ids mapped);
/// and the cold-word entry (which takes them where it can) against both.
fn check_prefixes(w: &WordPiece, word: &str) {
    let bytes = word.as_bytes();
    let mut want = Vec::new();
    let greedy = w.greedy(bytes, |t| want.push(w.ids[t as usize]));
    let chars = word.chars().count();
    if w.takes_prefixes(bytes) {
        let mut got = Vec::new();
        let fast = prefixes::pieces(&w.whole, &w.continuation, bytes, |id| got.push(id));
        assert_eq!(fast, greedy, "{word:?}");
        if greedy {
            assert_eq!(got, want, "{word:?}");
        }
    }
    let within = chars as i64 <= w.max_input_chars_per_word;
    let mut got = Vec::new();
    assert_eq!(w.encode_unseen_word(bytes, chars, |id| got.push(id)), greedy && within, "unseen, {word:?}");
    if greedy && within {
        assert_eq!(got, want, "unseen, {word:?}");
    }
}

#[test]
fn prefix_probes_equal_greedy_on_adversarial_vocabularies() {
    // One to four UTF-8 bytes a letter, and '#': keys past eight bytes (their
    // rest in the arena), tokens prefixes of one another, "##" tokens only, none.
    let alphabet = ['a', 'b', 'é', '中', '𝔸', '#'];
    let mut seed = 0x0123_4567_89AB_CDEFu64;
    for round in 0..400 {
        let mut tokens: Vec<String> = Vec::new();
        let letter = |seed: &mut u64| alphabet[(rng(seed) % 6) as usize];
        match round % 4 {
            // Runs of one letter: every token a prefix of the next.
            0 => {
                let c = letter(&mut seed);
                for n in 1..=(1 + rng(&mut seed) % 20) as usize {
                    tokens.push(c.to_string().repeat(n));
                    tokens.push(format!("##{}", c.to_string().repeat(n)));
                }
            }
            kind => {
                for _ in 0..(1 + rng(&mut seed) % 40) {
                    let len = 1 + rng(&mut seed) % 12;
                    let t: String = (0..len).map(|_| letter(&mut seed)).collect();
                    // 1: mixed; 2: "##" tokens only; 3: no "##" token.
                    let cont = match kind {
                        1 => rng(&mut seed) % 2 == 0,
                        2 => true,
                        _ => false,
                    };
                    tokens.push(if cont { format!("##{t}") } else { t });
                }
            }
        }
        if rng(&mut seed) % 3 == 0 {
            tokens.push("##".into());
        }
        tokens.push(tokens[0].clone()); // repeated: the first index wins
        let bytes: Vec<&[u8]> = tokens.iter().map(|t| t.as_bytes()).collect();
        let ids: Vec<u32> = (0..tokens.len() as u32).map(|i| 7 * i + 3).collect();
        let max = [1000, 5, 12][round % 3];
        let w = WordPiece::with_ids(&bytes, ids, max);
        assert!(w.by_prefixes && w.whole.slots.len() <= SMALL_WHOLE_SLOTS, "{tokens:?}");
        for k in 0..60 {
            let word: String = if k % 4 == 0 {
                // A token, or two run together.
                let t = |seed: &mut u64| tokens[(rng(seed) % tokens.len() as u64) as usize].trim_start_matches('#').to_string();
                if k % 8 == 0 { t(&mut seed) } else { t(&mut seed) + &t(&mut seed) }
            } else {
                (0..1 + rng(&mut seed) % 30).map(|_| letter(&mut seed)).collect()
            };
            check_prefixes(&w, &word);
        }
    }
}

#[test]
fn prefix_probes_at_the_length_limits() {
    let w = WordPiece::new(&[b"a", b"##a", b"aaaa", b"##aaa", b"\xC3\xA9", b"##\xC3\xA9"], 100);
    let w200 = WordPiece::new(&[b"a", b"##a", b"aaaa", b"##aaa"], 200);
    for n in [1, 31, 32, 33, 63, 64, 65, 99, 100, 101, 199, 200, 201] {
        for w in [&w, &w200] {
            check_prefixes(w, &"a".repeat(n));
            check_prefixes(w, &"é".repeat(n));
            check_prefixes(w, &("a".repeat(n) + "b"));
        }
    }
}

#[test]
fn prefix_probes_are_off_where_a_table_cannot_hold_every_token() {
    let long = "a".repeat(256);
    for (tokens, ids) in [
        (vec!["a".to_string(), "##a".into(), long.clone()], vec![0, 1, 2]), // a token over 255 bytes
        (vec!["a".to_string(), "##a".into(), format!("##{long}")], vec![0, 1, 2]),
        (vec!["a".to_string(), "##a".into()], vec![0, 1 << 24]), // an id over 24 bits
    ] {
        let bytes: Vec<&[u8]> = tokens.iter().map(|t| t.as_bytes()).collect();
        let w = WordPiece::with_ids(&bytes, ids, 1000);
        assert!(!w.by_prefixes);
        for n in [1, 2, 255, 256, 257] {
            check_prefixes(&w, &"a".repeat(n));
        }
    }
    // A token that is not UTF-8 could end inside a letter of a word.
    let w = WordPiece::new(&[b"\xC3", b"##\xA9", b"a"], 1000);
    assert!(!w.by_prefixes);
    check_prefixes(&w, "é");
    check_prefixes(&w, "aé");
}
