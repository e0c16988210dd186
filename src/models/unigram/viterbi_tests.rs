//! The char-level Viterbi of [`super::Unigram::best_path`] against HF's
//! `encode_optimized` written out over bytes with a scan of the whole
//! vocabulary for the pieces at each char (no trie): random vocabularies
//! over a few 1- to 4-byte chars, scores from a set of four (many ties, in
//! sums too), texts with chars no piece holds, with and without byte fallback.

use super::*;

/// xorshift: a tiny deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// HF's `encode_optimized`: for each char start in order, the pieces that
/// start there shortest first (found by scanning the vocabulary), then the
/// unknown piece if no single-char piece starts there; a node is taken when
/// unset or strictly better. The path as (id, start byte, end byte).
fn reference(pieces: &[(String, f64)], unk_id: u32, word: &str) -> Vec<ModelToken> {
    let min = pieces.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let unk_score = min - UNK_PENALTY;
    let mut by_len: Vec<(usize, u32)> = pieces.iter().enumerate().filter(|(_, p)| !p.0.is_empty()).map(|(i, p)| (p.0.len(), i as u32)).collect();
    by_len.sort_unstable();
    let size = word.len();
    // (score, start, id), None: unset
    let mut best: Vec<Option<(f64, usize, u32)>> = vec![None; size + 1];
    for (start, c) in word.char_indices() {
        let here = best[start].map_or(0.0, |b| b.0);
        let mut has_single = false;
        let offer = |best: &mut Vec<Option<(f64, usize, u32)>>, end: usize, id: u32, score: f64| {
            let cand = score + here;
            if best[end].is_none_or(|b| cand > b.0) {
                best[end] = Some((cand, start, id));
            }
        };
        for &(len, id) in &by_len {
            if word[start..].starts_with(pieces[id as usize].0.as_str()) {
                offer(&mut best, start + len, id, pieces[id as usize].1);
                has_single |= len == c.len_utf8();
            }
        }
        if !has_single {
            offer(&mut best, start + c.len_utf8(), unk_id, unk_score);
        }
    }
    let mut path = Vec::new();
    let mut end = size;
    while end > 0 {
        let (_, start, id) = best[end].unwrap();
        path.push((id, start, end));
        end = start;
    }
    path.reverse();
    path
}

const CHARS: [&str; 8] = ["a", "b", "▁", "é", "日", "本", "😀", "<"];
/// Chars of texts that no piece holds (and some that byte-fallback pieces spell).
const OTHER: [&str; 4] = ["z", "語", "🙂", "\u{0301}"];
const SCORES: [f64; 4] = [-1.0, -2.0, -1.5, -3.0];

#[test]
fn char_viterbi_is_hfs_byte_viterbi_on_random_vocabularies() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut scratch = Scratch::default();
    for round in 0..400 {
        let mut pieces = vec![("<unk>".to_string(), 0.0)];
        let mut seen = std::collections::HashSet::new();
        for _ in 0..rng.below(40) + 1 {
            let len = rng.below(4) + 1;
            let p: String = (0..len).map(|_| CHARS[rng.below(CHARS.len())]).collect();
            if seen.insert(p.clone()) {
                pieces.push((p, SCORES[rng.below(SCORES.len())]));
            }
        }
        let byte_fallback = round % 2 == 1;
        if byte_fallback {
            for b in ["<0x7A>", "<0xE8>", "<0xAA>", "<0x9E>"] {
                if seen.insert(b.to_string()) {
                    pieces.push((b.to_string(), SCORES[rng.below(SCORES.len())]));
                }
            }
        }
        let unk_id = if round % 3 == 0 { pieces.len() as u32 - 1 } else { 0 };
        let model = Unigram::new(pieces.clone(), Some(unk_id), byte_fallback).unwrap();
        for _ in 0..20 {
            let len = rng.below(24);
            let text: String = (0..len).map(|_| if rng.below(6) == 0 { OTHER[rng.below(OTHER.len())] } else { CHARS[rng.below(CHARS.len())] }).collect();
            model.best_path(&text, &mut scratch).unwrap();
            assert_eq!(scratch.path, reference(&pieces, unk_id, &text), "{pieces:?} {text:?}");
        }
    }
}

/// Crafted ties: pieces of equal score sums end at the same char, the first
/// offered (earliest start, then shortest) is kept.
#[test]
fn ties_keep_the_first_offered() {
    let pieces: Vec<(String, f64)> = [("<unk>", -9.0), ("a", -1.0), ("b", -1.0), ("ab", -2.0), ("日", -1.0), ("本", -1.0), ("日本", -2.0), ("a日", -2.0), ("b日本", -3.0)]
        .iter()
        .map(|(p, s)| (p.to_string(), *s))
        .collect();
    let model = Unigram::new(pieces.clone(), Some(0), false).unwrap();
    let mut scratch = Scratch::default();
    for text in ["ab", "日本", "ab日本", "a日本", "b日本a", "zab", "日z本"] {
        model.best_path(text, &mut scratch).unwrap();
        assert_eq!(scratch.path, reference(&pieces, 0, text), "{text:?}");
    }
    model.best_path("ab", &mut scratch).unwrap();
    // "a" + "b" (-2, offered from start 0 then 1... "ab" at start 0 first): "ab" kept
    assert_eq!(scratch.path, vec![(3, 0, 2)]);
}

/// Scores of their own per piece (each cell's score must be its piece's:
/// the trie holds them), over an alphabet of hundreds of chars of 1 to 4
/// bytes spread over the code space (a char-id table of many pages, nodes
/// with far-apart children), texts with chars no piece holds.
#[test]
fn char_viterbi_with_distinct_scores_over_a_wide_alphabet() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let alphabet: Vec<char> = (0..600).filter_map(|_| char::from_u32([0x61, 0x3A9, 0x4E00, 0x1F600, 0x20000][rng.below(5)] + rng.below(2000) as u32)).collect();
    let mut scratch = Scratch::default();
    for round in 0..60 {
        let used = 60 + round * 9;
        let mut pieces = vec![("<unk>".to_string(), -30.0)];
        let mut seen = std::collections::HashSet::new();
        for _ in 0..rng.below(1500) + 200 {
            let p: String = (0..rng.below(5) + 1).map(|_| alphabet[rng.below(used)]).collect();
            if seen.insert(p.clone()) {
                // every 8th a tie with a sum of others (-2 = -1 + -1)
                let score = if rng.below(8) == 0 { -2.0 } else { -(rng.below(1 << 20) as f64) / 65536.0 - 0.5 };
                pieces.push((p, score));
            }
        }
        pieces.extend(["a", "b"].map(|p| (p.to_string(), -1.0)).into_iter().filter(|(p, _)| seen.insert(p.clone())));
        let model = Unigram::new(pieces.clone(), Some(0), false).unwrap();
        for _ in 0..20 {
            let text: String = (0..rng.below(40)).map(|_| match rng.below(20) {
                0 => '語',
                1 => alphabet[rng.below(alphabet.len())],
                _ => alphabet[rng.below(used)],
            }).collect();
            model.best_path(&text, &mut scratch).unwrap();
            assert_eq!(scratch.path, reference(&pieces, 0, &text), "{text:?}");
        }
    }
}
