//! The post-processor's fast path: when no encoding has overflowing pieces
//! (no truncation cut anything), the special tokens are put around the first
//! sequence's own columns in place (room reserved by the caller, no
//! allocation) instead of HF's steps of one `Encoding` per special token merged
//! one after the other (`process_merged`). Same result, field by field:
//! in_place_tests.rs checks the two on every processor kind, and the Python
//! tests check both against tokenizers 0.23.3.

use super::{trim_offsets, Piece, PostProcessor};
use crate::encoding::{Encoding, TokenVocab};

/// What the fast path made of the encodings.
// Not boxed: the value is matched and moved out at once, and a box would allocate on every call.
#[allow(clippy::large_enum_variant)]
pub(super) enum InPlace {
    Done(Encoding),
    /// The encodings, unchanged, for the general steps.
    Declined(Vec<Encoding>),
}

/// One part of the processed encoding, in order.
#[derive(Clone, Copy)]
enum Part<'a> {
    /// Input sequence 0 or 1 (its encoding, after this processor's changes).
    Seq(usize),
    /// Special tokens: ids and texts, with their type id.
    Special { ids: &'a [u32], texts: &'a [String], type_id: u32 },
}

impl PostProcessor {
    /// [`PostProcessor::process`] laid out in place, or the encodings unchanged where
    /// the general steps are needed: overflowing pieces, a template naming a sequence
    /// twice or B before A (or more than 8 parts), a `Sequence` other than byte-level
    /// trims then one processor.
    pub(super) fn process_in_place(&self, mut first: Encoding, second: Option<Encoding>, add_special_tokens: bool, vocab: &(impl TokenVocab + ?Sized)) -> crate::Result<InPlace> {
        let declined = |first, second: Option<Encoding>| Ok(InPlace::Declined([Some(first), second].into_iter().flatten().collect()));
        if !first.overflowing.is_empty() || second.as_ref().is_some_and(|e| !e.overflowing.is_empty()) {
            return declined(first, second);
        }
        // A Sequence: its leading ByteLevel steps only trim offsets (and set the
        // sequence ids step 1 already set); the last step lays out the parts.
        let (trims, last): (&[PostProcessor], &PostProcessor) = match self {
            PostProcessor::Sequence(ps) => match ps.split_last() {
                Some((last, trims)) if trims.iter().all(|p| matches!(p, PostProcessor::ByteLevel { .. })) => (trims, last),
                _ => return declined(first, second),
            },
            p => (&[], p),
        };
        let mut parts = Parts::default();
        if last.layout(1 + usize::from(second.is_some()), add_special_tokens, &mut parts).is_none() {
            return declined(first, second);
        }
        let mut pair;
        let encodings = match second {
            None => std::slice::from_mut(&mut first),
            Some(second) => {
                pair = [first, second];
                &mut pair[..]
            }
        };
        // HF's step 1 (`process`): sequence i gets sequence id i and type id i.
        for (i, e) in encodings.iter_mut().enumerate() {
            e.set_sequence_id(i);
            if e.type_ids.iter().any(|&t| t != i as u32) {
                e.set_type_ids(i as u32);
            }
        }
        for p in trims {
            if let PostProcessor::ByteLevel { add_prefix_space, trim_offsets: true } = p {
                encodings.iter_mut().for_each(|e| trim_offsets(e, *add_prefix_space, vocab));
            }
        }
        last.adjust(encodings, add_special_tokens, vocab);
        assemble(encodings, parts.as_slice(), vocab).map(InPlace::Done)
    }

    /// The parts this (non-Sequence) processor puts in order; None for an order the
    /// in-place assembly does not take (a sequence twice, B before A, no A, too many parts).
    fn layout<'a>(&'a self, n: usize, add_special_tokens: bool, parts: &mut Parts<'a>) -> Option<()> {
        let one = |(t, id): &'a (String, u32), type_id| Part::Special { ids: std::slice::from_ref(id), texts: std::slice::from_ref(t), type_id };
        match self {
            PostProcessor::Sequence(_) => return None,
            PostProcessor::ByteLevel { .. } => parts.extend((0..n).map(Part::Seq))?,
            PostProcessor::Roberta { .. } | PostProcessor::Bert { .. } if !add_special_tokens => parts.extend((0..n).map(Part::Seq))?,
            PostProcessor::Roberta { sep, cls, .. } => {
                for i in 0..n {
                    parts.extend([one(if i == 0 { cls } else { sep }, 0), Part::Seq(i), one(sep, 0)])?;
                }
            }
            PostProcessor::Bert { sep, cls } => {
                parts.push(one(cls, 0))?;
                for i in 0..n {
                    parts.extend([Part::Seq(i), one(sep, u32::from(i > 0))])?;
                }
            }
            PostProcessor::Template { single, pair, special_tokens } => {
                for piece in if n == 2 { pair } else { single } {
                    match piece {
                        Piece::Sequence { pair, .. } if usize::from(*pair) < n => parts.push(Part::Seq(usize::from(*pair)))?,
                        Piece::Sequence { .. } => {}
                        Piece::SpecialToken { id, type_id, .. } => {
                            if let (true, Some(t)) = (add_special_tokens, special_tokens.get(id)) {
                                parts.push(Part::Special { ids: &t.ids, texts: &t.tokens, type_id: *type_id })?;
                            }
                        }
                    }
                }
            }
        }
        let mut seqs = parts.as_slice().iter().filter_map(|p| if let Part::Seq(i) = p { Some(*i) } else { None });
        matches!((seqs.next(), seqs.next(), seqs.next()), (Some(0), None | Some(1), None)).then_some(())
    }

    /// What this processor does to each sequence's own columns before they are laid out
    /// (as `process_encodings` does before its merge).
    fn adjust(&self, encodings: &mut [Encoding], add_special_tokens: bool, vocab: &(impl TokenVocab + ?Sized)) {
        // HF's sequence ranges leave the special tokens out: each sequence's is reset to all of its tokens.
        let reset_ranges = |encodings: &mut [Encoding]| {
            for (i, e) in encodings.iter_mut().enumerate() {
                e.sequence_ranges.clear();
                e.set_sequence_id(i);
            }
        };
        match self {
            PostProcessor::ByteLevel { add_prefix_space, trim_offsets: trim } => {
                if *trim {
                    encodings.iter_mut().for_each(|e| trim_offsets(e, *add_prefix_space, vocab));
                }
            }
            PostProcessor::Roberta { add_prefix_space, trim_offsets: trim, .. } => {
                if *trim {
                    encodings.iter_mut().for_each(|e| trim_offsets(e, *add_prefix_space, vocab));
                }
                encodings.iter_mut().for_each(|e| e.set_type_ids(0));
                if add_special_tokens {
                    reset_ranges(encodings);
                }
            }
            PostProcessor::Bert { .. } if add_special_tokens => {
                reset_ranges(encodings);
                encodings.iter_mut().for_each(|e| e.special_tokens_mask.fill(0));
            }
            PostProcessor::Template { single, pair, .. } => {
                for piece in if encodings.len() == 2 { pair } else { single } {
                    if let Piece::Sequence { pair, type_id } = piece {
                        if let Some(e) = encodings.get_mut(usize::from(*pair)) {
                            e.set_type_ids(*type_id);
                        }
                    }
                }
            }
            PostProcessor::Bert { .. } | PostProcessor::Sequence(_) => {}
        }
    }
}

/// The parts in order into one encoding, sequence 0's columns taken as the buffer:
/// equal to `Encoding::merge` of the parts as encodings (none has overflowing pieces).
fn assemble(encodings: &mut [Encoding], parts: &[Part], vocab: &(impl TokenVocab + ?Sized)) -> crate::Result<Encoding> {
    let (out, second) = match encodings {
        [a] => (a, None),
        [a, b] => (a, Some(b)),
        _ => return Ok(Encoding::default()),
    };
    let mut out = std::mem::take(out);
    let mut second = second.map(std::mem::take);
    let total = parts
        .iter()
        .map(|p| match p {
            Part::Seq(0) => 0,
            Part::Seq(_) => second.as_ref().map_or(0, Encoding::len),
            Part::Special { ids, .. } => ids.len(),
        })
        .sum::<usize>();
    // the second sequence can be as large as memory: the room made fallibly, then no allocation below
    out.reserve(total)?;
    let lead_len = lead_specials(parts).count();
    if lead_len > 0 {
        // appended, then rotated to the front (room reserved above: no allocation)
        prepend(&mut out.ids, lead_specials(parts).map(|s| s.0));
        prepend(&mut out.tokens, lead_specials(parts).map(|s| vocab.own(s.0, s.1)));
        prepend(&mut out.type_ids, lead_specials(parts).map(|s| s.2));
        prepend(&mut out.words, std::iter::repeat_n(None, lead_len));
        prepend(&mut out.offsets, std::iter::repeat_n((0, 0), lead_len));
        prepend(&mut out.special_tokens_mask, std::iter::repeat_n(1, lead_len));
        prepend(&mut out.attention_mask, std::iter::repeat_n(1, lead_len));
        for r in out.sequence_ranges.values_mut() {
            *r = r.start + lead_len..r.end + lead_len;
        }
    }
    for p in parts.iter().skip_while(|p| !matches!(p, Part::Seq(_))).skip(1) {
        match p {
            Part::Seq(_) => {
                if let Some(b) = second.take() {
                    out.append_columns(b)?;
                }
            }
            Part::Special { ids, texts, type_id } => {
                for (&id, t) in ids.iter().zip(texts.iter()) {
                    out.ids.push(id);
                    out.tokens.push(vocab.own(id, t));
                    out.type_ids.push(*type_id);
                    out.words.push(None);
                    out.offsets.push((0, 0));
                    out.special_tokens_mask.push(1);
                    out.attention_mask.push(1);
                }
            }
        }
    }
    Ok(out)
}

/// The special tokens before the first sequence, as (id, text, type id).
fn lead_specials<'p>(parts: &'p [Part<'p>]) -> impl Iterator<Item = (u32, &'p str, u32)> {
    parts.iter().take_while(|p| !matches!(p, Part::Seq(_))).flat_map(|p| {
        let (ids, texts, type_id): (&[u32], &[String], u32) = match p {
            Part::Special { ids, texts, type_id } => (ids, texts, *type_id),
            Part::Seq(_) => (&[], &[], 0),
        };
        ids.iter().zip(texts).map(move |(&id, t)| (id, t.as_str(), type_id))
    })
}

/// `values` put before `v`'s elements.
fn prepend<T>(v: &mut Vec<T>, values: impl Iterator<Item = T>) {
    let n = v.len();
    v.extend(values);
    let k = v.len() - n;
    v.rotate_right(k);
}

/// Up to 8 parts, inline (a longer template takes the general steps).
struct Parts<'a> {
    items: [Part<'a>; 8],
    n: usize,
}

impl Default for Parts<'_> {
    fn default() -> Self {
        Parts { items: [Part::Seq(0); 8], n: 0 }
    }
}

impl<'a> Parts<'a> {
    fn push(&mut self, p: Part<'a>) -> Option<()> {
        *self.items.get_mut(self.n)? = p;
        self.n += 1;
        Some(())
    }

    fn extend(&mut self, ps: impl IntoIterator<Item = Part<'a>>) -> Option<()> {
        ps.into_iter().try_for_each(|p| self.push(p))
    }

    fn as_slice(&self) -> &[Part<'a>] {
        &self.items[..self.n]
    }
}

#[cfg(test)]
#[path = "in_place_tests.rs"]
mod tests;
