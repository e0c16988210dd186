//! Padding after the post-processor, as HF tokenizers' `utils/padding.rs` and
//! `Encoding::pad` (the general pipeline's; the BERT path's is src/padding.rs).

use super::truncation::Direction;
use crate::encoding::Encoding;
use crate::{Error, Result};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaddingParams {
    /// `Some(n)`: HF's `Fixed(n)`; `None`: `BatchLongest`.
    pub length: Option<usize>,
    pub direction: Direction,
    pub pad_to_multiple_of: Option<usize>,
    pub pad_id: u32,
    pub pad_type_id: u32,
    pub pad_token: String,
}

impl Encoding {
    /// HF's `Encoding::pad`: the overflowing pieces first, then this one if shorter.
    pub fn pad(&mut self, target: usize, p: &PaddingParams) -> Result<()> {
        for o in &mut self.overflowing {
            o.pad(target, p)?;
        }
        let Some(n) = target.checked_sub(self.len()).filter(|&n| n > 0) else {
            return Ok(());
        };
        // A huge `length` is an error, never an abort.
        fn grow<T: Clone>(v: &mut Vec<T>, n: usize, value: T, left: bool) -> Result<()> {
            v.try_reserve(n).map_err(|_| Error::OutOfMemory { what: "padding", bytes: (n as u128) * std::mem::size_of::<T>() as u128 })?;
            if left {
                v.splice(0..0, std::iter::repeat_n(value, n));
            } else {
                v.extend(std::iter::repeat_n(value, n));
            }
            Ok(())
        }
        let left = p.direction == Direction::Left;
        grow(&mut self.ids, n, p.pad_id, left)?;
        grow(&mut self.type_ids, n, p.pad_type_id, left)?;
        grow(&mut self.tokens, n, Some(p.pad_token.as_str().into()), left)?;
        grow(&mut self.words, n, None, left)?;
        grow(&mut self.attention_mask, n, 0, left)?;
        grow(&mut self.special_tokens_mask, n, 1, left)?;
        grow(&mut self.offsets, n, (0, 0), left)?;
        if left {
            for r in self.sequence_ranges.values_mut() {
                *r = r.start + n..r.end + n;
            }
        }
        Ok(())
    }
}

/// HF's `pad_encodings`: to the fixed length or the longest, rounded up to a multiple.
pub fn pad_encodings(encodings: &mut [Encoding], p: &PaddingParams) -> Result<()> {
    let Some(longest) = encodings.iter().map(Encoding::len).max() else {
        return Ok(());
    };
    let mut target = p.length.unwrap_or(longest);
    if let Some(m) = p.pad_to_multiple_of.filter(|&m| m > 0) {
        if !target.is_multiple_of(m) {
            target = target.saturating_add(m - target % m);
        }
    }
    encodings.iter_mut().try_for_each(|e| e.pad(target, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_left_and_shifts_ranges() {
        let mut e = Encoding::default();
        e.push(7, Some("a".into()), (0, 1), Some(0), 0);
        e.set_sequence_id(0);
        let p = PaddingParams { length: None, direction: Direction::Left, pad_to_multiple_of: Some(4), pad_id: 1, pad_type_id: 2, pad_token: "<pad>".into() };
        pad_encodings(std::slice::from_mut(&mut e), &p).unwrap();
        assert_eq!(e.ids, vec![1, 1, 1, 7]);
        assert_eq!(e.attention_mask, vec![0, 0, 0, 1]);
        assert_eq!(e.sequence_ids(), vec![None, None, None, Some(0)]);
    }
}
