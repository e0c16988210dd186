//! ByteBpe against the general BPE model on the byte-level string, with
//! and without `ignore_merges`, each word twice (the second from the cache).

use super::*;
use std::collections::HashMap;

fn model(merges: &[(&str, &str)], ignore_merges: bool) -> (Bpe, ByteBpe) {
    let mut vocab: HashMap<String, u32> = BYTES_CHAR.iter().enumerate().map(|(i, c)| (c.to_string(), i as u32)).collect();
    for (a, b) in merges {
        let n = vocab.len() as u32;
        vocab.entry(format!("{a}{b}")).or_insert(n);
    }
    let merges: Vec<(String, String)> = merges.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let bpe = Bpe::new(vocab, &merges, Bpe { ignore_merges, ..Bpe::default() }).unwrap();
    let fast = ByteBpe::new(&bpe).unwrap();
    (bpe, fast)
}

fn general(bpe: &Bpe, word: &[u8]) -> Vec<Piece> {
    let s: String = word.iter().map(|&b| BYTES_CHAR[b as usize]).collect();
    let mut out = Vec::new();
    bpe.tokenize(&s, &mut out).unwrap();
    // char counts of the byte-level string are byte counts of the raw word
    out.iter().map(|&(id, a, b)| (id, s[a..b].chars().count() as u32)).collect()
}

#[test]
fn same_tokens_as_the_general_model() {
    let merges = [("a", "b"), ("b", "b"), ("Ġ", "a"), ("Ġa", "bb"), ("ab", "b"), ("c", "c"), ("cc", "cc")];
    for ignore in [false, true] {
        let (bpe, fast) = model(&merges, ignore);
        let long = "c".repeat(LINEAR_MAX + 5);
        for word in ["abb", "bbb", " abb", "abbb", "cccccc", "xyz", "é", long.as_str(), "ab"] {
            for _ in 0..2 {
                // twice: the second comes from the cache
                let mut out = Vec::new();
                fast.tokenize(word.as_bytes(), &mut out).unwrap();
                assert_eq!(out, general(&bpe, word.as_bytes()), "{word:?} ignore_merges={ignore}");
            }
        }
    }
}

#[test]
fn refuses_vocabularies_missing_a_byte() {
    let vocab: HashMap<String, u32> = [("a".to_string(), 0)].into_iter().collect();
    let bpe = Bpe::new(vocab, &[], Bpe::default()).unwrap();
    assert!(ByteBpe::new(&bpe).is_none());
}

/// Words of two tokens cached in their slot (both ids below [`PAIR_IDS`])
/// or in `pieces` (an id at or above it), of 1–8, 9–16 and over 16 bytes:
/// each call's tokens (with their lengths for the offsets) and ids are the
/// general model's, on a miss and from the cache.
#[test]
fn words_of_two_tokens_in_their_slot_or_in_pieces() {
    let merges = [("Ġ", "a"), ("Ġa", "b"), ("c", "d"), ("x", "y"), ("xy", "z"), ("e", "e"), ("ee", "ee"), ("eeee", "eeee"), ("eeeeeeee", "eeeeeeee")];
    // merged tokens' ids from `first`: all below 65,536, or straddling it
    for first in [256u32, 65_533] {
        let mut vocab: HashMap<String, u32> = BYTES_CHAR.iter().enumerate().map(|(i, c)| (c.to_string(), i as u32)).collect();
        for (k, (a, b)) in merges.iter().enumerate() {
            vocab.insert(format!("{a}{b}"), first + k as u32);
        }
        let merges: Vec<(String, String)> = merges.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        let bpe = Bpe::new(vocab, &merges, Bpe::default()).unwrap();
        let fast = ByteBpe::new(&bpe).unwrap();
        let words = [" abcd", "cdcd", " abxyz", "xyzcd", " abcdxyz", " abeeeeeeee", "eeeeeeeecd", " abeeeeeeeeeeeeeeee", "cdeeeeeeeeeeeeeeee", "xyzxyzxyz"];
        let (mut pairs, mut big) = (0, 0);
        for round in 0..3 {
            for word in words {
                let w = word.as_bytes();
                let want = general(&bpe, w);
                pairs += usize::from(want.len() == 2 && want.iter().all(|p| p.0 < PAIR_IDS));
                big += usize::from(want.len() == 2 && want.iter().any(|p| p.0 >= PAIR_IDS));
                fast.with_cache(|words| {
                    let mut out = Vec::new();
                    words.tokenize(w, 0, w.len(), &mut out);
                    assert_eq!(out, want, "{word:?} round {round} first id {first}");
                    let mut each = Vec::new();
                    words.tokenize_each(w, 0, w.len(), |id, len| each.push((id, len)));
                    assert_eq!(each, want, "{word:?} round {round} first id {first}");
                    let mut ids = Vec::new();
                    words.tokenize_ids(w, 0, w.len(), &mut ids);
                    assert_eq!(ids, want.iter().map(|p| p.0).collect::<Vec<_>>(), "{word:?} round {round} first id {first}");
                })
                .unwrap();
            }
        }
        // both kinds were there: pairs kept in the slot, and (ids straddling 65,536) pairs kept in pieces
        assert!(pairs >= 6 && (first < 65_000 || big >= 6), "{pairs} pairs, {big} in pieces, first id {first}");
    }
}
