//! Encoding a list of texts (sentencepiece's `encode` of a list). The list is
//! cut into contiguous slices of about equal text; each job encodes one slice
//! into one flat buffer of ids (no vector per text), reusing one set of
//! buffers and, through the thread's word cache, the words every earlier
//! slice on that thread met (and, once shared, the words the calling thread
//! met first: see [`super::words::share`]). Jobs are taken in turn by the threads, so a
//! thread slowed by other work takes fewer.

use super::{EncodeBuffers, Processor};
use crate::room::make_room;
use crate::threads;
use std::ops::Range;

/// Slices per thread: enough for threads of unequal speed to balance.
const SLICES_PER_THREAD: usize = 8;
/// No slice is cut shorter than this much text (bytes), nor longer than the
/// larger: short slices cost a job each, long ones balance badly.
const MIN_SLICE_BYTES: usize = 16 << 10;
const MAX_SLICE_BYTES: usize = 1 << 20;
/// About the share of a 2-thread list encode spent making its Python lists,
/// which only the calling thread can do: it stops taking slices when about
/// that much work per other thread is left (the balance of `t` threads: the
/// caller encodes `(E - (t-1)·L) / t`, the others `(E + L) / t` each). 15 %
/// measured best of 0 and 15 % on ids, and no worse than 30 % on pieces,
/// whose lists cost more (English, 2 threads at real-time priority).
const LISTS_SHARE_PERCENT: usize = 15;

/// The encoding of one slice of the list.
#[derive(Default, Debug, PartialEq, Eq)]
pub struct Rows {
    /// The ids of every text of the slice, one after the other.
    pub ids: Vec<u32>,
    /// Where each text's ids end in `ids`.
    pub ends: Vec<usize>,
    /// Kept only when pieces are asked for: (index in `ids`, piece) of each
    /// piece whose text is not its id's own piece (an unknown run's text).
    pub surfaces: Vec<(usize, String)>,
}

/// What sentencepiece's list encode does to each text's result besides
/// encoding it (its wrapper's RewriteIds), done here in each slice's job so
/// that a list with these options is encoded as much in parallel as without.
#[derive(Clone, Copy, Debug, Default)]
pub struct RowOptions {
    /// Keep the pieces that are not their id's own (for pieces out).
    pub pieces: bool,
    /// The ids put first and last (add_bos, add_eos: the model's bos/eos id).
    pub bos: Option<u32>,
    pub eos: Option<u32>,
    /// Each text's pieces in reverse order (before bos and eos are added).
    pub reverse: bool,
    /// emit_unk_piece: a piece that PieceToId maps to unk is spelled as the unk piece.
    pub emit_unk_piece: bool,
}

/// Contiguous ranges of `texts`, each of about `total / (threads * 8)` bytes
/// (within the bounds above), covering the list in order.
pub fn slices<S: AsRef<str>>(texts: &[S], threads: usize) -> Vec<Range<usize>> {
    let total: usize = texts.iter().map(|t| t.as_ref().len()).sum();
    let target = (total / (threads.max(1) * SLICES_PER_THREAD)).clamp(MIN_SLICE_BYTES, MAX_SLICE_BYTES);
    let (mut out, mut start, mut bytes) = (Vec::new(), 0, 0);
    for (k, text) in texts.iter().enumerate() {
        bytes += text.as_ref().len();
        if bytes >= target {
            out.push(start..k + 1);
            (start, bytes) = (k + 1, 0);
        }
    }
    if start < texts.len() {
        out.push(start..texts.len());
    }
    out
}

impl Processor {
    /// The ids of every text (and, with `pieces`, the pieces that are not
    /// their id's own), as one [`Rows`] per slice, handed to `ready` slice
    /// after slice, in order, on the calling thread as soon as each is done
    /// (while other threads still encode later slices).
    pub fn encode_batch<S: AsRef<str> + Sync>(&self, texts: &[S], threads: usize, options: RowOptions, mut ready: impl FnMut(Rows)) -> crate::Result<()> {
        let slices = slices(texts, threads);
        let reserve = slices.len() * threads.saturating_sub(1) * LISTS_SHARE_PERCENT / 100;
        // a slice that fails (no memory) hands no rows on, nor do the slices after it
        let mut failed = None;
        threads::run_jobs_in_order(threads, slices.len(), reserve, |k| self.encode_slice(&texts[slices[k].clone()], options), |_, rows| {
            match rows {
                Ok(rows) if failed.is_none() => ready(rows),
                Ok(_) => {}
                Err(e) => _ = failed.get_or_insert(e),
            }
        })?;
        // The calling thread's words, if enough, become the ones every thread reads first.
        super::words::share(self);
        failed.map_or(Ok(()), Err)
    }

    fn encode_slice<S: AsRef<str>>(&self, texts: &[S], o: RowOptions) -> crate::Result<Rows> {
        const WHAT: &str = "sentencepiece ids";
        let bytes: usize = texts.iter().map(|t| t.as_ref().len()).sum();
        let extra = usize::from(o.bos.is_some()) + usize::from(o.eos.is_some());
        let mut rows = Rows::default();
        make_room(&mut rows.ids, bytes / 3 + texts.len() * (1 + extra), WHAT)?;
        make_room(&mut rows.ends, texts.len(), WHAT)?;
        let mut buffers = EncodeBuffers::default();
        for text in texts {
            let Rows { ids, surfaces, .. } = &mut rows;
            self.encode_spans(text.as_ref(), &mut buffers)?;
            make_room(ids, buffers.most_pieces() + extra, WHAT)?;
            ids.extend(o.bos);
            let (start, first_surface) = (ids.len(), surfaces.len());
            self.emit(&buffers, |piece, id| {
                // A piece of the model's own text is its id's piece (its PieceToId is never unk
                // unless it is the unk piece); only an unknown run's text differs.
                if o.pieces && self.proto.pieces.get(id as usize).is_none_or(|p| p.piece != piece) {
                    let unk = o.emit_unk_piece && self.piece_to_id(piece) == self.unk_id;
                    // Spelled as the unk piece: that is unk's own piece, so no surface for an unk id.
                    if !(unk && id == self.unk_id) {
                        let unk_piece = self.proto.pieces.get(self.unk_id as usize).map(|p| p.piece.as_str());
                        surfaces.push((ids.len(), unk_piece.filter(|_| unk).unwrap_or(piece).to_string()));
                    }
                }
                ids.push(id);
            });
            if o.reverse {
                let end = ids.len();
                ids[start..].reverse();
                // The text's surfaces move with their pieces, and stay in index order.
                surfaces[first_surface..].reverse();
                surfaces[first_surface..].iter_mut().for_each(|(at, _)| *at = start + end - 1 - *at);
            }
            ids.extend(o.eos);
            rows.ends.push(rows.ids.len());
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_cover_the_list_in_order() {
        let texts: Vec<String> = (0..5000).map(|k| "x".repeat(k % 97)).collect();
        for threads in [1, 2, 3, 64] {
            let cut = slices(&texts, threads);
            assert_eq!(cut.first().map(|r| r.start), Some(0));
            assert_eq!(cut.last().map(|r| r.end), Some(texts.len()));
            assert!(cut.windows(2).all(|w| w[0].end == w[1].start && w[0].start < w[0].end));
        }
        assert!(slices(&Vec::<String>::new(), 2).is_empty());
        // Empty texts still form a slice.
        assert_eq!(slices(&vec![String::new(); 3], 2), vec![0..3]);
    }
}
