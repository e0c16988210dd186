//! The batch tests (batch_pairs.rs's use its small tokenizer).

use super::*;
use crate::normalizer::Reference;
use crate::padding::Padding;
use crate::tokenizer::FullOptions;
use crate::vocab::Vocab;

/// A small tokenizer for the batch tests (batch_pairs.rs's too).
pub(crate) fn tok() -> FullTokenizer {
    let vocab = Vocab::parse("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nworld\n##s\n,\n", Reference::Google);
    FullTokenizer::new(vocab, FullOptions::default()).unwrap()
}

#[test]
fn rows_are_concatenated_with_splits() {
    let texts: [&[u8]; 3] = [b"hello worlds", b"", b"Hello, xyz"];
    let opts = BatchOptions { special: Some((2, 3)), max_length: None, offsets: true, ..Default::default() };
    let b = encode_batch(&tok(), &texts, opts, &[], Some(2)).unwrap();
    assert_eq!(b.ids, [2, 4, 5, 6, 3, 2, 3, 2, 4, 7, 1, 3]);
    assert_eq!(b.row_splits, [0, 5, 7, 12]);
    assert_eq!(b.offsets[..5], [(0, 0), (0, 5), (6, 11), (11, 12), (0, 0)]);
}

#[test]
fn truncation_keeps_room_for_special_tokens() {
    let texts: [&[u8]; 1] = [b"hello world hello world"];
    let opts = BatchOptions { special: Some((2, 3)), max_length: Some(4), offsets: false, ..Default::default() };
    assert_eq!(encode_batch(&tok(), &texts, opts, &[], None).unwrap().ids, [2, 4, 5, 3]);
}

#[test]
fn padding_right_left_and_to_a_multiple() {
    let texts: [&[u8]; 2] = [b"hello worlds", b"hello"];
    let opts = BatchOptions { special: Some((2, 3)), max_length: None, offsets: false, ..Default::default() };
    let b = encode_batch(&tok(), &texts, opts, &[], Some(1)).unwrap();
    let right = b.pad(&Padding { to: None, multiple_of: Some(3), pad_id: 0, pad_type_id: 0, left: false }, 1).unwrap();
    assert_eq!(right.width, 6);
    assert_eq!(right.ids, [2, 4, 5, 6, 3, 0, 2, 4, 3, 0, 0, 0]);
    assert_eq!(right.attention_mask, [1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0]);
    let left = b.pad(&Padding { to: Some(4), multiple_of: None, pad_id: 0, pad_type_id: 0, left: true }, 2).unwrap();
    assert_eq!(left.width, 5); // never narrower than the longest row
    assert_eq!(left.ids[5..], [0, 0, 2, 4, 3]);
}

#[test]
fn rows_with_added_tokens_are_found() {
    let texts: [&[u8]; 4] = [b"a [MASK] b", b"no", "\u{e9}[\u{e9}]".as_bytes(), b"[MAS"];
    let needles: [&[u8]; 3] = [b"[MASK]", "\u{e9}]".as_bytes(), b""];
    for offsets in [false, true] {
        for threads in [1, 2] {
            let opts = BatchOptions { special: None, max_length: None, offsets, ..Default::default() };
            assert_eq!(encode_batch(&tok(), &texts, opts, &needles, Some(threads)).unwrap().flagged, [0, 2]);
            assert!(encode_batch(&tok(), &texts, opts, &[], Some(threads)).unwrap().flagged.is_empty());
        }
    }
}

#[test]
fn a_batch_large_enough_to_share_gives_what_one_thread_gives() {
    let tok = tok();
    let pieces = ["hello worlds, hello", "", "[MASK] world", "Hello, xyz hello"];
    let texts: Vec<&[u8]> = (0..6000).map(|k| pieces[k % 4].as_bytes()).collect();
    assert!(workers_for(2, texts.iter().map(|t| t.len()).sum(), texts.len()) == 2);
    let padding = Padding { to: Some(30), multiple_of: None, pad_id: 0, pad_type_id: 0, left: true };
    for offsets in [false, true] {
        let opts = BatchOptions { special: Some((2, 3)), max_length: Some(5), offsets, ..Default::default() };
        let one = encode_batch(&tok, &texts, opts, &[b"[MASK]"], Some(1)).unwrap();
        let two = encode_batch(&tok, &texts, opts, &[b"[MASK]"], Some(2)).unwrap();
        assert_eq!(one, two);
        assert_eq!(one.flagged.len(), 1500);
        assert_eq!(one.pad(&padding, 1).unwrap(), two.pad(&padding, 2).unwrap());
    }
    let pairs = encode_pairs(&tok, &texts, &texts[1..].iter().chain(&texts[..1]).copied().collect::<Vec<_>>(),
        BatchOptions::default(), &[], Some(2)).unwrap();
    let pairs_one = encode_pairs(&tok, &texts, &texts[1..].iter().chain(&texts[..1]).copied().collect::<Vec<_>>(),
        BatchOptions::default(), &[], Some(1)).unwrap();
    assert_eq!(pairs, pairs_one);
}

#[test]
fn padding_that_cannot_be_allocated_is_an_error_naming_the_argument() {
    let texts: [&[u8]; 2] = [b"hello", b"world"];
    let b = encode_batch(&tok(), &texts, BatchOptions::default(), &[], Some(1)).unwrap();
    let pad = |to, multiple_of| b.pad(&Padding { to, multiple_of, pad_id: 0, pad_type_id: 0, left: false }, 1);
    for (to, multiple_of, arg) in [(Some(1 << 62), None, "max_length"), (Some(usize::MAX), Some(7), "max_length"),
        (None, Some(usize::MAX), "pad_to_multiple_of"), (Some(3), Some(1 << 61), "pad_to_multiple_of")] {
        match pad(to, multiple_of) {
            Err(Error::OutputTooLarge { arg: a, .. }) => assert_eq!(a, arg),
            other => panic!("{to:?} {multiple_of:?}: {other:?}"),
        }
    }
    let opts = BatchOptions { special: Some((2, 3)), max_length: Some(usize::MAX), ..Default::default() };
    assert_eq!(encode_batch(&tok(), &texts, opts, &[], Some(1)).unwrap().ids, [2, 4, 3, 2, 5, 3]);
}

#[test]
fn zero_threads_is_an_error() {
    let opts = BatchOptions { special: None, max_length: None, offsets: false, ..Default::default() };
    assert!(matches!(encode_batch(&tok(), &[], opts, &[], Some(0)), Err(Error::BadThreadCount(0))));
}

#[test]
fn truncated_rows_are_the_start_of_the_whole_rows() {
    // Right truncation encodes only a text's start (`encode_prefix_into`): the
    // same rows as encoding everything and cutting, on 1 and 2 threads.
    let tok = tok();
    let long = format!("{}{}", "Hello, worlds\thello\n\u{e9} xyz  ".repeat(50), "x".repeat(300));
    let texts: Vec<&[u8]> = (0..3000).map(|k| [long.as_bytes(), b"hello", b"", b" [MASK] world"][k % 4]).collect();
    for special in [None, Some((2, 3))] {
        let full = encode_batch(&tok, &texts, BatchOptions { special, ..Default::default() }, &[b"[MASK]"], Some(1)).unwrap();
        for max_length in [0, 1, 2, 3, 5, 64, 100, 127, 1000] {
            // (`valid_text`: the rest of a row cut short unread, the same rows)
            for (threads, valid_text) in [(1, false), (2, false), (1, true), (2, true)] {
                let opts = BatchOptions { special, max_length: Some(max_length), valid_text, ..Default::default() };
                let cut = encode_batch(&tok, &texts, opts, &[b"[MASK]"], Some(threads)).unwrap();
                assert_eq!(cut.flagged, full.flagged);
                for (k, w) in full.row_splits.windows(2).enumerate() {
                    let mut want = full.ids[w[0] as usize..w[1] as usize].to_vec();
                    if let Some((_, sep)) = special {
                        want.pop();
                        want.truncate(1 + max_length.saturating_sub(2));
                        want.push(sep);
                    } else {
                        want.truncate(max_length);
                    }
                    assert_eq!(cut.ids[cut.row_splits[k] as usize..cut.row_splits[k + 1] as usize], want[..], "{max_length} {k}");
                }
            }
        }
    }
    // Malformed text after the part a row needs is still an error.
    let bad = [long.as_bytes(), b" \xff"].concat();
    let opts = BatchOptions { max_length: Some(5), ..Default::default() };
    assert!(matches!(encode_batch(&tok, &[&bad], opts, &[], Some(1)), Err(Error::InvalidText)));
    // Text said to be well formed is not read past the cut (the binding's strs cannot be malformed).
    let opts = BatchOptions { valid_text: true, ..opts };
    let cut = encode_batch(&tok, &[&bad], opts, &[], Some(1)).unwrap();
    let want = encode_batch(&tok, &[long.as_bytes()], opts, &[], Some(1)).unwrap();
    assert_eq!((cut.ids, cut.row_splits), (want.ids, want.row_splits));
}
