//! The word cache's tables against `get`: keys, lengths, the inline
//! lookup, moves home, and two-token words kept inline.

use super::*;

#[test]
fn keys_tell_apart_lengths_and_long_words() {
    let mut c = WordCache::new();
    let words: Vec<Vec<u8>> = (0..5000u32)
        .map(|k| k.to_string().into_bytes())
        .chain([b"a".to_vec(), b"a\0".to_vec(), b"\0".to_vec(), vec![7; 8], vec![7; 9], vec![7; 16], vec![7; 17], vec![7; 40]])
        .chain([b"abcdefgh\0".to_vec(), b"abcdefgh".to_vec(), b"abcdefg".to_vec()])
        .collect();
    // each word alone (keys loaded byte by byte) and inside a longer text (8-byte loads past its end)
    let at_end = |w: &Vec<u8>| (w.clone(), 0, w.len());
    let inside = |w: &Vec<u8>| {
        let mut t = b"xx".to_vec();
        t.extend_from_slice(w);
        t.extend_from_slice(b"zzzzzzzzzzzzzzzzz");
        (t, 2, 2 + w.len())
    };
    for (k, w) in words.iter().enumerate() {
        let (t, a, b) = at_end(w);
        assert_eq!(c.get(&t, a, b), None);
        c.insert(&t, a, b, k as u32, 1);
    }
    for (k, w) in words.iter().enumerate() {
        for (t, a, b) in [at_end(w), inside(w)] {
            assert_eq!(c.get(&t, a, b), Some((k as u32, 1)), "{w:?}");
        }
    }
    c.clear();
    assert_eq!(c.get(b"a", 0, 1), None);
}

/// The inline lookup agrees with `get` wherever it answers: words of 2
/// to 16 bytes in their home slot, of one piece or several (colliding
/// words later in the probe run go to `get`), keys loaded at a text's end
/// and inside it; a word past its home slot is in it after `move_home`,
/// and every word is still found.
#[test]
fn get_home_is_get_for_words_in_their_home_slot() {
    let mut c = WordCache::new();
    // 3,000 words of 2 to 16 bytes: the tables grow, and some words land past their home slot
    let words: Vec<Vec<u8>> = (0..3000u32).map(|k| format!("{k:0>width$}", width = 2 + k as usize % 15).into_bytes()).collect();
    let n_of = |k: usize| if k % 7 == 0 { 2 + k as u32 % 3 } else { 1 }; // some words of several pieces
    for (k, w) in words.iter().enumerate() {
        c.insert(w, 0, w.len(), k as u32, n_of(k));
    }
    let (mut inline, mut several, mut probed) = (0, 0, 0);
    for (k, w) in words.iter().enumerate() {
        let mut inside = b"x".to_vec();
        inside.extend_from_slice(w);
        inside.extend_from_slice(b"yyyyyyyyyyyyyyyyyy");
        for (t, a) in [(w.as_slice(), 0), (inside.as_slice(), 1)] {
            let got = c.get_home(t, a, w.len());
            let want = c.get(t, a, a + w.len());
            assert_eq!(want, Some((k as u32, n_of(k))), "{w:?}");
            match got {
                Some(found) => {
                    assert_eq!(Some(found), want, "{w:?}");
                    inline += 1;
                    several += (found.1 > 1) as usize;
                }
                None => {
                    probed += 1;
                    // moved to its home slot, the inline lookup finds it
                    c.move_home(t, a, a + w.len());
                    assert_eq!(c.get_home(t, a, w.len()), want, "{w:?} after move_home");
                }
            }
        }
    }
    assert!(inline > 1000 && several > 100 && probed > 0, "inline {inline} ({several} of several pieces), past their home slot {probed}");
    // every word is still found after the moves
    for (k, w) in words.iter().enumerate() {
        assert_eq!(c.get(w, 0, w.len()), Some((k as u32, n_of(k))), "{w:?} after the moves");
    }
    // a missing word, a one-byte word, a word over 16 bytes: never inline
    assert_eq!(c.get_home(b"zz", 0, 2), None);
    assert_eq!(c.get_home(b"0", 0, 1), None);
    c.insert(&[b'7'; 17], 0, 17, 5, 1);
    assert_eq!(c.get_home(&[b'7'; 17], 0, 17), None);
}

/// A two-token word's count keeps both ids and the first token's bytes in
/// the slot (`get`, `get_home` and after the tables grow), and is refused
/// for a second id that does not fit (then the caller keeps `pieces`).
#[test]
fn pair_counts_round_trip_through_the_slots() {
    assert_eq!(pair_count(PAIR_IDS, 3), None);
    assert_eq!(pair_count(5, 16), None);
    let mut c = WordCache::new();
    // 3,000 words of 2 to 16 bytes (the tables grow), a pair each, second ids up to the largest
    let words: Vec<Vec<u8>> = (0..3000u32).map(|k| format!("{k:0>width$}", width = 2 + k as usize % 15).into_bytes()).collect();
    let second = |k: usize| {
        if k % 2 == 0 {
            PAIR_IDS - 1 - k as u32
        } else {
            k as u32
        }
    };
    for (k, w) in words.iter().enumerate() {
        let n = pair_count(second(k), 1 + k as u32 % (w.len() as u32 - 1)).unwrap();
        c.insert(w, 0, w.len(), 70_000 + k as u32, n);
    }
    for (k, w) in words.iter().enumerate() {
        let (first, n) = c.get(w, 0, w.len()).unwrap();
        assert_eq!(first, 70_000 + k as u32);
        assert!(n & PAIR != 0);
        assert_eq!(unpair(n), (second(k), 1 + k as u32 % (w.len() as u32 - 1)), "{w:?}");
        if let Some(home) = c.get_home(w, 0, w.len()) {
            assert_eq!(home, (first, n));
        }
    }
}
