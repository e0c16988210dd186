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
