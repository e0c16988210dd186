//! Truncation before the post-processor, as HF tokenizers' `utils/truncation.rs`
//! and `Encoding::truncate`: what is cut off becomes `overflowing` pieces,
//! overlapping by `stride` tokens.

use crate::encoding::Encoding;
use crate::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    LongestFirst,
    OnlyFirst,
    OnlySecond,
}

/// Which end loses tokens (also used by padding: which end gains them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Left,
    Right,
}

impl Strategy {
    pub fn parse(name: &str) -> Option<Strategy> {
        match name {
            "longest_first" => Some(Strategy::LongestFirst),
            "only_first" => Some(Strategy::OnlyFirst),
            "only_second" => Some(Strategy::OnlySecond),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Strategy::LongestFirst => "longest_first",
            Strategy::OnlyFirst => "only_first",
            Strategy::OnlySecond => "only_second",
        }
    }
}

impl Direction {
    pub fn parse(name: &str) -> Option<Direction> {
        match name {
            "left" => Some(Direction::Left),
            "right" => Some(Direction::Right),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Direction::Left => "left",
            Direction::Right => "right",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TruncationParams {
    pub max_length: usize,
    pub stride: usize,
    pub strategy: Strategy,
    pub direction: Direction,
}

fn stride_error(stride: usize, max_len: usize) -> Error {
    // HF panics here (PanicException); we refuse with the same message's sense.
    Error::Tokenize(format!(
        "truncation stride={stride} must be strictly less than the length to truncate to ({max_len}, \
         which is max_length minus the special tokens the post-processor adds)"
    ))
}

impl Encoding {
    fn slice(&self, start: usize, stop: usize) -> Encoding {
        Encoding {
            ids: self.ids[start..stop].to_vec(),
            type_ids: self.type_ids[start..stop].to_vec(),
            tokens: self.tokens[start..stop].to_vec(),
            words: self.words[start..stop].to_vec(),
            offsets: self.offsets[start..stop].to_vec(),
            special_tokens_mask: self.special_tokens_mask[start..stop].to_vec(),
            attention_mask: self.attention_mask[start..stop].to_vec(),
            ..Encoding::default()
        }
    }

    /// HF's `Encoding::truncate`: keeps `max_len` tokens at one end; the rest
    /// goes to `overflowing` in windows of `max_len` stepping `max_len - stride`.
    pub fn truncate(&mut self, max_len: usize, stride: usize, direction: Direction) -> Result<()> {
        let len = self.len();
        if max_len >= len {
            return Ok(());
        }
        if max_len == 0 {
            let whole = std::mem::take(self);
            self.overflowing.push(whole);
            return Ok(());
        }
        if stride >= max_len {
            return Err(stride_error(stride, max_len));
        }
        let step = max_len - stride;
        let mut parts = Vec::new();
        match direction {
            Direction::Right => {
                for start in (0..len).step_by(step) {
                    let stop = (start + max_len).min(len);
                    parts.push((start, stop));
                    if stop == len {
                        break;
                    }
                }
            }
            Direction::Left => {
                for last in (0..len).rev().step_by(step) {
                    let stop = last + 1;
                    let start = stop.saturating_sub(max_len);
                    parts.push((start, stop));
                    if start == 0 {
                        break;
                    }
                }
            }
        }
        let mut pieces = parts.into_iter().map(|(a, b)| self.slice(a, b));
        let mut first = pieces.next().unwrap_or_default();
        first.overflowing = pieces.collect();
        *self = first;
        Ok(())
    }
}

/// HF's `truncate_encodings` (with `max_length` already less the specials).
pub fn truncate_encodings(first: &mut Encoding, pair: Option<&mut Encoding>, p: &TruncationParams) -> Result<()> {
    if p.max_length == 0 {
        first.truncate(0, p.stride, p.direction)?;
        if let Some(pair) = pair {
            pair.truncate(0, p.stride, p.direction)?;
        }
        return Ok(());
    }
    let total = first.len() + pair.as_ref().map_or(0, |e| e.len());
    if total <= p.max_length {
        return Ok(());
    }
    let to_remove = total - p.max_length;
    match (p.strategy, pair) {
        (Strategy::LongestFirst, Some(pair)) => {
            // The shorter side keeps its length if the longer can absorb the cut,
            // else both get half (the second the odd one).
            let (mut n1, mut n2) = (first.len(), pair.len());
            let swap = n1 > n2;
            if swap {
                std::mem::swap(&mut n1, &mut n2);
            }
            n2 = if n1 > p.max_length { n1 } else { n1.max(p.max_length - n1) };
            if n1 + n2 > p.max_length {
                n1 = p.max_length / 2;
                n2 = n1 + p.max_length % 2;
            }
            if swap {
                std::mem::swap(&mut n1, &mut n2);
            }
            first.truncate(n1, p.stride, p.direction)?;
            pair.truncate(n2, p.stride, p.direction)?;
        }
        (Strategy::LongestFirst, None) => first.truncate(total - to_remove, p.stride, p.direction)?,
        (strategy, pair) => {
            let target = match (strategy, pair) {
                (Strategy::OnlyFirst, _) => first,
                (_, Some(pair)) => pair,
                (_, None) => return Err(Error::Tokenize("Truncation error: Second sequence not provided".into())),
            };
            let len = target.len();
            if len <= to_remove {
                return Err(Error::Tokenize(
                    "Truncation error: Sequence to truncate too short to respect the provided max_length".into(),
                ));
            }
            target.truncate(len - to_remove, p.stride, p.direction)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(n: u32) -> Encoding {
        let mut e = Encoding::default();
        for i in 0..n {
            e.push(i, Some(format!("t{i}").into()), (i as usize, i as usize + 1), Some(i), 0);
        }
        e
    }

    #[test]
    fn windows_overlap_by_stride() {
        let mut e = enc(7);
        e.truncate(3, 1, Direction::Right).unwrap();
        assert_eq!(e.ids, vec![0, 1, 2]);
        let rest: Vec<Vec<u32>> = e.overflowing.iter().map(|o| o.ids.clone()).collect();
        assert_eq!(rest, vec![vec![2, 3, 4], vec![4, 5, 6]]);
        let mut e = enc(7);
        e.truncate(3, 1, Direction::Left).unwrap();
        assert_eq!(e.ids, vec![4, 5, 6]);
        assert_eq!(e.overflowing.iter().map(|o| o.ids.clone()).collect::<Vec<_>>(), vec![vec![2, 3, 4], vec![0, 1, 2]]);
    }

    #[test]
    fn stride_too_long_is_an_error_not_a_panic() {
        assert!(enc(7).truncate(3, 3, Direction::Right).is_err());
    }

    #[test]
    fn longest_first_splits_the_budget() {
        let (mut a, mut b) = (enc(5), enc(8));
        let p = TruncationParams { max_length: 7, stride: 0, strategy: Strategy::LongestFirst, direction: Direction::Right };
        truncate_encodings(&mut a, Some(&mut b), &p).unwrap();
        assert_eq!((a.len(), b.len()), (3, 4));
    }
}
