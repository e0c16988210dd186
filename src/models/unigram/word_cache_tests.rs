//! Tests of [`super`]: the Unigram word cache.

use super::*;

#[test]
fn same_bytes_is_slice_equality() {
    let words: Vec<Vec<u8>> = (0..=20).flat_map(|n| [vec![b'a'; n], (0..n as u8).collect(), (0..n as u8).rev().collect()]).collect();
    for a in &words {
        for b in &words {
            assert_eq!(same_bytes(a, b), a == b, "{a:?} {b:?}");
        }
        for i in 0..a.len() {
            let mut c = a.clone();
            c[i] ^= 1;
            assert!(!same_bytes(a, &c));
        }
    }
}

#[test]
fn get_what_was_inserted_across_growth() {
    let mut c = WordCache::default();
    // keys in the slot and in the arena; 1, 2 (in the slot) and 3 pieces (in the arena)
    let words: Vec<String> = (0..5000).map(|i| format!("▁w{i}{}", "y".repeat(i % 20))).collect();
    let pieces = |i: usize, w: &str| -> Vec<(u32, usize, usize)> { (0..=i % 3).map(|k| ((i + k) as u32, k, w.len())).collect() };
    for (i, w) in words.iter().enumerate() {
        c.insert(i % 2 == 0, w.as_bytes(), &pieces(i, w));
    }
    for (i, w) in words.iter().enumerate() {
        let (ids, spans) = c.get(i % 2 == 0, w.as_bytes()).unwrap();
        let key = Key::of(w.as_bytes(), 0, w.len());
        let tag = c.prefetch(i % 2 == 0, w.as_bytes(), &key);
        assert_eq!(c.get_ids(tag, i % 2 == 0, w.as_bytes(), &key), Some(ids));
        assert!(c.get(i % 2 == 1, w.as_bytes()).is_none(), "the flag is part of the key");
        let want = pieces(i, w);
        assert_eq!(ids, want.iter().map(|p| p.0).collect::<Vec<_>>());
        assert_eq!(spans, want.iter().map(|p| [p.1 as u8, p.2 as u8]).collect::<Vec<_>>());
    }
    assert!(c.get(false, b"\xE2\x96\x81w5000").is_none());
    assert!(c.get(false, b"").is_none());
    let long = "x".repeat(MAX_WORD_BYTES + 1);
    c.insert(false, long.as_bytes(), &[(1, 0, long.len())]);
    assert!(c.get(false, long.as_bytes()).is_none());
    c.clear();
    assert!(c.get(true, words[0].as_bytes()).is_none());
}

#[test]
fn a_table_the_memory_is_not_there_for_keeps_the_cache_as_it_was() {
    // 2^60 slots of 32 bytes cannot be had: no abort, the words cached before still found
    let mut c = WordCache::default();
    c.insert(true, b"word", &[(5, 0, 7)]);
    assert!(!c.resize_to(1 << 60));
    assert_eq!(c.get(true, b"word"), Some((&[5u32][..], &[[0u8, 7]][..])));
    c.insert(false, b"other", &[(6, 0, 5), (7, 5, 5)]);
    assert_eq!(c.get(false, b"other").map(|g| g.0.to_vec()), Some(vec![6, 7]));
    assert!(c.resize_to(2048));
    assert_eq!(c.get(true, b"word").map(|g| g.0.to_vec()), Some(vec![5]));
}

/// A word's key and hash read inside a longer text (one load, or the
/// text's last 8 bytes shifted, or bytes one by one under 8) are those of
/// the word alone, as `insert` hashed it; an inline key compares as a `Key`.
#[test]
fn keys_read_in_place_are_the_words_own() {
    let text: Vec<u8> = (0..40u8).map(|b| b.wrapping_mul(37).wrapping_add(0xE1)).collect();
    for end in 0..=text.len() {
        let t = &text[..end];
        for start in 0..=end {
            for len in 0..=(end - start).min(MAX_WORD_BYTES) {
                let word = &t[start..start + len];
                let alone = word.to_vec();
                for flag in [0, PREFIXED] {
                    let want = {
                        let mut h = len as u64 | (flag as u64) << 8;
                        for c in alone.chunks(8) {
                            let mut b = [0u8; 8];
                            b[..c.len()].copy_from_slice(c);
                            h = (h.rotate_left(5) ^ u64::from_le_bytes(b)).wrapping_mul(K);
                        }
                        ((h ^ (h >> 32)) as u32).max(1)
                    };
                    assert_eq!(hash(word, flag), want);
                    if len <= INLINE_KEY {
                        assert_eq!(Key::of(t, start, len), Key::of(&alone, 0, len), "{start} {len} {end}");
                        assert_eq!(hash_key(&Key::of(t, start, len), len, flag), want);
                        let mut slot = Slot::default();
                        slot.key[..len].copy_from_slice(word);
                        assert_eq!(inline_key(&slot), Key::of(t, start, len));
                    }
                }
            }
        }
    }
    assert_eq!(std::mem::size_of::<Slot>(), 32);
    assert_eq!(std::mem::align_of::<Slot>(), 32);
}
