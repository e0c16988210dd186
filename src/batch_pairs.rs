//! Pairs of texts in a batch: the row of one pair, cut by HF's truncation
//! strategies (batch_rows.rs).

use crate::batch_rows::{open_row, BatchOptions};
use crate::encoder::Scratch;
use crate::tokenizer::FullTokenizer;
use crate::Result;

/// Appends the row of the pair `(a, b)` to `ids`: `[CLS] a [SEP] b [SEP]`
/// (or `a b` without special tokens), the two cut to `max_length` as HF
/// does. Returns how many ids have token type 0; sets `too_short` when the
/// strategy cannot fit (the row is then left uncut).
pub(crate) fn encode_pair(tok: &FullTokenizer, a: &[u8], b: &[u8], opts: &BatchOptions, scratch: &mut Scratch, ids: &mut Vec<u32>, too_short: &mut bool) -> Result<usize> {
    let start = open_row(opts, ids, |id| id);
    let a0 = ids.len();
    tok.encode_into(a, ids, scratch)?;
    let b0 = ids.len();
    tok.encode_into(b, ids, scratch)?;
    let (na, nb) = (b0 - a0, ids.len() - b0);
    let n_special = if opts.special.is_some() { 3 } else { 0 };
    // A max_length below the special tokens cuts nothing (HF's subtraction underflows).
    let keep = match opts.max_length.and_then(|m| m.checked_sub(n_special)) {
        Some(limit) => opts.pair.keep(na, nb, limit),
        None => Some((na, nb)),
    };
    let (ka, kb) = keep.unwrap_or_else(|| {
        *too_short = true;
        (na, nb)
    });
    // In place: b's kept ids move to just after a's kept ids and a [SEP].
    let sep = opts.special.map(|(_, sep)| sep);
    let b_at = a0 + ka + sep.is_some() as usize;
    if b_at > b0 {
        ids.push(0); // room for the first [SEP] when nothing of `a` was cut
    }
    ids.copy_within(b0..b0 + kb, b_at);
    ids.truncate(b_at + kb);
    if let Some(sep) = sep {
        ids[a0 + ka] = sep;
        ids.push(sep);
    }
    Ok(b_at - start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::tests::tok;
    use crate::batch::{encode_batch, encode_pairs};
    use crate::batch_rows::PairTruncation;

    #[test]
    fn pairs_are_both_rows_framed_and_cut_as_the_strategy_says() {
        let tok = tok();
        let texts: [&[u8]; 6] = [b"hello", b"", b"hello worlds, hello", b"world", b"hello hello hello", b"worlds"];
        let one = |t: &[u8]| encode_batch(&tok, &[t], BatchOptions::default(), &[], Some(1)).unwrap().ids;
        for strategy in [PairTruncation::LongestFirst, PairTruncation::OnlyFirst, PairTruncation::OnlySecond] {
            for special in [None, Some((2, 3))] {
                for max_length in [None, Some(0), Some(2), Some(3), Some(4), Some(5), Some(7), Some(20)] {
                    let opts = BatchOptions { special, max_length, pair: strategy, ..Default::default() };
                    for threads in [1, 2] {
                        let b = encode_pairs(&tok, &texts[..5], &texts[1..], opts, &[], Some(threads)).unwrap();
                        assert_eq!(b.row_splits.len(), 6);
                        let mut too_short = false;
                        for (k, (a, c)) in texts.iter().zip(&texts[1..]).enumerate() {
                            let (ia, ic) = (one(a), one(c));
                            let n_special = if special.is_some() { 3 } else { 0 };
                            let (ka, kc) = match max_length.and_then(|m| m.checked_sub(n_special)) {
                                Some(limit) => strategy.keep(ia.len(), ic.len(), limit).unwrap_or_else(|| {
                                    too_short = true;
                                    (ia.len(), ic.len())
                                }),
                                None => (ia.len(), ic.len()),
                            };
                            let (mut want, mut types) = (Vec::new(), Vec::new());
                            want.extend(special.map(|s| s.0));
                            want.extend_from_slice(&ia[..ka]);
                            want.extend(special.map(|s| s.1));
                            types.resize(want.len(), 0u8);
                            want.extend_from_slice(&ic[..kc]);
                            want.extend(special.map(|s| s.1));
                            types.resize(want.len(), 1u8);
                            let (s0, s1) = (b.row_splits[k] as usize, b.row_splits[k + 1] as usize);
                            assert_eq!(b.ids[s0..s1], want, "{strategy:?} {special:?} {max_length:?} row {k}");
                            assert_eq!(b.type_ids.as_ref().unwrap()[s0..s1], types);
                        }
                        assert_eq!(b.too_short, too_short);
                    }
                }
            }
        }
    }

    #[test]
    fn longest_first_keeps_what_hf_keeps() {
        // HF's truncate_encodings: the shorter sequence keeps what it can up to
        // half, the longer one the rest; a tie leaves the odd id to the second.
        let keep = |a, b, limit| PairTruncation::LongestFirst.keep(a, b, limit).unwrap();
        assert_eq!(keep(10, 3, 8), (5, 3));
        assert_eq!(keep(3, 10, 8), (3, 5));
        assert_eq!(keep(10, 10, 7), (3, 4));
        assert_eq!(keep(10, 9, 7), (4, 3));
        assert_eq!(keep(2, 2, 3), (1, 2));
        assert_eq!(keep(4, 4, 8), (4, 4));
        assert_eq!(keep(5, 0, 3), (3, 0));
        assert_eq!(PairTruncation::OnlyFirst.keep(5, 4, 6), Some((2, 4)));
        assert_eq!(PairTruncation::OnlyFirst.keep(2, 4, 3), None);
        assert_eq!(PairTruncation::OnlySecond.keep(5, 4, 6), Some((5, 1)));
        assert_eq!(PairTruncation::OnlySecond.keep(5, 1, 5), None);
    }
}
