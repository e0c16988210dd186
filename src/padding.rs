//! Ragged rows padded into rectangles (transformers' `padding`): what
//! `return_tensors="np"` holds. The rectangle's size comes from the caller's
//! `max_length` and `pad_to_multiple_of`, so it is computed without overflow
//! and allocated with `try_reserve`: a size that cannot be allocated is an
//! error naming the argument, never a panic or an abort.

use crate::batch::Batch;
use crate::room::zeroed;
use crate::threads::for_each_slice;
use crate::{Error, Result};
use std::ops::Range;

/// How to pad ragged rows into a rectangle (transformers' padding).
#[derive(Clone, Copy, Debug)]
pub struct Padding {
    /// Pad to this length (`padding="max_length"`); `None`: to the longest row.
    pub to: Option<usize>,
    /// Round the length up to a multiple of this.
    pub multiple_of: Option<usize>,
    pub pad_id: u32,
    /// The token type id of padding (pairs).
    pub pad_type_id: u32,
    /// Pads before the row instead of after it.
    pub left: bool,
}

/// Rows padded to a common width, row-major: what `return_tensors="np"` holds.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Padded {
    pub width: usize,
    pub ids: Vec<i64>,
    pub attention_mask: Vec<i64>,
    /// `(start, end)` per cell when the batch has offsets; `(0, 0)` in the padding.
    pub offsets: Vec<[i64; 2]>,
    /// Token type ids per cell when the batch has them (pairs).
    pub type_ids: Option<Vec<i64>>,
}

/// Cells from which padding is split over threads (below, handing rows to
/// other threads costs more than filling them).
const PAR_MIN_CELLS: usize = 1 << 16;

impl Batch {
    /// Pads every row to the same width (rows longer than `to` are left as
    /// they are by transformers too, so the width is at least the longest
    /// row), on up to `threads` threads.
    pub fn pad(&self, p: &Padding, threads: usize) -> Result<Padded> {
        let (rows, longest, width, cells) = self.rectangle(p)?;
        let with_offsets = !self.offsets.is_empty() || self.ids.is_empty();
        let too_large = |_| too_large(rows, width as u128, longest, p);
        let mut out = Padded {
            width,
            ids: filled(cells, p.pad_id as i64).map_err(too_large)?,
            attention_mask: filled(cells, 0).map_err(too_large)?,
            offsets: if with_offsets { filled(cells, [0, 0]).map_err(too_large)? } else { Vec::new() },
            type_ids: self.type_ids.as_ref().map(|_| filled(cells, p.pad_type_id as i64)).transpose().map_err(too_large)?,
        };
        if width == 0 {
            return Ok(out);
        }
        let place = |i: usize| self.place(p, width, i);
        let at = Cells::new(rows, width, cells, threads, &place);
        at.scatter(&mut out.ids, &self.ids, |&id| id as i64)?;
        at.scatter(&mut out.attention_mask, &self.ids, |_| 1)?;
        if let (Some(types), Some(cells)) = (&self.type_ids, &mut out.type_ids) {
            at.scatter(cells, types, |&t| t as i64)?;
        }
        if !self.offsets.is_empty() {
            at.scatter(&mut out.offsets, &self.offsets, |&(s, e)| [s as i64, e as i64])?;
        }
        Ok(out)
    }

    /// [`pad`](Self::pad) without offsets, into one block of `3 x rows x
    /// width` cells: ids, token type ids (`pad_type_id` in the padding) and
    /// the attention mask, with the width. The serving path hands NumPy one
    /// buffer and takes three views of it: a small call pays for one array
    /// instead of three.
    pub fn pad_stacked(&self, p: &Padding, threads: usize) -> Result<(usize, Vec<i64>)> {
        let (rows, longest, width, cells) = self.rectangle(p)?;
        // cells * 16 bytes fits isize (rectangle), so three i64 per cell do too
        let zeros = p.pad_id == 0 && p.pad_type_id == 0;
        // A block given back by an earlier call's arrays (block_pool.rs): zeroed here, no page faults.
        let kept = crate::block_pool::BLOCKS.take(cells * 3);
        let mut block = if let Some(mut block) = kept {
            if zeros {
                // SAFETY: the kept block has room for `cells * 3` values (`take`); all-zero
                // bytes are the int64 0 (one `memset`, as `calloc` does to a reused heap block).
                unsafe {
                    std::ptr::write_bytes(block.as_mut_ptr(), 0, cells * 3);
                    block.set_len(cells * 3);
                }
            } else {
                block.resize(cells, p.pad_id as i64);
                block.resize(cells * 2, p.pad_type_id as i64);
                block.resize(cells * 3, 0);
            }
            block
        } else if zeros {
            // BERT's case: the allocator's zeroed memory (a large block comes
            // as fresh pages, unwritten), so only the cells holding ids are
            // written (filling the 786 kB block of 256 sentences padded to 128
            // was 15 % of a profile of the serving call's core).
            zeroed::<i64>(cells * 3, "padded block").map_err(|_| too_large(rows, width as u128, longest, p))?
        } else {
            let mut block = Vec::new();
            block.try_reserve_exact(cells * 3).map_err(|_| too_large(rows, width as u128, longest, p))?;
            block.resize(cells, p.pad_id as i64);
            block.resize(cells * 2, p.pad_type_id as i64);
            block.resize(cells * 3, 0);
            block
        };
        if width == 0 {
            return Ok((width, block));
        }
        let place = |i: usize| self.place(p, width, i);
        let at = Cells::new(rows, width, cells, threads, &place);
        let (ids, rest) = block.split_at_mut(cells);
        let (types, mask) = rest.split_at_mut(cells);
        if at.threads == 1 {
            // One pass over the rows writing the three planes' cells of each
            // (not a pass per plane): the row's ids are read once.
            let planes = ids.chunks_exact_mut(width).zip(types.chunks_exact_mut(width)).zip(mask.chunks_exact_mut(width));
            for (i, ((ids, types), mask)) in planes.enumerate() {
                let (from, to) = self.place(p, width, i);
                let src = &self.ids[from.clone()];
                for ((cell, m), &id) in ids[to.clone()].iter_mut().zip(&mut mask[to.clone()]).zip(src) {
                    *cell = id as i64;
                    *m = 1;
                }
                match &self.type_ids {
                    Some(t) => types[to].iter_mut().zip(&t[from]).for_each(|(cell, &t)| *cell = t as i64),
                    None if !zeros => types[to].fill(0),
                    None => {} // (all 0 already)
                }
            }
            return Ok((width, block));
        }
        at.scatter(ids, &self.ids, |&id| id as i64)?;
        match &self.type_ids {
            Some(t) => at.scatter(types, t, |&t| t as i64)?,
            None if !zeros => at.scatter(types, &self.ids, |_| 0)?,
            None => {} // (all 0 already)
        }
        at.scatter(mask, &self.ids, |_| 1)?;
        Ok((width, block))
    }

    /// Rows, longest row, width and cells of the padded rectangle.
    fn rectangle(&self, p: &Padding) -> Result<(usize, usize, usize, usize)> {
        let rows = self.row_splits.len().saturating_sub(1);
        let longest = (0..rows).map(|i| self.row_len(i)).max().unwrap_or(0);
        let (width, cells) = rectangle(rows, longest, p)?;
        Ok((rows, longest, width, cells))
    }

    fn row_len(&self, i: usize) -> usize {
        (self.row_splits[i + 1] - self.row_splits[i]) as usize
    }

    /// Row i's values (`a..a + n` of the concatenation) and where they go in its cells.
    fn place(&self, p: &Padding, width: usize, i: usize) -> (Range<usize>, Range<usize>) {
        let (a, n) = (self.row_splits[i] as usize, self.row_len(i));
        (a..a + n, if p.left { width - n..width } else { 0..n })
    }
}

/// Where each row's values go in a padded rectangle, filled `block` rows per job.
struct Cells<'a> {
    width: usize,
    block: usize,
    threads: usize,
    /// Row i's values (a range of the concatenation) and the cells they fill.
    place: &'a (dyn Fn(usize) -> (Range<usize>, Range<usize>) + Sync),
}

impl<'a> Cells<'a> {
    /// On one thread below `PAR_MIN_CELLS` cells (handing rows to other
    /// threads costs more than filling them), else in blocks of rows.
    fn new(rows: usize, width: usize, cells: usize, threads: usize, place: &'a (dyn Fn(usize) -> (Range<usize>, Range<usize>) + Sync)) -> Self {
        let threads = if cells < PAR_MIN_CELLS { 1 } else { threads };
        Cells { width, block: rows.div_ceil(threads * 4).max(1), threads, place }
    }

    /// Writes `conv(v)` of each row's values `src[..]` into its cells of `out`.
    fn scatter<S: Sync, T: Send>(&self, out: &mut [T], src: &[S], conv: impl Fn(&S) -> T + Sync) -> Result<()> {
        let fill = |b: usize, cells: &mut [T]| {
            for (r, row) in cells.chunks_mut(self.width).enumerate() {
                let (from, to) = (self.place)(b * self.block + r);
                for (cell, v) in row[to].iter_mut().zip(&src[from]) {
                    *cell = conv(v);
                }
            }
        };
        if self.threads == 1 {
            // (no hand-off to build: a serving batch's block is filled here)
            out.chunks_mut(self.block * self.width).enumerate().for_each(|(b, cells)| fill(b, cells));
            return Ok(());
        }
        for_each_slice(self.threads, out.chunks_mut(self.block * self.width).collect(), fill)
    }
}

/// The width (`to` or the longest row, rounded up to `multiple_of`) and the
/// number of cells, if a rectangle of them can be addressed at all.
fn rectangle(rows: usize, longest: usize, p: &Padding) -> Result<(usize, usize)> {
    let mut width = p.to.map_or(longest, |t| t.max(longest)) as u128;
    if let Some(m) = p.multiple_of.filter(|&m| m > 0) {
        width = width.div_ceil(m as u128) * m as u128;
    }
    // 16 bytes per cell at most (offsets), and no allocation may exceed isize::MAX bytes.
    let cells = rows as u128 * width;
    if width > usize::MAX as u128 || cells * 16 > isize::MAX as u128 {
        return Err(too_large(rows, width, longest, p));
    }
    Ok((width as usize, cells as usize))
}

/// The error for a rectangle that cannot be allocated, naming the argument that made it that wide.
fn too_large(rows: usize, width: u128, longest: usize, p: &Padding) -> Error {
    let (arg, value) = match (p.to, p.multiple_of) {
        (Some(to), _) if to > longest && (to as u128) * 2 >= width => ("max_length", to),
        (_, Some(m)) if m > longest => ("pad_to_multiple_of", m),
        _ => ("the longest row", longest),
    };
    Error::OutputTooLarge { arg, value: value as u128, rows, width }
}

/// `n` copies of `value`, or an error when they cannot be allocated.
fn filled<T: Clone>(n: usize, value: T) -> std::result::Result<Vec<T>, std::collections::TryReserveError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)?;
    v.resize(n, value);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(rows: &[&[u32]], pairs: bool) -> Batch {
        let mut b = Batch { row_splits: vec![0], ..Default::default() };
        for r in rows {
            b.ids.extend_from_slice(r);
            b.row_splits.push(b.ids.len() as u64);
        }
        if pairs {
            b.type_ids = Some(b.ids.iter().map(|&i| (i % 2) as u8).collect());
        }
        b
    }

    #[test]
    fn the_stacked_block_holds_what_pad_gives() {
        let rows: [&[u32]; 4] = [&[5, 6, 7], &[], &[9], &[1, 2, 3, 4, 5, 6, 7]];
        for pairs in [false, true] {
            let sizes = [(None, None, false), (Some(9), None, true), (None, Some(4), false), (Some(2), Some(3), true)];
            // (pad ids of 0: the block comes zeroed and only the ids' cells are written)
            for ((to, multiple_of, left), (pad_id, pad_type_id)) in sizes.into_iter().flat_map(|s| [(77, 3), (0, 0), (0, 3), (5, 0)].map(|p| (s, p))) {
                let p = Padding { to, multiple_of, pad_id, pad_type_id, left };
                let b = batch(&rows, pairs);
                let padded = b.pad(&p, 1).unwrap();
                let (width, block) = b.pad_stacked(&p, 2).unwrap();
                let cells = padded.ids.len();
                assert_eq!(width, padded.width);
                assert_eq!(block.len(), 3 * cells);
                assert_eq!(block[..cells], padded.ids[..]);
                assert_eq!(block[2 * cells..], padded.attention_mask[..]);
                // token type ids: the pairs' own, or 0; `pad_type_id` in the padding
                let types: Vec<i64> = match &padded.type_ids {
                    Some(t) => t.clone(),
                    None => padded.attention_mask.iter().map(|&m| if m == 1 { 0 } else { pad_type_id as i64 }).collect(),
                };
                assert_eq!(block[cells..2 * cells], types[..]);
            }
        }
    }

    #[test]
    fn the_one_pass_block_equals_the_shared_scatter() {
        // Enough cells (>= PAR_MIN_CELLS) for 2 threads to take the scatter: the
        // one-thread pass over rows must give the same block.
        let rows: Vec<Vec<u32>> = (0..700u32).map(|i| (0..(i * 7919) % 97).map(|k| 1000 + i + k).collect()).collect();
        let rows: Vec<&[u32]> = rows.iter().map(|r| &r[..]).collect();
        for pairs in [false, true] {
            let b = batch(&rows, pairs);
            for (to, left, pad_id, pad_type_id) in [(Some(128), false, 0, 0), (Some(100), true, 0, 0), (None, false, 77, 3), (Some(120), true, 5, 0)] {
                let p = Padding { to, multiple_of: None, pad_id, pad_type_id, left };
                let (width, one) = b.pad_stacked(&p, 1).unwrap();
                assert!(rows.len() * width >= PAR_MIN_CELLS);
                let (width2, shared) = b.pad_stacked(&p, 2).unwrap();
                assert_eq!((width, &one), (width2, &shared));
                let padded = b.pad(&p, 1).unwrap();
                let cells = padded.ids.len();
                assert_eq!(one[..cells], padded.ids[..]);
                assert_eq!(one[2 * cells..], padded.attention_mask[..]);
            }
        }
    }

    #[test]
    fn a_block_from_the_pool_holds_what_a_fresh_one_does() {
        // 256 rows of up to 60 ids padded to 100: a 600 kB block, of a size the pool keeps
        let rows: Vec<Vec<u32>> = (0..256u32).map(|i| (0..(i * 31) % 60).map(|k| 7 + i + k).collect()).collect();
        let rows: Vec<&[u32]> = rows.iter().map(|r| &r[..]).collect();
        let b = batch(&rows, false);
        for (pad_id, pad_type_id) in [(0, 0), (9, 4)] {
            let p = Padding { to: Some(100), multiple_of: None, pad_id, pad_type_id, left: pad_id > 0 };
            let (_, want) = b.pad_stacked(&p, 1).unwrap();
            let mut used = want.clone();
            used.fill(-5); // a caller's writes
            crate::block_pool::BLOCKS.give_back(used);
            let (_, got) = b.pad_stacked(&p, 1).unwrap(); // (the pool's block, unless another test took it)
            assert_eq!(got, want);
        }
    }

    #[test]
    fn a_block_too_large_is_an_error_naming_the_argument() {
        let p = Padding { to: Some(usize::MAX / 4), multiple_of: None, pad_id: 0, pad_type_id: 0, left: false };
        let err = batch(&[&[1, 2]], false).pad_stacked(&p, 1).unwrap_err();
        assert!(err.to_string().contains("max_length"), "{err}");
    }
}
