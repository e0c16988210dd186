//! The word cache's tables: buckets, growth, words past their bucket, moves.

use super::*;
use super::table::Table;

#[test]
fn a_table_the_memory_is_not_there_for_stays_as_it_was() {
    // 2^60 slots cannot be had: no abort, the words cached before still found, more still cached
    let mut c = WordCache::new();
    c.insert(b"word", 0, 4, 7, 1);
    assert!(!c.short.grow_to(1 << 60));
    assert!(!c.mid.grow_to(1 << 60));
    assert_eq!(c.get_home(b"word", 0, 4), Some((7, 1)));
    c.insert(b"other", 0, 5, 8, 1);
    assert_eq!(c.get_home(b"other", 0, 5), Some((8, 1)));
}

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
    let n_of = |k: usize| if k.is_multiple_of(7) { 2 + k as u32 % 3 } else { 1 }; // some words of several pieces
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

/// `n` keys of 5 bytes (distinct, below 2^40) whose home bucket in `t` is `bucket`.
fn keys_of_bucket(t: &Table<u64>, bucket: usize, n: usize) -> Vec<u64> {
    (1..1u64 << 40).map(|k| k * 7919).filter(|&k| t.home_of(k, 5) == bucket).take(n).collect()
}

/// Both slots of a bucket are home: two words of one bucket are both found
/// inline, and two words past it, looked up in turn, move in once each and
/// then stay (one slot a home: they swapped at every turn).
#[test]
fn two_words_of_a_bucket_looked_up_in_turn_stay_in_it() {
    let mut t = Table::<u64>::new();
    t.insert(1, 5, 0, 1); // the first slots (no growth below half full)
    let ks = keys_of_bucket(&t, 3, 4);
    for (v, &k) in ks.iter().enumerate() {
        t.insert(k, 5, v as u32, 1);
    }
    // the first two in the bucket, the others past it
    assert_eq!((t.get_home(ks[0], 5), t.get_home(ks[1], 5)), (Some((0, 1)), Some((1, 1))));
    assert_eq!((t.get_home(ks[2], 5), t.get_home(ks[3], 5)), (None, None));
    assert_eq!(t.away(), 2);
    let mut moves = 0;
    for _ in 0..10 {
        for (v, &k) in ks.iter().enumerate().skip(2) {
            if t.get_home(k, 5).is_none() {
                t.move_home(k, 5);
                moves += 1;
            }
            assert_eq!(t.get_home(k, 5), Some((v as u32, 1)));
        }
    }
    assert_eq!(moves, 2);
    // the words moved out are found by probing
    for (v, &k) in ks.iter().enumerate() {
        assert_eq!(t.get(k, 5), Some((v as u32, 1)));
    }
    assert_eq!(t.get(1, 5), Some((0, 1)));
}

/// A word moved in puts the bucket's word that is not home out first.
#[test]
fn a_move_puts_out_a_word_past_its_own_bucket_first() {
    let mut t = Table::<u64>::new();
    t.insert(1, 5, 0, 1);
    let (a, b) = (keys_of_bucket(&t, 8, 3), keys_of_bucket(&t, 9, 1));
    t.insert(a[0], 5, 10, 1); // bucket 8, first slot
    t.insert(a[1], 5, 11, 1); // bucket 8, second slot
    t.insert(b[0], 5, 20, 1); // bucket 9's first slot is free: home
    t.insert(a[2], 5, 12, 1); // past bucket 8: bucket 9's second slot
    t.move_home(a[2], 5); // bucket 8 has no word away: its last slot's (a[1]) goes
    assert_eq!((t.get_home(a[2], 5), t.get_home(a[0], 5), t.get_home(a[1], 5)), (Some((12, 1)), Some((10, 1)), None));
    let c = keys_of_bucket(&t, 9, 2)[1];
    t.insert(c, 5, 21, 1); // bucket 9 full (b, a[1]): past it
    t.move_home(c, 5); // a[1] is not home in bucket 9: it goes, b stays
    assert_eq!((t.get_home(c, 5), t.get_home(b[0], 5), t.get_home(a[1], 5)), (Some((21, 1)), Some((20, 1)), None));
    for (k, v) in [(a[0], 10), (a[1], 11), (a[2], 12), (b[0], 20), (c, 21)] {
        assert_eq!(t.get(k, 5), Some((v, 1)));
    }
}

/// Growing tables, then many moves of random words: every word still found
/// with its value, the inline lookup agreeing with `get` wherever it
/// answers, fewer words away after the moves; a full cache starts over.
#[test]
fn growth_and_moves_keep_every_word_findable() {
    let mut t = Table::<u64>::new();
    let keys: Vec<u64> = (1..=30_000u64).map(|k| k.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 24).collect();
    for (v, &k) in keys.iter().enumerate() {
        t.insert(k, 5, v as u32, 1 + v as u32 % 3);
        if v.is_multiple_of(4999) {
            // every word so far, mid-growth
            assert!(keys[..=v].iter().enumerate().all(|(w, &k)| t.get(k, 5) == Some((w as u32, 1 + w as u32 % 3))));
        }
    }
    let before = t.away();
    assert!(before > 100, "{before}");
    let mut x = 1u64;
    for _ in 0..50_000 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let k = keys[(x >> 33) as usize % 2000]; // the frequent ones
        t.move_home(k, 5);
        assert!(t.get_home(k, 5).is_some());
    }
    for (v, &k) in keys.iter().enumerate() {
        let want = Some((v as u32, 1 + v as u32 % 3));
        assert_eq!(t.get(k, 5), want);
        assert!(t.get_home(k, 5).is_none_or(|h| Some(h) == want));
    }
    assert!(keys[..2000].iter().filter(|&&k| t.get_home(k, 5).is_none()).count() < 20);
    assert_eq!(t.get(0xFFFF_FFFF, 5), None);
    // a full cache: the caller clears it, then it caches again from its first slots
    let mut c = WordCache::new();
    let words: Vec<Vec<u8>> = (0..CACHE_WORDS as u32).map(|k| format!("{k:x}").into_bytes()).collect();
    for (k, w) in words.iter().enumerate() {
        assert!(!c.is_full());
        c.insert(w, 0, w.len(), k as u32, 1);
    }
    assert!(c.is_full() && c.get(b"ff", 0, 2) == Some((255, 1)));
    c.clear();
    assert!(!c.is_full() && c.get(b"ff", 0, 2).is_none() && c.get_home(b"ff", 0, 2).is_none());
    c.insert(b"ff", 0, 2, 9, 1);
    assert_eq!(c.get_home(b"ff", 0, 2), Some((9, 1)));
}

/// The 1–8-byte table doubles when over half its slots would be taken, the
/// 9–16-byte table when over three quarters would (its words are rarer, its
/// slots half again as large: at half full it was 1.5 MiB on the far 8 MB of
/// docs/benchmarks/bpe-bulk-45.md, twice what the words need).
#[test]
fn each_table_doubles_at_its_own_fill() {
    let slots = |r: Option<RawTable>, ways: u64| r.map_or(0, |r| (r.mask + 1) * ways) as usize;
    let mut short = Table::<u64>::new();
    for k in 1..=(FIRST_SLOTS / 2) as u64 {
        short.insert(k, 3, k as u32, 1);
    }
    assert_eq!(slots(short.raw(), 2), FIRST_SLOTS);
    short.insert(u64::MAX, 3, 0, 1);
    assert_eq!(slots(short.raw(), 2), 2 * FIRST_SLOTS);
    let mut mid = Table::<[u64; 2]>::new();
    let key = |k: u64| [k, k.wrapping_mul(31)];
    for k in 1..=(FIRST_SLOTS * 3 / 4) as u64 {
        mid.insert(key(k), 12, k as u32, 1);
    }
    assert_eq!(slots(mid.raw(), 1), FIRST_SLOTS);
    assert!((1..=(FIRST_SLOTS * 3 / 4) as u64).all(|k| mid.get(key(k), 12) == Some((k as u32, 1))));
    mid.insert(key(0), 12, 0, 1);
    assert_eq!(slots(mid.raw(), 1), 2 * FIRST_SLOTS);
    assert!((0..=(FIRST_SLOTS * 3 / 4) as u64).all(|k| mid.get(key(k), 12) == Some((k as u32, 1))));
}

/// A 9–16-byte table of 8 slots holding 6 words (three quarters, the most
/// before it grows): probe runs that wrap past the last slot, a word absent
/// from a table with two free slots, moves home of every word in turn, again
/// and again; every word found with its value throughout, the inline lookup
/// agreeing with `get` wherever it answers.
#[test]
fn a_tiny_mid_table_three_quarters_full_keeps_every_word() {
    let mut t = Table::<[u64; 2]>::new();
    assert!(t.grow_to(8));
    // keys of one home (forced collisions) and of others, found by trying
    let home = t.home_of([1, 1], 9);
    let mut keys: Vec<[u64; 2]> = (1..10_000u64).map(|k| [k, k]).filter(|&k| t.home_of(k, 9) == home).take(4).collect();
    keys.extend((1..10_000u64).map(|k| [k, 7]).filter(|&k| t.home_of(k, 9) == 7).take(2));
    assert_eq!(keys.len(), 6);
    for (v, &k) in keys.iter().enumerate() {
        t.insert(k, 9, v as u32, 1);
    }
    assert_eq!(t.raw().map(|r| r.mask), Some(7), "no growth at 6 of 8");
    assert_eq!(t.get([5, 5], 9), None);
    let check = |t: &Table<[u64; 2]>| {
        for (v, &k) in keys.iter().enumerate() {
            assert_eq!(t.get(k, 9), Some((v as u32, 1)));
            assert!(t.get_home(k, 9).is_none_or(|h| h == (v as u32, 1)));
        }
    };
    check(&t);
    for round in 0..30 {
        let k = keys[round % keys.len()];
        t.move_home(k, 9);
        assert_eq!(t.get_home(k, 9), Some(((round % keys.len()) as u32, 1)));
        check(&t);
    }
    t.insert([9, 9], 9, 6, 2);
    assert_eq!(t.raw().map(|r| r.mask), Some(FIRST_SLOTS as u64 - 1), "the seventh word grows it");
    check(&t);
    assert_eq!(t.get([9, 9], 9), Some((6, 2)));
}
