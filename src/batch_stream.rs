//! A one-thread bulk call whose texts are read a chunk at a time: the caller
//! (the Python binding, which must hold the GIL to read a str's UTF-8) reads
//! a chunk of rows, the chunk is encoded at once, while the bytes the reading
//! touched are still in the cache, and then the caller gives its references
//! back (their headers still in the cache). The whole list used to be read
//! first: 8 MB of str headers and text went out of L2 before the encoder
//! (and then the references' release) came back for them. The rows, and so
//! the output, are those of [`encode_batch`](crate::batch::encode_batch) on
//! one thread.

use crate::batch::{encode_rows, encode_rows_offsets, finish, guess, Batch, BatchOptions, Needles, Part, Plan};
use crate::run_output::RunBuffer;
use crate::tokenizer::FullTokenizer;
use crate::{Error, Result};

/// A batch of `rows` rows encoded chunk by chunk, in order, on the calling thread.
pub struct Streamed<'n> {
    needles: Needles<'n>,
    opts: BatchOptions,
    part: Part,
    rows: usize,
    done: usize,
}

impl<'n> Streamed<'n> {
    pub fn new(rows: usize, opts: BatchOptions, needles: &[&'n [u8]]) -> Self {
        Streamed { needles: Needles::new(needles), opts, part: Part::default(), rows, done: 0 }
    }

    /// Encodes the next rows' texts (rows `done..done + texts.len()`).
    pub fn encode(&mut self, tok: &FullTokenizer, texts: &[&[u8]]) -> Result<()> {
        if texts.len() > self.rows - self.done {
            return Err(Error::Tokenize(format!("internal error: {} rows past a batch of {}", texts.len(), self.rows)));
        }
        if self.done == 0 && !texts.is_empty() {
            // Room for the whole batch's ids, guessed from the first chunk's (with a
            // quarter more: a short guess costs a copy of the ids made so far).
            let room = guess(texts, None).saturating_mul(self.rows) / texts.len();
            self.part.make_output_room(room.saturating_add(room / 4), self.opts.offsets, self.rows)?;
        }
        match self.opts.offsets {
            true => encode_rows_offsets(tok, texts, &self.opts, &self.needles, self.done, &mut self.part)?,
            false => encode_rows(tok, texts, None, &self.opts, &self.needles, true, self.done, &mut self.part)?,
        }
        self.done += texts.len();
        Ok(())
    }

    /// The batch, once every row was encoded.
    pub fn finish(self) -> Result<Batch> {
        if self.done != self.rows {
            return Err(Error::Tokenize(format!("internal error: {} of {} rows encoded", self.done, self.rows)));
        }
        let mut run = RunBuffer::new(self.part);
        run.take(0);
        finish(vec![run], vec![Ok(None)], &Plan::new(1, self.rows), false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::{encode_batch, tests::tok};

    #[test]
    fn a_streamed_batch_equals_the_batch_read_first_whatever_its_chunks() {
        let tok = tok();
        let words = ["hello", "worlds", ",", "xyz", "Hello", "[MASK]", "world"];
        let owned: Vec<Vec<u8>> =
            (0..1_000).map(|k| (0..(k * 7) % 13).map(|i| words[(k * 31 + i * 17) % words.len()]).collect::<Vec<_>>().join(" ").into_bytes()).collect();
        let all: Vec<&[u8]> = owned.iter().map(|t| t.as_slice()).collect();
        for offsets in [false, true] {
            let opts = BatchOptions { special: Some((2, 3)), max_length: if offsets { None } else { Some(9) }, offsets, ..Default::default() };
            let expected = encode_batch(&tok, &all, opts, &[b"[MASK]"], Some(1)).unwrap();
            assert!(!expected.flagged.is_empty());
            // one chunk, chunks of one row, uneven chunks (the first one empty, then a short one)
            for cuts in [vec![1_000], vec![1; 1_000], vec![0, 3, 500, 0, 497]] {
                let mut s = Streamed::new(all.len(), opts, &[b"[MASK]"]);
                let mut at = 0;
                for n in &cuts {
                    s.encode(&tok, &all[at..at + n]).unwrap();
                    at += n;
                }
                assert_eq!(s.finish().unwrap(), expected, "offsets {offsets}, {} chunks", cuts.len());
            }
        }
        // too many rows, or too few, is an error, not a batch
        let mut s = Streamed::new(2, BatchOptions::default(), &[]);
        assert!(s.encode(&tok, &all[..3]).is_err());
        s.encode(&tok, &all[..1]).unwrap();
        assert!(s.finish().is_err());
    }
}
